package cases

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/flows/internal/flowtest"

	"github.com/rpa-dev/rpa/interp"
)

// classPages maps a class case's folder to its page in testdata/pages.
var classPages = map[string]string{
	"40-styled-toggles":          "toggles.html",
	"41-cascading-selects":       "cascade.html",
	"42-late-stylesheet":         "latecss.html",
	"43-virtual-grid":            "grid.html",
	"44-sticky-and-scroll-boxes": "sticky.html",
	"45-invisible-characters":    "invisible.html",
	"46-focus-trap":              "focus.html",
	"47-split-grid":              "splitgrid.html",
	"48-aria-disabled":           "ariadisabled.html",
	"49-click-effects":           "effects.html",
	"50-moving-targets":          "motion.html",
}

func TestMain(m *testing.M) {
	os.Exit(flowtest.Main(m, "cases", pages()))
}

// pages serves testdata/ and what the cases ask of a server.
func pages() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	// The class cases 40-45 run on the engine's own hard pages (one copy,
	// in the repository's testdata/pages).
	for dir, page := range classPages {
		mux.HandleFunc("/"+dir+"/page.html", func(w http.ResponseWriter, r *http.Request) {
			http.ServeFile(w, r, filepath.Join("..", "..", "testdata", "pages", page))
		})
	}
	// case 52's pages are GBK bytes served as a legacy server does: text/html
	// with no charset (only their meta tag names it).
	mux.HandleFunc("/52-gbk-legacy-form/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		http.ServeFile(w, r, filepath.Join("testdata", filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
	})
	// case 42's late stylesheet, served after ?ms=
	mux.HandleFunc("/42-late-stylesheet/slow.css", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/css")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, "#banner { height: 200px !important }")
	})
	return mux
}

// csv writes the file case 09 uploads: exactly "a,b\n1,2\n" (8 bytes).
func csv(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "report.csv")
	if err := os.WriteFile(p, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func posts(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("Post #%d", i+1)
	}
	return out
}

// A case: the flow, its arguments, the outputs it must return (exactly,
// per key, from the case's "Expected result"), substrings some outputs
// must contain, and a check of the per-action results.
type tcase struct {
	flow     string
	args     func(t *testing.T) map[string]any
	want     map[string]any
	contains map[string]string
	suffix   map[string]string // outputs that must end with the value
	steps    func(t *testing.T, res *interp.Result)
}

var cases = []tcase{
	{flow: "case01_iframe_nested", want: map[string]any{
		"msg": "Coupon SAVE-2024 applied", "result": "applied:SAVE-2024", "decoy": ""}},
	{flow: "case03_late_element", want: map[string]any{
		"detail": "Beta \u2014 42 units", "result": "detail:Beta:42"}},
	{flow: "case05_dynamic_ids", want: map[string]any{"result": "saved:a@b.co"},
		steps: func(t *testing.T, res *interp.Result) {
			// the recorded id selectors (index 0) never match: the result
			// names the alternative that did
			for _, s := range res.Results {
				if s.Action != "fill" && s.Action != "click" {
					continue
				}
				if s.SelectorIndex == nil || *s.SelectorIndex != 1 {
					t.Errorf("line %d %s: selectorIndex %v, want 1 (%q)", s.Line, s.Action, s.SelectorIndex, s.Selector)
				}
			}
		}},
	{flow: "case06_overlay_intercept",
		want: map[string]any{"result": "continued,bought", "overlayHits": "0", "backdropHits": "0"},
		contains: map[string]string{
			"earlyError": "covered by div#consent",
			"buyError":   "covered by div.card-link",
		}},
	{flow: "case08_contenteditable", want: map[string]any{
		"result": "posted:Hello world", "count": "11", "editor": "Hello world",
		"retyped": "Bye", "retypedCount": "3"}},
	{flow: "case09_hidden_file_input",
		args: func(t *testing.T) map[string]any { return map[string]any{"file": csv(t)} },
		want: map[string]any{"result": "uploaded:report.csv:8:2", "item": "report.csv \u2014 8 bytes, 2 lines"}},
	{flow: "case09_dropzone",
		args: func(t *testing.T) map[string]any { return map[string]any{"file": csv(t)} },
		want: map[string]any{"result": "uploaded:report.csv:8:2", "item": "report.csv \u2014 8 bytes, 2 lines"}},
	{flow: "case10_new_tab", want: map[string]any{
		"title": "Widget A-7", "price": "\u20ac19.90", "added": "added:A-7",
		"basketCount": "1", "result": "opened:A-7;basket:1", "terms": "Terms of sale"}},
	{flow: "case11_js_dialogs", want: map[string]any{
		"result": "renamed:Q3-report,delete:cancelled", "name": "Q3-report",
		"dialogs": []any{
			map[string]any{"type": "prompt", "message": `New name for "Q3 draft"?`},
			map[string]any{"type": "confirm", "message": `Rename 3 linked files to "Q3-report"?`},
			map[string]any{"type": "alert", "message": "Renamed to Q3-report"},
			map[string]any{"type": "confirm", "message": `Delete "Q3-report" permanently?`},
		}}},
	{flow: "case12_hover_menu", want: map[string]any{"result": "action:export-csv", "exportMenuGone": true}},
	{flow: "case13_infinite_scroll", want: map[string]any{
		"titles": posts(35), "count": "35", "end": "\u2014 end of feed \u2014",
		"result": "complete:35", "lastLikes": "105 likes"}},
	{flow: "case16_react_controlled", want: map[string]any{
		"result": `submitted:{"name":"Grace Hopper","age":85,"plan":"pro"}`,
		"state":  `{"name":"Grace Hopper","age":"85","plan":"pro"}`}},
	{flow: "case19_non_ascii_input", want: map[string]any{
		"value":  "ąčiū 你好，世界\u3000👍",
		"result": "sent:ąčiū 你好，世界\u3000👍",
		"len":    "12", "units": "13",
		"cps": "U+0105 U+010D U+0069 U+016B U+0020 U+4F60 U+597D U+FF0C U+4E16 U+754C U+3000 U+1F44D"}},
	{flow: "case23_iframe_in_shadow_root", want: map[string]any{
		"ticket": "T-4821", "result": "ticket:T-4821:INV-88"}},
	{flow: "case24_spa_pushstate_route", want: map[string]any{
		"title": "Order 1042 \u2014 Brightwater Ltd", "result": "route:list;approved:1042"},
		suffix: map[string]string{"url": "/24-spa-pushstate-route/app/orders/1042"}},
	{flow: "case25_beforeunload_submit", want: map[string]any{
		"result":  "saved:S-204:Nordwind Handel GmbH:DE44500105175407324931",
		"dialogs": []any{"confirm", "beforeunload"}}},
	{flow: "case26_sticky_header_cover", want: map[string]any{
		"result": "approved:REQ-1042", "headerClicks": "0"}},
	{flow: "case29_sso_redirect_chain",
		args: func(t *testing.T) map[string]any { return map[string]any{"password": "correct horse"} },
		want: map[string]any{"welcome": "Welcome, j.doe", "result": "signed-in:j.doe:tenant-7", "fragment": "/home"}},
	{flow: "case30_nbsp_zwsp_table", want: map[string]any{
		"records": []any{
			map[string]any{"Rechnungsnummer": "INV-2024-0017", "Lieferant": "Nordlicht AG", "Betrag (EUR)": "980,00", "F\u00e4llig am": "15.07.2024", "Status": "offen"},
			map[string]any{"Rechnungsnummer": "INV-2024-0042", "Lieferant": "M\u00fcller & S\u00f6hne", "Betrag (EUR)": "12 480,00", "F\u00e4llig am": "31.07.2024", "Status": ""},
			map[string]any{"Rechnungsnummer": "INV-2024-0108", "Lieferant": "Allgemeine Versicherungsgesellschaft", "Betrag (EUR)": "1 250 000,00", "F\u00e4llig am": "01.08.2024", "Status": "\u00fcberf\u00e4llig"},
		},
		"amount": "12480,00", "result": "selected:INV-2024-0042"}},
	{flow: "case40_styled_toggles", want: map[string]any{
		"result": "terms,dark,alerts,promo,plan=pro",
		"prefs":  map[string]any{"terms": true, "news": false, "dark": true, "alerts": true, "promo": true, "plan": "pro"}}},
	{flow: "case41_cascading_selects", want: map[string]any{"result": "de/by/late"}},
	{flow: "case42_late_stylesheet", want: map[string]any{"result": "saved", "decoyHits": "0"}},
	{flow: "case43_virtual_grid", want: map[string]any{
		"opened": "open:Item 0010", "name": "Item 0012", "count": float64(8), "first": "Item 0033"}},
	{flow: "case44_sticky_and_scroll_boxes", want: map[string]any{
		"result": "clicked:Row 30,Row 31,Row 43,deep,wide", "barHits": "0"}},
	{flow: "case45_invisible_characters", want: map[string]any{
		"title": "Offene Rechnungen",
		"rows": []any{
			map[string]any{"Rechnungsnummer": "A-2024-0001", "Betrag (EUR)": "1 200,00", "Status": ""},
			map[string]any{"Rechnungsnummer": "A-2024-0002", "Betrag (EUR)": "35,50", "Status": "offen"},
		},
		"row": "row:A-2", "bank": "v", "ref": "RE-77 A"}},
	{flow: "case46_focus_trap_fill", want: map[string]any{
		"result":   "saved:赵敏|139 0013 9000|杭州市滨江区网商路 699 号",
		"zipError": `fill: textbox "邮编" holds "310000", not "HZ310000" after the fill`}},
	{flow: "case47_split_grid", want: map[string]any{
		"count": float64(5), "narrowCount": float64(5), "result": "view:CK-2403:上海启明星贸易有限公司",
		"row": map[string]any{"选择": "", "单号": "CK-2403", "日期": "2024-06-03", "客户": "上海启明星贸易有限公司",
			"数量": "24", "金额": "¥1,275.00", "备注": "", "操作": "查看"}}},
	{flow: "case48_aria_disabled", want: map[string]any{
		"result": "submitted:wangfang", "ignored": "0",
		"early":  `wait: timed out after 300ms waiting for text "submitted" in "#result": "#result" exists; its text is "checking…"`,
		"hidden": `wait: timed out after 300ms waiting for "#panel" to be visible: "#panel" matches div#panel, which is not visible (display: none)`}},
	{flow: "case49_click_effects", want: map[string]any{
		"result": "picked:浙江省/杭州市", "tab": "详细地址", "ok": "ok",
		"broken": `click: clicking span#broken.switch did not change it (aria-checked stayed "false")`}},
	{flow: "case50_moving_targets", want: map[string]any{
		"result": "approved:EX-77", "early": "no", "maskClicks": "0", "rejects": "0", "urged": "urged"},
		contains: map[string]string{"ticker": "button#ticker is still moving"}},
	{flow: "case51_srcdoc_rerender", want: map[string]any{
		"result": "renewed:M-3108:4929…7731:Ana Souza", "renders": "2"}},
	{flow: "case52_gbk_legacy_form", want: map[string]any{
		"result": "found:5102030417:张伟:城西片区:66.00",
		"title":  "燃气费查询结果 - 城市燃气自助服务",
		"bills": []any{
			map[string]any{"账期": "2024-04", "用气量(立方米)": "31", "燃气费(元)": "93.00"},
			map[string]any{"账期": "2024-05", "用气量(立方米)": "27", "燃气费(元)": "81.00"},
			map[string]any{"账期": "2024-06", "用气量(立方米)": "22", "燃气费(元)": "66.00"},
		}},
		// the browser sent 张伟 percent-encoded in GBK, not UTF-8
		suffix: map[string]string{"url": "/52-gbk-legacy-form/result.html?yhmc=%D5%C5%CE%B0&yhbh=5102030417&qy=W2"}},
}

// TestCases runs every case flow against its page in headless Chromium and
// compares the outputs with the case's expected end state.
func TestCases(t *testing.T) {
	var cs []flowtest.Case
	for _, c := range cases {
		cs = append(cs, flowtest.Case{Flow: c.flow, Args: c.args, Want: c.want, Contains: c.contains, Suffix: c.suffix, Steps: c.steps})
	}
	flowtest.Run(t, cs)
}

// The embedded flows are the files on disk, in canonical form.
func TestEmbedded(t *testing.T) {
	flowtest.Embedded(t, FS, len(cases))
}
