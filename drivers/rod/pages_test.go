package rod_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

func TestLateElements(t *testing.T) {
	p := open(t, "late.html")
	// #go is enabled 800 ms after load; a click before that is lost and
	// #result would stay "pending".
	click(t, p, "#go", `aria/Search[role="button"]`)
	waitResult(t, p, "searching")
	click(t, p, `text="Beta"`)
	waitResult(t, p, "detail:Beta:42")
	if got := text(t, p, "#detail"); got != "Beta — 42 units" {
		t.Errorf("detail = %q", got)
	}
	if got := text(t, p, "#late"); got != "I came late" {
		t.Errorf("late = %q", got)
	}
}

func TestOverlayCovered(t *testing.T) {
	p := open(t, "overlay.html")
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	_, _, err := p.Locate(ctx, []string{"#continue"}, drivers.ForPointer)
	if kindOf(err) != core.KindCovered || !strings.Contains(err.Error(), "covered by div#consent") {
		t.Fatalf("continue under the consent wall: %v", err)
	}
	click(t, p, "text=Accept all")
	// #spinner still covers the page for up to a second: waited out.
	click(t, p, "#continue")
	waitResult(t, p, "continued")
	ctx2, cancel2 := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel2()
	_, _, err = p.Locate(ctx2, []string{"#buy"}, drivers.ForPointer)
	if kindOf(err) != core.KindCovered || !strings.Contains(err.Error(), "covered by a.card-link") {
		t.Fatalf("buy under the card link: %v", err)
	}
	for _, id := range []string{"#overlay-hits", "#backdrop-hits"} {
		if got := text(t, p, id); got != "0" {
			t.Errorf("%s = %s", id, got)
		}
	}
}

func TestNestedFrames(t *testing.T) {
	for _, mode := range []string{"same-origin", "cross-origin", "cross-site"} {
		name := mode
		page := "frames.html"
		switch mode {
		case "cross-origin": // another port: same site
			page = "frames.html?xorigin=" + srv2.URL + "/"
		case "cross-site": // another host: a different site
			page = "frames.html?xorigin=" + strings.Replace(srv2.URL, "127.0.0.1", "localhost", 1) + "/"
		}
		t.Run(name, func(t *testing.T) {
			p := open(t, page)
			ctx := tctx(t, 10*time.Second)
			shop, err := p.Frame(ctx, []string{"#shop-frame"})
			if err != nil {
				t.Fatal(err)
			}
			coupon, err := shop.Frame(ctx, []string{"iframe[name=coupon]"})
			if err != nil {
				t.Fatal(err)
			}
			fill(t, coupon, "#coupon", "SAVE-2024")
			click(t, coupon, "text=Apply")
			if got := text(t, coupon, "#msg"); got != "Coupon SAVE-2024 applied" {
				t.Errorf("msg = %q", got)
			}
			waitResult(t, p, "applied:SAVE-2024")
			decoy, _ := locate(t, p, drivers.ForRead, "#coupon").Value(ctx)
			if decoy != "" {
				t.Errorf("decoy filled: %q", decoy)
			}
			ad, err := p.Frame(ctx, []string{"#advert"})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, ad, "#ad"); got != "Buy more!" {
				t.Errorf("srcdoc frame text = %q", got)
			}
		})
	}
}

func TestFrameRemoved(t *testing.T) {
	p := open(t, "frames.html")
	ctx := tctx(t, 10*time.Second)
	ad, err := p.Frame(ctx, []string{"#advert"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Frame(tctx(t, 300*time.Millisecond), []string{"#result"}); err == nil || !strings.Contains(err.Error(), "not an iframe") {
		t.Errorf("Frame on a div: %v", err)
	}
	if _, err := p.Eval(ctx, `() => { document.getElementById('advert').remove(); return 1 }`); err != nil {
		t.Fatal(err)
	}
	long := tctx(t, 60*time.Second)
	start := time.Now()
	if _, _, err := ad.Locate(long, []string{"#ad"}, drivers.ForRead); err == nil {
		t.Error("Locate in a removed frame succeeded")
	}
	if d := time.Since(start); d > 30*time.Second { // only when it waited for the deadline
		t.Errorf("Locate in a removed frame took %v", d)
	}
}

func TestShadowRoots(t *testing.T) {
	p := open(t, "shadow.html")
	ctx := tctx(t, 10*time.Second)
	if ok, _ := p.Exists(ctx, ".btn"); ok {
		t.Error("plain CSS must not enter shadow roots")
	}
	click(t, p, "pierce/.btn")
	waitResult(t, p, "open")
	fill(t, p, "pierce/.secret-input", "x1")
	click(t, p, "pierce/.btn-closed")
	waitResult(t, p, "closed:x1")
	if n, err := p.Count(ctx, "pierce/button"); err != nil || n != 2 {
		t.Errorf("pierce/button count = %d, %v", n, err)
	}
	// a combinator does not cross a root
	if n, _ := p.Count(ctx, "pierce/open-widget .btn"); n != 0 {
		t.Errorf("combinator crossed a shadow root: %d", n)
	}
	all, err := p.LocateAll(ctx, "pierce/button")
	if err != nil || len(all) != 2 {
		t.Fatalf("LocateAll = %d, %v", len(all), err)
	}
	if got, _ := all[1].Text(ctx); got != "Closed button" {
		t.Errorf("second button = %q", got)
	}
}

func TestNewTabs(t *testing.T) {
	p := open(t, "newtab.html")
	ctx := tctx(t, 15*time.Second)
	p.MarkPopups()
	click(t, p, `aria/View A-7[role="button"]`)
	tab, err := p.WaitPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := tab.URL(ctx); !strings.Contains(u, "view=detail&sku=A-7") {
		t.Fatalf("popup url = %s", u)
	}
	if err := tab.WaitText(ctx, "Widget A-7"); err != nil {
		t.Fatal(err)
	}
	if got := text(t, tab, "#price"); got != "€19.90" {
		t.Errorf("price = %q", got)
	}
	click(t, tab, "#add")
	waitResult(t, tab, "added:A-7")
	if err := tab.Close(); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "opened:A-7;basket:1")
	if got := text(t, p, "#basket-count"); got != "1" {
		t.Errorf("basket = %q", got)
	}
	// target=_blank (noopener) link
	p.MarkPopups()
	click(t, p, "#terms")
	terms, err := p.WaitPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer terms.Close()
	if got := text(t, terms, "#terms-title"); got != "Terms of sale" {
		t.Errorf("terms = %q", got)
	}
	pages, err := testBrowser.Pages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, q := range pages {
		if q == terms {
			found = true
		}
	}
	if !found {
		t.Error("Pages does not list the popup")
	}
	// nothing new: WaitPopup times out
	p.MarkPopups()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := p.WaitPopup(short); kindOf(err) != core.KindTimeout {
		t.Errorf("WaitPopup without popup: %v", err)
	}
}

func TestDialogs(t *testing.T) {
	p := open(t, "dialogs.html")
	p.SetDialogPolicy(true, "Q3-report")
	click(t, p, "#rename")
	waitResult(t, p, "renamed:Q3-report")
	p.SetDialogPolicy(false, "")
	click(t, p, "#delete")
	waitResult(t, p, "renamed:Q3-report,delete:cancelled")
	if got := text(t, p, "#name"); got != "Q3-report" {
		t.Errorf("name = %q", got)
	}
	want := []drivers.Dialog{
		{Type: "prompt", Message: `New name for "Q3 draft"?`},
		{Type: "confirm", Message: `Rename 3 linked files to "Q3-report"?`},
		{Type: "alert", Message: "Renamed to Q3-report"},
		{Type: "confirm", Message: `Delete "Q3-report" permanently?`},
	}
	if got := p.Dialogs(); !reflect.DeepEqual(got, want) {
		t.Errorf("dialogs = %#v", got)
	}
}

func TestDialogDefaultDismiss(t *testing.T) {
	p := open(t, "dialogs.html")
	click(t, p, "#rename") // prompt dismissed by default
	waitResult(t, p, "rename:cancelled")
	p.SetDialogPolicy(true, "") // accept: prompt keeps its default
	click(t, p, "#rename")
	waitResult(t, p, "rename:cancelled,renamed:Q3 draft")
}

func TestDialogInNewTabBeforeAttach(t *testing.T) {
	p := open(t, "dialogs.html")
	ctx := tctx(t, 10*time.Second)
	p.MarkPopups()
	click(t, p, "#popup")
	tab, err := p.WaitPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	waitResult(t, tab, "early")
	if got := tab.Dialogs(); len(got) != 1 || got[0].Message != "Early alert" {
		t.Errorf("dialogs = %v", got)
	}
}

// TestDialogInNewTabAttachedLate: a popup whose first script calls alert()
// and is attached only after a while (CI under load did this by chance)
// still runs, has its dialog recorded, and leaves the browser usable for
// the next tab (it used to wedge every later attach).
func TestDialogInNewTabAttachedLate(t *testing.T) {
	p := open(t, "dialogs.html")
	ctx := tctx(t, 10*time.Second)
	p.MarkPopups()
	click(t, p, "#popup")
	time.Sleep(1500 * time.Millisecond) // the popup would have shown its alert by now
	tab, err := p.WaitPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	waitResult(t, tab, "early")
	if got := tab.Dialogs(); len(got) != 1 || got[0].Message != "Early alert" {
		t.Errorf("dialogs = %v", got)
	}
	next := open(t, "dialogs.html?early=1") // a new tab whose page alerts at once
	waitResult(t, next, "early")
	if got := next.Dialogs(); len(got) != 1 || got[0].Message != "Early alert" {
		t.Errorf("new tab's dialogs = %v", got)
	}
}

func TestHoverMenu(t *testing.T) {
	p := open(t, "hover.html")
	ctx := tctx(t, 10*time.Second)
	if err := locate(t, p, drivers.ForPointer, "#m-file").Hover(ctx); err != nil {
		t.Fatal(err)
	}
	if err := locate(t, p, drivers.ForPointer, "#m-export").Hover(ctx); err != nil {
		t.Fatal(err)
	}
	click(t, p, "[data-action=export-csv]", `aria/CSV[role="menuitem"]`)
	waitResult(t, p, "action:export-csv")
	if ok, _ := p.Exists(ctx, "#export-menu"); ok {
		t.Error("export submenu still in the DOM")
	}
}

func TestControlledInputs(t *testing.T) {
	p := open(t, "react.html")
	ctx := tctx(t, 10*time.Second)
	fill(t, p, "#fullname", "Grace Hopper")
	fill(t, p, "aria/Age", "85")
	if err := locate(t, p, drivers.ForInput, "#plan").Select(ctx, "Pro", "label"); err != nil {
		t.Fatal(err)
	}
	click(t, p, "#create")
	waitResult(t, p, `submitted:{"name":"Grace Hopper","age":85,"plan":"pro"}`)
	if got := text(t, p, "#state"); got != `{"name":"Grace Hopper","age":"85","plan":"pro"}` {
		t.Errorf("state = %s", got)
	}
	sel := locate(t, p, drivers.ForInput, "#plan")
	for _, c := range []struct{ v, by, want string }{
		{"team", "", "team"}, {"Free", "", "free"}, {"1", "index", "free"}, {"pro", "value", "pro"},
	} {
		if err := sel.Select(ctx, c.v, c.by); err != nil {
			t.Fatalf("select %q by %q: %v", c.v, c.by, err)
		}
		if v, _ := sel.Value(ctx); v != c.want {
			t.Errorf("select %q by %q: value %q, want %q", c.v, c.by, v, c.want)
		}
	}
	if err := sel.Select(ctx, "Gold", ""); err == nil || !strings.Contains(err.Error(), `no option matches "Gold"`) {
		t.Errorf("missing option: %v", err)
	}
	if err := sel.Select(ctx, "9", "index"); err == nil {
		t.Error("bad index accepted")
	}
}

func TestContentEditable(t *testing.T) {
	p := open(t, "editor.html")
	ctx := tctx(t, 10*time.Second)
	click(t, p, "aria/Post body")
	fill(t, p, "#editor", "Hello world")
	click(t, p, "#post")
	waitResult(t, p, "posted:Hello world")
	if got := text(t, p, "#count"); got != "11" {
		t.Errorf("count = %q", got)
	}
	fill(t, p, "#editor", "Bye")
	if v, _ := locate(t, p, drivers.ForRead, "#editor").Value(ctx); v != "Bye" {
		t.Errorf("editor after refill = %q", v)
	}
	click(t, p, "#post")
	waitResult(t, p, "posted:Bye")
}

func TestHiddenFileInput(t *testing.T) {
	p := open(t, "upload.html")
	ctx := tctx(t, 10*time.Second)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	el := locate(t, p, drivers.ForRead, ".uploader-shim input[type=file]")
	if err := el.SetFiles(ctx, []string{path}); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "uploaded:report.csv:8:2")
	if got := text(t, p, "#uploads li"); got != "report.csv — 8 bytes, 2 lines" {
		t.Errorf("li = %q", got)
	}
	// SetFiles on #dropzone answers the chooser it opens: chooser_test.go.
}

func TestInfiniteScroll(t *testing.T) {
	p := open(t, "infinite.html")
	ctx := tctx(t, 20*time.Second)
	html := locate(t, p, drivers.ForRead, "html")
	for i := 0; i < 10; i++ {
		if ok, _ := p.Exists(ctx, "#end"); ok {
			break
		}
		before, _ := p.Count(ctx, "article.post")
		if err := html.ScrollContent(ctx, "bottom"); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		for short.Err() == nil {
			n, _ := p.Count(short, "article.post")
			if n > before {
				break
			}
			time.Sleep(30 * time.Millisecond)
		}
		cancel()
	}
	titles, err := p.LocateAll(ctx, "article.post h2")
	if err != nil {
		t.Fatal(err)
	}
	if len(titles) != 35 {
		t.Fatalf("%d titles", len(titles))
	}
	for i, el := range titles {
		if s, _ := el.Text(ctx); s != "Post #"+itoa(i+1) {
			t.Fatalf("title %d = %q", i, s)
		}
	}
	waitResult(t, p, "complete:35")
	if got := text(t, p, "article.post:last-child .likes"); got != "105 likes" {
		t.Errorf("likes = %q", got)
	}
	sc := locate(t, p, drivers.ForRead, "#scroller")
	if err := sc.ScrollContent(ctx, "bottom"); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitText(ctx, "Scroller: bottom"); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string { return fmtInt(i) }())
}

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

func TestTable(t *testing.T) {
	p := open(t, "table.html")
	ctx := tctx(t, 10*time.Second)
	g, err := locate(t, p, drivers.ForRead, "#report").Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := func(s string) drivers.Cell { return drivers.Cell{Text: s, Header: true} }
	hs := func(s string) drivers.Cell { return drivers.Cell{Text: s, Header: true, Spanned: true} }
	c := func(s string) drivers.Cell { return drivers.Cell{Text: s} }
	cs := func(s string) drivers.Cell { return drivers.Cell{Text: s, Spanned: true} }
	want := &drivers.Grid{
		Head: [][]drivers.Cell{
			{h("Region"), h("Sales"), hs("Sales"), h("Notes")},
			{hs("Region"), h("Q1"), h("Q2"), hs("Notes")},
		},
		Body: [][]drivers.Cell{
			{h("North"), c("10"), c("12"), c("steady")},
			{h("South"), c("n/a"), cs("n/a"), cs("steady")},
			{c("East"), c("7"), c("9"), c("a b")},
			{c(""), c(""), c(""), c("")},
		},
		Foot: [][]drivers.Cell{{c("Total"), c("17"), c("21"), c("")}},
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("grid =\n%#v\nwant\n%#v", g, want)
	}
	g2, err := locate(t, p, drivers.ForRead, "#bare").Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want2 := &drivers.Grid{Head: [][]drivers.Cell{{h("Name"), h("Name")}}, Body: [][]drivers.Cell{{c("x"), c("y")}}, Foot: [][]drivers.Cell{}}
	if !reflect.DeepEqual(g2, want2) {
		t.Errorf("bare grid = %#v", g2)
	}
	if _, err := locate(t, p, drivers.ForRead, "#result").Table(ctx); err == nil {
		t.Error("Table on a div accepted")
	}
}

func TestNonASCIIInput(t *testing.T) {
	p := open(t, "i18n.html")
	ctx := tctx(t, 10*time.Second)
	const s = "ąčiū 你好，世界　👍"
	fill(t, p, "#msg", s)
	if err := p.Press(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "sent:"+s)
	for sel, want := range map[string]string{
		"#len": "12", "#units": "13",
		"#cps": "U+0105 U+010D U+0069 U+016B U+0020 U+4F60 U+597D U+FF0C U+4E16 U+754C U+3000 U+1F44D",
	} {
		if got := text(t, p, sel); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	note := locate(t, p, drivers.ForInput, "#note")
	if err := note.Type(ctx, "ab ą👍\nz", 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := note.Value(ctx); v != "ab ą👍\nz" {
		t.Errorf("typed = %q", v)
	}
}

func TestFallbackSelectors(t *testing.T) {
	p := open(t, "dynamic.html")
	ctx := tctx(t, 10*time.Second)
	el, idx, err := p.Locate(ctx, []string{`#\$wx48213`, "aria/Email", "input[name='email']"}, drivers.ForInput)
	if err != nil || idx != 1 {
		t.Fatalf("email: idx %d, %v", idx, err)
	}
	if err := el.Fill(ctx, "a@b.co"); err != nil {
		t.Fatal(err)
	}
	el, idx, err = p.Locate(ctx, []string{`#\$wx77120`, `xpath///*[@id="$wx77120"]`, `aria/Save[role="button"]`, "[data-testid='save']"}, drivers.ForPointer)
	if err != nil || idx != 2 {
		t.Fatalf("save: idx %d, %v", idx, err)
	}
	if err := el.Click(ctx, "left", 1); err != nil {
		t.Fatal(err)
	}
	waitResult(t, p, "saved:a@b.co")
	// a bad selector in a fallback list is skipped; all bad is an error
	if _, idx, err := p.Locate(ctx, []string{"a[[[", "", `[data-testid='save']`}, drivers.ForRead); err != nil || idx != 2 {
		t.Errorf("list with bad entries: idx %d, %v", idx, err)
	}
	if _, _, err := p.Locate(ctx, []string{"a[[[", ""}, drivers.ForRead); err == nil || !strings.Contains(err.Error(), "bad CSS selector") {
		t.Errorf("all bad: %v", err)
	}
	for sel, want := range map[string]string{
		"text=save":            "Save",       // a whole-text match before "Save draft" (a substring, earlier)
		"text=sav":             "Save draft", // substrings only: the first in document order
		`text="Save"`:          "Save",       // exact
		"aria/Save draft":      "Save draft",
		"aria/Close dialog":    "×",
		"//button[2]":          "Save",
		"xpath=//button[1]":    "Save draft",
		"text=  SAVE   DRAFT ": "Save draft",
	} {
		if got := text(t, p, sel); got != want {
			t.Errorf("%s → %q, want %q", sel, got, want)
		}
	}
	for sel, want := range map[string]int{
		"aria/Company logo": 1, "aria/Search products": 1, "aria/Phone": 1, `aria/Save[role="link"]`: 0,
		`text="save"`: 0, "aria/Sav": 0,
	} {
		if n, err := p.Count(ctx, sel); n != want || err != nil {
			t.Errorf("count %s = %d, %v; want %d", sel, n, err, want)
		}
	}
}

func TestDownloads(t *testing.T) {
	p := open(t, "download.html")
	ctx := tctx(t, 15*time.Second)
	dir := t.TempDir()
	cases := []struct {
		sel, name, mime string
		content         string
	}{
		{"#file", "report.csv", "text/csv", "id,name\n1,Ada\n2,Grace\n"},
		{"#data", "hello.txt", "text/plain", "hello world\n"},
		{"#blob", "data.json", "application/json", `{"rows":[1,2,3]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := p.Download(ctx, dir, func(ctx context.Context) error {
				el, _, err := p.Locate(ctx, []string{c.sel}, drivers.ForPointer)
				if err != nil {
					return err
				}
				return el.Click(ctx, "left", 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(c.content))
			want := &drivers.Download{Path: filepath.Join(dir, c.name), Name: c.name, Size: int64(len(c.content)),
				SHA256: hex.EncodeToString(sum[:]), MIME: c.mime}
			if !reflect.DeepEqual(d, want) {
				t.Errorf("download = %+v, want %+v", d, want)
			}
			b, err := os.ReadFile(d.Path)
			if err != nil || string(b) != c.content {
				t.Errorf("file = %q, %v", b, err)
			}
		})
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := p.Download(short, dir, func(context.Context) error { return nil })
	if kindOf(err) != core.KindTimeout {
		t.Errorf("no download: %v", err)
	}
}

func TestFormRead(t *testing.T) {
	p := open(t, "form.html")
	ctx := tctx(t, 10*time.Second)
	fill(t, p, "#f-email", "old@y.z")
	fill(t, p, "#f-email", "x@y.z")
	fill(t, p, "#f-num", "1234")
	fill(t, p, "#f-num", "42")
	fill(t, p, "#f-date", "2024-02-29")
	fill(t, p, "#f-color", "#ff0000")
	fill(t, p, "#f-area", "two\nlines")
	click(t, p, "#f-agree")
	click(t, p, "text=Sport")
	click(t, p, "aria/L")
	if on, _ := locate(t, p, drivers.ForRead, "#f-agree").Checked(ctx); !on {
		t.Error("agree not checked")
	}
	if on, _ := locate(t, p, drivers.ForRead, "#f-aria").Checked(ctx); !on {
		t.Error("aria-checked not read")
	}
	if _, err := locate(t, p, drivers.ForRead, "#result").Checked(ctx); err == nil {
		t.Error("Checked on a div accepted")
	}
	got, err := p.Form(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"text": "preset", "pass": "***", "email": "x@y.z", "num": "42", "date": "2024-02-29", "color": "#ff0000",
		"range": "5", "notes": "two\nlines", "country": "fr", "tags": []any{"a", "c"}, "agree": true,
		"topics": []any{"news", "sport", "tech"}, "size": "l", "token": "t0k", "locked": "x",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("form =\n%#v\nwant\n%#v", got, want)
	}
	h, err := p.HTML(ctx)
	if err != nil || !strings.Contains(h, `type="password" value="***"`) || strings.Contains(h, "hunter2") {
		t.Errorf("html does not mask the password: %v", err)
	}
	if _, _, err := p.Locate(tctx(t, 300*time.Millisecond), []string{"#f-locked"}, drivers.ForInput); kindOf(err) != core.KindDisabled {
		t.Errorf("input in a disabled fieldset: %v", err)
	}
	click(t, p, "#f-submit")
	waitResult(t, p, `{"text":"preset","pass":"len7","email":"x@y.z","num":"42","date":"2024-02-29","color":"#ff0000","range":"5","notes":"two\nlines","country":"fr","tags":["a","c"],"agree":"on","topics":["news","sport","tech"],"size":"l","token":"t0k"}`)
}

func TestMaskedInputs(t *testing.T) {
	p := open(t, "masked.html")
	fill(t, p, "#phone", "1234567890")
	fill(t, p, "aria/Card number", "4111-1111-1111-1111")
	fill(t, p, "#card", "5500000000000004")
	click(t, p, "#save")
	waitResult(t, p, "saved:(123) 456-7890|5500 0000 0000 0004")
	fill(t, p, "#card", "")
	click(t, p, "#save")
	waitResult(t, p, "saved:(123) 456-7890|")
}
