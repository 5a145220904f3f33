package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptClientForeignOrigin: the official TypeScript client sending
// a foreign Origin (with the right token) is refused with 403 by `rpa serve
// --http`; with the server's own loopback origin it connects.
func TestTypeScriptClientForeignOrigin(t *testing.T) {
	f := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, f.bin, "serve", "--http", "127.0.0.1:0", "--token", "tok-origin", "--flows", f.flows)
	cmd.Env = f.env()
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		cmd.Wait()
	}()
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "rpa serve: listening on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("rpa serve did not print its address")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	nctx, ncancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ncancel()
	node := exec.CommandContext(nctx, "node", "origin.mjs")
	node.Env = f.env("URL="+url, "TOKEN=tok-origin")
	var errs strings.Builder
	node.Stderr = &errs
	out, err := node.Output()
	var r struct {
		Fatal   string `json:"fatal"`
		Foreign struct {
			Connected bool   `json:"connected"`
			Error     string `json:"error"`
			Code      any    `json:"code"`
		} `json:"foreign"`
		Loopback struct {
			Connected bool   `json:"connected"`
			Tools     int    `json:"tools"`
			Error     string `json:"error"`
		} `json:"loopback"`
	}
	if jerr := json.Unmarshal(out, &r); jerr != nil || r.Fatal != "" {
		t.Fatalf("origin.mjs: %v %v %s\n%s", err, jerr, r.Fatal, errs.String())
	}
	if r.Foreign.Connected || r.Foreign.Code != 403.0 || !strings.Contains(r.Foreign.Error, "origin") {
		t.Errorf("a client with a foreign Origin: connected %v, code %v, error %q; want refused with HTTP 403", r.Foreign.Connected, r.Foreign.Code, r.Foreign.Error)
	}
	if !r.Loopback.Connected || r.Loopback.Tools == 0 {
		t.Errorf("a client with the server's loopback Origin: connected %v, %d tools, error %q", r.Loopback.Connected, r.Loopback.Tools, r.Loopback.Error)
	}
}
