package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/runs"
)

// tasksReport is what tasks.mjs prints.
type tasksReport struct {
	Fatal        string         `json:"fatal"`
	Capabilities map[string]any `json:"capabilities"`
	Slow         struct {
		TaskID      string   `json:"taskId"`
		Statuses    []string `json:"statuses"`
		Messages    []string `json:"messages"`
		Error       any      `json:"error"`
		Count       float64  `json:"count"`
		Rows        float64  `json:"rows"`
		RunID       string   `json:"runId"`
		RelatedTask string   `json:"relatedTask"`
		IsError     any      `json:"isError"`
		Notified    []string `json:"notified"`
	} `json:"slow"`
	PlainTimeout *rpcErr `json:"plainTimeout"`
	Refetch      struct {
		Status string  `json:"status"`
		Rows   float64 `json:"rows"`
	} `json:"refetch"`
	Listed      bool    `json:"listed"`
	OtherGet    *rpcErr `json:"otherGet"`
	OtherResult *rpcErr `json:"otherResult"`
	OtherCancel *rpcErr `json:"otherCancel"`
	OtherList   float64 `json:"otherList"`
	Verify      struct {
		TaskID     string         `json:"taskId"`
		Error      any            `json:"error"`
		Seen       []string       `json:"seen"`
		PollErrors []string       `json:"pollErrors"`
		Outputs    map[string]any `json:"outputs"`
		Asked      []struct {
			Msg  string `json:"msg"`
			Task string `json:"task"`
		} `json:"asked"`
	} `json:"verify"`
	Cancel struct {
		TaskID      string  `json:"taskId"`
		Ack         string  `json:"ack"`
		Status      string  `json:"status"`
		StreamError string  `json:"streamError"`
		NextOk      bool    `json:"nextOk"`
		NextText    string  `json:"nextText"`
		Again       *rpcErr `json:"again"`
	} `json:"cancel"`
	Unknown *rpcErr `json:"unknown"`
}

type rpcErr struct {
	Code    float64 `json:"code"`
	Message string  `json:"message"`
}

// TestTypeScriptClientTasks: MCP tasks (2025-11-25) with the TypeScript
// SDK's client.experimental.tasks against `rpa serve --http` with two
// tokens: a flow whose page answers after 8 s completes as a task although
// every request of the client times out after 2 s (the plain call times
// out), with the 50 demo rows; a new session of the same token fetches it
// by id, another token sees nothing of it; a flow asking twice goes
// input_required twice and completes with the answers, each question an
// elicitation tied to the task; tasks/cancel mid-run stops the run (its
// record says cancelled) and the next call on its profile runs.
func TestTypeScriptClientTasks(t *testing.T) {
	f := setup(t)
	slowApp, err := demoapp.Start(demoapp.Options{Delay: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slowApp.Close() })
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "host", "hitl", "testdata", "verify.flow"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.flows, "verify.flow"), src, 0o644)
	vsite := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "internal", "host", "hitl", "testdata"))))
	t.Cleanup(vsite.Close)

	srv := f.serveHTTP(t, "--token", "tok-a", "--token", "tok-b", "--hitl", "client")
	rctx, rcancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer rcancel()
	node := exec.CommandContext(rctx, "node", "tasks.mjs")
	node.Env = append(f.env("URL="+srv.url, "TOKEN_A=tok-a", "TOKEN_B=tok-b", "VSITE="+vsite.URL), "SITE="+slowApp.URL)
	var nodeErr strings.Builder
	node.Stderr = &nodeErr
	out, err := node.Output()
	var r tasksReport
	if jerr := json.Unmarshal(out, &r); jerr != nil || r.Fatal != "" || err != nil {
		srv.stop(t)
		t.Fatalf("node tasks.mjs: %v %v %s\n%s\n%s\nrpa serve:\n%s", err, jerr, r.Fatal, out, nodeErr.String(), srv.logs.String())
	}

	if r.Capabilities["requests"] == nil || r.Capabilities["cancel"] == nil || r.Capabilities["list"] == nil {
		t.Errorf("tasks capability %v", r.Capabilities)
	}
	// 1. The slow flow as a task.
	s := r.Slow
	if s.Error != nil || s.Rows != 50 || s.IsError == true || runs.ValidID(s.RunID) != nil || !strings.HasPrefix(s.TaskID, s.RunID+".") || s.RelatedTask != s.TaskID {
		t.Errorf("slow task: %+v", s)
	}
	if !slices.Contains(s.Notified, "completed") {
		t.Errorf("notifications/tasks/status heard: %v, want completed among them", s.Notified)
	}
	if len(s.Statuses) < 3 || s.Statuses[len(s.Statuses)-1] != "completed" || s.Statuses[0] != "working" {
		t.Errorf("statuses seen %v", s.Statuses)
	}
	if !contains(s.Messages, `table "#data-table"`) {
		t.Errorf("statusMessages %q: want the step the run is on", s.Messages)
	}
	if r.PlainTimeout == nil || r.PlainTimeout.Code != -32001 {
		t.Errorf("the same call without a task: %+v, want the client's timeout", r.PlainTimeout)
	}
	// 2, 3. Another session fetches it; another token does not see it.
	if r.Refetch.Status != "completed" || r.Refetch.Rows != 50 || !r.Listed {
		t.Errorf("refetch %+v listed %v", r.Refetch, r.Listed)
	}
	for name, e := range map[string]*rpcErr{"get": r.OtherGet, "result": r.OtherResult, "cancel": r.OtherCancel} {
		if e == nil || e.Code != -32602 || !strings.Contains(e.Message, "Task not found") {
			t.Errorf("%s by another token: %+v", name, e)
		}
	}
	if r.OtherList != 0 {
		t.Errorf("another token lists %v tasks", r.OtherList)
	}
	// 4. Two questions.
	v := r.Verify
	if b, _ := json.Marshal(v.Outputs); string(b) != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` || v.Error != nil {
		t.Errorf("verify task: %s %v", b, v.Error)
	}
	if !slices.Contains(v.Seen, "input_required: waiting for an answer: Captcha") || !slices.Contains(v.Seen, "input_required: waiting for an answer: SMS code") {
		t.Errorf("statuses seen by polling: %v, want input_required twice (poll errors %q)", v.Seen, v.PollErrors)
	}
	if len(v.Asked) != 2 || !strings.HasPrefix(v.Asked[0].Msg, "Captcha") || !strings.HasPrefix(v.Asked[1].Msg, "SMS code") ||
		v.Asked[0].Task != v.TaskID || v.Asked[1].Task != v.TaskID {
		t.Errorf("elicitations %+v (task %s)", v.Asked, v.TaskID)
	}
	// 5. Cancel.
	c := r.Cancel
	if c.Ack != "cancelled" || c.Status != "cancelled" || !strings.Contains(c.StreamError, "cancelled") || !c.NextOk || !strings.Contains(c.NextText, "/login") && !strings.Contains(c.NextText, "/query") {
		t.Errorf("cancel %+v", c)
	}
	if c.Again == nil || c.Again.Code != -32602 || !strings.Contains(c.Again.Message, "terminal status 'cancelled'") {
		t.Errorf("a second cancel: %+v", c.Again)
	}
	if r.Unknown == nil || r.Unknown.Code != -32602 {
		t.Errorf("unknown task: %+v", r.Unknown)
	}

	srv.stop(t) // SIGINT: rpa serve ends
	st, err := runs.Open(f.home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if run, err := st.Get(strings.SplitN(c.TaskID, ".", 2)[0]); err != nil || run.Status != runs.StatusCancelled {
		t.Errorf("the cancelled task's run: %+v %v", run, err)
	}
	if run, err := st.Get(s.RunID); err != nil || run.Status != runs.StatusOK {
		t.Errorf("the slow task's run: %+v %v", run, err)
	}
	if strings.Contains(srv.logs.String(), "482913") || strings.Contains(srv.logs.String(), demoapp.DemoPassword) {
		t.Error("an answer or a secret reached the log")
	}
	noBrowserLeft(t, f)
}

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
