package interp

import "github.com/rpa-dev/rpa/lang/ast"

// SecretValues returns the non-empty values args gives the secret params of
// f, in the params' order (what a run masks and a profile is scrubbed of).
func SecretValues(f *ast.File, args map[string]any) []string {
	var out []string
	for _, p := range f.Params {
		if p.Type != nil && p.Type.Name == "secret" {
			if s, ok := args[p.Name].(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}
