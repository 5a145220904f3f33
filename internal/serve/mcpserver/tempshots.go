package mcpserver

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rpa-dev/rpa/interp"
)

// RemoveTempScreenshots deletes the files that the run's `screenshot`
// actions without `path:` wrote to the temporary folder
// (rpa-screenshot-*.png), so no picture of a page is left behind after
// the run; a screenshot written to a `path:` the flow named is kept. Call
// it once the result is sent or printed (and the run's evidence took its
// copy).
func RemoveTempScreenshots(res *interp.Result) {
	if res == nil {
		return
	}
	prefix := filepath.Join(os.TempDir(), "rpa-screenshot-")
	for _, st := range res.Results {
		if st == nil || st.Action != "screenshot" {
			continue
		}
		if p, ok := st.Output.(string); ok && strings.HasPrefix(p, prefix) && strings.HasSuffix(p, ".png") &&
			!strings.Contains(p[len(prefix):], string(filepath.Separator)) {
			_ = os.Remove(p)
		}
	}
}
