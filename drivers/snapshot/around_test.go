package snapshot_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers/snapshot"
)

// shadowRegion puts an open shadow root holding a bare container inside a
// named region, so Around has to cross a shadow boundary to find it.
const shadowRegion = `() => {
	const nav = document.createElement('nav');
	nav.setAttribute('aria-label', 'Side');
	const host = document.createElement('div');
	host.id = 'host';
	nav.appendChild(host);
	const r = host.attachShadow({ mode: 'open' });
	r.innerHTML = '<div class="box"><span>Inside</span> <a href="#x">More</a></div>';
	document.body.appendChild(nav);
	return true;
}`

// TestAroundGoldens: Options.Around limits the snapshot to the region of
// the first selector that matches (any selector form), marks that element
// [target] and names its ref; nothing matching takes the whole page.
// Goldens are testdata/around-NAME.snap (-update to refresh).
func TestAroundGoldens(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for _, c := range []struct {
		name, page, setup string
		around            []string
		region            bool // the snapshot is smaller than the page's
	}{
		{"form", "form.html", "", []string{"#missing", "[name=email", "#f-email"}, true},
		{"text", "dialogs.html", "", []string{"text=Delete"}, false},
		{"xpath", "dialogs.html", "", []string{"//button[@id='alert']"}, false},
		{"aria", "form.html", "", []string{`aria/Country[role="combobox"]`}, true},
		{"dialog", "overlay.html", "", []string{"#nope", "#reject"}, true},
		{"shadow", "basic.html", shadowRegion, []string{".box", "pierce/.box"}, true},
		{"none", "basic.html", "", []string{"#nope", "text=no such text anywhere"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pg := open(t, ctx, srv.URL+"/"+c.page)
			if c.setup != "" {
				if _, err := pg.Eval(ctx, c.setup); err != nil {
					t.Fatal(err)
				}
			}
			s, err := snapshot.Take(ctx, pg, snapshot.Options{Around: c.around})
			if err != nil {
				t.Fatal(err)
			}
			full, err := snapshot.Take(ctx, pg, snapshot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			text := s.Render(0)
			if c.name == "none" {
				if s.Target != "" || text != full.Render(0) {
					t.Errorf("nothing matches: want the whole page and no target, got target %q:\n%s", s.Target, text)
				}
			} else {
				if s.Target == "" || strings.Count(text, "[target]") != 1 {
					t.Fatalf("no target marked (target %q):\n%s", s.Target, text)
				}
				for _, l := range s.Lines {
					if strings.Contains(l.Text, "[target]") && l.Ref != s.Target {
						t.Errorf("the [target] line has ref %q, Target is %q", l.Ref, s.Target)
					}
				}
			}
			if c.region && len(s.Lines) >= len(full.Lines) {
				t.Errorf("around %v: %d lines, the whole page has %d: not limited to a region", c.around, len(s.Lines), len(full.Lines))
			}
			if small := s.Render(100); snapshot.Tokens(small) > 100 {
				t.Errorf("Render(100) is %d tokens", snapshot.Tokens(small))
			}
			got := portRE.ReplaceAllString(text, "127.0.0.1:PORT") + "target: " + s.Target + "\n"
			golden := filepath.Join("testdata", "around-"+c.name+".snap")
			if *update {
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
