package interp

import (
	"testing"
)

func TestMaskForms(t *testing.T) {
	var m Mask
	if got := m.String("nothing registered"); got != "nothing registered" {
		t.Fatal(got)
	}
	m.Add("")
	m.Add("p&ss w\"rd")
	m.Add("ab")
	tests := map[string]string{
		`login p&ss w"rd`:                   `login ***`,
		`{"pw":"p&ss w\"rd"}`:               `{"pw":"***"}`,
		`http://x/?pw=p%26ss+w%22rd&x=1`:    `http://x/?pw=***&x=1`,
		`http://x/p&ss%20w%22rd`:            `http://x/***`,
		`<input value="p&amp;ss w&#34;rd">`: `<input value="***">`,
		`cab abc`:                           `c*** ***c`,
	}
	for in, want := range tests {
		if got := m.String(in); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
	v := map[string]any{"list": []any{"ab", 1, map[string]any{"ab": "x"}}, "keep": "zz"}
	got := m.Value(v).(map[string]any)
	if jsonOf(got) != `{"keep":"zz","list":["***",1,{"***":"x"}]}` {
		t.Fatal(jsonOf(got))
	}
	if jsonOf(v) != `{"keep":"zz","list":["ab",1,{"ab":"x"}]}` {
		t.Fatal("input modified:", jsonOf(v))
	}
}
