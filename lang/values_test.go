package lang

import (
	"testing"
	"time"

	"github.com/rpa-dev/rpa/lang/actions"
)

// TestOptionValue: an option's value takes the type its kind in the table
// says, and a wrong one names what was wanted.
func TestOptionValue(t *testing.T) {
	for _, tc := range []struct {
		opt  *actions.Option
		in   any
		want any
		err  string
	}{
		{actions.CommonOption("wait"), "2s", 2 * time.Second, ""},
		{actions.CommonOption("wait"), 2 * time.Second, 2 * time.Second, ""},
		{actions.CommonOption("timeout"), 3, nil, "must be a duration, got a number"},
		{actions.CommonOption("retries"), 2.0, 2, ""},
		{actions.CommonOption("retries"), -1, nil, "must be a non-negative integer, got a number"},
		{actions.CommonOption("optional"), true, true, ""},
		{actions.CommonOption("optional"), "yes", nil, `must be true or false, got a string`},
		{actions.DefaultsKey("on_timeout"), "skip", "skip", ""},
		{actions.DefaultsKey("on_timeout"), "later", nil, `must be one of fail, skip, got "later"`},
		{actions.DefaultsKey("max_loops"), 5, 5, ""},
		{actions.Lookup("wait").Option("until"), "x > 1", "x > 1", ""}, // an expression: as it is
	} {
		got, err := OptionValue(tc.opt, tc.in)
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s %v: %v, want error %q", tc.opt.Name, tc.in, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s %v: %v %v, want %v", tc.opt.Name, tc.in, got, err, tc.want)
		}
	}
	if actions.CommonOption("profile") != nil || actions.DefaultsKey("profile") == nil {
		t.Error("profile is a defaults key, not an action option")
	}
}
