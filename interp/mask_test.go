package interp

import (
	"strings"
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

func TestIdentifiers(t *testing.T) {
	tests := map[string]string{
		`upper(password)`:              "upper password",
		`"pw=" + pw + 'x y'`:           "pw",
		`row.password + user`:          "row user",
		`m["k"].v ?? 1.5e3`:            "m",
		"`raw ` + a .. b":              "a b",
		`f(x) > 0 and not y.z.w`:       "f x and not y",
		`"esc \" quote" + q`:           "q",
		`len(split(secret, "-")) == 2`: "len split secret",
	}
	for in, want := range tests {
		if got := strings.Join(identifiers(in), " "); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestDerivedSecrets(t *testing.T) {
	b := newBrowser(stdPage)
	src := `flow t
param pw: secret
param user: string = "alice"
u = upper(pw)
body = "user=" + user + "&pw=" + pw
log "upper: {{ upper(pw) }}"
log u
log body
log "user {{ user }}"
p = "{{ pw }}-x"
x = lower(p)
return [u, body, x, user, len(pw)]
`
	res := mustRun(t, load(t, src), Options{Browser: b, Args: map[string]any{"pw": "Hunter2"}})
	all := jsonOf(res)
	for _, leak := range []string{"HUNTER2", "Hunter2", "hunter2"} {
		if strings.Contains(all, leak) {
			t.Fatalf("%s leaked: %s", leak, all)
		}
	}
	if jsonOf(res.Outputs) != `["***","user=alice\u0026pw=***","***","alice",7]` || res.Log[3] != "user alice" {
		t.Fatalf("%s %q", jsonOf(res.Outputs), res.Log)
	}
}
