package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/lang"
)

// syncBuf is a bytes.Buffer safe for one writer and one reader.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRecordCommand runs `rpa record --headless` on a test page, stops it
// with SIGINT (Ctrl-C) once it says it is recording, and checks the flow
// written: named after the file, opening the start URL, loading clean.
func TestRecordCommand(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("../../internal/authoring/recorder/testdata/pages")))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "my-login.flow")
	var stdout, stderr syncBuf
	done := make(chan int, 1)
	go func() {
		done <- commands.Commands["record"].Run([]string{srv.URL + "/login.html", "-o", out, "--headless", "--param", "user=#username"}, &stdout, &stderr)
	}()
	deadline := time.After(60 * time.Second)
	for !strings.Contains(stderr.String(), "recording ") {
		select {
		case code := <-done:
			t.Fatalf("rpa record ended early (exit %d): %s", code, stderr.String())
		case <-deadline:
			t.Fatalf("rpa record did not start: %s", stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(500 * time.Millisecond)
	interruptSelf(t)
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Ctrl-C did not stop the recording")
	}
	f, ds := lang.LoadFile(out)
	if ds.HasErrors() {
		t.Fatalf("%v", ds)
	}
	b, _ := os.ReadFile(out)
	if f.File.Name != "my_login" || !strings.Contains(string(b), `open "{{base_url}}/login.html"`) {
		t.Errorf("unexpected flow:\n%s", b)
	}
	for _, bad := range [][]string{{"record", "x"}, {"record", "u", "-o", "x.txt"}, {"record", "u", "-o", "x.flow", "--param", "nosel"}} {
		var so, se bytes.Buffer
		if code := commands.Commands["record"].Run(bad[1:], &so, &se); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}
