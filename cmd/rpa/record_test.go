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

// TestRecordRefusedBeforeBrowser: what would lose a recording at its end
// (an address open cannot load, a folder -o cannot be written in, a
// --param NAME that cannot name a param) is
// refused with exit 2 before any browser starts (ROD_BROWSER points at
// nothing: a start would fail with exit 1 instead).
func TestRecordRefusedBeforeBrowser(t *testing.T) {
	t.Setenv("ROD_BROWSER", filepath.Join(t.TempDir(), "no-browser"))
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"javascript:alert(1)", "-o", filepath.Join(dir, "a.flow"), "--headless"}, `scheme "javascript" is not one open loads`},
		{[]string{"not a url", "-o", filepath.Join(dir, "b.flow"), "--headless"}, `"not a url" is not an absolute URL`},
		{[]string{"http://127.0.0.1:1/", "-o", filepath.Join(dir, "missing", "c.flow"), "--headless"}, "-o: folder " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{[]string{"http://127.0.0.1:1/", "-o", filepath.Join(file, "d.flow"), "--headless"}, "-o: " + file + " is not a folder"},
		{[]string{"http://127.0.0.1:1/", "-o", filepath.Join(dir, "e.flow"), "--param", "1abc=#u", "--headless"}, `param name "1abc" is not a name`},
		{[]string{"http://127.0.0.1:1/", "-o", filepath.Join(dir, "f.flow"), "--param", "bad name=#u", "--headless"}, `param name "bad name" is not a name`},
		{[]string{"http://127.0.0.1:1/", "-o", filepath.Join(dir, "g.flow"), "--param", "if=#u", "--headless"}, `param name "if" is reserved`},
	} {
		var so, se bytes.Buffer
		code := commands.Commands["record"].Run(tc.args, &so, &se)
		if code != exitUsage || !strings.Contains(se.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, se.String(), exitUsage, tc.want)
		}
	}
}
