package rod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// Remote browsers and pools.
//
// LaunchOptions.Remote names one DevTools endpoint or several, separated by
// commas or spaces (the CLI's --browser may be given several times):
//
//   - ws://HOST:PORT/devtools/browser/ID, the browser's own endpoint;
//   - http://HOST:PORT (or https://), resolved through /json/version to its
//     webSocketDebuggerUrl (the host and port given are kept, so a port
//     forwarded under another address works);
//   - wss://HOST/...?token=SECRET, a hosted pool such as browserless, the
//     token in the URL. Query values and passwords in URLs are never shown:
//     messages print them as ***.
//
// Each Launch with Remote is one profile on the remote browser: its own
// DevTools connection and its own browser context (Target.createBrowserContext,
// disposed when the connection drops, so a killed rpa leaves nothing behind),
// so cookies and storage of one profile are never seen by another. Every tab
// is created in its own window (Target.createTarget newWindow): a tab behind
// another in one window is hidden, and a hidden tab's first mouse event
// stalls for seconds and its animation frames never come. Close (the pool
// closes idle or closed profiles) disposes the context, which closes its tabs
// in the remote browser. With several endpoints, a profile goes to the one
// with the fewest live profiles of this process; an endpoint that cannot be
// reached is skipped (the error names every endpoint tried). A browser that
// went away is not Alive, and the pool's next call launches again, which
// reconnects. An endpoint that cannot create contexts (some grid proxies)
// is used in its default context, each tab still in its own window.

// remoteLoad counts live profiles per endpoint (as given) in this process.
var remoteLoad = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// Endpoints splits a Remote value into its endpoints (commas or spaces).
func Endpoints(remote string) []string {
	f := strings.FieldsFunc(remote, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	out := f[:0]
	for _, e := range f {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// Redact returns endpoint u fit for messages and logs: every query value
// and any password are replaced by *** (tokens of hosted pools).
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			return u[:i] + "?***"
		}
		return u
	}
	if p.User != nil {
		if _, ok := p.User.Password(); ok {
			p.User = url.UserPassword(p.User.Username(), "***")
		}
	}
	if p.RawQuery != "" {
		q := p.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = url.QueryEscape(k) + "=***"
		}
		p.RawQuery = strings.Join(parts, "&")
	}
	s := p.String()
	return strings.ReplaceAll(s, "%2A%2A%2A", "***")
}

// attachRemote connects one profile to the least loaded reachable endpoint
// of remote and gives it its own browser context.
func attachRemote(ctx context.Context, remote string) (*browser, error) {
	eps := Endpoints(remote)
	if len(eps) == 0 {
		return nil, core.Errorf(core.KindBrowser, "attach: no DevTools endpoint given")
	}
	remoteLoad.Lock()
	order := append([]string(nil), eps...)
	sort.SliceStable(order, func(i, j int) bool { return remoteLoad.n[order[i]] < remoteLoad.n[order[j]] })
	remoteLoad.Unlock()
	var fails []string
	var last error
	for _, ep := range order {
		b, err := attachOne(ctx, ep)
		if err == nil {
			return b, nil
		}
		last = err
		fails = append(fails, err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	msg := strings.Join(fails, "; ")
	if len(fails) > 1 {
		msg = "no remote browser could be reached: " + msg
	}
	return nil, &core.Error{Kind: core.KindBrowser, Msg: msg, Err: last}
}

// attachOne attaches a new profile to endpoint ep.
func attachOne(ctx context.Context, ep string) (*browser, error) {
	name := Redact(ep)
	fail := func(what string, err error) error {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("attach %s: %s: %v", name, what, redactErr(err, ep)), Err: err}
	}
	ws, err := resolveWS(ctx, ep)
	if err != nil {
		return nil, fail("resolve", err)
	}
	b, err := connect(ctx, ws)
	if err != nil {
		return nil, fail("connect", errors.New(redactErr(err, ws)))
	}
	b.remote = true
	b.endpoint = ep
	// A context of our own, disposed by the browser when this connection
	// drops (rpa killed: nothing of ours stays behind).
	res, err := proto.TargetCreateBrowserContext{DisposeOnDetach: true}.Call(b.rb.Context(ctx))
	if err == nil {
		b.bctx = res.BrowserContextID
	} else if ctx.Err() != nil {
		b.cancel()
		return nil, fail("create browser context", err)
	}
	dir, err := os.MkdirTemp("", "rpa-downloads-")
	if err != nil {
		b.disposeRemote()
		return nil, fail("downloads folder", err)
	}
	if err := b.setup(ctx, dir); err != nil {
		b.disposeRemote()
		_ = os.RemoveAll(dir)
		return nil, fail("set up", err)
	}
	remoteLoad.Lock()
	remoteLoad.n[ep]++
	remoteLoad.Unlock()
	return b, nil
}

// disposeRemote closes this profile's context (and so its tabs) in the
// remote browser and ends the connection; the load count is dropped once.
func (b *browser) disposeRemote() {
	if b.bctx != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = proto.TargetDisposeBrowserContext{BrowserContextID: b.bctx}.Call(b.rb.Context(ctx))
		cancel()
	} else {
		// default context: close the tabs we opened
		b.mu.Lock()
		var ids []proto.TargetTargetID
		for id := range b.own {
			ids = append(ids, id)
		}
		b.mu.Unlock()
		for _, id := range ids {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, _ = proto.TargetCloseTarget{TargetID: id}.Call(b.rb.Context(ctx))
			cancel()
		}
	}
	b.cancel()
	b.loadOnce.Do(func() {
		if b.endpoint == "" {
			return
		}
		remoteLoad.Lock()
		if remoteLoad.n[b.endpoint]--; remoteLoad.n[b.endpoint] <= 0 {
			delete(remoteLoad.n, b.endpoint)
		}
		remoteLoad.Unlock()
	})
}

// resolveWS returns the WebSocket URL of endpoint ep: ws:// and wss:// as
// given; http(s):// through /json/version (keeping the host given and the
// query, e.g. a token).
func resolveWS(ctx context.Context, ep string) (string, error) {
	if strings.HasPrefix(ep, "ws://") || strings.HasPrefix(ep, "wss://") {
		return ep, nil
	}
	if !strings.Contains(ep, "://") {
		ep = "http://" + ep
	}
	u, err := url.Parse(ep)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("unsupported scheme %q (ws, wss, http or https)", u.Scheme)
	}
	v := *u
	v.Path = strings.TrimSuffix(v.Path, "/") + "/json/version"
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, v.String(), nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("/json/version: HTTP %d", res.StatusCode)
	}
	var ver struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&ver); err != nil {
		return "", fmt.Errorf("/json/version: %v", err)
	}
	if ver.WS == "" {
		return "", errors.New("/json/version has no webSocketDebuggerUrl")
	}
	w, err := url.Parse(ver.WS)
	if err != nil {
		return "", err
	}
	w.Host = u.Host
	if u.Scheme == "https" {
		w.Scheme = "wss"
	} else {
		w.Scheme = "ws"
	}
	if w.RawQuery == "" {
		w.RawQuery = u.RawQuery
	}
	return w.String(), nil
}

// redactErr is err's text with the secret parts of url u masked.
func redactErr(err error, u string) string {
	s := err.Error()
	if u == "" {
		return s
	}
	s = strings.ReplaceAll(s, u, Redact(u))
	if p, perr := url.Parse(u); perr == nil {
		for _, vs := range p.Query() {
			for _, v := range vs {
				if len(v) >= 4 {
					s = strings.ReplaceAll(s, v, "***")
				}
			}
		}
		if pw, ok := p.User.Password(); ok && pw != "" {
			s = strings.ReplaceAll(s, pw, "***")
		}
	}
	return s
}

// attachPool is Launch for LaunchOptions.Remote (see attachRemote).
func attachPool(ctx context.Context, remote string) (drivers.Browser, error) {
	b, err := attachRemote(ctx, remote)
	if err != nil {
		return nil, err
	}
	return b, nil
}
