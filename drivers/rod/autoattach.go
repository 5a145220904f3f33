package rod

import (
	"context"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
)

// Why tabs are auto-attached
//
// A page that opens a dialog before anyone listens wedges its tab: Chromium
// reports a dialog only to sessions whose Page domain was enabled when it
// opened, Page.handleJavaScriptDialog then says "No dialog is showing", and
// a later Page.enable waits for the blocked renderer forever (checked on
// Chromium 14x: a popup whose first script calls alert(), attached 1.5 s
// late). Worse, rod's PageFromTarget holds the browser's target lock while
// it waits, so every later tab of that browser hung too (CI: 13 tests failed
// with "attach tab: timed out" after one such popup).
//
// So, as Puppeteer and Playwright do, every new target of the browser is
// auto-attached with waitForDebuggerOnStart (Target.setAutoAttach on the
// browser session, flatten): the target waits until our session has enabled
// its Page domain and resumed it (Runtime.runIfWaitingForDebugger), so no
// dialog can open unseen. That session (the target's "watch" session) stays
// the one whose dialog events count for the tab: events of rod's own session
// of the same tab are ignored, every dialog is seen and answered once.
// Targets of other browser contexts (an attached browser's other users)
// and non-page targets are resumed and detached at once.
//
// The watch session keeps its Page domain for the tab's life, so each Page
// event comes twice, once per session. Measured, that costs no renderer
// time (DOMContentLoaded with the watch's Page domain on and off, 4 tabs
// each, 50 interleaved rounds: no difference beyond the noise), while
// retiring the watch (Page.disable or detaching it) could cut off the
// answer to a dialog it reported, which goes on that session.

// autoAttach turns auto-attaching on (a browser without it keeps the older
// path: dialogs are seen on rod's session once it is attached).
func (b *browser) autoAttach(ctx context.Context) {
	_ = proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true}.Call(b.rb.Context(ctx))
}

// attached handles Target.attachedToTarget of the browser session (called
// from the event loop: it must not block).
func (b *browser) attached(e *proto.TargetAttachedToTarget) {
	info := e.TargetInfo
	b.mu.Lock()
	b.sidTarget[e.SessionID] = info.TargetID
	b.mu.Unlock()
	s := session{b.rb, e.SessionID}
	ours := info.Type == proto.TargetTargetInfoTypePage && (b.bctx == "" || info.BrowserContextID == b.bctx)
	if !ours {
		if !e.WaitingForDebugger {
			return // rod's own attach, or a target we do not watch
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = proto.RuntimeRunIfWaitingForDebugger{}.Call(sessionCtx{s, ctx})
			_ = proto.TargetDetachFromTarget{SessionID: e.SessionID}.Call(b.rb.Context(ctx))
		}()
		return
	}
	if !e.WaitingForDebugger {
		// rod's own attach, or a tab that was there before auto-attaching
		// began (it keeps the older path)
		return
	}
	go func() {
		// Page.enable on a paused tab answers at once; the bound is for a
		// browser that stopped answering. Only a session whose Page domain
		// is on becomes the tab's watch (else rod's session reports its
		// dialogs, as without auto-attach); no dialog can open before the
		// tab is resumed.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := (proto.PageEnable{}).Call(sessionCtx{s, ctx}); err == nil {
			b.mu.Lock()
			if b.sidTarget[e.SessionID] == info.TargetID { // not gone meanwhile
				b.watch[info.TargetID] = e.SessionID
			}
			b.mu.Unlock()
		}
		_ = proto.RuntimeRunIfWaitingForDebugger{}.Call(sessionCtx{s, ctx})
	}()
}

// detached forgets a session that ended.
func (b *browser) detached(e *proto.TargetDetachedFromTarget) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.sidTarget[e.SessionID]
	delete(b.sidTarget, e.SessionID)
	if id != "" && b.watch[id] == e.SessionID {
		delete(b.watch, id)
	}
}

// forgetTarget drops the sessions of a destroyed target (b.mu held).
func (b *browser) forgetTarget(id proto.TargetTargetID) {
	delete(b.watch, id)
	delete(b.early, id)
	for sid, t := range b.sidTarget {
		if t == id {
			delete(b.sidTarget, sid)
		}
	}
}

// dialogOpened records and answers a dialog reported on session sid
// (called from the event loop). A tab's dialog counts once: on its watch
// session when it has one, else on whichever session reports it. Before
// the tab's page is attached the dialog is kept for it and answered by the
// default policy (dismiss).
func (b *browser) dialogOpened(sid proto.TargetSessionID, e *proto.PageJavascriptDialogOpening) {
	b.mu.Lock()
	id, known := b.sidTarget[sid]
	var p *page
	if known {
		if w, ok := b.watch[id]; ok && w != sid {
			b.mu.Unlock()
			return // the watch session reports it too
		}
		p = b.pages[id]
	} else {
		p = b.sessions[sid]
	}
	if p == nil {
		key := id
		if !known {
			key = proto.TargetTargetID("session:" + string(sid))
		}
		b.early[key] = append(b.early[key], drivers.Dialog{Type: string(e.Type), Message: e.Message})
	}
	b.mu.Unlock()
	if p != nil {
		p.dialog(sid, e)
		return
	}
	answerDialog(session{b.rb, sid}, e, false, "")
}

// adoptEarly moves the dialogs seen before page p was attached into it
// (b.mu held).
func (b *browser) adoptEarly(p *page, sid proto.TargetSessionID) {
	var early []drivers.Dialog
	for _, key := range []proto.TargetTargetID{p.targetID, proto.TargetTargetID("session:" + string(sid))} {
		early = append(early, b.early[key]...)
		delete(b.early, key)
	}
	if len(early) == 0 {
		return
	}
	p.mu.Lock()
	p.dialogs = append(early, p.dialogs...)
	p.mu.Unlock()
}
