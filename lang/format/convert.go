package format

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/yamlflow"
)

// Converted is a flow file printed in a target form (`rpa fmt`).
type Converted struct {
	Out []byte
	// Dest is where the text belongs: the file's own path when the form
	// is unchanged, else the path with the other extension (.flow, .yaml).
	Dest string
	// Notes name the comments that are not kept ("PATH: N comments are
	// not kept in YAML"): .flow to YAML, and any YAML input.
	Notes []string
}

// Convert prints f, parsed from src read at path, in the form to: "flow"
// (canonical .flow, Flow), "yaml" (yamlflow.Write), or "" for the file's
// own form (by its extension). Comments survive .flow to .flow only.
func Convert(path string, src []byte, f *ast.File, to string) Converted {
	isYAML := strings.ToLower(filepath.Ext(path)) != ".flow"
	if to == "" {
		to = "flow"
		if isYAML {
			to = "yaml"
		}
	}
	c := Converted{Dest: path}
	if isYAML {
		if n := yamlflow.CountComments(src); n > 0 {
			what := "comments are"
			if n == 1 {
				what = "comment is"
			}
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d %s not kept (fmt does not carry YAML comments)", path, n, what))
		}
	}
	if to == "yaml" {
		if len(f.Comments) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d comments are not kept in YAML", path, len(f.Comments)))
		}
		c.Out = yamlflow.Write(f)
	} else {
		c.Out = Flow(f)
	}
	if to == "yaml" && !isYAML {
		c.Dest = strings.TrimSuffix(path, filepath.Ext(path)) + ".yaml"
	} else if to == "flow" && isYAML {
		c.Dest = strings.TrimSuffix(path, filepath.Ext(path)) + ".flow"
	}
	return c
}
