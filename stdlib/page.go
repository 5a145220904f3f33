package stdlib

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
)

// Navigation, pointer and keyboard actions.

func back(ctx context.Context, c *Call) (any, error) {
	return nil, pageDo(ctx, c, drivers.Page.Back)
}

func forward(ctx context.Context, c *Call) (any, error) {
	return nil, pageDo(ctx, c, drivers.Page.Forward)
}

func reload(ctx context.Context, c *Call) (any, error) {
	return nil, pageDo(ctx, c, drivers.Page.Reload)
}

func check(ctx context.Context, c *Call) (any, error) {
	return nil, setChecked(ctx, c, true)
}

func uncheck(ctx context.Context, c *Call) (any, error) {
	return nil, setChecked(ctx, c, false)
}

// open navigates the current tab; the run's first tab is created already
// at the URL (one round trip less).
func open(ctx context.Context, c *Call) (any, error) {
	var u string
	if err := c.Unpack("url", &u); err != nil {
		return nil, err
	}
	if msg := actions.CheckOpenURL(u); msg != "" {
		return nil, core.Errorf(core.KindExpression, "open: %s", msg)
	}
	if err := checkOpenFile(c, u); err != nil {
		return nil, err
	}
	limit := time.Duration(0)
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl)
	}
	if c.Env.CurrentPage() == nil && c.Env.Browser() != nil {
		p, err := c.Env.Browser().NewPage(ctx, u)
		if err != nil {
			return nil, openTimeout(u, limit, err)
		}
		c.Env.SetPage(p, nil)
		return nil, nil
	}
	p, err := c.Env.Page(ctx)
	if err != nil {
		return nil, err
	}
	return nil, openTimeout(u, limit, p.Navigate(ctx, u))
}

// openTimeout says which URL did not load and within what limit (the
// step's time left when open started), the same under rpa run and serve.
func openTimeout(u string, limit time.Duration, err error) error {
	if err == nil || core.KindOf(err) != core.KindTimeout || limit <= 0 {
		return err
	}
	if limit > time.Second {
		limit = limit.Round(100 * time.Millisecond)
	} else {
		limit = limit.Round(time.Millisecond)
	}
	return &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("%s did not load within %s", core.Shown(u), limit), Err: err}
}

func pageDo(ctx context.Context, c *Call, f func(drivers.Page, context.Context) error) error {
	p, err := c.Env.Page(ctx)
	if err != nil {
		return err
	}
	return f(p, ctx)
}

func click(ctx context.Context, c *Call) (any, error) {
	var sels []string
	button, count := "left", 1
	if err := c.Unpack("selector", &sels, "button", &button, "count", &count); err != nil {
		return nil, err
	}
	if count < 1 {
		return nil, core.Errorf(core.KindExpression, "click: count: must be at least 1, got %d", count)
	}
	var force bool
	if err := c.Unpack("force", &force); err != nil {
		return nil, err
	}
	want := drivers.ForPointer
	if button == "left" && count == 1 {
		want |= drivers.Aim // the click follows at once (drivers.Aim)
	}
	if force {
		want = drivers.Attached
	}
	for relocated := 0; ; relocated++ {
		el, err := c.Locate(ctx, sels, want)
		if err != nil {
			return nil, err
		}
		if fc, ok := el.(forceClicker); ok && force {
			return nil, fc.ForceClick(ctx, button, count)
		}
		err = el.Click(ctx, button, count)
		// The page replaced or re-used the element before the click (the
		// driver held the press back: a virtualised list's recycled row):
		// locate it again at once rather than after the step's `every`.
		if core.KindOf(err) == core.KindNotFound && !core.IsFinal(err) && relocated < maxRelocate && ctx.Err() == nil {
			continue
		}
		return nil, err
	}
}

// maxRelocate bounds how often one click attempt locates its element again
// after the page replaced it under the click (a page that re-renders
// endlessly is left to the step's retries).
const maxRelocate = 3

// forceClicker is implemented by elements that can deliver a click to the
// element itself even when something covers its centre (drivers/rod: the
// real mouse when the element receives the hit, else events dispatched on
// it). `click force: true` uses it; without it a forced click is the plain
// mouse click at the centre.
type forceClicker interface {
	ForceClick(ctx context.Context, button string, count int) error
}

func hover(ctx context.Context, c *Call) (any, error) {
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForPointer)
	if err != nil {
		return nil, err
	}
	return nil, el.Hover(ctx)
}

func fill(ctx context.Context, c *Call) (any, error) {
	var sels []string
	var v string
	if err := c.Unpack("selector", &sels, "value", &v); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForInput|drivers.PrepFill) // the fill follows at once
	if err != nil {
		return nil, err
	}
	return nil, el.Fill(valueCtx(ctx, c, v), v)
}

// valueCtx marks ctx when v is or holds a secret, so the driver's errors
// never quote it or what the field holds (drivers.WithSecretValue).
func valueCtx(ctx context.Context, c *Call, v string) context.Context {
	if m, _ := c.Env.Mask(v).(string); m != v {
		return drivers.WithSecretValue(ctx)
	}
	return ctx
}

func typeText(ctx context.Context, c *Call) (any, error) {
	var sels []string
	var v string
	var delay time.Duration
	if err := c.Unpack("selector", &sels, "value", &v, "delay", &delay); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForInput)
	if err != nil {
		return nil, err
	}
	return nil, el.Type(valueCtx(ctx, c, v), v, delay)
}

func press(ctx context.Context, c *Call) (any, error) {
	var key string
	var on []string
	if err := c.Unpack("key", &key, "on", &on); err != nil {
		return nil, err
	}
	if on != nil {
		el, err := c.Locate(ctx, on, drivers.Attached)
		if err != nil {
			return nil, err
		}
		if err := el.Focus(ctx); err != nil {
			return nil, err
		}
	}
	p, err := c.Env.Page(ctx)
	if err != nil {
		return nil, err
	}
	return nil, p.Press(ctx, key)
}

func selectOpt(ctx context.Context, c *Call) (any, error) {
	var sels []string
	var v, by string
	if err := c.Unpack("selector", &sels, "value", &v, "by", &by); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForInput)
	if err != nil {
		return nil, err
	}
	return nil, el.Select(valueCtx(ctx, c, v), v, by)
}

// setChecked clicks only when the state differs, then verifies it.
func setChecked(ctx context.Context, c *Call, want bool) error {
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return err
	}
	el, err := c.Locate(ctx, sels, drivers.ForPointer)
	if err != nil {
		return err
	}
	if ct, ok := el.(checkTargeter); ok {
		if el, err = ct.CheckTarget(ctx); err != nil {
			return err
		}
	}
	got, err := el.Checked(ctx)
	if err != nil {
		return err
	}
	if got == want {
		return nil
	}
	if err := el.Click(ctx, "left", 1); err != nil {
		return err
	}
	got, err = el.Checked(ctx)
	if err != nil {
		return err
	}
	if got != want {
		state := "unchecked"
		if got {
			state = "checked"
		}
		return core.Errorf(core.KindBrowser, "%s: %s is still %s after the click", c.Action.Name, el.Describe(ctx), state)
	}
	return nil
}

// checkTargeter is implemented by elements that know what check and
// uncheck act on when the flow names a label or a row rather than the
// box itself (drivers/rod: the label's control, the one checkbox inside).
// Without it the named element is clicked.
type checkTargeter interface {
	CheckTarget(ctx context.Context) (drivers.Element, error)
}

func upload(ctx context.Context, c *Call) (any, error) {
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return nil, err
	}
	var paths []string
	switch x := c.Args[1].(type) {
	case string:
		paths = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, c.argErr("files", c.Args[1], "a path or a list of paths")
			}
			paths = append(paths, s)
		}
	case []string:
		paths = x
	default:
		return nil, c.argErr("files", c.Args[1], "a path or a list of paths")
	}
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		if err := checkLocalPath(c, "upload", "the file", p); err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, &core.Error{Kind: core.KindNotFound, Msg: fmt.Sprintf("upload: no such file %q", p), Final: true}
		}
		paths[i] = abs
	}
	el, err := c.Locate(ctx, sels, drivers.ForRead)
	if err != nil {
		return nil, err
	}
	return nil, el.SetFiles(ctx, paths)
}

func scroll(ctx context.Context, c *Call) (any, error) {
	if s, ok := c.Args[0].(string); ok && (s == "bottom" || s == "top") {
		// The document's own content, scrolled like a person would (after
		// the page rendered its last change, and waiting for the frame that
		// delivers the scroll): an infinite feed's IntersectionObserver must
		// see its sentinel leave before it can see it enter again (shared
		// case 13). A bare window.scrollTo right after a batch arrived
		// could land in the same frame, and the feed would stop.
		f, err := c.Env.Frame(ctx)
		if err != nil {
			return nil, err
		}
		root, _, err := f.Locate(ctx, []string{":root"}, drivers.Attached)
		if err != nil {
			return nil, err
		}
		return nil, root.ScrollContent(ctx, s)
	}
	var sels []string
	var to string
	if err := c.Unpack("target", &sels, "to", &to); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForRead)
	if err != nil {
		return nil, err
	}
	if to != "" {
		return nil, el.ScrollContent(ctx, to)
	}
	return nil, el.ScrollIntoView(ctx)
}

// tab switches the current tab: "last" waits (within wait) for a popup the
// previous action opened; an int picks by 0-based index; any other string
// waits for a tab whose URL matches (substring, or re:REGEXP): the current
// tab when it matches, else the most recent matching one.
func tab(ctx context.Context, c *Call) (any, error) {
	cur := c.Env.CurrentPage()
	wctx, cancel := context.WithTimeout(ctx, c.Wait)
	defer cancel()
	if n, ok := lang.ToInt(c.Args[0]); ok {
		if c.Env.Browser() == nil {
			return nil, core.Errorf(core.KindBrowser, "tab: no browser")
		}
		pages, err := c.Env.Browser().Pages(wctx)
		if err != nil {
			return nil, err
		}
		if n < 0 || n >= len(pages) {
			return nil, core.Errorf(core.KindNotFound, "tab: no tab %d (%d open)", n, len(pages))
		}
		if pages[n] != cur {
			c.Env.SetPage(pages[n], nil)
		}
		return nil, nil
	}
	var which string
	if err := c.Unpack("which", &which); err != nil {
		return nil, err
	}
	if which == "last" {
		if cur == nil {
			return nil, core.Errorf(core.KindNotFound, "tab: no tab is open")
		}
		p, err := cur.WaitPopup(wctx)
		if err != nil {
			if ctx.Err() == nil && wctx.Err() != nil {
				return nil, core.Errorf(core.KindTimeout, "tab: no new tab opened within %s", c.Wait)
			}
			return nil, err
		}
		c.Env.SetPage(p, cur)
		return nil, nil
	}
	if c.Env.Browser() == nil {
		return nil, core.Errorf(core.KindBrowser, "tab: no browser")
	}
	match, err := urlMatcher(which)
	if err != nil {
		return nil, core.Errorf(core.KindExpression, "tab: %v", err)
	}
	// The current tab, when it matches, wins without listing every tab:
	// listing attaches to each one, and a tab that is still closing (a popup
	// just closed with `close`) can hold that up.
	if cur != nil {
		if u, err := cur.URL(wctx); err == nil && match(u) {
			return nil, nil
		}
	}
	for {
		pages, err := c.Env.Browser().Pages(wctx)
		if err == nil {
			for i := len(pages) - 1; i >= 0; i-- {
				u, err := pages[i].URL(wctx)
				if err == nil && match(u) {
					if pages[i] != cur {
						c.Env.SetPage(pages[i], nil)
					}
					return nil, nil
				}
			}
		}
		if err := core.Sleep(wctx, 100*time.Millisecond); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, core.Errorf(core.KindTimeout, "tab: no tab with URL matching %q within %s", which, c.Wait)
		}
	}
}

// urlMatcher returns a substring matcher, or a regexp one after "re:".
func urlMatcher(p string) (func(string) bool, error) {
	if rest, ok := strings.CutPrefix(p, "re:"); ok {
		re, err := regexp.Compile(rest)
		if err != nil {
			return nil, fmt.Errorf("bad regexp %q: %v", rest, err)
		}
		return re.MatchString, nil
	}
	return func(u string) bool { return strings.Contains(u, p) }, nil
}

// closeTab closes the current tab; the tab that opened it becomes current
// when still open, else the most recent tab.
func closeTab(ctx context.Context, c *Call) (any, error) {
	cur := c.Env.CurrentPage()
	if cur == nil {
		return nil, core.Errorf(core.KindNotFound, "close: no tab is open")
	}
	opener := c.Env.Opener(cur)
	if err := cur.Close(); err != nil {
		return nil, err
	}
	c.Env.Closed(cur)
	c.Env.SetPage(opener, nil)
	if b := c.Env.Browser(); opener == nil && b != nil {
		// Not an error when listing fails: the next action opens a tab.
		pctx, cancel := context.WithTimeout(ctx, c.Wait)
		defer cancel()
		if pages, err := b.Pages(pctx); err == nil {
			for i := len(pages) - 1; i >= 0; i-- {
				if pages[i] != cur {
					c.Env.SetPage(pages[i], nil)
					break
				}
			}
		}
	}
	return nil, nil
}

func dialog(ctx context.Context, c *Call) (any, error) {
	var policy, text string
	if err := c.Unpack("policy", &policy); err != nil {
		return nil, err
	}
	if policy != "accept" && policy != "dismiss" {
		return nil, core.Errorf(core.KindExpression, `dialog: policy must be "accept" or "dismiss", got %q`, policy)
	}
	if err := c.Unpack("text", &text); err != nil {
		return nil, err
	}
	c.Env.SetDialogPolicy(policy == "accept", text)
	return nil, nil
}

// download clicks the element (the element wait bounded by wait) and waits
// for the file, within the action's timeout.
func download(ctx context.Context, c *Call) (any, error) {
	var sels []string
	var dir string
	if err := c.Unpack("selector", &sels, "to", &dir); err != nil {
		return nil, err
	}
	if dir == "" {
		// A fresh private folder (0700, a name no one can take first) for
		// this download, removed with the run's temporary files: never a
		// shared folder another user could read or create first.
		var err error
		if dir, err = os.MkdirTemp("", "rpa-download-"); err != nil {
			return nil, err
		}
		c.Env.TempFile(dir)
	} else if err := checkLocalPath(c, "download", "the folder", dir); err != nil {
		return nil, err
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p, err := c.Env.Page(ctx)
	if err != nil {
		return nil, err
	}
	d, err := p.Download(ctx, dir, func(ctx context.Context) error {
		el, err := c.Locate(ctx, sels, drivers.ForPointer)
		if err != nil {
			return err
		}
		return el.Click(ctx, "left", 1)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": d.Path, "name": d.Name, "size": int(d.Size), "sha256": d.SHA256, "mime": d.MIME}, nil
}

func screenshot(ctx context.Context, c *Call) (any, error) {
	var path string
	var full bool
	if err := c.Unpack("path", &path, "full", &full); err != nil {
		return nil, err
	}
	if path != "" {
		if err := checkLocalPath(c, "screenshot", "the path", path); err != nil {
			return nil, err
		}
	}
	var png []byte
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return nil, err
	}
	// Fields holding a secret of the run (and password fields) are masked
	// in the picture (drivers.Capture).
	holds := func(v string) bool { m, _ := c.Env.Mask(v).(string); return m != v }
	var el drivers.Element
	if sels != nil {
		var err error
		if el, err = c.Locate(ctx, sels, drivers.ForRead); err != nil {
			return nil, err
		}
	}
	p, err := c.Env.Page(ctx)
	if err != nil {
		return nil, err
	}
	if png, err = drivers.Capture(ctx, p, el, full && el == nil, holds); err != nil {
		return nil, err
	}
	if path == "" {
		f, err := os.CreateTemp("", "rpa-screenshot-*.png")
		if err != nil {
			return nil, err
		}
		path = f.Name()
		_ = f.Close()
		c.Env.TempFile(path)
	} else if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return nil, err
	}
	return path, nil
}
