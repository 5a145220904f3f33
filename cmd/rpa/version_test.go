package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runVersion(nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "rpa ") || !strings.Contains(out.String(), runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("rpa version = %q", out.String())
	}
	out.Reset()
	if code := runVersion([]string{"--json"}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, k := range []string{"version", "commit", "date", "go", "os", "arch", "license"} {
		if _, ok := v[k]; !ok {
			t.Errorf("rpa version --json lacks %q: %s", k, out.String())
		}
	}
	if v["license"] != "Apache-2.0" {
		t.Errorf("rpa version --json: license %v, want Apache-2.0", v["license"])
	}
	if code := runVersion([]string{"extra"}, &out, &errb); code != exitUsage {
		t.Errorf("extra argument: exit %d", code)
	}
}

// TestDoctorCommand: a home that cannot be created fails with exit 1 and
// a fix line; --json carries the same checks.
func TestDoctorCommand(t *testing.T) {
	t.Setenv("RPA_HOME", filepath.Join(t.TempDir(), "home"))
	var out, errb bytes.Buffer
	code := runDoctor(context.Background(), []string{"--no-launch", "--connect-env", "-", "--json", "--browser-bin", "/nonexistent/chromium"}, &out, &errb)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (no browser): %s %s", code, out.String(), errb.String())
	}
	var r struct {
		OK     bool
		Checks []struct{ Name, Status, Detail, Fix string }
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if r.OK || len(r.Checks) == 0 || r.Checks[0].Name != "browser" || r.Checks[0].Status != "fail" || r.Checks[0].Fix == "" {
		t.Errorf("report %+v", r)
	}
	out.Reset()
	if code := runDoctor(context.Background(), []string{"--no-launch", "--connect-env", "-", "--browser-bin", "/nonexistent/chromium"}, &out, &errb); code != exitFailed {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(out.String(), "fix: install Chromium") || !strings.Contains(out.String(), "item(s) failed") {
		t.Errorf("rpa doctor printed:\n%s", out.String())
	}
}
