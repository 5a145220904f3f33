package interp

import (
	"context"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

const resumeSrc = `flow r "resume"

param token: secret = "tok-1234567"

a = 5
b = token + "-x"
assert a == 6, "a is " + string(a)
c = a + 1
return { "a": a, "c": c, "b": b }
`

func TestResume(t *testing.T) {
	f, ds := lang.Load("r.flow", []byte(resumeSrc))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	ctx := context.Background()
	res, _ := Run(ctx, f, Options{})
	cp := res.Checkpoint()
	if res.Success || cp == nil || cp.Line() != 7 {
		t.Fatalf("first run: %+v, checkpoint %+v", res.Error, cp)
	}
	// From the failed line: the same failure.
	res2, _ := Run(ctx, f, Options{Args: cp.Args(), Resume: cp})
	if res2.Success || res2.Error.Line != 7 || res2.Checkpoint() == nil {
		t.Fatalf("resume at 7: %+v", res2.Error)
	}
	// From the next line: the names bound before the failure are there, and
	// the secret derived from the token is still masked.
	res3, _ := Run(ctx, f, Options{Args: cp.Args(), Resume: cp, ResumeFrom: 8})
	out, _ := res3.Outputs.(map[string]any)
	if !res3.Success || out["a"] != 5 || out["c"] != 6 || out["b"] != "***" || res3.Checkpoint() != nil {
		t.Fatalf("resume at 8: %+v %v", res3.Error, res3.Outputs)
	}
	for _, c := range []struct {
		from int
		want string
	}{{40, "no statement"}, {2, "no statement"}} {
		r, _ := Run(ctx, f, Options{Args: cp.Args(), Resume: cp, ResumeFrom: c.from})
		if r.Success || !strings.Contains(r.Error.Message, c.want) {
			t.Errorf("resume at %d: %+v", c.from, r.Error)
		}
	}
	g, _ := lang.Load("r.flow", []byte(resumeSrc))
	if r, _ := Run(ctx, g, Options{Resume: cp}); r.Success || !strings.Contains(r.Error.Message, "not the one that ran") {
		t.Fatalf("another flow: %+v", r.Error)
	}
	if r, _ := Run(ctx, g, Options{Args: cp.Args()}); r.Success || !strings.Contains(r.Error.Message, "the arguments were checked for another flow") {
		t.Fatalf("another flow's arguments: %+v", r.Error)
	}
}
