package flows

import (
	"errors"
	"testing"
)

// TestExample: each example flow gets arguments its params accept (the
// region where it has one); an unknown name lists the names there are.
func TestExample(t *testing.T) {
	all, err := Examples()
	if err != nil {
		t.Fatal(err)
	}
	for name := range all {
		f, args, err := Example(all, name, "http://127.0.0.1:1", "310000")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.ParseArgs(args); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, args, _ := Example(all, "query_power_data", "http://x", "310000")
	if args["region"] != "310000" || args["base_url"] != "http://x" || args["username"] == "" {
		t.Errorf("query_power_data args %v", args)
	}
	_, _, err = Example(all, "nope", "", "")
	if ue := (*UnknownError)(nil); !errors.As(err, &ue) || len(ue.Have) != len(all) {
		t.Errorf("unknown: %v", err)
	}
}
