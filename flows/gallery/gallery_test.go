package gallery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/flows/internal/flowtest"
)

func TestMain(m *testing.M) {
	os.Exit(flowtest.Main(m, "gallery", pages()))
}

// pages serves testdata/gallery and what its widgets ask of a server.
func pages() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "gallery"))))
	// the upload widgets post here; the answer names what arrived
	mux.HandleFunc("/upload", upload)
	// the remote selects ask here: the names holding q, after 200 ms
	mux.HandleFunc("/api/cities", cities)
	return mux
}

// upload answers a multipart upload with {"name", "size"} of its file.
func upload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, fhs := range r.MultipartForm.File {
		for _, fh := range fhs {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"code": 0, "name": fh.Filename, "size": fh.Size})
			return
		}
	}
	http.Error(w, "no file", http.StatusBadRequest)
}

// cityNames is what the remote selects search.
var cityNames = []string{"杭州市", "湖州市", "嘉兴市", "宁波市", "温州市", "南京市", "苏州市", "广州市", "深圳市", "福州市"}

// cities answers ?q= with the city names holding q (JSON list of
// {value, label}), 200 ms later.
func cities(w http.ResponseWriter, r *http.Request) {
	select {
	case <-time.After(200 * time.Millisecond):
	case <-r.Context().Done():
		return
	}
	q := r.URL.Query().Get("q")
	out := []map[string]string{}
	for i, n := range cityNames {
		if q != "" && strings.Contains(n, q) {
			out = append(out, map[string]string{"value": fmt.Sprintf("c%02d", i+1), "label": n})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// A widget: its flow, arguments, and the outputs it must return.
type widget struct {
	flow string
	args func(t *testing.T) map[string]any
	want map[string]any
}

// elOrders is row i (0-based) of the element-ui and element-plus tables.
func elOrders(from, to int, keys ...string) []any {
	names := []string{"杭州云帆科技有限公司", "苏州恒信电子厂", "上海启明星贸易有限公司", "宁波联创五金", "南京金陵文具店", "合肥星河数码"}
	var out []any
	for i := from; i < to; i++ {
		all := map[string]any{
			"序号": fmt.Sprint(i + 1), "订单号": fmt.Sprintf("SO-%d", 24051701+i), "客户": names[i%len(names)],
			"金额": "¥" + commas(1200+i*350) + ".00", "状态": []string{"已发货", "待付款", "已完成"}[i%3], "操作": "查看",
		}
		m := map[string]any{}
		for _, k := range keys {
			m[k] = all[k]
		}
		out = append(out, m)
	}
	return out
}

// commas writes n with thousands separators (1,550).
func commas(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		return s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

var elCols = []string{"序号", "订单号", "客户", "金额", "状态", "操作"}

// antOrders are rows from to to of the ant-design-vue table.
func antOrders(from, to int) []any {
	rows := elOrders(from, to, "订单号", "客户", "金额", "状态", "操作")
	for i, r := range rows {
		m := r.(map[string]any)
		m["备注"] = ""
		if (from+i)%4 == 0 {
			m["备注"] = "加急"
		}
	}
	return rows
}

var widgets = []widget{
	{flow: "elementui_cascader", want: map[string]any{"result": "zj/hz/bj", "shown": "浙江省 / 杭州市 / 滨江区"}},
	{flow: "elementui_table", want: map[string]any{
		"page1": elOrders(0, 5, elCols...), "page2": elOrders(5, 10, elCols...), "result": "view:SO-24051708"}},
	{flow: "elementui_select", want: map[string]any{"result": "hu|c03", "city": "湖州市"}},
	{flow: "elementui_date", want: map[string]any{"result": "2024-05-17|2024-05-01~2024-05-31"}},
	{flow: "elementui_dialog", want: map[string]any{"result": "created:杭州云帆科技,deleted"}},
	{flow: "elementui_upload", args: csvFile, want: map[string]any{"result": "uploaded:orders.csv:16", "listed": "orders.csv"}},
	{flow: "elementui_tree", want: map[string]any{"result": "后端组,华东区"}},
	{flow: "elementui_tabs", want: map[string]any{"contact": "联系人：王芳 13900139000", "result": "invoice"}},
	{flow: "elementui_switch", want: map[string]any{"result": "notify=true,public=false"}},
	{flow: "elementui_checkbox", want: map[string]any{"result": "sms,wechat", "disabled": "disabled"}},
	{flow: "elementui_form", want: map[string]any{
		"empty": []any{"请输入姓名", "请输入手机号"}, "bad": []any{"手机号格式不正确"}, "result": "submitted:王芳:13900139000"}},
	{flow: "elementui_loading", want: map[string]any{"result": "detail:Q-102"}},
	{flow: "elementplus_cascader", want: map[string]any{"result": "zj/hz/bj", "shown": "浙江省 / 杭州市 / 滨江区"}},
	{flow: "elementplus_table", want: map[string]any{
		"page1": elOrders(0, 5, elCols...), "page2": elOrders(5, 10, elCols...), "result": "view:SO-24051708"}},
	{flow: "elementplus_select", want: map[string]any{"result": "hu|c03", "shown": []any{"湖州市", "嘉兴市"}}},
	{flow: "elementplus_date", want: map[string]any{"result": "2024-05-17|2024-05-01~2024-05-31"}},
	{flow: "elementplus_dialog", want: map[string]any{"result": "created:杭州云帆科技,deleted"}},
	{flow: "elementplus_upload", args: csvFile, want: map[string]any{"result": "uploaded:orders.csv:16", "listed": "orders.csv"}},
	{flow: "elementplus_tree", want: map[string]any{"result": "后端组,华东区"}},
	{flow: "elementplus_tabs", want: map[string]any{"contact": "联系人：王芳 13900139000", "result": "invoice"}},
	{flow: "elementplus_switch", want: map[string]any{"result": "notify=true,public=false"}},
	{flow: "elementplus_checkbox", want: map[string]any{"result": "sms,wechat", "disabled": "disabled"}},
	{flow: "elementplus_form", want: map[string]any{
		"empty": []any{"请输入姓名", "请输入手机号"}, "bad": []any{"手机号格式不正确"}, "result": "submitted:王芳:13900139000"}},
	{flow: "elementplus_loading", want: map[string]any{"result": "detail:Q-102"}},
	{flow: "antdv_table", want: map[string]any{
		"page1": antOrders(0, 5), "page2": antOrders(5, 10), "result": "view:SO-24051708"}},
	{flow: "antdv_select", want: map[string]any{"result": "hu|c03", "shown": []any{"湖州市", "嘉兴市"}}},
	{flow: "antdv_cascader", want: map[string]any{"result": "zj/hz/bj", "shown": "浙江省 / 杭州市 / 滨江区"}},
	{flow: "antdv_date", want: map[string]any{"result": "2024-05-17|2024-05-01~2024-05-31"}},
	{flow: "antdv_dialog", want: map[string]any{"result": "created:杭州云帆科技,deleted"}},
	{flow: "antdv_upload", args: csvFile, want: map[string]any{"result": "uploaded:orders.csv:16", "listed": "orders.csv"}},
	{flow: "antdv_tree", want: map[string]any{"result": "后端组,华东区"}},
	{flow: "antdv_tabs", want: map[string]any{"contact": "联系人：王芳 13900139000", "result": "invoice"}},
	{flow: "antdv_switch", want: map[string]any{"result": "notify=true,public=false"}},
	{flow: "antdv_checkbox", want: map[string]any{"result": "sms,wechat", "disabled": "disabled"}},
	{flow: "antdv_form", want: map[string]any{
		"empty": []any{"请输入姓名", "请输入手机号"}, "bad": []any{"手机号格式不正确"}, "result": "submitted:王芳:13900139000"}},
	{flow: "antdv_loading", want: map[string]any{"result": "detail:Q-102"}},
	{flow: "layui_table", want: map[string]any{
		"page1": elOrders(0, 5, elCols...), "page2": elOrders(5, 10, elCols...), "result": "view:SO-24051708"}},
	{flow: "layui_select", want: map[string]any{"result": "hu", "shown": "湖州市"}},
	{flow: "layui_date", want: map[string]any{"result": "2024-05-17|2024-05-01 - 2024-05-31"}},
	{flow: "layui_dialog", want: map[string]any{"result": "created:杭州云帆科技,deleted"}},
	{flow: "layui_upload", args: csvFile, want: map[string]any{"result": "uploaded:orders.csv:16"}},
	{flow: "layui_tree", want: map[string]any{"result": "后端组,华东区"}},
	{flow: "layui_tabs", want: map[string]any{"contact": "联系人：王芳 13900139000", "result": "invoice"}},
	{flow: "layui_switch", want: map[string]any{"result": "notify=true,public=false"}},
	{flow: "layui_checkbox", want: map[string]any{"result": "sms,wechat", "disabled": "disabled"}},
	{flow: "layui_form", want: map[string]any{"empty": "请输入姓名", "bad": "手机号格式不正确", "result": "submitted:王芳:13900139000"}},
	{flow: "layui_loading", want: map[string]any{"result": "detail:Q-102"}},
}

// csvFile writes the file the upload widgets send: orders.csv, 16 bytes.
func csvFile(t *testing.T) map[string]any {
	p := filepath.Join(t.TempDir(), "orders.csv")
	if err := os.WriteFile(p, []byte("no,amount\n1,200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]any{"file": p}
}

// TestGallery runs every widget flow against its page and compares the
// outputs with the widget's expected end state.
func TestGallery(t *testing.T) {
	var cs []flowtest.Case
	for _, w := range widgets {
		cs = append(cs, flowtest.Case{Flow: w.flow, Args: w.args, Want: w.want})
	}
	flowtest.Run(t, cs)
}

// The embedded flows are the files on disk, in canonical form.
func TestEmbedded(t *testing.T) {
	flowtest.Embedded(t, FS, len(widgets))
}
