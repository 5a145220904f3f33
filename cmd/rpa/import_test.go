package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

func TestImportCommand(t *testing.T) {
	td := "../../internal/authoring/importer/testdata"
	tmp := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string // substring
		stderr string // substring
		files  []string
	}{
		{"chrome to stdout", []string{td + "/chrome/login-form.json"}, exitOK,
			`flow sign_in_to_the_site "Sign in to the site"`, "imported 1 flow (sign_in_to_the_site)", nil},
		{"chrome to file, flag after the file", []string{td + "/chrome/login-form.json", "-o", filepath.Join(tmp, "login.flow")}, exitOK,
			"", "1 warning", []string{"login.flow"}},
		{"side to folder", []string{"-o", filepath.Join(tmp, "site"), td + "/side/site.side"}, exitOK,
			"", "imported 2 flows (login, tools)", []string{"site/login.flow", "site/tools.flow"}},
		{"side needs a folder", []string{td + "/side/site.side"}, exitUsage, "", "name a folder with -o DIR", nil},
		{"side into a .flow", []string{td + "/side/site.side", "-o", filepath.Join(tmp, "x.flow")}, exitUsage, "", "-o must be a folder", nil},
		{"strict", []string{"--strict", td + "/side/site.side", "-o", filepath.Join(tmp, "strict")}, exitFailed,
			"", "error: command 28 (mouseDownAt)", nil},
		{"broken JSON", []string{td + "/jsonflow/order_flow_article.json"}, exitFailed,
			"", "order_flow_article.json:13:28: error: invalid JSON", nil},
		{"missing file", []string{filepath.Join(tmp, "nope.json")}, exitUsage, "", "no such file", nil},
		{"bad format", []string{"--format", "xml", td + "/chrome/login-form.json"}, exitUsage, "", "unknown --format", nil},
		{"no file", nil, exitUsage, "", "usage: rpa import", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runImport(c.args, &stdout, &stderr)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, c.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout lacks %q:\n%s", c.stdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr.String())
			}
			for _, f := range c.files {
				if _, ds := lang.LoadFile(filepath.Join(tmp, f)); ds.HasErrors() {
					t.Errorf("%s: %v", f, ds)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "strict")); err == nil {
		t.Errorf("--strict with errors wrote a folder")
	}
	if flows, ds := lang.LoadDir(filepath.Join(tmp, "site")); ds.HasErrors() || len(flows) != 2 {
		t.Errorf("LoadDir of the imported project: %d flows, %v", len(flows), ds)
	}
	if b, _ := os.ReadFile(filepath.Join(tmp, "site", "login.flow")); bytes.Contains(b, []byte("s3cret")) {
		t.Errorf("the recorded password reached login.flow")
	}
}
