package interp

import (
	"context"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
)

// TestListPlusAtRunTime: + on two lists whose types are known only at run
// time says to use concat().
func TestListPlusAtRunTime(t *testing.T) {
	f, ds := lang.Load("t.flow", []byte("flow t\nparam s: string = \"[1]\"\nx = fromJSON(s)\nz = fromJSON(s)\ny = x + z\nlog y\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	res, _ := Run(context.Background(), f, Options{Browser: fake.New()})
	if res.Success || !strings.Contains(res.Error.Message, "use concat(a, b)") {
		t.Fatalf("%+v", res.Error)
	}
}
