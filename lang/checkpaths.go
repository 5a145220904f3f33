package lang

import (
	"fmt"
	"os"

	"github.com/rpa-dev/rpa/lang/diag"
)

// CheckPaths checks each path as `rpa check` does: a folder with LoadDir
// (calls, with: keys and duplicate names across its flows), a file with
// LoadFile (its calls resolved among the flows of its folder). It returns
// how many flows are clean and the diagnostics of all, sorted (errors
// first). An error is bad input that stops the check: an unreadable
// path, a folder with no flow file directly in it, a file that is not a
// flow file (by its extension). An unreadable folder is a diagnostic of
// LoadDir, not an error.
func CheckPaths(paths []string) (clean int, ds diag.Diagnostics, err error) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return 0, nil, err
		}
		if st.IsDir() {
			if files, err := FlowFiles(p); err == nil && len(files) == 0 {
				return 0, nil, fmt.Errorf("no flow files in %s (want .flow, .yaml or .yml directly in it)", p)
			}
			fl, fds := LoadDir(p)
			clean += len(fl)
			ds = append(ds, fds...)
			continue
		}
		if !IsFlowFile(p) {
			return 0, nil, fmt.Errorf("%s: not a flow file (want .flow, .yaml or .yml)", p)
		}
		f, fds := LoadFile(p)
		if f != nil {
			clean++
		}
		ds = append(ds, fds...)
	}
	ds.Sort()
	return clean, ds, nil
}
