package lang

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/diag"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestCheckGolden renders the diagnostics of each lang/testdata/check file
// (and of the folder/ subfolder, loaded as a folder) and compares them with
// its .diag.golden. Refresh with `go test ./lang -run CheckGolden -update`.
func TestCheckGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "check", "*"))
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".golden") {
			continue
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		var ds diag.Diagnostics
		if st.IsDir() {
			_, ds = LoadDir(path)
		} else {
			_, ds = LoadFile(path)
		}
		var buf bytes.Buffer
		if err := diag.Render(&buf, ds, nil); err != nil {
			t.Fatal(err)
		}
		got := filepath.ToSlash(buf.String())
		golden := strings.TrimSuffix(path, filepath.Ext(path)) + ".diag.golden"
		n++
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%s: %v (run with -update)", path, err)
		}
		if got != string(want) {
			t.Errorf("%s: diagnostics differ from %s\ngot:\n%s\nwant:\n%s", path, golden, got, want)
		}
	}
	if n < 4 {
		t.Fatalf("only %d check cases", n)
	}
}
