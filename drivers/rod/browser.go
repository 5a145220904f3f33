package rod

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// browser is one Chromium (launched or attached).
type browser struct {
	rb     *rod.Browser
	cancel func() // ends the connection
	// transport carries rod's commands; post sends on it directly, under
	// ids from postID (see post)
	transport cdp.WebSocketable
	postID    atomic.Int64

	// launched process (nil when attached)
	cmd         *exec.Cmd
	exited      chan struct{}
	exitedCtx   context.Context // ends when exited closes
	kill        func()
	userDataDir string
	remote      bool
	dlDir       string // where Chromium writes downloads (by GUID)
	// attached profiles (remote.go): the endpoint as given, the profile's
	// browser context ("" = the default one), the load count dropped once
	endpoint string
	bctx     proto.BrowserBrowserContextID
	loadOnce sync.Once

	mu     sync.Mutex
	closed bool
	pages  map[proto.TargetTargetID]*page
	order  []proto.TargetTargetID // creation order of known page targets
	popups map[proto.TargetTargetID][]popup
	orphan []popup                       // new tabs whose opener is unknown
	own    map[proto.TargetTargetID]bool // tabs made by NewPage (never popups)
	// closing holds tabs Close was asked to close and whose
	// targetDestroyed has not come yet: Pages skips them (attaching to a
	// closing tab blocks)
	closing map[proto.TargetTargetID]bool
	// sessions maps attached tabs' sessions to their pages; early holds
	// dialogs of tabs still being attached (answered with the default
	// policy, dismiss), adopted by the page once attached; sidTarget maps
	// every session of ours to its target and watch a tab to the
	// auto-attached session whose dialog events count (autoattach.go).
	sessions  map[proto.TargetSessionID]*page
	early     map[proto.TargetTargetID][]drivers.Dialog
	sidTarget map[proto.TargetSessionID]proto.TargetTargetID
	watch     map[proto.TargetTargetID]proto.TargetSessionID
	seq       int64
	dls       map[string]*dlState
	dlSeq     int64
	wake      chan struct{} // closed and replaced on every recorded event
}

type popup struct {
	id  proto.TargetTargetID
	seq int64
}

type dlState struct {
	seq   int64
	begin proto.BrowserDownloadWillBegin
	state proto.BrowserDownloadProgressState
	total float64
	done  float64
}

// setup enables download events and starts the browser-level event loop.
func (b *browser) setup(ctx context.Context, dlDir string) error {
	if err := os.MkdirAll(dlDir, 0o700); err != nil {
		return &core.Error{Kind: core.KindBrowser, Msg: "downloads folder: " + err.Error(), Err: err}
	}
	b.dlDir = dlDir
	events := b.rb.Event()
	go b.loop(events)
	b.autoAttach(ctx)
	err := proto.BrowserSetDownloadBehavior{
		Behavior:         proto.BrowserSetDownloadBehaviorBehaviorAllowAndName,
		BrowserContextID: b.bctx,
		DownloadPath:     dlDir,
		EventsEnabled:    true,
	}.Call(b.rb.Context(ctx))
	if err != nil {
		return &core.Error{Kind: core.KindBrowser, Msg: "set download behaviour: " + err.Error(), Err: err}
	}
	return nil
}

func (b *browser) notify() {
	close(b.wake)
	b.wake = make(chan struct{})
}

func (b *browser) loop(events <-chan *rod.Message) {
	for msg := range events {
		switch msg.Method {
		case "Target.targetCreated":
			var e proto.TargetTargetCreated
			if msg.Load(&e) && e.TargetInfo.Type == proto.TargetTargetInfoTypePage && (b.bctx == "" || e.TargetInfo.BrowserContextID == b.bctx) {
				b.mu.Lock()
				b.seq++
				p := popup{id: e.TargetInfo.TargetID, seq: b.seq}
				b.order = append(b.order, e.TargetInfo.TargetID)
				if e.TargetInfo.OpenerID != "" {
					b.popups[e.TargetInfo.OpenerID] = append(b.popups[e.TargetInfo.OpenerID], p)
				} else {
					b.orphan = append(b.orphan, p)
				}
				b.notify()
				b.mu.Unlock()
			}
		case "Target.targetDestroyed":
			var e proto.TargetTargetDestroyed
			if msg.Load(&e) {
				b.mu.Lock()
				if p := b.pages[e.TargetID]; p != nil {
					p.markClosed()
					delete(b.sessions, p.rp.SessionID)
				}
				b.forgetTarget(e.TargetID)
				delete(b.pages, e.TargetID)
				delete(b.own, e.TargetID)
				delete(b.closing, e.TargetID)
				delete(b.popups, e.TargetID)
				for opener, list := range b.popups {
					b.popups[opener] = dropPopup(list, e.TargetID)
				}
				b.orphan = dropPopup(b.orphan, e.TargetID)
				for i, id := range b.order {
					if id == e.TargetID {
						b.order = append(b.order[:i:i], b.order[i+1:]...)
						break
					}
				}
				b.notify()
				b.mu.Unlock()
			}
		case "Page.javascriptDialogOpening":
			var e proto.PageJavascriptDialogOpening
			if msg.Load(&e) && msg.SessionID != "" {
				b.dialogOpened(msg.SessionID, &e)
			}
		case "Target.attachedToTarget":
			var e proto.TargetAttachedToTarget
			if msg.SessionID == "" && msg.Load(&e) {
				b.attached(&e)
			}
		case "Target.detachedFromTarget":
			var e proto.TargetDetachedFromTarget
			if msg.SessionID == "" && msg.Load(&e) {
				b.detached(&e)
			}
		case "Browser.downloadWillBegin":
			var e proto.BrowserDownloadWillBegin
			if msg.Load(&e) {
				b.mu.Lock()
				b.dlSeq++
				b.dls[e.GUID] = &dlState{seq: b.dlSeq, begin: e, state: proto.BrowserDownloadProgressStateInProgress}
				b.notify()
				b.mu.Unlock()
			}
		case "Browser.downloadProgress":
			var e proto.BrowserDownloadProgress
			if msg.Load(&e) {
				b.mu.Lock()
				if d := b.dls[e.GUID]; d != nil {
					d.state, d.total, d.done = e.State, e.TotalBytes, e.ReceivedBytes
				}
				b.notify()
				b.mu.Unlock()
			}
		}
	}
	b.mu.Lock()
	b.closed = true
	b.notify()
	b.mu.Unlock()
}

// errExited ends a call whose launched browser exited: a closed
// connection to callers (wrapErr: "the browser is gone").
var errExited = fmt.Errorf("the browser process exited: %w", net.ErrClosed)

// whileRunning returns ctx, ended with errExited as its cause when the
// launched browser's process exits (a call to a dead browser may
// otherwise wait for an answer that never comes), and a func that
// releases it. Attached browsers get ctx as it is.
func (b *browser) whileRunning(ctx context.Context) (context.Context, func()) {
	if b == nil || b.exitedCtx == nil {
		return ctx, func() {}
	}
	c, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(b.exitedCtx, func() { cancel(errExited) })
	return c, func() { stop(); cancel(nil) }
}

// waitFor calls cond under b.mu until it returns true or ctx ends.
func (b *browser) waitFor(ctx context.Context, cond func() bool) error {
	return waitOn(ctx, &b.mu, &b.closed, &b.wake, b.goneErr, cond)
}

// goneErr is the error of a call on a closed browser; for an attached one
// it names the endpoint (tokens masked).
func (b *browser) goneErr() error {
	if b.endpoint != "" {
		return core.Errorf(core.KindBrowser, "the remote browser at %s is gone (connection closed); the next call attaches again", Redact(b.endpoint))
	}
	return core.Errorf(core.KindBrowser, "browser closed")
}

// NewPage opens a tab at url ("" = about:blank) and waits for its
// DOMContentLoaded.
func (b *browser) NewPage(ctx context.Context, url string) (drivers.Page, error) {
	if b.isClosed() {
		return nil, b.goneErr()
	}
	if url == "" {
		url = "about:blank"
	}
	// The tab starts loading url while its renderer starts and we attach.
	// On an attached browser every tab gets its own window, in the
	// profile's context: a tab behind another is hidden, and hidden tabs
	// stall input and never run animation frames.
	res, err := proto.TargetCreateTarget{URL: url, BrowserContextID: b.bctx, NewWindow: b.remote}.Call(b.rb.Context(ctx))
	if err != nil {
		return nil, navErr(ctx, url, err)
	}
	b.mu.Lock()
	b.own[res.TargetID] = true
	b.mu.Unlock()
	p, err := b.attachPage(ctx, res.TargetID)
	if err != nil {
		_, _ = proto.TargetCloseTarget{TargetID: res.TargetID}.Call(b.rb)
		return nil, err
	}
	if url == "about:blank" {
		p.mu.Lock()
		p.midLoad = false // nothing loads: the next document is all seen
		p.mu.Unlock()
	}
	var werr error
	if url != "about:blank" {
		werr = p.waitFirstDocument(ctx, url)
	}
	if err := p.ready(); err != nil {
		_ = p.Close()
		return nil, err
	}
	if werr != nil {
		return p, werr
	}
	return p, nil
}

// pageFor returns the wrapper of a page target, attaching to it on first
// use, once its set-up calls are done.
func (b *browser) pageFor(ctx context.Context, id proto.TargetTargetID) (*page, error) {
	p, err := b.attachPage(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := p.ready(); err != nil {
		return nil, err
	}
	return p, nil
}

// attachPage is pageFor without waiting for the set-up calls (p.ready).
func (b *browser) attachPage(ctx context.Context, id proto.TargetTargetID) (*page, error) {
	b.mu.Lock()
	if p := b.pages[id]; p != nil {
		b.mu.Unlock()
		return p, nil
	}
	b.mu.Unlock()
	// rod's PageFromTarget does not take a context (and Page.enable waits
	// while a dialog is open: the event loop answers those).
	type res struct {
		rp  *rod.Page
		err error
	}
	ch := make(chan res, 1)
	go func() {
		rp, err := b.rb.PageFromTarget(id)
		ch <- res{rp, err}
	}()
	var r res
	select {
	case r = <-ch:
	case <-ctx.Done():
		return nil, wrapErr(ctx, "attach tab", ctx.Err())
	}
	if r.err != nil {
		return nil, wrapErr(ctx, "attach tab", r.err)
	}
	p := newPage(b, r.rp)
	p.init(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	if q := b.pages[id]; q != nil { // attached concurrently
		p.stop()
		return q, nil
	}
	b.pages[id] = p
	sid := r.rp.SessionID
	b.sessions[sid] = p
	b.adoptEarly(p, sid)
	return p, nil
}

// Pages lists the open tabs, oldest first.
func (b *browser) Pages(ctx context.Context) ([]drivers.Page, error) {
	res, err := proto.TargetGetTargets{}.Call(b.rb.Context(ctx))
	if err != nil {
		return nil, wrapErr(ctx, "list tabs", err)
	}
	b.mu.Lock()
	rank := map[proto.TargetTargetID]int{}
	for i, id := range b.order {
		rank[id] = i + 1
	}
	b.mu.Unlock()
	var ids []proto.TargetTargetID
	b.mu.Lock()
	closing := make(map[proto.TargetTargetID]bool, len(b.closing))
	for id := range b.closing {
		closing[id] = true
	}
	b.mu.Unlock()
	for _, t := range res.TargetInfos {
		if closing[t.TargetID] {
			continue
		}
		if t.Type == proto.TargetTargetInfoTypePage && (b.bctx == "" || t.BrowserContextID == b.bctx) {
			ids = append(ids, t.TargetID)
		}
	}
	// Targets we saw created keep their order; unknown ones (there before we
	// attached) come first in the order the browser lists them (newest first).
	sortStable(ids, func(a, b proto.TargetTargetID) bool { return rank[a] < rank[b] })
	out := make([]drivers.Page, 0, len(ids))
	for _, id := range ids {
		p, err := b.pageFor(ctx, id)
		if err != nil {
			continue // closed meanwhile
		}
		out = append(out, p)
	}
	return out, nil
}

func dropPopup(list []popup, id proto.TargetTargetID) []popup {
	out := list[:0]
	for _, p := range list {
		if p.id != id {
			out = append(out, p)
		}
	}
	return out
}

func sortStable(ids []proto.TargetTargetID, less func(a, b proto.TargetTargetID) bool) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && less(ids[j], ids[j-1]); j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

func (b *browser) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// Alive reports whether the browser still answers (within 2s).
func (b *browser) Alive() bool {
	if b.isClosed() {
		return false
	}
	if b.exited != nil {
		select {
		case <-b.exited:
			return false
		default:
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := proto.BrowserGetVersion{}.Call(b.rb.Context(ctx))
	return err == nil
}

// Close ends a launched browser (Browser.close, then SIGKILL of its
// process group after 3s) or detaches from a remote one. It waits for the
// process to exit.
func (b *browser) Close() error {
	already := b.markClosed()
	if b.remote {
		if !already {
			// the profile's context and its tabs go with it (remote.go)
			b.disposeRemote()
			_ = os.RemoveAll(b.dlDir)
		}
		return nil
	}
	if b.cmd == nil {
		b.cancel()
		return nil
	}
	select {
	case <-b.exited:
	default:
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = proto.BrowserClose{}.Call(b.rb.Context(ctx))
		cancel()
		select {
		case <-b.exited:
		case <-time.After(3 * time.Second):
		}
		// The browser's children share its process group: kill it whole
		// (also when Browser.close worked, for lingering helpers).
		b.kill()
		<-b.exited
	}
	b.cancel()
	return nil
}

// Discard ends a launched browser at once: its process group is killed,
// without Browser.close (which first writes the profile to disk); it
// returns when the process has exited (drivers.Discarder). An attached
// browser is closed as by Close.
func (b *browser) Discard() error {
	if b.remote || b.cmd == nil {
		return b.Close()
	}
	b.markClosed()
	b.kill()
	<-b.exited
	b.cancel()
	return nil
}

// markClosed marks the browser closed and stops its pages' work; it reports whether it was
// closed already.
func (b *browser) markClosed() (already bool) {
	b.mu.Lock()
	already = b.closed
	b.closed = true
	pages := make([]*page, 0, len(b.pages))
	for _, p := range b.pages {
		pages = append(pages, p)
	}
	b.mu.Unlock()
	for _, p := range pages {
		p.stop()
	}
	return already
}

// PID returns the browser process id (0 when attached); for tests.
func (b *browser) PID() int {
	if b.cmd == nil || b.cmd.Process == nil {
		return 0
	}
	return b.cmd.Process.Pid
}

// postIDBase starts the ids of the commands post sends: far above the ids
// rod's client counts up from 1, so that it drops their answers (it
// ignores an answer to an id it does not wait for).
const postIDBase = 1 << 30

// post sends a command of session sid without waiting for its answer: the
// commands a goroutine posts, and the one it then sends through rod and
// awaits, leave in that order on the one connection, and the browser
// handles a session's commands in the order they came. An error is the
// connection's (the command's own error, if any, is not seen).
func (b *browser) post(sid proto.TargetSessionID, method string, params any) error {
	data, err := json.Marshal(struct {
		ID        int64                 `json:"id"`
		SessionID proto.TargetSessionID `json:"sessionId,omitempty"`
		Method    string                `json:"method"`
		Params    any                   `json:"params"`
	}{postIDBase + b.postID.Add(1), sid, method, params})
	if err != nil {
		return err
	}
	return b.transport.Send(data)
}
