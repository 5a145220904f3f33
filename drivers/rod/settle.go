package rod

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Failing fast (LANGUAGE.md, "Fail fast"): while a wait finds nothing, the
// page may have settled into a state that will not produce it. A page is
// settled while no element is added or removed (the engine's observer) and
// no request is in flight, starts or ends (the tab's network events).

// Why every tab has the Network domain on
//
// It costs: on the bench's demo app (Chromium 148, every tab in its own
// window, 4 tabs a mode, 60 interleaved rounds) a navigation reached
// DOMContentLoaded (Navigation Timing) ~9 ms later with Network enabled on
// its tab, ~13 ms from Page.navigate, whatever Network.enable's buffer
// sizes or Network.setAttachDebugStack. But what needs it cannot be had
// from Page.lifecycleEvent: networkAlmostIdle and networkIdle come once
// per document (Chromium's idleness detector stops once it reported), so a
// fetch started after that, by a click or a polling page, shows in no
// lifecycle event at all (measured: fetches 1.5, 2.5 and 3.5 s after load,
// none). Without the requests such a page would count as settled: a
// sign-in or error look would end a wait that an answer on its way would
// have ended well, and a settled miss would skip the retries. `wait idle`
// (WaitIdle) waits for requests an action started too. The problem watcher
// (evidence.go) takes HTTP errors and failed requests of recorded runs from
// the Network events (Log.entryAdded, source network, carries the same:
// status, text, URL, cancellations left out). A way to save the cost that
// keeps all this would turn the domain off from a navigation rpa starts to
// the new document's networkIdle (its load counted by Chromium, as for a
// tab's first page: midLoad) and on again after; to settle first: the
// requests that start within that round trip, problems during the load
// (from Log), a document that never reaches networkIdle, and navigations
// the page starts (a form's submit), when the domain is still on.

// settleAfter is how long a page must have been settled before what it
// shows (a sign-in page, an error, an HTTP error document) ends a wait.
const settleAfter = time.Second

// settledSlice is the longest in-page wait of a LocateUntilSettled, so
// that it sees the page settle soon after it does.
const settledSlice = 250 * time.Millisecond

// settledShare is the share of a wait, at its end, for which the page must
// have been settled for the miss to count as settled (PageSettled): the
// last half of it, and at least settleAfter.
const settledShare = 2

// look is the engine's pageState: how a document stands.
type look struct {
	Quiet   int      `json:"quiet"` // ms since an element was last added or removed
	Ready   bool     `json:"ready"`
	Verdict []string `json:"verdict"` // [kind, sentence] or null
	at      time.Time
}

// untrackedGrace is how long after its load a document whose early
// requests the driver may not have seen (midLoad) counts as busy, unless
// Chromium says it reached network idle.
const untrackedGrace = 3 * time.Second

// netQuiet is how long the tab has had no request in flight and none start
// or end. For a document that loaded while the driver attached (a tab's
// first page, a popup), whose first requests it did not see, the quiet
// starts with Chromium's networkIdle (500 ms without a request), else
// untrackedGrace after its load.
func (p *page) netQuiet() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.inflight) > 0 {
		return 0
	}
	q := time.Since(p.lastNet)
	if p.midLoad {
		switch {
		case !p.firstIdle.IsZero():
			q = min(q, time.Since(p.firstIdle)+500*time.Millisecond)
		case !p.firstLoad.IsZero():
			q = min(q, max(time.Since(p.firstLoad)-untrackedGrace, 0))
		default:
			q = 0
		}
	}
	return q
}

// pageState asks the engine how the document stands (one evaluation).
func (f *frame) pageState(ctx context.Context, sels []string) (*look, error) {
	v, err := f.value(ctx, nil, "pageState", sels)
	if err != nil {
		return nil, err
	}
	var l look
	if err := json.Unmarshal([]byte(v.JSON("", "")), &l); err != nil {
		return nil, err
	}
	l.at = time.Now()
	return &l, nil
}

// settle watches one wait: it looks at the page after a slice that found
// nothing, once the network has been quiet for settleAfter, and says when
// the page has settled into a verdict, or for how long it had settled when
// the wait ran out.
type settle struct {
	f     *frame
	sels  []string // what the wait looks for (for the engine's verdict)
	start time.Time
	last  *look
}

func newSettle(f *frame, sels []string) *settle { return &settle{f: f, sels: sels, start: time.Now()} }

// settledFor is how long the page had been settled at the last look
// (0 when it had not, or was never looked at), counted to now.
func (w *settle) settledFor() time.Duration {
	if w.last == nil || !w.last.Ready {
		return 0
	}
	age := time.Since(w.last.at)
	if age > slice+500*time.Millisecond {
		return 0 // an old look says nothing of now
	}
	return min(age+time.Duration(w.last.Quiet)*time.Millisecond, w.f.pg.netQuiet())
}

// check looks at the page when its network has been quiet for
// settleAfter, and returns the PageState that ends the wait: a verdict on
// a page settled for settleAfter, or (settled > 0) a page settled for that
// long without one. nil: keep waiting.
func (w *settle) check(ctx context.Context, settled time.Duration) *drivers.PageState {
	if w.f.pg.netQuiet() < settleAfter {
		return nil
	}
	l, err := w.f.pageState(ctx, w.sels)
	if err != nil {
		return nil // a document being replaced: not settled
	}
	w.last = l
	d := w.settledFor()
	if len(l.Verdict) == 2 && d >= settleAfter {
		return &drivers.PageState{Kind: l.Verdict[0], Text: l.Verdict[1], Settled: d}
	}
	if settled > 0 && d >= settled {
		return &drivers.PageState{Kind: drivers.PageSettled, Text: settledText(d), Settled: d}
	}
	return nil
}

// atEnd is the state of a wait that ran out: PageSettled when the page
// had been settled for the last half of the wait (and settleAfter at
// least), nil otherwise. It looks once more, briefly, when the last look
// is old.
func (w *settle) atEnd() *drivers.PageState {
	wait := time.Since(w.start)
	need := max(wait/settledShare, settleAfter)
	if w.f.pg.netQuiet() < need {
		return nil
	}
	if w.last == nil || time.Since(w.last.at) > 500*time.Millisecond {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if l, err := w.f.pageState(ctx, w.sels); err == nil {
			w.last = l
		}
	}
	if d := w.settledFor(); d >= need {
		return &drivers.PageState{Kind: drivers.PageSettled, Text: settledText(d), Settled: d}
	}
	return nil
}

// settledText says for how long a page had settled.
func settledText(d time.Duration) string {
	return fmt.Sprintf("the page had settled (nothing loaded or changed for %s)", d.Round(100*time.Millisecond))
}

// verdictErr is the error a wait ends with on verdict st: kind, what the
// wait looked for (msg), and why it ended, final (no try can help).
func verdictErr(kind core.Kind, msg string, st *drivers.PageState) error {
	return &core.Error{Kind: kind, Msg: msg + ": " + st.Text, Final: true, Err: &drivers.SeenError{Seen: st.Text, Err: st}}
}
