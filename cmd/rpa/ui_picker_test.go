//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUIPickerBrowserEnds: the console's element picker runs a Chromium of its own on a
// temporary profile under $RPA_HOME/tmp; when the console stops (Ctrl-C) or is killed (kill -9)
// with the picker open, no Chromium is left, and after Ctrl-C its profile is gone too (after
// kill -9 the next temporary profile sweeps it).
func TestUIPickerBrowserEnds(t *testing.T) {
	bin := rpaBin(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>t</title><button id="go">Go</button>`)
	}))
	defer site.Close()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			flows := filepath.Join(home, "flows")
			if err := os.MkdirAll(flows, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(flows, "p.flow"), []byte("flow p \"Pick\"\n\nopen \""+site.URL+"/\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "ui", "--listen", "127.0.0.1:0", "--flows", flows)
			cmd.Env = append(os.Environ(), "RPA_HOME="+home, "DISPLAY=", "WAYLAND_DISPLAY=")
			out, _ := cmd.StdoutPipe()
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("no URL printed: %v", err)
			}
			go io.Copy(io.Discard, out)
			m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?t=([0-9a-f]+)`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("stdout %q has no console URL", line)
			}
			req, _ := http.NewRequest("POST", m[1]+"/api/picker/start", strings.NewReader(`{"file":"p.flow","text":"flow p \"Pick\"\n\nopen \"`+site.URL+`/\"\n"}`))
			req.Header.Set("X-RPA-Token", m[2])
			req.Header.Set("Content-Type", "application/json")
			resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var started struct {
				ID     string `json:"id"`
				Window bool   `json:"window"`
			}
			err = json.NewDecoder(resp.Body).Decode(&started)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || started.ID == "" || started.Window {
				t.Fatalf("picker start: %d %+v %v", resp.StatusCode, started, err)
			}
			tmp := filepath.Join(home, "tmp")
			if len(browsersOn(tmp)) == 0 {
				t.Fatal("no Chromium on a temporary profile while the picker is open")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			took := waitNoBrowsers(t, tmp, 10*time.Second)
			t.Logf("no Chromium %v after %s", took, sig)
			if sig == syscall.SIGINT {
				left, _ := filepath.Glob(filepath.Join(tmp, "profile-*"))
				if len(left) != 0 {
					t.Errorf("temporary profiles left after Ctrl-C: %v", left)
				}
			}
		})
	}
}
