// Package rod implements drivers.Driver with go-rod over the Chrome
// DevTools protocol.
//
// Design (bench/ measures it): element waits run inside the page in one awaited Runtime.callFunctionOn
// (a MutationObserver plus a 40 ms re-check, in slices of at most a second so
// a cancelled ctx returns at once), every actionability check of a step runs
// in that same call, navigation waits for the new document's
// DOMContentLoaded lifecycle event (never for network idle), and the
// selector engine (engine.js) comes with every new document (an init
// script; older documents get its source on their first call), one instance per JS
// context. Pointer and keyboard input are real CDP Input events; a click is
// checked in the page to land on its element (element.go).
//
// Selectors (engine.js): CSS (also `css=`), `xpath=` / `xpath/` / a leading
// `//`, `text=` / `text/` (case-insensitive substring of the rendered text,
// innermost visible match; `text="..."` exact), `aria/Name[role="r"]`
// (computed accessible name, exact), `pierce/CSS` (open and closed shadow
// roots; closed ones are found with DOM.describeNode(pierce) and handed to
// the engine). In a fallback list a bad selector is skipped.
//
// Frames in another renderer process (site isolation, on in any attached
// browser; launched browsers keep rod's flags that turn it off) are entered
// through their own target (oopif.go). Attached browsers give each profile
// its own browser context and every tab its own window (remote.go).
// Known limits: a page scroll is ScrollContent on the html element; element
// handles die with their document.
package rod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Driver launches Chromium through rod. The zero value is not used; call New.
type Driver struct{}

// New returns the rod driver.
func New() drivers.Driver { return &Driver{} }

// SilentFlags are the command-line flags always set on a launched browser
// (the silent mode of PROTOCOL.md), name → value ("" for a bare flag).
// headless=new is added unless LaunchOptions.Show, no-sandbox only where
// the sandbox cannot work (SandboxOff), and the DevTools pipe at launch
// (pipe.go): never a DevTools port.
var SilentFlags = map[string]string{
	"disable-gpu":                   "",
	"disable-quic":                  "",
	"no-first-run":                  "",
	"disable-background-networking": "",
	"disable-component-update":      "",
	"disable-sync":                  "",
	"window-position":               "-2400,-2400",
	"window-size":                   "1280,720",
	"disable-extensions":            "",
	"disable-popup-blocking":        "",
	"disable-notifications":         "",
}

// ViewportWidth and ViewportHeight are every tab's viewport, in CSS pixels.
const (
	ViewportWidth  = 1280
	ViewportHeight = 720
)

// FindBrowser returns the Chromium binary to use: bin when set, else
// $ROD_BROWSER, else /usr/bin/chromium, else chromium, chromium-browser,
// google-chrome or google-chrome-stable on PATH. It never downloads; a
// missing binary is an error telling how to install one.
func FindBrowser(bin string) (string, error) {
	hint := "install one with `apt-get update && apt-get install -y chromium`, or set ROD_BROWSER or --browser-bin to its path"
	if bin != "" {
		if p, err := exec.LookPath(bin); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("browser binary %q not found or not executable: %s", bin, hint)
	}
	if env := os.Getenv("ROD_BROWSER"); env != "" {
		if p, err := exec.LookPath(env); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("ROD_BROWSER=%q is not an executable browser: %s", env, hint)
	}
	if st, err := os.Stat("/usr/bin/chromium"); err == nil && !st.IsDir() {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found (tried ROD_BROWSER, /usr/bin/chromium, chromium on PATH): %s", hint)
}

// Args returns the command line (without the binary) a launch with opts
// uses, but for the DevTools pipe flags the launch adds (pipe.go);
// exported for tests and `rpa doctor`-style diagnostics. A flag in
// opts.Flags that would open a DevTools port (remote-debugging-port,
// remote-debugging-address) is an error: every local user could drive the
// browser through it.
func Args(opts drivers.LaunchOptions) ([]string, error) {
	if opts.UserDataDir == "" {
		return nil, errors.New("launch: LaunchOptions.UserDataDir is required")
	}
	abs, err := filepath.Abs(opts.UserDataDir)
	if err != nil {
		return nil, fmt.Errorf("launch: user-data dir: %w", err)
	}
	l := launcher.New()
	l.Delete(flags.Leakless)
	l.Delete(flags.Bin)
	l.Set(flags.UserDataDir, abs)
	l.Delete(flags.RemoteDebuggingPort)
	l.Delete(flags.NoSandbox) // rod's default inside a container: ours is SandboxOff
	if SandboxOff() != "" {
		l.Set(flags.NoSandbox)
	}
	if opts.Show {
		l.Delete(flags.Headless)
	} else {
		l.Set(flags.Headless, "new")
	}
	for k, v := range SilentFlags {
		if v == "" {
			l.Set(flags.Flag(k))
		} else {
			l.Set(flags.Flag(k), v)
		}
	}
	keys := make([]string, 0, len(opts.Flags))
	for k := range opts.Flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.TrimLeft(k, "-")
		if name == "" || strings.HasPrefix(name, "rod-") {
			return nil, fmt.Errorf("launch: bad flag name %q", k)
		}
		if lower := strings.ToLower(name); strings.HasPrefix(lower, "remote-debugging-") {
			return nil, fmt.Errorf("launch: flag %q is not allowed: a DevTools port would let every local user drive the browser (rpa talks to it over a pipe)", k)
		}
		if v := opts.Flags[k]; v == "" {
			l.Set(flags.Flag(name))
		} else {
			l.Set(flags.Flag(name), v)
		}
	}
	return l.FormatArgs(), nil
}

// Launch starts Chromium (or attaches to opts.Remote) and returns the
// browser. The process is started in its own process group; Close kills the
// group, so no Chromium process outlives Close. rpa's hold on the profile
// folder is the caller's (internal/host/profiles.Claim before, released in
// opts.OnExit): the driver knows nothing of profiles.
func (d *Driver) Launch(ctx context.Context, opts drivers.LaunchOptions) (drivers.Browser, error) {
	if opts.Remote != "" {
		return attachPool(ctx, opts.Remote) // remote.go: a context per profile, pools
	}
	b, err := launchProcess(ctx, opts)
	if err != nil {
		return nil, err
	}
	b.userDataDir = opts.UserDataDir
	if err := b.setup(ctx, filepath.Join(opts.UserDataDir, "rpa-downloads")); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// launchProcess starts the browser of opts (FindBrowser, Args, then extra
// arguments; SilentPrefs set in its profile) with the DevTools pipe and connects rod to it, again without
// the sandbox when the kernel refuses it. opts.OnExit is called once: when
// the browser process has exited, or before an error is returned.
func launchProcess(ctx context.Context, opts drivers.LaunchOptions, extra ...string) (*browser, error) {
	exit := sync.OnceFunc(func() {
		if opts.OnExit != nil {
			opts.OnExit()
		}
	})
	b, err := func() (*browser, error) {
		bin, err := FindBrowser(opts.Bin)
		if err != nil {
			return nil, &core.Error{Kind: core.KindBrowser, Msg: err.Error(), Err: err}
		}
		args, err := Args(opts)
		if err != nil {
			return nil, &core.Error{Kind: core.KindBrowser, Msg: err.Error(), Err: err}
		}
		if err := presetPrefs(opts.UserDataDir); err != nil { // prefs.go
			return nil, &core.Error{Kind: core.KindBrowser, Msg: "launch: profile preferences: " + err.Error(), Err: err}
		}
		b, out, err := start(ctx, bin, append(args, extra...), exit)
		if err != nil && !strings.Contains(strings.Join(args, " "), "--no-sandbox") {
			if line := sandboxRefused(out); line != "" {
				refuseSandbox(line) // sandbox.go: said once; later launches start without it
				if args, err = Args(opts); err == nil {
					b, _, err = start(ctx, bin, append(args, extra...), exit)
				}
			}
		}
		return b, err
	}()
	if err != nil {
		exit()
		return nil, err
	}
	return b, nil
}

// start runs the browser at bin with args and the DevTools pipe, and
// connects rod to it. On failure it returns the browser's output too (the
// process has exited then, and onExit was not called: the caller may try
// again); once it has started, onExit is called when it exits.
func start(ctx context.Context, bin string, args []string, onExit func()) (*browser, string, error) {
	cmd := exec.Command(bin, args...)
	setProcessGroup(cmd)
	setTempDir(cmd)                               // tmpdir.go
	conn, closeChildEnds, err := attachPipes(cmd) // pipe.go
	if err != nil {
		return nil, "", &core.Error{Kind: core.KindBrowser, Msg: "launch: DevTools pipe: " + err.Error(), Err: err}
	}
	var tail tailBuf
	cmd.Stdout = io.Discard
	cmd.Stderr = &tail
	if err := StartBrowser(cmd); err != nil {
		closeChildEnds()
		_ = conn.Close()
		return nil, "", &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("launch %s: %v", bin, err), Err: err}
	}
	closeChildEnds() // the browser holds them now: its exit ends the pipe
	exited := make(chan struct{})
	exitedCtx, exitedNow := context.WithCancel(context.Background())
	// A start that fails leaves onExit to its caller (which may try again):
	// the process's end waits until start has said which it is.
	var failed atomic.Bool
	decided := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		exitedNow()
		// Helpers left by the main process go with its group, then the
		// profile is free for the next launch.
		killProcessGroup(cmd)
		<-decided
		if !failed.Load() {
			onExit()
		}
		close(exited)
	}()
	kill := func() {
		killProcessGroup(cmd)
		_ = cmd.Process.Kill()
	}
	fail := func(msg string, err error) (*browser, string, error) {
		failed.Store(true)
		close(decided)
		kill()
		_ = conn.Close()
		<-exited
		return nil, tail.String(), &core.Error{Kind: core.KindBrowser, Msg: msg, Err: err}
	}
	// The first call over the pipe answers once the browser is up; its exit
	// ends the pipe; a launch that hangs is ended after 30 s.
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	stop := context.AfterFunc(cctx, func() { _ = conn.Close() })
	b, err := connectClient(conn, conn.Close)
	stopped := stop()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return fail("launch cancelled", ctx.Err())
	case !stopped:
		return fail("launch: the browser did not answer over its DevTools pipe within 30s: "+tail.String(), err)
	default:
		select {
		case <-exited:
			return fail(fmt.Sprintf("launch %s: browser exited at start: %s", bin, tail.String()), err)
		case <-time.After(2 * time.Second):
			return fail("launch: "+err.Error()+": "+tail.String(), err)
		}
	}
	close(decided)
	b.cmd = cmd
	b.exited = exited
	b.exitedCtx = exitedCtx
	b.kill = kill
	return b, "", nil
}

// wrapTransport, set by tests only, wraps the CDP transport of the next
// browser started or attached (that one alone: it is taken).
var wrapTransport atomic.Pointer[func(cdp.WebSocketable) cdp.WebSocketable]

func connect(ctx context.Context, wsURL string) (*browser, error) {
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, wsURL, nil); err != nil {
		return nil, &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("connect %s: %v", wsURL, err), Err: err}
	}
	return connectClient(ws, ws.Close)
}

// connectClient starts rod over a CDP transport (a WebSocket, or the pipe
// of a launched browser); closeT ends the transport.
func connectClient(t cdp.WebSocketable, closeT func() error) (*browser, error) {
	if w := wrapTransport.Swap(nil); w != nil {
		t = (*w)(t)
	}
	client := cdp.New().Start(t)
	bctx, stop := context.WithCancel(context.Background())
	cancel := func() {
		stop()
		_ = closeT()
	}
	rb := rod.New().Context(bctx).Client(client).NoDefaultDevice()
	if err := rb.Connect(); err != nil {
		cancel()
		return nil, &core.Error{Kind: core.KindBrowser, Msg: "connect: " + err.Error(), Err: err}
	}
	b := &browser{
		rb:        rb,
		cancel:    cancel,
		transport: t,
		pages:     map[proto.TargetTargetID]*page{},
		popups:    map[proto.TargetTargetID][]popup{},
		own:       map[proto.TargetTargetID]bool{},

		sessions:  map[proto.TargetSessionID]*page{},
		early:     map[proto.TargetTargetID][]drivers.Dialog{},
		sidTarget: map[proto.TargetSessionID]proto.TargetTargetID{},
		watch:     map[proto.TargetTargetID]proto.TargetSessionID{},
		dls:       map[string]*dlState{},
		wake:      make(chan struct{}),
	}
	return b, nil
}

// tailBuf keeps the last 2 KiB written (the browser's stderr, for errors).
type tailBuf struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuf) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tailBuf) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
