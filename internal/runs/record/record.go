// Package record turns one interp run into evidence in the run store
// (package runs): it is the interp.Options.Events hook of a host (rpa run,
// the MCP server). While the flow runs it appends every event to the run's
// events.jsonl, writes one step row per finished action, watches the
// page's console and network (drivers.ProblemWatcher) and takes
// screenshots (at a failed action; with evidence "full" after every page
// action). Finish completes the record, builds the failure packet when the
// run failed (packet.go) and writes report.html (package runs/report).
//
// Everything written is masked: interp masks events and results; the
// recorder also masks the flow's secret arguments (stored as "***"), any
// extra secrets the host gives, and what the page says (console text,
// URLs, titles, snapshot) with the same rules (interp.Mask).
package record

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/atomicfile"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/runs/report"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Options describe a run to record.
type Options struct {
	Store *runs.Store
	Flow  *lang.Flow
	// Args are the run's checked arguments; values of secret params are
	// stored as "***" and masked everywhere.
	Args    lang.Args
	Caller  runs.Caller
	Profile string
	// Evidence is "default" or "full"; "" takes the flow's `defaults
	// evidence:` and else "default".
	Evidence string
	// ResumedFrom links a resumed run to the run it resumes.
	ResumedFrom string
	// Schedule names the schedule that started the run; RetryOf is the
	// failed run of the same scheduled fire it retries (runs.Run).
	Schedule, RetryOf string
	// ID is the run ID to record under ("": a new one): an MCP task's run
	// has the ID its task id begins with.
	ID string
	// Secrets are more values to mask (e.g. the profile's remembered
	// secrets).
	Secrets []string
	// PacketBudget is the failure packet's budget in tokens (characters /
	// 4); 0 is DefaultPacketBudget.
	PacketBudget int
	// ReportMaxBytes caps report.html (0: report.DefaultMaxBytes).
	ReportMaxBytes int
	// Lang is the language of what the record writes for people (the
	// failure packet's prose, report.html): "zh" or "en"; "" is the
	// process's (msg.Env: LANG=zh_CN.UTF-8 gives Chinese). JSON keys stay
	// English.
	Lang string
	// Heartbeat is how often events.jsonl is touched while the run lives
	// (0: runs.HeartbeatEvery); tests shorten it.
	Heartbeat time.Duration
}

// Recorder records one run. Its Event method is safe to call from the
// run's goroutine while Finish is not running; Finish is called once.
type Recorder struct {
	o      Options
	run    *runs.Run
	dir    string
	mask   *interp.Mask
	source []string // the flow's source lines ("" when unknown)
	start  time.Time

	mu       sync.Mutex
	events   *os.File
	watched  map[drivers.Page]bool
	pages    []drivers.Page // watched pages, in order
	lastPage drivers.Page
	failed   *failedStep // the last failed action
	shots    int
	writeErr error
	finished bool
	// beatStop ends the heartbeat (Finish closes it, once).
	beatStop chan struct{}
	beatOnce sync.Once
}

// heartbeat touches path every interval until stop is closed
// or path is gone: a run killed in a long step (a wait, a question) then
// still shows how long it lived (the store's interrupted duration).
func heartbeat(path string, interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			if os.Chtimes(path, now, now) != nil {
				return
			}
		}
	}
}

// failedStep is what was seen at the last failed action.
type failedStep struct {
	index     int
	line      int
	action    string
	summary   string
	evidence  *interp.Evidence
	shot      string // file name under screenshots/ ("" when none)
	shotTaken bool
}

// Start begins the record: the run row (status running) and its folder.
func Start(o Options) (*Recorder, error) {
	if o.Store == nil || o.Flow == nil || o.Flow.File == nil {
		return nil, errors.New("record: a store and a flow are needed")
	}
	r := &Recorder{o: o, mask: &interp.Mask{}, watched: map[drivers.Page]bool{}, start: time.Now()}
	for _, s := range o.Secrets {
		r.mask.Add(s)
	}
	for _, s := range o.Args.Secrets() {
		r.mask.Add(s)
	}
	ev := o.Evidence
	if ev == "" {
		ev = FlowEvidence(o.Flow)
	}
	if ev != runs.EvidenceFull {
		ev = runs.EvidenceDefault
	}
	var src []byte
	if o.Flow.Path != "" {
		src, _ = os.ReadFile(o.Flow.Path)
	}
	sum := sha256.New()
	if src != nil {
		sum.Write(src)
		r.source = strings.Split(string(src), "\n")
	} else {
		sum.Write([]byte(ast.Dump(o.Flow.File)))
	}
	args := maskArgs(o.Flow.File, o.Args.Map(), r.mask)
	r.run = &runs.Run{ID: o.ID, Flow: o.Flow.File.Name, FlowPath: o.Flow.Path, Hash: hex.EncodeToString(sum.Sum(nil)), Args: args,
		Caller: o.Caller, Profile: o.Profile, Evidence: ev, ResumedFrom: o.ResumedFrom,
		Schedule: o.Schedule, RetryOf: o.RetryOf, Start: r.start}
	dir, err := o.Store.Begin(r.run)
	if err != nil {
		return nil, err
	}
	r.dir = dir
	f, err := os.OpenFile(filepath.Join(dir, "events.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", r.run.ID, err)
	}
	r.events = f
	r.beatStop = make(chan struct{})
	beat := o.Heartbeat
	if beat <= 0 {
		beat = runs.HeartbeatEvery
	}
	go heartbeat(filepath.Join(dir, "events.jsonl"), beat, r.beatStop)
	r.write(map[string]any{"kind": "run", "flow": r.run.Flow, "args": args, "caller": r.run.Caller, "evidence": ev,
		"resumedFrom": o.ResumedFrom})
	return r, nil
}

// FlowEvidence is the flow's `defaults evidence: "full"` ("" when absent).
func FlowEvidence(f *lang.Flow) string {
	for _, o := range f.File.Defaults {
		if o.Name != "evidence" {
			continue
		}
		if s, ok := o.Value.(*ast.StringLit); ok {
			if v, ok := s.Value(); ok {
				return v
			}
		}
	}
	return ""
}

// maskArgs returns args with secret params as "***" and other values
// masked by m.
func maskArgs(f *ast.File, args map[string]any, m *interp.Mask) map[string]any {
	out := make(map[string]any, len(args))
	secret := map[string]bool{}
	for _, p := range f.Params {
		if p.Type != nil && p.Type.Name == "secret" {
			secret[p.Name] = true
		}
	}
	for k, v := range args {
		if secret[k] {
			out[k] = interp.Masked
			continue
		}
		out[k] = clipArg(m.Value(v))
	}
	return out
}

// maxArgText bounds a string the record keeps of an argument, in bytes: a
// longer one is kept as core.Message cuts it, its length named (a 3 MB
// argument does not grow the store by megabytes at every call).
const maxArgText = core.MaxMessage

// clipArg is v with every string longer than maxArgText cut.
func clipArg(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > maxArgText {
			return core.Message(x)
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clipArg(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clipArg(e)
		}
		return out
	}
	return v
}

// ID is the run ID.
func (r *Recorder) ID() string { return r.run.ID }

// Dir is the run's artifact folder.
func (r *Recorder) Dir() string { return r.dir }

// Run is the record as begun (status running).
func (r *Recorder) Run() runs.Run { return *r.run }

// Hook returns an Events func that records ev and then calls next (nil:
// none).
func (r *Recorder) Hook(next func(interp.Event)) func(interp.Event) {
	return func(ev interp.Event) {
		r.Event(ev)
		if next != nil {
			next(ev)
		}
	}
}

// Event records one interp event (an interp.Options.Events hook).
func (r *Recorder) Event(ev interp.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	var page drivers.Page
	if ev.Evidence != nil {
		page = ev.Evidence.Page
	}
	if page != nil {
		r.lastPage = page
		r.watch(page)
	}
	line := map[string]any{"kind": ev.Kind}
	switch ev.Kind {
	case interp.EventLog:
		line["text"] = r.mask.String(ev.Summary)
	default:
		line["index"], line["action"], line["line"] = ev.Index, ev.Action, ev.Line
		if ev.Target != "" {
			line["target"] = r.mask.String(ev.Target)
		}
		if ev.Evidence != nil && len(ev.Evidence.Selectors) > 1 {
			line["selectors"] = r.maskList(ev.Evidence.Selectors)
		}
		if ev.Kind == interp.EventFinished {
			line["status"], line["durationMs"] = ev.Status, ev.DurationMs
			if ev.Summary != "" {
				line["summary"] = r.mask.String(ev.Summary)
			}
		}
	}
	r.write(line)
	if ev.Kind != interp.EventFinished {
		return
	}
	st := runs.Step{Index: ev.Index, Action: ev.Action, Line: ev.Line, Status: ev.Status, DurationMs: ev.DurationMs,
		Target: r.mask.String(ev.Target), SelectorIndex: -1}
	if ev.Status != interp.StatusOK {
		st.Error = r.mask.String(ev.Summary)
	}
	if err := r.o.Store.AddStep(r.run.ID, st); err != nil && r.writeErr == nil {
		r.writeErr = err
	}
	pageAction := ev.Evidence != nil && ev.Evidence.PageAction
	switch {
	case ev.Status == interp.StatusFailed:
		r.failed = &failedStep{index: ev.Index, line: ev.Line, action: ev.Action, summary: r.mask.String(ev.Summary), evidence: ev.Evidence}
		if page == nil {
			// a step without a page of its own (fail, assert, exec...):
			// the picture is of the tab the run was last on
			page = r.lastPage
		}
		if page != nil {
			var box *drivers.Box
			if ev.Evidence != nil && len(ev.Evidence.Live()) > 0 {
				box = r.targetBox(ev.Evidence)
			}
			r.failed.shot = r.screenshot(page, ev.Index, box)
			r.failed.shotTaken = true
		}
	case r.run.Evidence == runs.EvidenceFull && pageAction && page != nil:
		r.thumbnail(page, ev.Index)
	}
}

// maskList masks each string of l.
func (r *Recorder) maskList(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = r.mask.String(s)
	}
	return out
}

// watch starts watching p's console and network once.
func (r *Recorder) watch(p drivers.Page) {
	if r.watched[p] {
		return
	}
	r.watched[p] = true
	r.pages = append(r.pages, p)
	if w, ok := p.(drivers.ProblemWatcher); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = w.WatchProblems(ctx)
		cancel()
	}
}

// WatchPage starts watching p before the run's first event (the tab a
// host hands the run).
func (r *Recorder) WatchPage(p drivers.Page) {
	if p == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastPage = p
	r.watch(p)
}

// targetBox is the box of the first selector of ev whose match has one.
func (r *Recorder) targetBox(ev *interp.Evidence) *drivers.Box {
	f := ev.Frame
	if f == nil {
		f = ev.Page
	}
	in, ok := f.(drivers.Inspector)
	if !ok || f != drivers.Frame(ev.Page) {
		return nil // inside an iframe the box is not in page coordinates
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	reps, err := in.Diagnose(ctx, ev.Live(), drivers.Attached) // the real selectors: the masked ones may hold ***
	if err != nil {
		return nil
	}
	for _, rep := range reps {
		if rep.Box != nil {
			return rep.Box
		}
	}
	return nil
}

// screenshot saves a PNG of p as screenshots/INDEX.png (the box outlined
// when given) and returns its name, "" when it could not be taken.
func (r *Recorder) screenshot(p drivers.Page, index int, box *drivers.Box) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	png, err := drivers.Capture(ctx, p, nil, false, r.holds)
	if err != nil {
		r.write(map[string]any{"kind": "screenshot", "index": index, "error": r.mask.String(err.Error())})
		return ""
	}
	if box != nil {
		if out, err := outline(png, *box); err == nil {
			png = out
		}
	}
	name := fmt.Sprintf("%d.png", index)
	if err := writeFile(filepath.Join(r.dir, "screenshots", name), png); err != nil {
		return ""
	}
	r.shots++
	r.write(map[string]any{"kind": "screenshot", "index": index, "file": "screenshots/" + name, "outlined": box != nil})
	return name
}

// holds reports whether a field's value holds a secret of the run (its
// secret arguments and extra secrets): drivers.Capture masks such fields
// and password fields before a picture.
func (r *Recorder) holds(v string) bool { return r.mask.IsSecret(v) || r.mask.String(v) != v }

// ThumbWidth and ThumbQuality shape the step screenshots of evidence
// "full" (JPEG).
const (
	ThumbWidth   = 640
	ThumbQuality = 60
)

// thumbnail saves a small JPEG of p as screenshots/INDEX.jpg (evidence
// full), secrets masked; pages without drivers.Thumbnailer get a PNG.
func (r *Recorder) thumbnail(p drivers.Page, index int) {
	tp, ok := p.(drivers.Thumbnailer)
	if !ok {
		r.screenshot(p, index, nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	restore, err := drivers.MaskFields(ctx, p, r.holds)
	if err != nil {
		r.write(map[string]any{"kind": "screenshot", "index": index, "error": r.mask.String(err.Error())})
		return
	}
	jpg, err := tp.Thumbnail(ctx, ThumbWidth, ThumbQuality)
	restore()
	if err != nil {
		r.write(map[string]any{"kind": "screenshot", "index": index, "error": r.mask.String(err.Error())})
		return
	}
	name := fmt.Sprintf("%d.jpg", index)
	if err := writeFile(filepath.Join(r.dir, "screenshots", name), jpg); err != nil {
		return
	}
	r.shots++
	r.write(map[string]any{"kind": "screenshot", "index": index, "file": "screenshots/" + name})
}

// write appends one line to events.jsonl ("t" is ms since the start).
func (r *Recorder) write(m map[string]any) {
	if r.events == nil {
		return
	}
	m["t"] = time.Since(r.start).Milliseconds()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return
	}
	if _, err := r.events.Write(b.Bytes()); err != nil && r.writeErr == nil {
		r.writeErr = err
	}
}

// writeFile writes data to path (its folder made when missing) through a
// temporary file and a rename (atomicfile), readable by this user only.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// Finished is what Finish produced.
type Finished struct {
	ID     string
	Dir    string
	Report string // path of report.html ("" when it could not be written)
	// Packet is the failure packet (nil when the run succeeded).
	Packet *Packet
	// Image is the packet's screenshot, downscaled JPEG (nil when none).
	Image []byte
	// Err is the first error met while recording (the run itself is not
	// affected).
	Err error
}

// Finish completes the record with the run's result and the tab it ended
// on: step rows refined with the selector that matched, the outcome, the
// outputs (when it succeeded; runs.Store.SetOutputs caps them), the page's
// problems, the failure packet (when it failed) and report.html.
func (r *Recorder) Finish(ctx context.Context, res *interp.Result, page drivers.Page) *Finished {
	r.mu.Lock()
	r.finished = true
	if page == nil {
		page = r.lastPage
	}
	if page != nil && !r.watched[page] {
		r.watched[page] = true
		r.pages = append(r.pages, page)
	}
	failed := r.failed
	r.mu.Unlock()

	out := &Finished{ID: r.run.ID, Dir: r.dir}
	if res == nil {
		res = &interp.Result{Error: &interp.RunError{Message: "no result", Kind: core.KindBrowser}}
	}
	targets := map[int]string{}
	if prev, err := r.o.Store.Steps(r.run.ID); err == nil {
		for _, s := range prev {
			targets[s.Index] = s.Target
		}
	}
	for _, s := range res.Results {
		if s.Selector == "" && s.SelectorIndex == nil && s.Status == interp.StatusOK {
			continue
		}
		st := runs.Step{Index: s.Index, Action: s.Action, Line: s.Line, Status: s.Status, DurationMs: s.DurationMs,
			Selector: r.mask.String(s.Selector), SelectorIndex: -1, Error: r.mask.String(s.Error)}
		if s.SelectorIndex != nil {
			st.SelectorIndex = *s.SelectorIndex
		}
		if res.Error != nil && s.Status == interp.StatusFailed && s.Line == res.Error.Line && s.Action == res.Error.Action {
			st.ErrorKind = string(res.Error.Kind)
		}
		st.Target = targets[s.Index]
		r.keep(r.o.Store.AddStep(r.run.ID, st))
	}
	for _, p := range r.pages {
		if w, ok := p.(drivers.ProblemWatcher); ok {
			for _, pr := range w.Problems() {
				r.mu.Lock()
				r.write(map[string]any{"kind": "problem", "type": pr.Kind, "text": r.mask.String(pr.Text),
					"url": r.maskURL(pr.URL), "status": pr.Status, "at": pr.Time})
				r.mu.Unlock()
			}
		}
	}
	if !res.Success && res.Error != nil && res.Error.Kind != core.KindCancelled {
		pk, img := r.packet(ctx, res, page, failed)
		out.Packet, out.Image = pk, img
		if pk != nil {
			if b, err := json.MarshalIndent(pk, "", "  "); err == nil {
				r.keep(writeFile(filepath.Join(r.dir, "failure.json"), b))
			}
		}
	}
	o := runs.Outcome{Status: runs.StatusOK, DurationMs: res.DurationMs}
	if !res.Success {
		o.Status = runs.StatusFailed
		if res.Error != nil {
			if res.Error.Kind == core.KindCancelled {
				o.Status = runs.StatusCancelled
			}
			o.ErrorKind, o.ErrorMessage, o.ErrorLine, o.ErrorAction = string(res.Error.Kind), r.mask.String(res.Error.Message), res.Error.Line, res.Error.Action
		}
	}
	r.beatOnce.Do(func() { close(r.beatStop) })
	r.mu.Lock()
	r.write(map[string]any{"kind": "end", "status": o.Status, "durationMs": o.DurationMs, "errorKind": o.ErrorKind})
	if r.events != nil {
		r.keep(r.events.Close())
		r.events = nil
	}
	r.mu.Unlock()
	if res.Success && res.Outputs != nil {
		// Kept with the run (capped), masked once more with the record's
		// own secrets (the profile's remembered ones).
		r.keep(r.o.Store.SetOutputs(r.run.ID, r.mask.Value(res.Outputs), 0))
	}
	r.keep(r.o.Store.Finish(r.run.ID, o))
	path, err := report.WriteFile(r.o.Store, r.run.ID, report.Options{MaxBytes: r.o.ReportMaxBytes, Source: r.source, Lang: r.lang()})
	r.keep(err)
	if err == nil {
		out.Report = path
		r.keep(r.o.Store.UpdateSize(r.run.ID))
	}
	r.mu.Lock()
	out.Err = r.writeErr
	r.mu.Unlock()
	return out
}

func (r *Recorder) keep(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	if r.writeErr == nil {
		r.writeErr = err
	}
	r.mu.Unlock()
}

// SourceLine is line n of the flow's source, trimmed ("" when unknown).
func (r *Recorder) SourceLine(n int) string {
	if n < 1 || n > len(r.source) {
		return ""
	}
	return strings.TrimSpace(r.mask.String(r.source[n-1]))
}
