package importer

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// OutputError is an output that cannot take the flows (`rpa import -o`):
// several flows and no folder, or a file that exists already (without
// force).
type OutputError struct{ Msg string }

// Error is Msg.
func (e *OutputError) Error() string { return e.Msg }

// Write puts the flows imported from in where out says, each as its
// canonical text, all rendered and loaded back first (Texts: a flow that
// does not check is a *TextError): out "" is w, for one flow only; a .flow
// file that is not a folder takes one flow; anything else is a folder
// (made when missing) that gets NAME.flow per flow. It returns where they
// went ("stdout" for w). Several flows without a folder are an
// *OutputError, and so is a file to write that exists already, unless
// force (it would be replaced: a hand-written flow of the same NAME
// lost). Nothing is written on a *TextError or an *OutputError.
func Write(w io.Writer, out, in string, flows []*Flow, force bool) (string, error) {
	texts, err := Texts(flows)
	if err != nil {
		return "", err
	}
	toDir := out != "" && (len(flows) > 1 || !strings.HasSuffix(out, ".flow") || isDir(out))
	switch {
	case out == "" && len(flows) > 1:
		return "", &OutputError{fmt.Sprintf("%s holds %d tests: name a folder with -o DIR (one .flow per test)", in, len(flows))}
	case out == "":
		_, err := w.Write(texts[0])
		return "stdout", err
	case !toDir:
		if err := Refuse(force, out); err != nil {
			return "", err
		}
		return out, os.WriteFile(out, texts[0], 0o644)
	case strings.HasSuffix(out, ".flow") && !isDir(out):
		return "", &OutputError{fmt.Sprintf("%s holds %d tests: -o must be a folder, not %s", in, len(flows), out)}
	}
	paths := make([]string, len(flows))
	for i, f := range flows {
		paths[i] = filepath.Join(out, f.Name+".flow")
	}
	if err := Refuse(force, paths...); err != nil {
		return "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for i, f := range flows {
		if err := os.WriteFile(filepath.Join(out, f.Name+".flow"), texts[i], 0o644); err != nil {
			return "", err
		}
	}
	return out, nil
}

// Refuse is an *OutputError naming the first of paths that exists (any
// file, or a folder), nil when none does or force: `rpa import` and `rpa
// record` replace a flow only when told to (--force).
func Refuse(force bool, paths ...string) error {
	if force {
		return nil
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return &OutputError{fmt.Sprintf("%s exists: it would be replaced (write elsewhere with -o, or pass --force)", p)}
		}
	}
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
