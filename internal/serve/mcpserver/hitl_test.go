//lint:file-ignore SA1019 the tests exercise the llm action over sampling, deprecated by SEP-2577 but still part of the protocol during its deprecation window.

package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// verifySite serves hitl/testdata/verify.html (captcha, then SMS code).
func verifySite(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "host", "hitl", "testdata"))))
	t.Cleanup(srv.Close)
	return srv.URL
}

// verifyFlows is a flows folder holding hitl/testdata/verify.flow.
func verifyFlows(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "host", "hitl", "testdata", "verify.flow"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "verify.flow"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var captchaRe = regexp.MustCompile(`they read: (\w+)`)

// answerer is a client's elicitation handler that answers the verify
// flow's questions the way a person would: the captcha it reads from the
// question, the SMS code it "got on its phone".
type answerer struct {
	mu       sync.Mutex
	messages []string
	mode     string // "answer", "decline", "silent"
}

func (a *answerer) handle(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.messages = append(a.messages, r.Params.Message)
	mode := a.mode
	a.mu.Unlock()
	switch mode {
	case "decline":
		return &mcp.ElicitResult{Action: "decline"}, nil
	case "silent":
		// A person who answers too late: on 2025-11-25 the server withdraws
		// the request at the timeout (ctx ends); on 2026-07-28 the paused
		// run has timed out by the time the answer comes back.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Second):
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{hitl.AnswerField: "too-late"}}, nil
		}
	}
	msg := r.Params.Message
	switch {
	case strings.HasPrefix(msg, "Captcha"):
		m := captchaRe.FindStringSubmatch(msg)
		if m == nil {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{hitl.AnswerField: m[1]}}, nil
	case strings.HasPrefix(msg, "SMS code"):
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{hitl.AnswerField: "482913"}}, nil
	case strings.HasPrefix(msg, "How many"):
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{hitl.AnswerField: 42.0}}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{hitl.AnswerField: "yes"}}, nil
}

func (a *answerer) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.messages...)
}

// connectVersion opens an in-memory session at protocol version (the
// SDK's default, 2026-07-28, when ""), with elicitation when a is set.
func connectVersion(t *testing.T, s *Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if version != "" {
		if got := ss.InitializeParams().ProtocolVersion; got != version {
			t.Fatalf("negotiated %s, want %s", got, version)
		}
	}
	return cs
}

// TestElicitTwoQuestionsFlow runs the captcha-then-SMS flow with a Go SDK
// client answering both questions through elicitation, in both protocol
// eras: blocking elicitation/create (2025-11-25) and input requests with
// a paused run (2026-07-28).
func TestElicitTwoQuestionsFlow(t *testing.T) {
	base := verifySite(t)
	s, logs := newServer(t, Options{FlowsDir: verifyFlows(t), NoWatch: true, Pool: newPool(t),
		HITL: &hitl.Config{Order: []string{hitl.ChannelClient}}})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			a := &answerer{mode: "answer"}
			cs := connectVersion(t, s, version, &mcp.ClientOptions{ElicitationHandler: a.handle})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": base}})
			if err != nil {
				t.Fatal(err)
			}
			out := structured(t, res)
			if res.IsError {
				t.Fatalf("flow failed: %s", textOf(t, res))
			}
			got, _ := json.Marshal(out["outputs"])
			if want := `{"captcha":"X7K2P","sms":"482913","status":"Verified"}`; string(got) != want {
				t.Errorf("outputs %s, want %s", got, want)
			}
			if q := a.asked(); len(q) != 2 || !strings.HasPrefix(q[0], "Captcha") || !strings.HasPrefix(q[1], "SMS code") {
				t.Errorf("questions asked: %q", q)
			}
		})
	}
	if strings.Contains(logs.String(), "482913") {
		t.Error("an answer reached the log")
	}
	n := s.paused.Len()
	if n != 0 {
		t.Errorf("%d paused calls left after the runs finished", n)
	}
}

// TestHITLPromptChannels covers hitl_prompt through the client channel in
// both eras: answered (text, number), declined, never answered (timeout),
// no capability (falls through to the next channel, then to a timeout
// with the reason when none is left), cancellation.
func TestHITLPromptChannels(t *testing.T) {
	var desktopAsked atomic.Int32
	desktop := hitl.Func{N: hitl.ChannelDesktop, F: func(ctx context.Context, q core.Question) (core.Answer, error) {
		desktopAsked.Add(1)
		return core.Answer{Status: core.AnswerAnswered, Text: "from-desktop"}, nil
	}}
	withDesktop, _ := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client", "desktop"}, Desktop: desktop}})
	clientOnly, _ := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client"}}})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		for _, tc := range []struct {
			name   string
			srv    *Server
			mode   string // "" = no elicitation capability
			args   map[string]any
			want   string
			wantRe string
		}{
			{"answered", withDesktop, "answer", map[string]any{"title": "Captcha", "message": "they read: AB12"}, `{"answer":"AB12","status":"answered"}`, ""},
			{"number", withDesktop, "answer", map[string]any{"title": "How many?", "inputType": "number"}, `{"answer":"42","status":"answered"}`, ""},
			{"declined", withDesktop, "decline", map[string]any{"title": "Captcha"}, `{"status":"declined"}`, ""},
			{"timeout", withDesktop, "silent", map[string]any{"title": "Captcha", "timeout": 1}, `{"status":"timeout"}`, ""},
			{"no capability falls through", withDesktop, "", map[string]any{"title": "Captcha"}, `{"answer":"from-desktop","status":"answered"}`, ""},
			{"no channel left", clientOnly, "", map[string]any{"title": "Captcha"}, "", `^\{"reason":"ask \\"Captcha\\": no one could be asked \(timeout\): client: the MCP client did not declare elicitation","status":"timeout"\}$`},
			{"password never through a form", clientOnly, "answer", map[string]any{"title": "PIN", "inputType": "password"}, "", `"status":"timeout"`},
		} {
			t.Run(version+"/"+tc.name, func(t *testing.T) {
				opts := &mcp.ClientOptions{}
				a := &answerer{mode: tc.mode}
				if tc.mode != "" {
					opts.ElicitationHandler = a.handle
				}
				cs := connectVersion(t, tc.srv, version, opts)
				before := desktopAsked.Load()
				start := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: tc.args})
				if err != nil {
					t.Fatal(err)
				}
				got := textOf(t, res)
				if tc.want != "" && got != tc.want {
					t.Errorf("got %s, want %s", got, tc.want)
				}
				if tc.wantRe != "" && !regexp.MustCompile(tc.wantRe).MatchString(got) {
					t.Errorf("got %s, want match %s", got, tc.wantRe)
				}
				if tc.mode != "" && tc.name != "password never through a form" && len(a.asked()) != 1 {
					t.Errorf("client asked %d times", len(a.asked()))
				}
				if tc.name == "password never through a form" && len(a.asked()) != 0 {
					t.Errorf("a password question went through form elicitation: %q", a.asked())
				}
				if fell := desktopAsked.Load() - before; (tc.name == "no capability falls through") != (fell == 1) {
					t.Errorf("desktop asked %d times", fell)
				}
				if el := time.Since(start); tc.name == "timeout" && (el < 900*time.Millisecond || el > 30*time.Second) { // the upper bound only catches a hang
					t.Errorf("timeout after %s, want about 1s", el)
				}
			})
		}
	}
}

// TestHITLPromptCancel: cancelling the call ends the pending question.
func TestHITLPromptCancel(t *testing.T) {
	s, _ := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client"}}})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			asked := make(chan struct{}, 1)
			gone := make(chan struct{})
			cs := connectVersion(t, s, version, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked <- struct{}{}
				<-ctx.Done()
				close(gone)
				return nil, ctx.Err()
			}})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: map[string]any{"title": "Wait", "timeout": 60}})
				errc <- err
			}()
			<-asked
			cancel()
			select {
			case <-errc:
			case <-time.After(5 * time.Second):
				t.Fatal("the call did not end after cancel")
			}
			if version == "2025-11-25" {
				select {
				case <-gone:
				case <-time.After(5 * time.Second):
					t.Fatal("the pending elicitation was not cancelled")
				}
			}
		})
	}
}

// TestPasswordURLElicitation: a password question goes to a client that
// declared URL mode as a one-time loopback page; the answer typed there
// comes back, the page works once, and the answer is never logged.
func TestPasswordURLElicitation(t *testing.T) {
	s, logs := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client"}}})
	var pageURL string
	var form *mcp.ElicitParams
	cs := connectVersion(t, s, "2025-11-25", &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if r.Params.Mode != "url" {
				form = r.Params
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			pageURL = r.Params.URL
			// The person opens the page and types the password there.
			resp, err := http.Get(r.Params.URL)
			if err != nil {
				return nil, err
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(body), `type="password"`) || !strings.Contains(string(body), "Bank PIN") {
				t.Errorf("page: %s", body)
			}
			resp, err = http.PostForm(r.Params.URL, url.Values{"answer": {"s3cr3t-pin"}, "action": {"accept"}})
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			return &mcp.ElicitResult{Action: "accept"}, nil
		}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolHITLPrompt,
		Arguments: map[string]any{"title": "Bank PIN", "inputType": "password", "timeout": 10}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, res); got != `{"answer":"s3cr3t-pin","status":"answered"}` {
		t.Errorf("got %s", got)
	}
	if form != nil {
		t.Errorf("a password question went through form mode: %+v", form)
	}
	if !strings.HasPrefix(pageURL, "http://127.0.0.1:") {
		t.Errorf("page URL %q is not on loopback", pageURL)
	}
	resp, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Errorf("second visit: %s, want 410", resp.Status)
	}
	if strings.Contains(logs.String(), "s3cr3t-pin") {
		t.Error("the password reached the log")
	}
}

// TestSamplingFlow: the `llm` action asks the calling client's model
// through sampling in both eras; the prompt carries the input as JSON
// with secrets masked; the reply is what the flow returns. A client
// without the capability gets a clear error.
func TestSamplingFlow(t *testing.T) {
	base := verifySite(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "host", "llm", "testdata", "summarise.flow"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "summarise.flow"), src, 0o644)
	s, _ := newServer(t, Options{FlowsDir: dir, NoWatch: true, Pool: newPool(t)})
	args := map[string]any{"base_url": base, "password": "hunter2-secret"}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			var prompts []string
			cs := connectVersion(t, s, version, &mcp.ClientOptions{
				CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					prompts = append(prompts, r.Params.Messages[0].Content.(*mcp.TextContent).Text)
					return &mcp.CreateMessageResult{Role: "assistant", Model: "stub", Content: &mcp.TextContent{Text: "A page asking for a captcha."}}, nil
				}})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_summarise", Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("flow failed: %s", textOf(t, res))
			}
			got, _ := json.Marshal(structured(t, res)["outputs"])
			if string(got) != `{"summary":"A page asking for a captcha."}` {
				t.Errorf("outputs %s", got)
			}
			if len(prompts) != 1 {
				t.Fatalf("prompts %q", prompts)
			}
			p := prompts[0]
			if strings.Contains(p, "hunter2") || !strings.Contains(p, `"password": "***"`) || !strings.Contains(p, "(key ***)") ||
				!strings.Contains(p, `"title": "Type the characters you see"`) {
				t.Errorf("prompt:\n%s", p)
			}
		})
	}
	t.Run("no capability", func(t *testing.T) {
		cs := connectVersion(t, s, "2025-11-25", &mcp.ClientOptions{})
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_summarise", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(textOf(t, res), "did not declare sampling") {
			t.Errorf("result: %s", textOf(t, res))
		}
	})
}

// TestAskTimeoutCatchable: an elicitation nobody answers fails `ask`
// with kind hitl_timeout at its timeout, and try/catch handles it.
func TestAskTimeoutCatchable(t *testing.T) {
	base := verifySite(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "host", "hitl", "testdata", "ask_timeout.flow"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ask_timeout.flow"), src, 0o644)
	s, _ := newServer(t, Options{FlowsDir: dir, NoWatch: true, Pool: newPool(t), HITL: &hitl.Config{Order: []string{"client"}}})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			a := &answerer{mode: "silent"}
			cs := connectVersion(t, s, version, &mcp.ClientOptions{ElicitationHandler: a.handle})
			start := time.Now()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_ask_timeout", Arguments: map[string]any{"base_url": base}})
			if err != nil {
				t.Fatal(err)
			}
			out, _ := structured(t, res)["outputs"].(map[string]any)
			if out["kind"] != "hitl_timeout" || !strings.Contains(out["message"].(string), "no answer within 1s") {
				t.Errorf("outputs %v", out)
			}
			if el := time.Since(start); el > 30*time.Second { // only a hang
				t.Errorf("took %s", el)
			}
		})
	}
}
