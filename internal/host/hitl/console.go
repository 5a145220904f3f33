package hitl

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/home"
	"github.com/rpa-dev/rpa/internal/host/localctl"
	"github.com/rpa-dev/rpa/internal/msg"
)

// The console channel: while an `rpa ui` console is open on this $RPA_HOME,
// the desktop channel asks there first, from any local process (rpa run,
// serve, connect, the console's own runs), and falls back to the native
// dialog when no console is registered, none is reachable, or the console
// refuses the question (no console page is open). PROTOCOL.md, "Local
// console", describes the exchange:
//
//	POST http://ADDR/v1/questions   Authorization: Bearer TOKEN
//	{"title":..., "message":..., "input":"text|password|number", "timeoutMs":N, "from":"rpa serve (pid 42)"}
//	200, application/x-ndjson, one line each:
//	{"event":"shown","id":"..."}                         at once
//	{"event":"answer","status":"answered","text":"..."}  when the person answers
//
// Closing the request withdraws the question. The answer crosses loopback
// only; neither side writes it anywhere.

func init() {
	// What a question no console took says, for a person reading Chinese (msg.Localize).
	msg.Register(map[string]msg.Text{
		"out.hitl.noPage":    {En: "no console page is open: rpa ui runs at %s (pid %d); open that address in a browser to answer there", Zh: "没有打开的控制台页面：rpa ui 运行在 %s（pid %d）；请在浏览器中打开这个地址来回答"},
		"out.hitl.noConsole": {En: "no console is open (rpa ui)", Zh: "没有打开的控制台（rpa ui）"},
	})
}

// ConsoleAck is how long the console channel waits for a console to show a
// question before it treats the console as unreachable.
const ConsoleAck = 5 * time.Second

// ConsolePath is the path of the console's question endpoint.
const ConsolePath = "/v1/questions"

// consoleRequest is the body of a POST to ConsolePath.
type consoleRequest struct {
	Title     string `json:"title"`
	Message   string `json:"message,omitempty"`
	Input     string `json:"input"`
	TimeoutMs int64  `json:"timeoutMs,omitempty"`
	From      string `json:"from,omitempty"`
	// Asker is the run that asks (WithAsker), when the asker knows it.
	Asker
}

// consoleEvent is one line of the reply.
type consoleEvent struct {
	Event  string `json:"event"` // shown or answer
	ID     string `json:"id,omitempty"`
	Status string `json:"status,omitempty"`
	Text   string `json:"text,omitempty"`
}

// Console is the console channel's asking end: it posts the question to the
// newest reachable console registered in Home's local control registry
// (package internal/host/localctl) and waits for the answer.
type Console struct {
	// Home is $RPA_HOME ("" = home.Dir()).
	Home string
	// From describes this process in the console ("" = the program, its
	// command and pid, e.g. "rpa serve (pid 42)").
	From string
	// Await, when positive, makes a question no console can take now wait
	// for one: the registry is looked at again every Await until a console
	// takes it or ctx ends (then the last reason it was unavailable). A
	// task's question, which waits for its caller anyway, so reaches a
	// console opened after it was asked; in a Race, only while the other
	// channel asks. Zero: unavailable at once.
	Await time.Duration

	unavailable func() // tests: called each time Await finds no console to take the question
}

// Name returns "console".
func (c *Console) Name() string { return "console" }

// Ask asks q in a console; unavailable when none is registered, reachable
// and willing (an error wrapping ErrUnavailable naming why), after waiting
// for one when Await is set.
func (c *Console) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	for {
		ans, err := c.askNow(ctx, q)
		if c.Await <= 0 || !errors.Is(err, ErrUnavailable) {
			return ans, err
		}
		if c.unavailable != nil {
			c.unavailable()
		}
		stop, _ := ctx.Value(stopAwaitKey{}).(<-chan struct{}) // Race: the other channel cannot ask
		t := time.NewTimer(c.Await)
		select {
		case <-ctx.Done():
			t.Stop()
			return ans, err
		case <-stop:
			t.Stop()
			return ans, err
		case <-t.C:
		}
	}
}

func (c *Console) askNow(ctx context.Context, q core.Question) (core.Answer, error) {
	dir := c.Home
	if dir == "" {
		dir = home.Dir()
	}
	ents, err := localctl.List(dir, localctl.KindConsole)
	if err != nil {
		return core.Answer{}, Unavailable("console: %v", err)
	}
	if len(ents) == 0 {
		// An rpa ui may run with no page open: name its address.
		if uis, _ := localctl.List(dir, localctl.KindUI); len(uis) > 0 && uis[0].URL != "" {
			return core.Answer{}, Unavailable("console: no console page is open: rpa ui runs at %s (pid %d); open that address in a browser to answer there", uis[0].URL, uis[0].PID)
		}
		return core.Answer{}, Unavailable("console: no console is open (rpa ui)")
	}
	var reasons []string
	for _, e := range ents {
		ans, err := c.askOne(ctx, e, q)
		if errors.Is(err, ErrUnavailable) {
			reasons = append(reasons, err.Error())
			continue
		}
		return ans, err
	}
	return core.Answer{}, Unavailable("console: %s", strings.Join(reasons, "; "))
}

func (c *Console) askOne(ctx context.Context, e localctl.Entry, q core.Question) (core.Answer, error) {
	from := c.From
	if from == "" {
		from = thisProcess()
	}
	body := consoleRequest{Title: q.Title, Message: q.Message, Input: q.Input, From: from}
	body.Asker, _ = AskerOf(ctx)
	if dl, ok := ctx.Deadline(); ok {
		body.TimeoutMs = time.Until(dl).Milliseconds()
	}
	raw, _ := json.Marshal(body)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel() // closing the request withdraws the question
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, "http://"+e.Addr+ConsolePath, strings.NewReader(string(raw)))
	if err != nil {
		return core.Answer{}, Unavailable("pid %d: %v", e.PID, err)
	}
	req.Header.Set("Authorization", "Bearer "+e.Token)
	req.Header.Set("Content-Type", "application/json")
	// No answer headers within ConsoleAck: unreachable.
	ack := time.AfterFunc(ConsoleAck, cancel)
	resp, err := consoleClient.Do(req)
	if err != nil {
		ack.Stop()
		if ctx.Err() != nil {
			return core.Answer{}, ctx.Err()
		}
		return core.Answer{}, Unavailable("pid %d unreachable: %v", e.PID, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		ack.Stop()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return core.Answer{}, Unavailable("pid %d: %s", e.PID, strings.TrimSpace(string(msg)))
	}
	rd := bufio.NewReader(io.LimitReader(resp.Body, 1<<20))
	for shown := false; ; {
		line, err := rd.ReadBytes('\n')
		if len(line) > 0 {
			var ev consoleEvent
			if json.Unmarshal(line, &ev) != nil {
				ack.Stop()
				return core.Answer{}, Unavailable("pid %d: a reply that is not the console's", e.PID)
			}
			switch ev.Event {
			case "shown":
				if !shown {
					shown = true
					ack.Stop()
				}
			case "answer":
				ack.Stop()
				switch ev.Status {
				case core.AnswerAnswered, core.AnswerDeclined, core.AnswerCancelled, core.AnswerTimeout:
				default:
					return core.Answer{}, fmt.Errorf("console pid %d: unknown answer status %q", e.PID, ev.Status)
				}
				if ev.Status != core.AnswerAnswered {
					ev.Text = ""
				}
				return core.Answer{Status: ev.Status, Text: ev.Text}, nil
			}
		}
		if err != nil {
			ack.Stop()
			if ctx.Err() != nil {
				return core.Answer{}, ctx.Err()
			}
			if !shown {
				return core.Answer{}, Unavailable("pid %d did not show the question", e.PID)
			}
			// The console went away after showing it: the next channel asks.
			return core.Answer{}, Unavailable("pid %d closed while asking", e.PID)
		}
	}
}

// consoleClient never uses a proxy (the console is on loopback).
var consoleClient = &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
	MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second}}

// thisProcess describes this process: "rpa serve (pid 42)".
func thisProcess() string {
	s := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if len(os.Args) > 1 && os.Args[1] != "" && !strings.HasPrefix(os.Args[1], "-") && !strings.ContainsAny(os.Args[1], "/\\.=") {
		s += " " + os.Args[1]
	}
	return s + " (pid " + strconv.Itoa(os.Getpid()) + ")"
}

// consoleThen is the desktop channel with a console before the native
// dialog.
type consoleThen struct {
	console Channel
	next    Channel
}

// ConsoleFirst returns the desktop channel d preceded by the console
// channel (Console with $RPA_HOME): a question goes to an open `rpa ui`
// console first and to d when no console takes it. Only the native dialog
// (*Desktop) is wrapped; any other channel (an embedder's own) is returned
// as is. Config.Chain applies it to its desktop channel.
func ConsoleFirst(d Channel) Channel {
	if _, ok := d.(*Desktop); !ok {
		return d
	}
	return &consoleThen{console: &Console{}, next: d}
}

// Name returns "desktop".
func (c *consoleThen) Name() string { return ChannelDesktop }

// Ask asks in the console, else in the next desktop channel.
func (c *consoleThen) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	ans, err := c.console.Ask(ctx, q)
	if !errors.Is(err, ErrUnavailable) {
		return ans, err
	}
	ans, err2 := c.next.Ask(ctx, q)
	if errors.Is(err2, ErrUnavailable) {
		return ans, Unavailable("%v; %v", err, err2)
	}
	return ans, err2
}

// ErrNoQuestion is returned by Broker.Answer for a question that is no
// longer pending (answered, withdrawn or timed out).
var ErrNoQuestion = errors.New("no such question (answered or withdrawn)")

// Pending is one question waiting in a console (Broker.Pending). It never
// holds an answer.
type Pending struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Message string `json:"message,omitempty"`
	Input   string `json:"input"` // text, password or number
	From    string `json:"from,omitempty"`
	// Asker is the flow, run and caller that ask, when the asker said
	// (WithAsker); From is then only the process.
	Asker
	Asked time.Time `json:"asked"`
	// Deadline is when the asker gives up (zero: unknown).
	Deadline time.Time `json:"deadline,omitempty"`
}

type pending struct {
	Pending
	answer chan core.Answer
}

// Broker is the console's end: it takes questions from local processes
// over loopback (Listen) or in-process (Ask), keeps them pending for the
// console's pages (Pending, Watch) and hands the person's answer back
// (Answer). While no page watches (Watch), questions are refused so that
// the asker falls through to its next channel. Safe for concurrent use.
type Broker struct {
	mu       sync.Mutex
	pending  map[string]*pending
	watchers map[chan struct{}]struct{}
	srv      *http.Server
	reg      *localctl.Registration
	token    string
	addr     string
	home     string
	program  string
	closed   chan struct{}
	once     sync.Once
}

// NewBroker returns a broker with no questions.
func NewBroker() *Broker {
	return &Broker{pending: map[string]*pending{}, watchers: map[chan struct{}]struct{}{}, closed: make(chan struct{})}
}

// Listen serves the question endpoint on a free loopback port. The broker
// is registered in home's local control registry (kind console; program
// describes this console for people) while at least one page watches
// (Watch), so other processes find it exactly while it takes questions;
// Close undoes both.
func (b *Broker) Listen(home, program string) error {
	tok, err := localctl.NewToken()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("console broker: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc(ConsolePath, b.serveAsk)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.srv, b.token, b.addr, b.home, b.program = srv, tok, ln.Addr().String(), home, program
	go func() { _ = srv.Serve(ln) }()
	if len(b.watchers) > 0 {
		return b.register()
	}
	return nil
}

// register writes the registry entry; b.mu is held.
func (b *Broker) register() error {
	if b.srv == nil || b.reg != nil {
		return nil
	}
	reg, err := localctl.Register(b.home, localctl.Entry{Kind: localctl.KindConsole, Addr: b.addr, Token: b.token, Program: b.program})
	if err != nil {
		return err
	}
	b.reg = reg
	return nil
}

// unregister removes the registry entry; b.mu is held.
func (b *Broker) unregister() {
	if b.reg != nil {
		_ = b.reg.Close()
		b.reg = nil
	}
}

// Registered reports whether the broker's registry entry exists now.
func (b *Broker) Registered() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reg != nil
}

// Addr is the loopback address Listen serves ("" before Listen).
func (b *Broker) Addr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addr
}

// Close unregisters and stops the endpoint. Pending questions are withdrawn
// as unavailable, so their askers ask their next channel (the native
// dialog); later questions are refused.
func (b *Broker) Close() error {
	b.once.Do(func() { close(b.closed) })
	b.mu.Lock()
	srv := b.srv
	b.srv = nil
	b.unregister()
	b.mu.Unlock()
	if srv != nil {
		return srv.Close()
	}
	return nil
}

// Watch registers a watcher (a console page following the questions): ch
// receives a signal (coalesced) whenever the pending questions change.
// While at least one watcher is registered the broker takes questions (and
// is in the registry when listening). Call stop when the page goes away; an
// error means the registry entry could not be written (the watcher is
// registered all the same: in-process questions still come).
func (b *Broker) Watch() (ch <-chan struct{}, stop func(), err error) {
	c := make(chan struct{}, 1)
	b.mu.Lock()
	b.watchers[c] = struct{}{}
	if len(b.watchers) == 1 {
		err = b.register()
	}
	b.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.watchers, c)
			if len(b.watchers) == 0 {
				b.unregister()
			}
			b.mu.Unlock()
		})
	}, err
}

// Watching reports how many watchers are registered.
func (b *Broker) Watching() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.watchers)
}

// notify signals every watcher; b.mu is held.
func (b *Broker) notify() {
	for c := range b.watchers {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// Pending returns the pending questions, oldest first.
func (b *Broker) Pending() []Pending {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Pending, 0, len(b.pending))
	for _, p := range b.pending {
		out = append(out, p.Pending)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Asked.Equal(out[j].Asked) {
			return out[i].Asked.Before(out[j].Asked)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Answer answers question id: a.Status answered (with a.Text) or declined.
// ErrNoQuestion when it is no longer pending.
func (b *Broker) Answer(id string, a core.Answer) error {
	b.mu.Lock()
	p := b.pending[id]
	if p != nil {
		delete(b.pending, id)
		b.notify()
	}
	b.mu.Unlock()
	if p == nil {
		return ErrNoQuestion
	}
	if a.Status != core.AnswerAnswered {
		a.Text = ""
	}
	p.answer <- a
	return nil
}

// Name returns "console".
func (b *Broker) Name() string { return "console" }

// Ask puts q in the console and waits for the person's answer until ctx
// ends (then the question is withdrawn and ctx.Err() returned). Unavailable
// while no page watches or once the broker is closed.
func (b *Broker) Ask(ctx context.Context, q core.Question) (core.Answer, error) {
	a, _ := AskerOf(ctx)
	return b.ask(ctx, q, "", a, nil)
}

func (b *Broker) ask(ctx context.Context, q core.Question, from string, asker Asker, shown func(id string)) (core.Answer, error) {
	var idb [12]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return core.Answer{}, err
	}
	p := &pending{Pending: Pending{ID: hex.EncodeToString(idb[:]), Title: q.Title, Message: q.Message, Input: q.Input,
		From: from, Asker: asker, Asked: time.Now()}, answer: make(chan core.Answer, 1)}
	if p.Input == "" {
		p.Input = "text"
	}
	if dl, ok := ctx.Deadline(); ok {
		p.Deadline = dl
	}
	b.mu.Lock()
	select {
	case <-b.closed:
		b.mu.Unlock()
		return core.Answer{}, Unavailable("the console is closing")
	default:
	}
	if len(b.watchers) == 0 {
		b.mu.Unlock()
		return core.Answer{}, Unavailable("no console page is open")
	}
	b.pending[p.ID] = p
	b.notify()
	b.mu.Unlock()
	if shown != nil {
		shown(p.ID)
	}
	withdraw := func() {
		b.mu.Lock()
		if b.pending[p.ID] == p {
			delete(b.pending, p.ID)
			b.notify()
		}
		b.mu.Unlock()
	}
	select {
	case a := <-p.answer:
		return a, nil
	case <-ctx.Done():
		withdraw()
		return core.Answer{}, ctx.Err()
	case <-b.closed:
		withdraw()
		return core.Answer{}, Unavailable("the console closed")
	}
}

// serveAsk is the endpoint of ConsolePath.
func (b *Broker) serveAsk(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// Only rpa's own processes: no browser (Origin), the token.
	b.mu.Lock()
	tok := b.token
	b.mu.Unlock()
	got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if r.Header.Get("Origin") != "" || subtle.ConstantTimeCompare([]byte(got), []byte(tok)) != 1 {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	var q consoleRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&q); err != nil || q.Title == "" {
		http.Error(w, "bad question: want JSON with a title", http.StatusBadRequest)
		return
	}
	switch q.Input {
	case "", "text", "password", "number":
	default:
		http.Error(w, "bad question: input "+strconv.Quote(q.Input), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	if q.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(q.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	fl, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	a, err := b.ask(ctx, core.Question{Title: q.Title, Message: q.Message, Input: q.Input}, q.From, q.Asker, func(id string) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		_ = enc.Encode(consoleEvent{Event: "shown", ID: id})
		if fl != nil {
			fl.Flush()
		}
	})
	switch {
	case errors.Is(err, ErrUnavailable) && w.Header().Get("Content-Type") == "application/x-ndjson":
		return // shown, then the console closed: the asker sees the end of the reply
	case errors.Is(err, ErrUnavailable):
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil && r.Context().Err() != nil:
		return // the asker withdrew it
	case err != nil:
		_ = enc.Encode(consoleEvent{Event: "answer", Status: core.AnswerTimeout})
		return
	}
	_ = enc.Encode(consoleEvent{Event: "answer", Status: a.Status, Text: a.Text})
}
