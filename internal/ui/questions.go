package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/runs"
)

// The Questions page: the `ask` and hitl_prompt questions of every local run
// (this process's and, through the local control registry, those of `rpa
// run`, `rpa serve` and `rpa connect` on the same $RPA_HOME; see
// hitl.Broker), answered in the page. Every console page that loads
// static/questions.js follows them over server-sent events: that keeps the
// broker registered, shows the count in the title and the nav, and raises a
// desktop notification (the browser's Notification API) for each new one.

func init() {
	RegisterPage(Page{ID: "questions", Path: "/questions", Order: 40, Title: "nav.questions"})
	RegisterText(map[string]Text{
		"nav.questions":        {En: "Questions", Zh: "待回答"},
		"questions.intro":      {En: "Runs on this computer that need a person ask here first while the console is open (then the desktop dialog).", Zh: "控制台打开时，本机运行中需要人工处理的问题先在这里提问（其次才是桌面对话框）。"},
		"questions.none":       {En: "No question is waiting.", Zh: "没有等待回答的问题。"},
		"questions.from":       {En: "From", Zh: "来自"},
		"questions.askFlow":    {En: "flow %s", Zh: "流程 %s"},
		"questions.askRun":     {En: "run %s", Zh: "运行 %s"},
		"questions.askCaller":  {En: "called by %s", Zh: "调用方 %s"},
		"questions.asked":      {En: "Asked", Zh: "提问时间"},
		"questions.deadline":   {En: "Answer before", Zh: "请在此时间前回答"},
		"questions.answer":     {En: "Answer", Zh: "回答"},
		"questions.send":       {En: "Send", Zh: "发送"},
		"questions.decline":    {En: "Decline", Zh: "拒绝"},
		"questions.hidden":     {En: "(typed hidden; never stored)", Zh: "（输入内容隐藏，不会保存）"},
		"questions.notify":     {En: "Enable desktop notifications", Zh: "开启桌面通知"},
		"questions.notifyOn":   {En: "Desktop notifications are on.", Zh: "桌面通知已开启。"},
		"questions.notifyOff":  {En: "This browser does not allow notifications; the page title shows the count.", Zh: "此浏览器不允许通知；页面标题会显示数量。"},
		"questions.new":        {En: "rpa is asking: %s", Zh: "rpa 正在提问：%s"},
		"questions.gone":       {En: "This question is no longer waiting (answered elsewhere, withdrawn or timed out).", Zh: "这个问题已不在等待（已在别处回答、已撤回或已超时）。"},
		"questions.sent":       {En: "Answer sent.", Zh: "回答已发送。"},
		"questions.live":       {En: "Waiting questions", Zh: "等待回答的问题"},
		"questions.count":      {En: "%d waiting", Zh: "%d 个等待中"},
		"questions.badRequest": {En: "Give an answer, or decline.", Zh: "请填写回答，或选择拒绝。"},
	})
	Handle("GET /questions", questionsPage)
	Handle("GET /questions/events", questionsEvents)
	Handle("POST /questions/{id}", answerQuestion)
}

type questionsKey struct{}

// Questions is the console's question broker, made (and its loopback
// endpoint started) on first use. It is registered in $RPA_HOME's local
// control registry while a console page follows it, so local runs ask here
// first; in-process, hitl.Config's desktop channel reaches it the same way.
func (s *Server) Questions() *hitl.Broker {
	return s.Value(questionsKey{}, func() any {
		b := hitl.NewBroker()
		if err := b.Listen(s.home(), "rpa ui"); err != nil {
			s.Logf("ui: questions: other processes cannot ask here: %v", err)
		}
		return b
	}).(*hitl.Broker)
}

// questionView is one pending question as the page shows it.
type questionView struct {
	hitl.Pending
	Password bool
	Number   bool
	// AskedText and DeadlineText are local clock times ("" for no deadline).
	AskedText, DeadlineText string
	// FromText says who asks: the flow, its run and its caller when the
	// asker said (askerText), else the asking process.
	FromText string `json:"fromText"`
}

// askerText is "flow greet · run ID · called by mcp Claude" in lang (the
// caller's kind in words), or from when the question names no run.
func askerText(lang string, a hitl.Asker, from string) string {
	var parts []string
	if a.Flow != "" {
		parts = append(parts, Translate(lang, "questions.askFlow", a.Flow))
	}
	if a.Run != "" {
		parts = append(parts, Translate(lang, "questions.askRun", a.Run))
	}
	if a.Caller != "" {
		kind, rest, _ := strings.Cut(a.Caller, " ")
		c := runs.CallerTextIn(lang, runs.Caller{Kind: kind})
		if rest != "" {
			c += " " + rest
		}
		parts = append(parts, Translate(lang, "questions.askCaller", c))
	}
	if len(parts) == 0 {
		return from
	}
	return strings.Join(parts, " · ")
}

func questionViews(lang string, ps []hitl.Pending) []questionView {
	out := make([]questionView, 0, len(ps))
	for _, p := range ps {
		v := questionView{Pending: p, Password: p.Input == "password", Number: p.Input == "number", AskedText: p.Asked.Local().Format("15:04:05"),
			FromText: askerText(lang, p.Asker, p.From)}
		if !p.Deadline.IsZero() {
			v.DeadlineText = p.Deadline.Local().Format("15:04:05")
		}
		out = append(out, v)
	}
	return out
}

// questionsPage lists the pending questions, each with its answer form.
func questionsPage(s *Server, w http.ResponseWriter, r *http.Request) {
	data := map[string]any{"Questions": questionViews(s.Lang(r), s.Questions().Pending())}
	switch r.URL.Query().Get("m") {
	case "sent":
		data["Flash"] = s.T(r, "questions.sent")
	case "gone":
		data["Flash"] = s.T(r, "questions.gone")
	}
	s.Render(w, r, "questions", "nav.questions", data)
}

// questionsEvents streams the pending questions (event "questions", data:
// a JSON array of hitl.Pending with fromText, the asker in the request's
// language; never an answer) at each change, with a
// keep-alive comment every 20 s, until the client goes or the Server closes. While it
// streams the broker takes questions.
func questionsEvents(s *Server, w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	b := s.Questions()
	ch, stop, err := b.Watch()
	defer stop()
	if err != nil {
		s.Logf("ui: questions: not registered for other processes: %v", err)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	send := func() bool {
		raw, _ := json.Marshal(questionViews(s.Lang(r), b.Pending()))
		_, err := fmt.Fprintf(w, "event: questions\ndata: %s\n\n", raw)
		fl.Flush()
		return err == nil
	}
	if !send() {
		return
	}
	tick := time.NewTicker(20 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.runCtx.Done(): // the console closes: its streams end (as sseEvents)
			return
		case <-ch:
			if !send() {
				return
			}
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// answerQuestion answers question {id} from its form (answer, action send
// or decline). A script's request (Accept: application/json) gets JSON; a
// plain form post is sent back to the page. The answer is never logged or
// kept.
func answerQuestion(s *Server, w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	wantJSON := strings.Contains(r.Header.Get("Accept"), "application/json")
	if err := r.ParseForm(); err != nil {
		s.JSON(w, http.StatusBadRequest, map[string]string{"error": s.T(r, "questions.badRequest")})
		return
	}
	a := core.Answer{Status: core.AnswerAnswered, Text: r.PostForm.Get("answer")}
	if r.PostForm.Get("action") == "decline" {
		a = core.Answer{Status: core.AnswerDeclined}
	} else if a.Text == "" {
		if wantJSON {
			s.JSON(w, http.StatusBadRequest, map[string]string{"error": s.T(r, "questions.badRequest")})
		} else {
			s.RenderError(w, r, http.StatusBadRequest, "questions.badRequest")
		}
		return
	}
	err := s.Questions().Answer(r.PathValue("id"), a)
	switch {
	case errors.Is(err, hitl.ErrNoQuestion) && wantJSON:
		s.JSON(w, http.StatusGone, map[string]string{"error": s.T(r, "questions.gone")})
	case errors.Is(err, hitl.ErrNoQuestion):
		http.Redirect(w, r, "/questions?m=gone", http.StatusSeeOther)
	case err != nil:
		s.JSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	case wantJSON:
		s.JSON(w, http.StatusOK, map[string]any{"ok": true, "message": s.T(r, "questions.sent")})
	default:
		http.Redirect(w, r, "/questions?m=sent", http.StatusSeeOther)
	}
}

// closeQuestions closes what the runs, questions and record pages opened on
// s (the question broker and its registry entry, the run store, a running
// recording), if they were made. Server.Close should call it.
func (s *Server) closeQuestions() {
	s.extMu.Lock()
	b, _ := s.ext[questionsKey{}].(*hitl.Broker)
	rs, _ := s.ext[runsKey{}].(*runStore)
	rec, _ := s.ext[recordKey{}].(*recording)
	s.extMu.Unlock()
	if b != nil {
		_ = b.Close()
	}
	if rs != nil && rs.st != nil {
		_ = rs.st.Close()
	}
	if rec != nil {
		rec.mu.Lock()
		act := rec.active
		rec.mu.Unlock()
		if act != nil {
			select {
			case <-act.stop:
			default:
				close(act.stop)
			}
			<-act.done
		}
	}
}
