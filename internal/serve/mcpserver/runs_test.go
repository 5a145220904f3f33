package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

const flipSecret = "Quokka-T0ken-5521"

const flipFlow = `flow flip "Clicks a button an overlay may cover"

param base: string "the test server"
param token: secret "a token"

defaults wait: 2s retries: 0

open "{{ base }}/page"
fill "#token" token
click "#go"
out = text "#out"
return { "out": out }
`

// flipSite serves /page: a form whose #go button is covered by #cover
// while broken is set.
func flipSite(t *testing.T, broken *atomic.Bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/state" {
			if broken.Load() {
				fmt.Fprint(w, "broken")
			} else {
				fmt.Fprint(w, "fixed")
			}
			return
		}
		if r.URL.Path != "/page" {
			http.NotFound(w, r)
			return
		}
		cover := ""
		if broken.Load() {
			cover = `<div id="cover" style="position:fixed;inset:0;background:rgba(0,0,0,.3)" role="dialog" aria-label="Maintenance">Down for maintenance</div>`
		}
		// The page asks the server every 100 ms whether it was fixed and then
		// drops its cover by itself.
		fmt.Fprintf(w, `<!doctype html><title>Flip</title><main><input id="token" type="password" aria-label="Token">
<button id="go" onclick="document.getElementById('out').textContent='done'">Go</button><div id="out">waiting</div></main>%s
<script>setInterval(async () => { const c = document.getElementById('cover'); if (!c) return;
  const r = await fetch('/state'); if ((await r.text()) === 'fixed') c.remove(); }, 100);</script>`, cover)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRunsOverMCP(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "flip.flow"), []byte(flipFlow), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var broken atomic.Bool
	broken.Store(true)
	site := flipSite(t, &broken)
	s, _ := newServer(t, Options{FlowsDir: dir, NoWatch: true, Pool: newPool(t), Runs: st})
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_flip", Arguments: map[string]any{"base": site.URL, "token": flipSecret}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("the covered click succeeded: %s", textOf(t, res))
	}
	m := structured(t, res)
	id, _ := m["runId"].(string)
	if runs.ValidID(id) != nil {
		t.Fatalf("runId = %v", m["runId"])
	}
	f, _ := m["failure"].(map[string]any)
	if f == nil || f["line"] != 10.0 || f["action"] != "click" || f["source"] != `click "#go"` || !strings.HasSuffix(fmt.Sprint(f["url"]), "/page") {
		t.Fatalf("failure = %v", f)
	}
	if sels := mustJSON(f["selectors"]); !strings.Contains(sels, `"reason":"button#go is covered by div#cover"`) {
		t.Errorf("selectors = %s", sels)
	}
	if h := mustJSON(f["hints"]); !strings.Contains(h, "div#cover covers the target") || !strings.Contains(h, "a dialog is open") {
		t.Errorf("hints = %s", h)
	}
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/jpeg" || len(img.Data) < 1000 {
		t.Fatalf("no screenshot image content: %+v", res.Content)
	}

	// The run as resources.
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range list.Resources {
		found = found || r.URI == "rpa://runs/"+id
	}
	if !found {
		t.Fatalf("resources/list lacks the run: %+v", list.Resources)
	}
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The run templates are there (other templates, such as a flow's heal
	// proposals, may stand beside them).
	runTemplates := map[string]bool{}
	for _, rt := range tl.ResourceTemplates {
		if strings.HasPrefix(rt.URITemplate, "rpa://runs/") {
			runTemplates[rt.URITemplate] = true
		}
	}
	if len(runTemplates) != 4 {
		var got []string
		for _, rt := range tl.ResourceTemplates {
			got = append(got, rt.URITemplate)
		}
		t.Fatalf("run resource templates: %v", got)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rpa://runs/" + id})
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["status"] != "failed" || rec["errorKind"] != "covered" || len(rec["steps"].([]any)) != 3 || rec["caller"].(map[string]any)["kind"] != "mcp" {
		t.Fatalf("record: %s", rr.Contents[0].Text)
	}
	shots, _ := rec["screenshots"].([]any)
	if len(shots) != 1 {
		t.Fatalf("screenshots: %v", rec["screenshots"])
	}
	png, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: shots[0].(string)})
	if err != nil || png.Contents[0].MIMEType != "image/png" || !bytes.HasPrefix(png.Contents[0].Blob, []byte("\x89PNG")) {
		t.Fatalf("screenshot resource: %v", err)
	}
	rep, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rpa://runs/" + id + "/report.html"})
	if err != nil || !strings.Contains(rep.Contents[0].Text, `id="step-3"`) {
		t.Fatalf("report resource: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rpa://runs/20261201T125300123-ffff"}); err == nil {
		t.Fatal("an unknown run was read")
	}

	// Resume: the page is fixed (the server flips its switch), the run
	// resumes at its failed line with the scope as it stood and ends with
	// the outputs of a whole run; it is a new run linked to the first.
	broken.Store(false)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_flip", Arguments: map[string]any{"resumeRunId": id, "base": site.URL, "token": flipSecret}})
	if err != nil || res.IsError {
		t.Fatalf("resume: %v %s", err, textOf(t, res))
	}
	m = structured(t, res)
	rid, _ := m["runId"].(string)
	if out, _ := m["outputs"].(map[string]any); out["out"] != "done" || rid == id || m["completedActions"] != 2.0 {
		t.Fatalf("resumed result: %v", m)
	}
	if r, err := st.Get(rid); err != nil || r.ResumedFrom != id || r.Status != runs.StatusOK {
		t.Fatalf("resumed record: %+v %v", r, err)
	}
	for _, c := range []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"resumeRunId": "20261201T125300123-ffff", "base": site.URL, "token": "x"}, "resumeRunId"},
		{map[string]any{"resumeFrom": 3.0, "base": site.URL, "token": "x"}, "resumeFrom"},
		{map[string]any{"resumeRunId": rid, "base": site.URL, "token": "x"}, "resumeRunId"}, // it succeeded: nothing held
	} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_flip", Arguments: c.args}); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%v: %v", c.args, err)
		}
	}

	// A run that succeeds carries its runId and no failure.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_flip", Arguments: map[string]any{"base": site.URL, "token": flipSecret}})
	if err != nil || res.IsError {
		t.Fatalf("second call: %v %s", err, textOf(t, res))
	}
	m = structured(t, res)
	if id2, _ := m["runId"].(string); id2 <= id || m["failure"] != nil {
		t.Fatalf("second result: %v", m)
	}

	// The secret is nowhere: results, run folders, database.
	if strings.Contains(textOf(t, res), flipSecret) {
		t.Fatal("secret in the result")
	}
	s.Close()
	st.Close()
	_ = filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(flipSecret)) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}
