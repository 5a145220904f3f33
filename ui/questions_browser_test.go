package ui

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

// The browser tests of the runs, questions, status and record pages share
// one headless Chromium, started on first use. Leakless (go-rod) ends it
// when the test binary exits, however it exits.

var uib struct {
	once sync.Once
	b    *rod.Browser
	dir  string
	err  error
}

// uibBrowser returns the shared browser (the test is skipped with a clear
// message when Chromium is missing: the preamble's /usr/bin/chromium).
func uibBrowser(t *testing.T) *rod.Browser {
	t.Helper()
	uib.once.Do(func() {
		bin := "/usr/bin/chromium"
		if p := os.Getenv("ROD_BROWSER"); p != "" {
			bin = p
		}
		if _, err := os.Stat(bin); err != nil {
			uib.err = fmt.Errorf("no Chromium at %s: %w", bin, err)
			return
		}
		uib.dir, uib.err = os.MkdirTemp("", "rpa-ui-test-")
		if uib.err != nil {
			return
		}
		l := launcher.New().Bin(bin).Leakless(true).UserDataDir(filepath.Join(uib.dir, "profile")).
			Set("headless", "new").NoSandbox(true).Set("disable-gpu").Set("disable-quic").Set("no-first-run").
			Set("disable-background-networking").Set("disable-component-update").Set("disable-sync").
			Set("window-size", "1200,900")
		u, err := l.Launch()
		if err != nil {
			uib.err = err
			return
		}
		b := rod.New().ControlURL(u)
		if err := b.Connect(); err != nil {
			uib.err = err
			return
		}
		uib.b = b
	})
	if uib.err != nil {
		t.Fatalf("browser: %v", uib.err)
	}
	return uib.b
}

// uibOpen opens path of the console behind ts in a new tab (logged in
// with the start token, English unless lang says otherwise) and closes the
// tab when the test ends.
func uibOpen(t *testing.T, s *Server, ts *httptest.Server, path string) *rod.Page {
	t.Helper()
	b := uibBrowser(t)
	p, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1200, Height: 900, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	if err := p.Navigate(ts.URL + path + sep + "t=" + s.Token()); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	return p
}

// uibByRole finds the element with this ARIA role and accessible name
// (Chromium's accessibility tree: what a screen reader would announce).
func uibByRole(t *testing.T, p *rod.Page, role, name string) *rod.Element {
	t.Helper()
	var found *rod.Element
	err := rodRetry(p, func() (bool, error) {
		doc, err := proto.DOMGetDocument{}.Call(p)
		if err != nil {
			return false, err
		}
		res, err := proto.AccessibilityQueryAXTree{BackendNodeID: doc.Root.BackendNodeID, AccessibleName: name, Role: role}.Call(p)
		if err != nil {
			return false, err
		}
		for _, n := range res.Nodes {
			if n.Ignored || n.BackendDOMNodeID == 0 {
				continue
			}
			el, err := p.ElementFromNode(&proto.DOMNode{BackendNodeID: n.BackendDOMNodeID})
			if err != nil {
				return false, err
			}
			found = el
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no %s named %q: %v", role, name, err)
	}
	return found
}

// rodRetry calls fn until it says done, for at most 30 s (a bound that only
// catches a hang).
func rodRetry(p *rod.Page, fn func() (bool, error)) error {
	deadline := time.Now().Add(30 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		ok, err := fn()
		if ok {
			return nil
		}
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	if last == nil {
		last = context.DeadlineExceeded
	}
	return last
}

// uibWaitText waits until the page's main text contains want.
func uibWaitText(t *testing.T, p *rod.Page, want string) {
	t.Helper()
	var got string
	err := rodRetry(p, func() (bool, error) {
		v, err := p.Eval(`() => document.querySelector("main").innerText`)
		if err != nil {
			return false, err
		}
		got = v.Value.Str()
		return strings.Contains(got, want), nil
	})
	if err != nil {
		t.Fatalf("the page never showed %q; it shows:\n%s", want, got)
	}
}

// uibShot keeps a screenshot of the page as NAME.png: in
// ui/testdata/screenshots (committed) with -update, else in the folder
// $RPA_UI_SHOTS when set (a CI's artifacts), else nowhere (the tree stays
// clean on ordinary runs). The picture is taken either way.
func uibShot(t *testing.T, p *rod.Page, name string) {
	t.Helper()
	b, err := p.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("RPA_UI_SHOTS")
	if uibUpdate() {
		dir = filepath.Join("testdata", "screenshots")
	}
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// uibUpdate reports whether goldens are refreshed (-update).
func uibUpdate() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	v, _ := g.Get().(bool)
	return v
}

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the goldens")
	}
}

// axRoles are the roles the structure goldens keep.
var axRoles = map[string]bool{"heading": true, "link": true, "button": true, "textbox": true, "combobox": true,
	"table": true, "columnheader": true, "form": true, "navigation": true, "main": true, "region": true,
	"article": true, "status": true, "checkbox": true, "spinbutton": true, "listbox": true, "option": true, "code": false}

// uibStructure is the page's structure as the accessibility tree shows it
// under <main>: one line per landmark, heading and control (role "name"),
// indented by depth; volatile parts (run IDs, times, ports, pids) replaced by
// placeholders by norm.
func uibStructure(t *testing.T, p *rod.Page, norm func(string) string) string {
	t.Helper()
	tree, err := proto.AccessibilityGetFullAXTree{}.Call(p)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode{}
	for _, n := range tree.Nodes {
		byID[n.NodeID] = n
	}
	var out bytes.Buffer
	var walk func(n *proto.AccessibilityAXNode, depth int, inMain bool)
	walk = func(n *proto.AccessibilityAXNode, depth int, inMain bool) {
		role := ""
		if n.Role != nil {
			role = n.Role.Value.Str()
		}
		name := ""
		if n.Name != nil {
			name = n.Name.Value.Str()
		}
		if role == "main" {
			inMain = true
		}
		keep := inMain && !n.Ignored && axRoles[role]
		if keep {
			fmt.Fprintf(&out, "%s%s %q\n", strings.Repeat("  ", depth), role, norm(strings.Join(strings.Fields(name), " ")))
			depth++
		}
		for _, c := range n.ChildIDs {
			if k := byID[c]; k != nil {
				walk(k, depth, inMain)
			}
		}
	}
	if len(tree.Nodes) > 0 {
		walk(tree.Nodes[0], 0, false)
	}
	return out.String()
}

// uibGolden compares got with testdata/NAME.golden (-update rewrites it).
func uibGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if uibUpdate() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s changed (-update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// volatile matches what changes from one test run to the next.
var volatile = []struct {
	re  *regexp.Regexp
	rep string
}{
	{regexp.MustCompile(`\d{8}T\d{9}-[0-9a-f]{4}`), "RUNID"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?`), "DATETIME"},
	{regexp.MustCompile(`\d{1,2}:\d\d:\d\d( [AP]M)?`), "TIME"},
	{regexp.MustCompile(`pid \d+`), "pid N"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`\d+(\.\d+)? ?(ms|s)\b`), "DUR"},
}

// uibNorm replaces volatile parts by placeholders.
func uibNorm(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.rep)
	}
	return s
}
