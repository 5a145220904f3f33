package noprof

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
)

// TestRate runs this test binary again under each GODEBUG and reads the
// rate its init left: 0 for the default, the developer's own rate kept.
func TestRate(t *testing.T) {
	if os.Getenv("NOPROF_CHILD") != "" {
		os.Stdout.WriteString(strconv.Itoa(runtime.MemProfileRate))
		os.Exit(0)
	}
	for _, c := range []struct {
		godebug string
		want    int
	}{
		{"", 0},
		{"memprofilerate=4096", 4096},
		{"madvdontneed=1,memprofilerate=1", 1},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRate$")
		cmd.Env = append(os.Environ(), "NOPROF_CHILD=1", "GODEBUG="+c.godebug)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GODEBUG=%q: %v", c.godebug, err)
		}
		if got, _ := strconv.Atoi(string(out)); got != c.want {
			t.Errorf("GODEBUG=%q: MemProfileRate %s, want %d", c.godebug, out, c.want)
		}
	}
}
