package rod_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/stdlib"
)

// gridRecords reads sel with Table and keys its rows as `table` does.
func gridRecords(t testing.TB, f drivers.Frame, sel string) ([]string, []any) {
	t.Helper()
	g, err := locate(t, f, drivers.ForRead, sel).Table(tctx(t, 10*time.Second))
	if err != nil {
		t.Fatalf("table %s: %v", sel, err)
	}
	return stdlib.TableKeys(g), stdlib.TableAuto(g)
}

// splitRow is row i (0-based) of splitgrid.html as a person reads it.
func splitRow(i int, keys []string) map[string]any {
	names := []string{"杭州云帆科技有限公司", "苏州恒信电子厂", "上海启明星贸易有限公司", "宁波联创五金", "南京金陵文具店", "合肥星河数码"}
	customer := names[i%len(names)]
	if i >= len(names) {
		customer += fmt.Sprintf(" %d", i+1)
	}
	memo := ""
	if i%3 == 0 {
		memo = "加急"
	}
	amount := 1000 + float64(i)*137.5
	all := map[string]any{
		"选择": "", "单号": fmt.Sprintf("CK-%d", 2401+i), "日期": fmt.Sprintf("2024-06-%02d", 1+i%28),
		"客户": customer, "数量": fmt.Sprint(10 + (i*7)%90), "金额": "¥" + money(amount), "备注": memo, "操作": "查看",
	}
	out := map[string]any{}
	for _, k := range keys {
		out[k] = all[k]
	}
	return out
}

// money formats like toLocaleString('en-US', {minimumFractionDigits: 2}).
func money(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}

// TestSplitGrid: grids whose header, body and fixed-column copies are
// separate tables read as one logical table keyed by its header: one
// record per row (copies merged, not repeated), hidden cells read from the
// copy that shows them, gutters, measure rows, placeholders and footer
// tables left out; the body table alone reads as the whole grid.
func TestSplitGrid(t *testing.T) {
	p := open(t, "splitgrid.html")
	waitVisible(t, p, "#g-sticky td")
	full := []string{"选择", "单号", "日期", "客户", "数量", "金额", "备注", "操作"}
	narrow := full[1:]
	for _, tc := range []struct {
		sel  string
		keys []string
	}{
		{"#g-full", full},
		{"#g-full .bd-wrap table", full}, // the main body table alone
		{"#g-full .fix-r .bd-wrap table", full},
		{"#g-narrow", narrow},
		{"#g-sticky", narrow},
		{"#g-sticky .bd-wrap table", narrow},
	} {
		keys, recs := gridRecords(t, p, tc.sel)
		if !reflect.DeepEqual(keys, tc.keys) {
			t.Errorf("%s: keys %q, want %q", tc.sel, keys, tc.keys)
		}
		if len(recs) != 5 {
			t.Errorf("%s: %d records, want 5: %v", tc.sel, len(recs), recs)
			continue
		}
		for i, r := range recs {
			if want := splitRow(i, tc.keys); !reflect.DeepEqual(r, want) {
				t.Errorf("%s: record %d = %v, want %v", tc.sel, i, r, want)
			}
		}
	}
	// the row's visible 查看 is the fixed copy's
	click(t, p, `xpath=//div[@id="g-full"]//tr[contains(., "CK-2403")]//button`)
	waitResult(t, p, "view:CK-2403:上海启明星贸易有限公司")
	// a plain container of unrelated tables is refused, naming why
	if _, err := p.Eval(tctx(t, 5*time.Second), `() => {
		const d = document.createElement('div'); d.id = 'two';
		d.innerHTML = '<table><tr><th>a</th></tr></table><table><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>';
		document.body.append(d); return 1 }`); err != nil {
		t.Fatal(err)
	}
	_, err := locate(t, p, drivers.ForRead, "#two").Table(tctx(t, 5*time.Second))
	if err == nil || !strings.Contains(err.Error(), "not one grid") {
		t.Errorf("two unrelated tables: %v", err)
	}
}

// TestSplitGridEmpty: a grid without data reads as its header and no
// records ("暂无数据" is not a record).
func TestSplitGridEmpty(t *testing.T) {
	p := open(t, "splitgrid.html?empty=ant")
	waitVisible(t, p, "#g-sticky td")
	keys, recs := gridRecords(t, p, "#g-sticky")
	if want := []string{"单号", "日期", "客户", "数量", "金额", "备注", "操作"}; !reflect.DeepEqual(keys, want) || len(recs) != 0 {
		t.Errorf("keys %q, records %v", keys, recs)
	}
}

// waitVisible waits for sel to be visible.
func waitVisible(t testing.TB, f drivers.Frame, sel string) {
	t.Helper()
	if _, err := f.WaitState(tctx(t, 10*time.Second), []string{sel}, drivers.StateVisible); err != nil {
		t.Fatal(err)
	}
}

// TestTableRowRead: a row read with one innerText (the fast path) gives
// each cell the text it gets read on its own, for cells with line
// breaks, blocks, hidden parts, buttons, no-break spaces, a tab in
// preformatted text and CSS text-transform.
func TestTableRowRead(t *testing.T) {
	p := open(t, "table.html")
	cellsHTML := []string{
		`a<br>b`, `<div>x</div><div>y</div>`, `<div class="cell">查看</div>`, `<span style="visibility:hidden">no</span>yes`,
		`<button>查看</button><button>编辑</button>`, `12&nbsp;480,00`, `<pre style="margin:0">a	b</pre>`,
		`<span style="text-transform:uppercase">mixed</span>`, ` <b>bold</b> and <i>it</i> `, `<div style="display:none">gone</div>shown`,
		`<div><p>p1</p><p>p2</p></div>`, ``,
	}
	v, err := p.Eval(tctx(t, 5*time.Second), `(cells) => {
		const wide = document.createElement('table'); wide.id = 'wide';
		// row 1 without the tab (read in one go), row 2 with it (cell by cell)
		const tds = (cs) => cs.map((c) => '<td>' + c + '</td>').join('');
		wide.innerHTML = '<thead><tr>' + cells.map((_, i) => '<th>c' + i + '</th>').join('') + '</tr></thead><tbody>' +
			'<tr>' + tds(cells.map((c) => c.includes('<pre') ? 'tab' : c)) + '</tr><tr>' + tds(cells) + '</tr></tbody>';
		const narrow = document.createElement('table'); narrow.id = 'narrow';
		narrow.innerHTML = '<thead><tr><th>c</th></tr></thead><tbody>' + cells.map((c) => '<tr><td>' + c + '</td></tr>').join('') + '</tbody>';
		document.body.append(wide, narrow);
		return 1;
	}`, cellsHTML)
	if err != nil || v == nil {
		t.Fatal(err)
	}
	ctx := tctx(t, 5*time.Second)
	wide, err := locate(t, p, drivers.ForRead, "#wide").Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := locate(t, p, drivers.ForRead, "#narrow").Table(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(wide.Body) != 2 || len(wide.Body[0]) != len(cellsHTML) || len(narrow.Body) != len(cellsHTML) {
		t.Fatalf("wide %v, narrow %v", wide.Body, narrow.Body)
	}
	for r, row := range wide.Body {
		for i, h := range cellsHTML {
			if r == 0 && strings.Contains(h, "<pre") {
				continue
			}
			if w, n := row[i].Text, narrow.Body[i][0].Text; w != n {
				t.Errorf("row %d, cell %q: read in its row %q, alone %q", r+1, h, w, n)
			}
		}
	}
}
