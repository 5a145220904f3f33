package mcpserver

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rpa-dev/rpa/internal/columns"
	"github.com/rpa-dev/rpa/lang"
)

// WriteTools writes the tools flows serve as a table on w (`rpa list`):
// TOOL, ARGUMENTS (name:type, a required one marked *) and DESCRIPTION,
// one line per flow by name. A flow without a valid input schema
// (InputSchema) gets no line; its error, prefixed with the flow's path, is
// returned instead.
func WriteTools(w io.Writer, flows map[string]*lang.Flow) []error {
	names := make([]string, 0, len(flows))
	for n := range flows {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := columns.NewWriter(w, 0, 2)
	fmt.Fprintln(tw, "TOOL\tARGUMENTS\tDESCRIPTION")
	var errs []error
	for _, n := range names {
		f := flows[n]
		if _, err := f.InputSchema(flowHostArgs...); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", f.Path, err))
			continue
		}
		var params []string
		for _, p := range f.File.Params {
			s := p.Name + ":" + p.Type.Name
			if p.Default == nil {
				s += "*"
			}
			params = append(params, s)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ToolName(n), strings.Join(params, " "), f.File.Description)
	}
	tw.Flush()
	return errs
}
