package lang

import (
	"bytes"
	"fmt"
	"os"

	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

// FormatFile reads the flow file at path, parses it (nothing is resolved
// or checked) and prints it in the form to ("flow", "yaml", or "" for its
// own; format.Convert): `rpa fmt`. It returns the result and the source as
// read. A bad to, a path that is not a flow file (IsFlowFile) or cannot be
// read is an error; a file that does not parse gives its diagnostics and a
// zero result.
func FormatFile(path, to string) (format.Converted, []byte, diag.Diagnostics, error) {
	switch {
	case to != "" && to != "flow" && to != "yaml":
		return format.Converted{}, nil, nil, fmt.Errorf("--to must be flow or yaml, not %q", to)
	case !IsFlowFile(path):
		return format.Converted{}, nil, nil, fmt.Errorf("%s: not a flow file (want .flow, .yaml or .yml)", path)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return format.Converted{}, nil, nil, err
	}
	f, ds := Parse(path, src)
	if ds.HasErrors() || f == nil {
		return format.Converted{}, src, ds, nil
	}
	return format.Convert(path, src, f, to), src, ds, nil
}

// WriteFormatted writes c (FormatFile of path, whose text was src) to
// c.Dest, atomically and with path's mode, unless it is path itself
// unchanged; it reports whether it wrote.
func WriteFormatted(c format.Converted, path string, src []byte) (bool, error) {
	if c.Dest == path && bytes.Equal(c.Out, src) {
		return false, nil
	}
	return true, atomicfile.WriteLike(c.Dest, path, c.Out)
}
