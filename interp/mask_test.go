package interp

import (
	"encoding/json"
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
		`cab abc`:                           `cab abc`, // short: whole values only
		`ab`:                                `***`,
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
	f := load(t, src)
	res := mustRun(t, f, Options{Browser: b, Args: argsOf(t, f, map[string]any{"pw": "Hunter2"})})
	all := jsonOf(res)
	for _, leak := range []string{"HUNTER2", "Hunter2", "hunter2"} {
		if strings.Contains(all, leak) {
			t.Fatalf("%s leaked: %s", leak, all)
		}
	}
	if jsonOf(res.Outputs) != `["***","***","***","alice","***"]` || res.Log[3] != "user alice" {
		t.Fatalf("%s %q", jsonOf(res.Outputs), res.Log)
	}
}

// TestSecretLeakReport replays a user's report: values derived from a
// secret showed in fail messages, expression errors and return values;
// a one-letter secret starred ordinary text.
func TestSecretLeakReport(t *testing.T) {
	const pw = "demo-pass-42"
	leaks := []string{pw, "DEMO-PASS-42", "emo-pass-42", `"demo"`, `"pass"`, `"42"`, "DEMO", "emo-"}
	tests := []struct {
		name, src, wantMsg, wantOut string
	}{
		{"fail", "flow t\nparam password: secret\nfail \"oops \" + upper(password)\n", "***", ""},
		{"expression error", "flow t\nparam password: secret\nx = int(upper(password))\nreturn x\n",
			"int(upper(password)): failed (details hidden: the expression reads a secret)", ""},
		{"return", "flow t\nparam password: secret\nparam user: string = \"alice\"\n" +
			"return {\"y\": upper(password), \"z\": password[1:], \"l\": split(password, \"-\"), \"n\": len(password), \"u\": user, \"k\": 3}\n",
			"", `{"k":3,"l":["***","***","***"],"n":"***","u":"alice","y":"***","z":"***"}`},
		{"assigned", "flow t\nparam password: secret\nparts = split(password, \"-\")\nn = int(parts[2]) + 1\nreturn [parts[0], n, \"n={{ n }}\"]\n",
			"", `["***","***","***"]`}, // "n=43": a short derived part taints the whole string
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t, tt.src)
			res := run(t, f, Options{Browser: newBrowser(stdPage), Args: argsOf(t, f, map[string]any{"password": pw})})
			all := jsonOf(res)
			for _, leak := range leaks {
				if strings.Contains(all, leak) {
					t.Fatalf("%s leaked: %s", leak, all)
				}
			}
			if tt.wantMsg != "" && (res.Error == nil || res.Error.Message != tt.wantMsg) {
				t.Fatalf("error %+v, want %q", res.Error, tt.wantMsg)
			}
			if tt.wantOut != "" && jsonOf(res.Outputs) != tt.wantOut {
				t.Fatalf("outputs %s, want %s", jsonOf(res.Outputs), tt.wantOut)
			}
		})
	}
}

// TestShortSecret: a secret shorter than MinSubstring is masked as a whole
// value only, so it neither stars ordinary text nor shows by position.
func TestShortSecret(t *testing.T) {
	src := "flow t\nparam token: secret\nu = \"http://x/?t={{ token }}\"\nreturn {\"a\": \"Power System\", \"t\": token, \"u\": u, \"x\": upper(token)}\n"
	f := load(t, src)
	res := run(t, f, Options{Browser: newBrowser(stdPage), Args: argsOf(t, f, map[string]any{"token": "o"})})
	if got := jsonOf(res.Outputs); got != `{"a":"Power System","t":"***","u":"***","x":"***"}` {
		t.Fatalf("outputs %s", got)
	}
}

// TestNonFinite: 1/0 and NaN in a result encode as null (a number param
// refuses NaN and Inf: lang's TestNonFiniteArgs).
func TestNonFinite(t *testing.T) {
	res := run(t, load(t, "flow t\nreturn {\"inf\": 1/0, \"l\": [0/0, 1.5], \"n\": -1/0}\n"), Options{Browser: newBrowser(stdPage)})
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(res.Outputs); got != `{"inf":null,"l":[null,1.5],"n":null}` {
		t.Fatalf("outputs %s", got)
	}
}

// TestMaskAddressSpellings: a secret as a browser writes it into a query
// or a path, and as encodeURIComponent and a form post do.
func TestMaskAddressSpellings(t *testing.T) {
	var m Mask
	m.Add("Hunter 2&x=ü")
	for _, in := range []string{
		"http://h/login?p=Hunter%202&x=%C3%BC",
		"http://h/Hunter%202&x=%C3%BC/",
		"p=Hunter%202%26x%3D%C3%BC",
		"p=Hunter+2%26x%3D%C3%BC",
		`<a href="/login?p=Hunter%202&amp;x=%C3%BC">`,
	} {
		if got := m.String(in); strings.Contains(got, "Hunter") || strings.Contains(got, "%C3%BC") {
			t.Errorf("%s: %s", in, got)
		}
	}
}

// TestMaskDerivedSpellings: a secret is masked as a downloaded file's name
// spells it (Chromium turns "/" into "_"), in base64 and, from 8
// characters, in lower and upper case; a short secret's case forms are
// not (they would mask words).
func TestMaskDerivedSpellings(t *testing.T) {
	var m Mask
	m.Add("Ab/Cd:Secret9")
	m.Add("Qx7z")
	for in, want := range map[string]string{
		"saved Ab_Cd_Secret9.pdf":       "saved ***.pdf",
		"Basic QWIvQ2Q6U2VjcmV0OQ==":    "Basic ***",
		"token=QWIvQ2Q6U2VjcmV0OQ&x=1":  "token=***&x=1",
		"https://ab/cd:secret9.example": "https://***.example",
		"CODE AB/CD:SECRET9":            "CODE ***",
		"qx7z QX7Z UXg3eg==":            "qx7z QX7Z ***",
		"your code: Q x 7 z.":           "your code: ***.",
		"Q x 7":                         "Q x 7",
	} {
		if got := m.String(in); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}
