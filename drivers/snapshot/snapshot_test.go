package snapshot_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/internal/demoapp"
)

var update = flag.Bool("update", false, "rewrite the golden snapshots")

var (
	browser drivers.Browser
	srv     *httptest.Server
	srv2    *httptest.Server // another origin
	demo    *httptest.Server
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rpa-snapshot-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("../../testdata/pages")))
	mux.HandleFunc("/big-table", bigTable)
	srv = httptest.NewServer(mux)
	defer srv.Close()
	srv2 = httptest.NewServer(mux)
	defer srv2.Close()
	demo = httptest.NewServer(demoapp.New(demoapp.Options{Delay: -1}))
	defer demo.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: filepath.Join(dir, "profile")})
	if err != nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		return 1
	}
	browser = b
	defer b.Close()
	return m.Run()
}

// bigTable is a page with a 2,000-row table and a form after it.
func bigTable(w http.ResponseWriter, r *http.Request) {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Big</title><h1>Readings</h1><table id="big"><thead><tr><th>n</th><th>value</th><th>note</th></tr></thead><tbody>`)
	for i := range 2000 {
		fmt.Fprintf(&b, "<tr><td>%d</td><td>%d.5</td><td>reading number %d of the day</td></tr>", i, i*7, i)
	}
	b.WriteString(`</tbody></table><ul>`)
	for i := range 300 {
		fmt.Fprintf(&b, `<li><a href="#%d">Link %d</a></li>`, i, i)
	}
	b.WriteString(`</ul><form><label>Comment <input name="c"></label><button>Send</button></form>`)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

func open(t testing.TB, ctx context.Context, u string) drivers.Page {
	t.Helper()
	p, err := browser.NewPage(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

var portRE = regexp.MustCompile(`127\.0\.0\.1(:|%3A)\d+`)

// TestGoldens snapshots hard pages (frames of both origins, shadow roots,
// dialogs, a form with every control, a table with spans) and compares
// with testdata/NAME.snap (-update to refresh).
func TestGoldens(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, c := range []struct {
		name, page, ready string
	}{
		{"basic", "basic.html", ""},
		{"frames", "frames.html", "#apply"},
		{"frames-xorigin", "frames.html?xorigin=" + url.QueryEscape(srv2.URL+"/"), "#apply"},
		{"shadow", "shadow.html", ""},
		{"dialogs", "dialogs.html", ""},
		{"form", "form.html", ""},
		{"table", "table.html", ""},
		{"overlay", "overlay.html", ""},
		{"hover", "hover.html", ""},
		{"editor", "editor.html", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			pg := open(t, ctx, srv.URL+"/"+c.page)
			if c.ready != "" {
				// frames.html builds its frames late: wait for the inner button
				f, err := snapshot.Enter(ctx, pg, [][]string{{"#shop-frame"}, {"iframe[name=coupon]"}})
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := f.Locate(ctx, []string{c.ready}, drivers.Attached); err != nil {
					t.Fatal(err)
				}
			}
			s, err := snapshot.Take(ctx, pg, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := portRE.ReplaceAllString(s.Render(0), "127.0.0.1:PORT")
			golden := filepath.Join("testdata", c.name+".snap")
			if *update {
				_ = os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (-update)", err)
			}
			if string(want) != got {
				t.Errorf("differs from %s (-update to refresh):\n%s", golden, got)
			}
		})
	}
}

// TestBudget: a page with a 2,000-row table and 300 links stays within
// the budget, and the cut says what was left out and how to ask for it.
func TestBudget(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg := open(t, ctx, srv.URL+"/big-table")
	s, err := snapshot.Take(ctx, pg, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{0, 300, 1000} {
		out := s.Render(budget)
		want := budget
		if want == 0 {
			want = snapshot.DefaultMaxTokens
		}
		if snapshot.Tokens(out) > want {
			t.Errorf("budget %d: %d tokens", budget, snapshot.Tokens(out))
		}
		if !strings.Contains(out, "[cut: ") || !strings.Contains(out, "maxTokens") {
			t.Errorf("budget %d: no cut note:\n%s", budget, out[max(0, len(out)-400):])
		}
	}
	full := s.Render(0)
	if !strings.Contains(full, "1990 more rows") || strings.Count(full, "- row: ") != 10 {
		t.Errorf("the table is not cut to 10 rows:\n%s", full[:min(len(full), 2000)])
	}
	// the cut names a section to ask for; asking for it works
	m := regexp.MustCompile(`selector: one of (e\d+)`).FindStringSubmatch(full)
	if m == nil {
		t.Fatalf("no section named in the cut note:\n%s", full[len(full)-300:])
	}
	part, err := snapshot.Take(ctx, pg, snapshot.Options{Scope: m[1], Start: s.Next})
	if err != nil || len(part.Lines) == 0 {
		t.Fatalf("scope %s: %v", m[1], err)
	}
	if _, err := snapshot.Take(ctx, pg, snapshot.Options{Scope: "#nothing"}); err == nil {
		t.Error("a scope matching nothing is not an error")
	}
}

// TestRefsStableAndDiff: refs stay with their elements, and after a
// change the diff shows only what changed.
func TestRefsStableAndDiff(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg := open(t, ctx, srv.URL+"/basic.html")
	a, err := snapshot.Take(ctx, pg, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := snapshot.Take(ctx, pg, snapshot.Options{Start: a.Next})
	if err != nil {
		t.Fatal(err)
	}
	if d := snapshot.Diff(a, b, 300); d != "" {
		t.Fatalf("two snapshots of an unchanged page differ:\n%s", d)
	}
	el, _, err := pg.Locate(ctx, []string{"#name"}, drivers.ForInput)
	if err != nil {
		t.Fatal(err)
	}
	if err := el.Fill(ctx, "Ada"); err != nil {
		t.Fatal(err)
	}
	c, err := snapshot.Take(ctx, pg, snapshot.Options{Start: b.Next})
	if err != nil {
		t.Fatal(err)
	}
	d := snapshot.Diff(b, c, 300)
	if !strings.Contains(d, `+ - textbox "Your name" [ref=`) || !strings.Contains(d, ": Ada") || strings.Count(d, "\n") != 2 {
		t.Errorf("diff:\n%s", d)
	}
}

// TestDemoQueryPage: the demo's query page with its 50-row result fits in
// 1,500 tokens.
func TestDemoQueryPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg := demoQuery(t, ctx)
	s, err := snapshot.Take(ctx, pg, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := s.Render(0)
	if n := snapshot.Tokens(out); n > 1500 {
		t.Errorf("%d tokens:\n%s", n, out)
	}
	for _, want := range []string{`combobox "Region`, `button "Query`, "table", "[ref=e"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

// demoQuery logs in to the demo app and runs a query.
func demoQuery(t testing.TB, ctx context.Context) drivers.Page {
	jar, _ := cookiejar.New(nil)
	_ = jar
	pg := open(t, ctx, demo.URL+"/login")
	for _, f := range [][2]string{{"#username", demoapp.DemoUsername}, {"#password", demoapp.DemoPassword}} {
		el, _, err := pg.Locate(ctx, []string{f[0]}, drivers.ForInput)
		if err != nil {
			t.Fatal(err)
		}
		if err := el.Fill(ctx, f[1]); err != nil {
			t.Fatal(err)
		}
	}
	click(t, ctx, pg, "#submit")
	if err := pg.WaitURL(ctx, "/query"); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, pg, "#query-btn")
	if _, _, err := pg.Locate(ctx, []string{"#data-table"}, drivers.Attached); err != nil {
		t.Fatal(err)
	}
	return pg
}

func click(t testing.TB, ctx context.Context, pg drivers.Page, sel string) {
	el, _, err := pg.Locate(ctx, []string{sel}, drivers.ForPointer)
	if err != nil {
		t.Fatal(err)
	}
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDemoQuerySnapshot: a snapshot of the demo's query page with a
// result table (goal < 30 ms).
func BenchmarkDemoQuerySnapshot(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	pg := demoQuery(b, ctx)
	var tokens int
	for b.Loop() {
		s, err := snapshot.Take(ctx, pg, snapshot.Options{})
		if err != nil {
			b.Fatal(err)
		}
		tokens = snapshot.Tokens(s.Render(0))
	}
	b.ReportMetric(float64(tokens), "tokens")
}
