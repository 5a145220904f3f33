package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedWriter is an io.Writer safe for concurrent use.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestUIRefusesNonLoopback(t *testing.T) {
	t.Setenv("RPA_HOME", t.TempDir())
	for _, args := range [][]string{
		{"--listen", "0.0.0.0:7788"},
		{"--listen", ":7788"},
		{"--listen", "192.168.1.20:80"},
	} {
		var out, errb bytes.Buffer
		code := runUI(context.Background(), args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), "loopback only") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runUI(context.Background(), []string{"--device-id", "d1"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "--connect") {
		t.Errorf("--device-id without --connect: exit %d, stderr %q", code, errb.String())
	}
}

// TestUIServesConsoleAndHTTP starts `rpa ui --serve-http` in-process: the console answers at the
// printed address (token in the URL, then the cookie), the MCP endpoint answers initialize, and
// ending the context ends both with exit 0.
func TestUIServesConsoleAndHTTP(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	flows := filepath.Join(home, "myflows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "hello.flow"), []byte("flow hello \"Say hello\"\n\nlog \"hi\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errb lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- runUI(ctx, []string{"--listen", "127.0.0.1:0", "--flows", flows, "--serve-http", "127.0.0.1:0"}, pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v; stderr %s", err, errb.String())
	}
	go io.Copy(io.Discard, pr)
	u := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?t=[0-9a-f]+`).FindString(line)
	if u == "" {
		t.Fatalf("stdout %q has no console URL", line)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "workflow_hello") {
		t.Fatalf("console: %d\n%s", resp.StatusCode, body)
	}
	// Without the token: refused.
	bare := strings.Split(u, "?")[0] + "flows"
	if resp, err := http.Get(bare); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %v %v", resp.StatusCode, err)
	}
	// The hosted MCP endpoint.
	m := regexp.MustCompile(`serving MCP on (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("stderr names no MCP address:\n%s", errb.String())
	}
	req, _ := http.NewRequest("POST", m[1], strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "serverInfo") {
		t.Fatalf("MCP initialize: %d %s", resp.StatusCode, b)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("rpa ui did not end after its context")
	}
}

// TestUIConnectsToGateway runs the binary's `rpa ui --connect` against `rpa gateway`: the flows of
// the console's folder are the device's tools at the backend, and SIGTERM ends both with exit 0.
func TestUIConnectsToGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary")
	}
	home := t.TempDir()
	flows := filepath.Join(home, "flows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	_, addr := startGatewayProc(t, home, "127.0.0.1:0")
	p := startProc(t, home, "ui", "--listen", "127.0.0.1:0", "--connect", "ws://"+addr+"/ws", "--device-id", "desk-ui", "--token", linkToken)
	waitDevice(t, addr, "desk-ui", "workflow_hello")
	p.signal(syscall.SIGTERM)
	if code := p.waitExit(t, 30*time.Second); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, p.log())
	}
}
