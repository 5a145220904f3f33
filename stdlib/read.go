package stdlib

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
)

// Reads and waits.

func pageURL(ctx context.Context, c *Call) (any, error) {
	p, err := c.Env.Page(ctx)
	if err != nil {
		return nil, err
	}
	return p.URL(ctx)
}

func pageTitle(ctx context.Context, c *Call) (any, error) {
	p, err := c.Env.Page(ctx)
	if err != nil {
		return nil, err
	}
	return p.Title(ctx)
}

func text(ctx context.Context, c *Call) (any, error) {
	var sels []string
	var all bool
	if err := c.Unpack("selector", &sels, "all", &all); err != nil {
		return nil, err
	}
	if !all {
		el, err := c.Locate(ctx, sels, drivers.ForRead)
		if err != nil {
			return nil, err
		}
		return el.Text(ctx)
	}
	// Find which selector matches first, then read every match of it.
	if _, err := c.Locate(ctx, sels, drivers.ForRead); err != nil {
		return nil, err
	}
	f, err := c.Env.Frame(ctx)
	if err != nil {
		return nil, err
	}
	els, err := f.LocateAll(ctx, c.Selector)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(els))
	for _, el := range els {
		t, err := el.Text(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func attr(ctx context.Context, c *Call) (any, error) {
	var sels []string
	var name string
	if err := c.Unpack("selector", &sels, "name", &name); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForRead)
	if err != nil {
		return nil, err
	}
	v, ok, err := el.Attr(ctx, name)
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}

// value reads a form control; a password field's value becomes a secret.
func value(ctx context.Context, c *Call) (any, error) {
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForRead)
	if err != nil {
		return nil, err
	}
	v, err := el.Value(ctx)
	if err != nil {
		return nil, err
	}
	if pw, err := el.IsPassword(ctx); err != nil {
		return nil, err
	} else if pw {
		c.Env.AddSecret(v)
	}
	return v, nil
}

func html(ctx context.Context, c *Call) (any, error) {
	return elementOrDocument(ctx, c, drivers.Element.HTML, drivers.Frame.HTML)
}

func table(ctx context.Context, c *Call) (any, error) {
	var sels []string
	mode := "auto"
	if err := c.Unpack("selector", &sels, "header", &mode); err != nil {
		return nil, err
	}
	el, err := c.Locate(ctx, sels, drivers.ForRead)
	if err != nil {
		return nil, err
	}
	g, err := el.Table(ctx)
	if err != nil {
		return nil, err
	}
	switch mode {
	case "auto":
		return TableAuto(g), nil
	case "grid":
		return TableGrid(g), nil
	case "none":
		return TableNone(g), nil
	}
	return nil, core.Errorf(core.KindExpression, `table: header: must be "auto", "grid" or "none", got %q`, mode)
}

func form(ctx context.Context, c *Call) (any, error) {
	return elementOrDocument(ctx, c, drivers.Element.Form, drivers.Frame.Form)
}

// elementOrDocument reads the element of the optional selector with el, or
// the current document with doc when the action gives no selector.
func elementOrDocument[T any](ctx context.Context, c *Call,
	el func(drivers.Element, context.Context) (T, error),
	doc func(drivers.Frame, context.Context) (T, error)) (any, error) {
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return nil, err
	}
	if sels == nil {
		f, err := c.Env.Frame(ctx)
		if err != nil {
			return nil, err
		}
		return doc(f, ctx)
	}
	e, err := c.Locate(ctx, sels, drivers.ForRead)
	if err != nil {
		return nil, err
	}
	return el(e, ctx)
}

// pollEvery is how often `wait text:` on an element and `wait until:`
// look again.
const pollEvery = 50 * time.Millisecond

// wait waits for one condition; ctx carries its bound (timeout:, else
// wait:, else the flow's wait), set by the replay engine.
func wait(ctx context.Context, c *Call) (any, error) {
	// timedOut says what the wait waited for and, when the driver or the
	// loop below knows, what it saw last (drivers.Seen): `wait: timed out
	// after 10s waiting for text "submitted" in "#result": "#result"
	// exists; its text is "checking…"`.
	timedOut := func(err error, what string) error {
		if err == nil || ctx.Err() == nil {
			return err
		}
		msg := "wait: timed out after " + c.Timeout.String() + " waiting for " + what
		if seen := drivers.Seen(err); seen != "" {
			msg += ": " + seen
		}
		if de, ok := err.(*core.Error); ok && de.Kind != core.KindTimeout && de.Kind != core.KindBrowser {
			if seen := drivers.Seen(err); seen != "" {
				return &core.Error{Kind: de.Kind, Msg: msg, Err: err}
			}
			return err
		}
		return &core.Error{Kind: core.KindTimeout, Msg: msg, Err: err}
	}
	if u, ok := c.Opt("url"); ok {
		pat, err := toStr(c, "url:", u)
		if err != nil {
			return nil, err
		}
		p, err := c.Env.Page(ctx)
		if err != nil {
			return nil, err
		}
		return nil, timedOut(p.WaitURL(ctx, pat), "the URL to match "+quote(pat))
	}
	var idle bool
	if err := c.Unpack("idle", &idle); err != nil {
		return nil, err
	} else if idle {
		p, err := c.Env.Page(ctx)
		if err != nil {
			return nil, err
		}
		return nil, timedOut(p.WaitIdle(ctx, 500*time.Millisecond), "the network to be idle")
	}
	if u, ok := c.Opt("until"); ok {
		eval, isF := u.(func(context.Context) (any, error))
		if !isF {
			return nil, c.argErr("until:", u, "an expression")
		}
		for {
			v, err := eval(ctx)
			if err != nil {
				return nil, err
			}
			if b, ok := v.(bool); ok && b {
				return nil, nil
			} else if !ok {
				return nil, c.argErr("until:", v, "a bool")
			}
			if err := core.Sleep(ctx, pollEvery); err != nil {
				return nil, timedOut(err, "the until: condition")
			}
		}
	}
	f, err := c.Env.Frame(ctx)
	if err != nil {
		return nil, err
	}
	if t, ok := c.Opt("text"); ok {
		want, err := toStr(c, "text:", t)
		if err != nil {
			return nil, err
		}
		var sels []string
		if err := c.Unpack("selector", &sels); err != nil {
			return nil, err
		}
		if sels == nil {
			return nil, timedOut(f.WaitText(ctx, want), "text "+quote(want))
		}
		seen, in := "", "" // what the last look found, and where
		for {
			el, i, err := f.Locate(ctx, sels, drivers.Attached)
			if err != nil {
				if seen != "" && ctx.Err() != nil {
					// the element was there: say how it looked, not that
					// the last look was cut short
					err = &drivers.SeenError{Seen: seen, Err: ctx.Err()}
				}
				return nil, timedOut(err, "text "+quote(want)+in)
			}
			c.Selector, c.SelectorIndex = sels[i], i
			got, err := el.Text(ctx)
			if err == nil && strings.Contains(got, want) {
				return nil, nil
			}
			if err == nil {
				seen = quote(sels[i]) + " exists; its text is " + strconv.Quote(shortText(got, 80))
				in = " in " + quote(sels[i])
			}
			if err := core.Sleep(ctx, pollEvery); err != nil {
				return nil, timedOut(&drivers.SeenError{Seen: seen, Err: err}, "text "+quote(want)+" in "+quote(sels[i]))
			}
		}
	}
	if !c.Has(0) {
		return nil, core.Errorf(core.KindExpression, "wait: needs a selector, text:, url:, idle: or until:")
	}
	var sels []string
	st := string(drivers.StateVisible)
	if err := c.Unpack("selector", &sels, "state", &st); err != nil {
		return nil, err
	}
	i, err := f.WaitState(ctx, sels, drivers.State(st))
	if err != nil {
		return nil, timedOut(err, quote(strings.Join(sels, `", "`))+" to be "+st)
	}
	if i >= 0 && i < len(sels) {
		c.Selector, c.SelectorIndex = sels[i], i
	}
	return nil, nil
}

func quote(s string) string { return `"` + s + `"` }

// shortText cuts s to n characters (runes), marking the cut with "…".
func shortText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func sleep(ctx context.Context, c *Call) (any, error) {
	d, ok := lang.ToDuration(c.Args[0])
	if !ok {
		return nil, c.argErr("duration", c.Args[0], "a duration")
	}
	return nil, core.Sleep(ctx, d)
}
