package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"

	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

func TestRecordNoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	c := newConsole(t, nil)
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/record?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "There is no display to open a browser window on here")
	b := el(t, pg, "button", "Start recording")
	if _, ok, err := b.Attr(step(t), "disabled"); err != nil || !ok {
		t.Errorf("Start recording is enabled without a display (%v)", err)
	}
	uibCheck(t, c, pg, "record_nodisplay")
	// A posted form is refused the same way.
	req, _ := http.NewRequest("POST", c.ts.URL+"/record/start", strings.NewReader("url=http://127.0.0.1:1/&name=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(TokenHeader, c.ui.Token())
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); !strings.Contains(loc, "e=record.noDisplay") {
		t.Errorf("start without a display: %d %q", resp.StatusCode, loc)
	}
}

func TestRecordThenPublish(t *testing.T) {
	recordHeadless = true
	defer func() { recordHeadless = false }()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Greeter</title><button id="hello" onclick="document.getElementById('out').textContent='hi'">Say hello</button><p id="out"></p>`)
	}))
	defer site.Close()
	c := newConsole(t, nil)
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/record?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	fill(t, pg, "textbox", "Start address", site.URL+"/")
	fill(t, pg, "textbox", "Flow name", "Say Hello")
	uibCheck(t, c, pg, "record")
	click(t, pg, "button", "Start recording")
	waitText(t, pg, "Recording "+site.URL+"/ into say_hello.flow")
	uibCheck(t, c, pg, "record_active")

	// The person clicks in the recording browser.
	rec := c.ui.recording()
	rec.mu.Lock()
	act := rec.active
	rec.mu.Unlock()
	if act == nil {
		t.Fatal("no active recording")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := rodd.ConnectControl(ctx, act.sess.ControlURL())
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.PageFromTarget(proto.TargetTargetID(act.sess.MainTarget()))
	if err != nil {
		t.Fatal(err)
	}
	p.MustElement("#hello").MustClick()
	p.MustElementR("#out", "hi")
	time.Sleep(300 * time.Millisecond) // the recorder's binding delivers the click

	click(t, pg, "button", "Stop recording")
	waitText(t, pg, "Recorded say_hello.flow:")
	src, err := os.ReadFile(filepath.Join(c.dir, "say_hello.flow"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "flow say_hello") || !strings.Contains(string(src), "click") {
		t.Errorf("the recorded flow:\n%s", src)
	}
	click(t, pg, "link", "Open say_hello.flow in the publish dialog")
	if err := pg.WaitURL(step(t), "/flows/say_hello.flow/edit?publish=1"); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "dialog", "Publish say_hello.flow")
}

// TestRecordEndsWhenBrowserCloses: closing the recording browser ends the
// recording; the page notices by itself and shows the result.
func TestRecordEndsWhenBrowserCloses(t *testing.T) {
	recordHeadless = true
	defer func() { recordHeadless = false }()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Plain</title><p>plain</p>`)
	}))
	defer site.Close()
	c := newConsole(t, nil)
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/record?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	fill(t, pg, "textbox", "Start address", site.URL+"/")
	fill(t, pg, "textbox", "Flow name", "plain_visit")
	click(t, pg, "button", "Start recording")
	waitText(t, pg, "into plain_visit.flow")
	rec := c.ui.recording()
	rec.mu.Lock()
	act := rec.active
	rec.mu.Unlock()
	if act == nil {
		t.Fatal("no active recording")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := rodd.ConnectControl(ctx, act.sess.ControlURL())
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Close() // the person closes the window
	waitText(t, pg, "Recorded plain_visit.flow:")
	el(t, pg, "link", "Open plain_visit.flow in the publish dialog")
}
