package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunDerivedSecretsAndNonFinite replays a user's report against rpa run
// (the flows open no browser): values derived from a secret
// leaked through fail, expression errors and outputs; 1/0 in a result
// printed only "json: unsupported value" and exited 0; NaN was accepted
// for a number param.
func TestRunDerivedSecretsAndNonFinite(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const pw = "demo-pass-42"
	leaks := []string{pw, "DEMO-PASS-42", "emo-pass-42", `"demo"`}
	tests := []struct {
		name, src string
		code      int
		want      string // in stdout+stderr
	}{
		{"fail", "flow sec \"x\"\nparam password: secret\nfail \"oops \" + upper(password)\n", 1, "***"},
		{"expression", "flow sec \"x\"\nparam password: secret\nx = int(upper(password))\nreturn x\n", 1, "details hidden"},
		{"return", "flow sec \"x\"\nparam password: secret\nreturn {\"y\": upper(password), \"z\": password[1:], \"l\": split(password, \"-\")}\n", 0, `"z": "***"`},
	}
	for _, tt := range tests {
		for _, asJSON := range []bool{false, true} {
			args := []string{"run", write(tt.name+".flow", tt.src), "--arg", "password=" + pw}
			if asJSON {
				args = append(args, "--json")
			}
			r := rpaRun(t, args...)
			code, all := r.code, r.stdout+r.stderr
			if code != tt.code || !strings.Contains(all, tt.want) {
				t.Errorf("%s json=%v: exit %d (want %d), want %q in:\n%s", tt.name, asJSON, code, tt.code, tt.want, all)
			}
			for _, leak := range leaks {
				if strings.Contains(all, leak) {
					t.Errorf("%s json=%v: %s leaked:\n%s", tt.name, asJSON, leak, all)
				}
			}
		}
	}

	r := rpaRun(t, "run", "--json", write("r.flow", "flow r \"x\"\nreturn {\"inf\": 1/0, \"nan\": 0/0}\n"))
	var res struct {
		Success bool           `json:"success"`
		Outputs map[string]any `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || !res.Success || len(res.Outputs) != 2 || res.Outputs["inf"] != nil || res.Outputs["nan"] != nil {
		t.Errorf("1/0: exit %d, %v, stdout:\n%s\nstderr:\n%s", r.code, err, r.stdout, r.stderr)
	}

	r = rpaRun(t, "run", write("n.flow", "flow n \"x\"\nparam n: number\nreturn n\n"), "--arg", "n=NaN")
	if r.code != 2 || !strings.Contains(r.stderr, `"n"`) {
		t.Errorf("n=NaN: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
