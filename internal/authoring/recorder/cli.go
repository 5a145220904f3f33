package recorder

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
	"github.com/rpa-dev/rpa/lang/diag"
)

// ParamList collects repeated NAME=SELECTOR values (the --param flag of
// `rpa record`) as Params; it is a flag.Value.
type ParamList []Param

// String shows the params given so far.
func (p *ParamList) String() string { return fmt.Sprint(*p) }

// Set adds one NAME=SELECTOR; both sides are trimmed and must not be
// empty, and NAME must be able to name a param (paramName).
func (p *ParamList) Set(v string) error {
	name, sel, ok := strings.Cut(v, "=")
	name, sel = strings.TrimSpace(name), strings.TrimSpace(sel)
	if !ok || name == "" || sel == "" {
		return fmt.Errorf("want NAME=SELECTOR, got %q", v)
	}
	if err := paramName(name); err != nil {
		return err
	}
	*p = append(*p, Param{Name: name, Selector: sel})
	return nil
}

// paramName refuses a name that cannot name a param: not an identifier
// ("1abc", "a-b"), or reserved ("if", "page"; check.Reserved).
func paramName(name string) error {
	if !check.IsIdent(name) {
		return fmt.Errorf("param name %s is not a name: letters, digits and _, not starting with a digit", lang.Echo(name))
	}
	if check.Reserved[name] {
		return fmt.Errorf("param name %q is reserved (a word of the language or a builtin): choose another", name)
	}
	return nil
}

// NameFor is the flow NAME of a recording written to path: its base name
// made an identifier (importer.FlowName), else "recorded".
func NameFor(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if n := importer.FlowName(base); n != "" {
		return n
	}
	return "recorded"
}

// Wait blocks until the recording browser is closed or ctx ends, then
// stops the session and returns the flow (Stop).
func (s *Session) Wait(ctx context.Context) (*ast.File, diag.Diagnostics) {
	select {
	case <-s.Done():
	case <-ctx.Done():
	}
	return s.Stop()
}
