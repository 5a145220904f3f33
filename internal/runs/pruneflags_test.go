package runs

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestPruneFlags(t *testing.T) {
	for _, c := range []struct {
		args   []string
		keep   int
		mb     float64
		errHas string
	}{
		{nil, 0, 0, ""},
		{[]string{"--keep", "5", "--max-mb", "20"}, 5, 20, ""},
		{[]string{"--runs-keep", "7", "--runs-max-mb", "1.5"}, 7, 1.5, ""},
		{[]string{"--keep", "0"}, 0, 0, "--keep 0: want at least 1 run"},
		{[]string{"--runs-max-mb", "0"}, 0, 0, "--runs-max-mb 0: want a positive number of MB"},
	} {
		var s Settings
		fs := flag.NewFlagSet("prune", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s.RegisterPrune(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := s.CheckPrune(fs)
		if s.Keep != c.keep || s.MaxMB != c.mb || (err == nil) != (c.errHas == "") || (err != nil && !strings.Contains(err.Error(), c.errHas)) {
			t.Errorf("%v: keep %d, max %v, err %v", c.args, s.Keep, s.MaxMB, err)
		}
	}
}
