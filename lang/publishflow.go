package lang

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/lang/diag"
)

// PublishError says why Publish refused a flow: it does not load in the served folder
// (Diags), it would break flows there that call it (Broken, then Diags), or another file of the
// folder already declares its NAME (Clash).
type PublishError struct {
	// Dest is the file Publish was to write.
	Dest string
	// Clash is the other file declaring the flow's NAME ("" otherwise).
	Clash string
	// Broken names the flows of the folder that would stop loading.
	Broken []string
	// Diags are dest's diagnostics, then those of the broken flows.
	Diags diag.Diagnostics
}

// Error is a one-line summary (the diagnostics follow in Diags).
func (e *PublishError) Error() string {
	dir := filepath.Dir(e.Dest)
	switch {
	case e.Clash != "":
		return fmt.Sprintf("%s already declares this flow's NAME; unpublish it first or choose another name", e.Clash)
	case len(e.Broken) > 0:
		return fmt.Sprintf("with %s in %s, %s would stop loading", filepath.Base(e.Dest), dir, strings.Join(e.Broken, ", "))
	}
	return fmt.Sprintf("%s would not load in %s", filepath.Base(e.Dest), dir)
}

// Publish writes src, the text of a flow, to dest, a file of the served folder, the way `rpa
// publish` does: the flow must load there (its `call` targets resolved among the folder's flows,
// LoadInFolder), must not break a flow of the folder that calls it, and its NAME must not be
// declared by another file of the folder (dest itself may declare it: publishing over a file
// replaces it). The file is written atomically (a watching server never reads half a flow), with
// mode 0600 when new, else keeping its mode. A refusal is a *PublishError; the folder is made if
// missing.
func Publish(dest string, src []byte) error {
	dir := filepath.Dir(dest)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if pf, _ := Parse(dest, src); pf != nil && pf.Name != "" {
		if other, err := FindFlow(dir, pf.Name); err == nil && !sameFile(other, dest) {
			return &PublishError{Dest: dest, Clash: other}
		} else if err != nil && !errors.Is(err, ErrNoFlow) {
			return err
		}
	}
	if f, broken, ds := LoadInFolder(dest, src); f == nil || len(broken) > 0 {
		return &PublishError{Dest: dest, Broken: broken, Diags: ds}
	}
	perm := os.FileMode(0o600)
	if st, err := os.Stat(dest); err == nil {
		perm = st.Mode().Perm()
	}
	return atomicfile.Write(dest, src, perm)
}
