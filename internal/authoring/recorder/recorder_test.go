package recorder_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/authoring/recorder"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/format"
)

var update = flag.Bool("update", false, "rewrite testdata/session.flow")

// site serves testdata/pages; the pages report what is done to them with
// GET /event?k=v, which is how a recording and its replay are compared.
type site struct {
	*httptest.Server
	Other  *httptest.Server // a second origin, same pages and event log
	mu     sync.Mutex
	events []string
}

func newSite(t *testing.T) *site {
	s := &site{}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata/pages")))
	mux.HandleFunc("/event", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		for k, vs := range r.URL.Query() {
			for _, v := range vs {
				s.events = append(s.events, k+"="+v)
			}
		}
		s.mu.Unlock()
		fmt.Fprint(w, "ok")
	})
	s.Server = httptest.NewServer(mux)
	s.Other = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	t.Cleanup(s.Other.Close)
	return s
}

// take returns the events reported since the last call, sorted: the
// pages report with fetch, and two reports close together may arrive in
// either order.
func (s *site) take() []string {
	time.Sleep(300 * time.Millisecond) // the pages' last reports
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	sort.Strings(out)
	return out
}

// TestRecordAndReplay drives a headless recording session with rod the way
// a person would (typing, a keyboard choice in a select, clicks, an address
// typed, Enter, an iframe, a popup closed again), compares the flow with
// testdata/session.flow, checks it loads clean and holds no password, then
// replays it with interp.Run on a fresh browser and compares what the pages
// saw both times.
func TestRecordAndReplay(t *testing.T) {
	st := newSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	sess, err := recorder.Start(ctx, recorder.Options{
		URL: st.URL + "/login.html", Name: "signin_tools", Headless: true,
		Params: []recorder.Param{{Name: "user", Selector: "#username"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	b, err := rodd.ConnectControl(ctx, sess.ControlURL())
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.PageFromTarget(proto.TargetTargetID(sess.MainTarget()))
	if err != nil {
		t.Fatal(err)
	}
	p.MustElement("#username").MustInput("alice")
	p.MustElement("#password").MustInput("s3cret")
	p.MustElement("#region").MustFocus()
	p.Keyboard.MustType(input.ArrowDown) // United States → Europe
	p.MustElement("#remember").MustClick()
	p.MustElement("#submit").MustClick()
	if got := p.MustElement("#greeting").MustText(); got != "Welcome, alice (eu)" {
		t.Fatalf("greeting %q", got)
	}
	time.Sleep(200 * time.Millisecond)
	p.MustNavigate(st.URL + "/tools.html") // typed in the address bar
	p.MustElement("#search").MustInput("kWh")
	p.Keyboard.MustType(input.Enter)
	p.MustElementR("#result", "searched").MustText()
	inc := p.MustElement("#inc")
	inc.MustClick() // a person's double click: press 1, then press 2 with clickCount 2
	inc.MustDoubleClick()
	fr := p.MustElement("#notes").MustFrame()
	fr.MustElement("#note").MustInput("hello")
	fr.MustElement("#save").MustClick()
	fr.MustElementR("#saved", "hello")
	p.MustElement("#memo").MustInput("a memo")
	upload, _ := filepath.Abs(filepath.Join("testdata", "upload.txt"))
	p.MustElement("#doc").MustSetFiles(upload) // what the file chooser does
	p.MustElement("#open").MustClick()
	var pop *rod.Page
	for i := 0; i < 100 && pop == nil; i++ {
		for _, pg := range b.MustPages() {
			if strings.Contains(pg.MustInfo().URL, "popup.html") {
				pop = pg
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if pop == nil {
		t.Fatal("the popup did not open")
	}
	pop.MustElement("#ack").MustClick()
	pop.MustElementR("#status", "acknowledged")
	pop.MustClose()
	p.MustElement("#inc").MustClick()
	recorded := st.take()
	for _, w := range []string{"login=alice/eu/ok/1", "search=kWh", "note=hello", "memo=a memo", "upload=upload.txt:13", "ack=1", "count=3"} {
		if !slices.Contains(recorded, w) {
			t.Errorf("the session did not do %q (pages saw %v)", w, recorded)
		}
	}

	file, ds := sess.Stop()
	if ds.HasErrors() {
		t.Fatalf("diagnostics: %v", ds)
	}
	text := format.Flow(file)
	if bytes.Contains(text, []byte("s3cret")) {
		t.Fatalf("the password reached the flow:\n%s", text)
	}
	golden := filepath.Join("testdata", "session.flow")
	stable := bytes.ReplaceAll(text, []byte(st.URL), []byte("http://site.test"))
	if *update {
		if err := os.WriteFile(golden, stable, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(stable, want) {
		t.Errorf("flow differs from %s (-update to refresh):\n%s", golden, stable)
	}
	flow, lds := lang.Load("signin_tools.flow", text)
	if lds.HasErrors() {
		t.Fatalf("lang.Load: %v\n%s", lds, text)
	}

	dir := t.TempDir()
	rb, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	args, err := flow.CheckArgs(map[string]any{"base_url": st.URL, "password": "s3cret", "doc_file": upload})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := interp.Run(ctx, flow, interp.Options{Args: args, Browser: rb})
	if !res.Success {
		t.Fatalf("replay failed: %+v\n%s", *res.Error, text)
	}
	replayed := st.take()
	if strings.Join(replayed, " ") != strings.Join(recorded, " ") {
		t.Errorf("the pages saw\n  recording: %v\n  replay:    %v", recorded, replayed)
	}
}

// TestBrowserCloseEndsSession: closing the last tab ends the recording
// (Done), and Stop still writes what was recorded.
func TestBrowserCloseEndsSession(t *testing.T) {
	st := newSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sess, err := recorder.Start(ctx, recorder.Options{URL: st.URL + "/tools.html", Name: "closing", Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	b, err := rodd.ConnectControl(ctx, sess.ControlURL())
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.PageFromTarget(proto.TargetTargetID(sess.MainTarget()))
	if err != nil {
		t.Fatal(err)
	}
	p.MustElement("#inc").MustClick()
	st.take()
	p.MustClose()
	select {
	case <-sess.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("closing the last tab did not end the session")
	}
	file, _ := sess.Stop()
	text := string(format.Flow(file))
	for _, w := range []string{`open "{{base_url}}/tools.html"`, `click ["#inc"`} {
		if !strings.Contains(text, w) {
			t.Errorf("flow lacks %q:\n%s", w, text)
		}
	}
}

// TestCrossOriginFrame records inside an iframe of another origin, whose
// document cannot see its iframe element: the recorder asks the parent
// document through the DevTools protocol. The flow replays to the same
// state.
func TestCrossOriginFrame(t *testing.T) {
	st := newSite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := st.URL + "/cross.html?inner=" + st.Other.URL + "/inner.html"
	sess, err := recorder.Start(ctx, recorder.Options{URL: start, Name: "cross", Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	b, err := rodd.ConnectControl(ctx, sess.ControlURL())
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.PageFromTarget(proto.TargetTargetID(sess.MainTarget()))
	if err != nil {
		t.Fatal(err)
	}
	fr := p.MustElement("#xf").MustFrame()
	fr.MustElement("#note").MustInput("cross")
	fr.MustElement("#save").MustClick()
	fr.MustElementR("#saved", "cross")
	recorded := st.take()
	file, _ := sess.Stop()
	text := string(format.Flow(file))
	want := "frame \"#xf\" {\n    # fill textbox \"Note\"\n    fill [\"#note\", \"aria/Note[role=\\\"textbox\\\"]\"] \"cross\"\n"
	if !strings.Contains(text, want) {
		t.Errorf("flow lacks\n%s\ngot\n%s", want, text)
	}
	flow, lds := lang.Load("cross.flow", []byte(text))
	if lds.HasErrors() {
		t.Fatalf("lang.Load: %v\n%s", lds, text)
	}
	rb, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(t.TempDir(), "profile")})
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	res, _ := interp.Run(ctx, flow, interp.Options{Browser: rb})
	if !res.Success {
		t.Fatalf("replay failed: %+v\n%s", *res.Error, text)
	}
	if got := st.take(); strings.Join(got, " ") != strings.Join(recorded, " ") || len(got) == 0 {
		var steps []string
		for _, r := range res.Results {
			steps = append(steps, fmt.Sprintf("%s:%d:%s:%s", r.Action, r.Line, r.Status, r.Error))
		}
		t.Errorf("the pages saw\n  recording: %v\n  replay:    %v\nsteps: %v\n%s", recorded, got, steps, text)
	}
}
