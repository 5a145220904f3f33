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
		return readText(ctx, nil, el, nil)
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
	return elementOrDocument(ctx, c, "html", nil)
}

func table(ctx context.Context, c *Call) (any, error) {
	mode := "auto"
	if err := c.Unpack("header", &mode); err != nil {
		return nil, err
	}
	opts := map[string]any{"header": mode}
	if n, ok := c.Env.(ColumnNoter); ok {
		opts["columns"] = n.NoteColumns
	}
	return elementOrDocument(ctx, c, "table", opts)
}

// ColumnNoter is an Env that keeps the column order of the tables a run
// reads (interp orders the rows of a run's outputs by it): the table
// action calls NoteColumns with TableKeys of every table it reads in
// header "auto" mode.
type ColumnNoter interface {
	NoteColumns(keys []string)
}

func form(ctx context.Context, c *Call) (any, error) {
	return elementOrDocument(ctx, c, "form", nil)
}

// elementOrDocument runs reader action on the element of the action's
// selector (ForRead), or on the current document when the action gives none.
func elementOrDocument(ctx context.Context, c *Call, action string, opts map[string]any) (any, error) {
	var sels []string
	if err := c.Unpack("selector", &sels); err != nil {
		return nil, err
	}
	f, err := c.Env.Frame(ctx)
	if err != nil {
		return nil, err
	}
	var el drivers.Element
	if sels != nil {
		want := drivers.ForRead
		if action == "table" {
			want |= drivers.ReadTable // the table is read next (drivers.ReadTable)
		}
		if el, err = c.Locate(ctx, sels, want); err != nil {
			return nil, err
		}
	}
	return readers[action](ctx, f, el, opts)
}

// A reader is what a read action does once its element is located: read
// el, or the document doc when el is nil; opts are the action's own
// options.
type reader func(ctx context.Context, doc drivers.Frame, el drivers.Element, opts map[string]any) (any, error)

// readers are the read actions Read offers a host; the actions run the
// same code after their Locate.
var readers = map[string]reader{
	"text": readText,
	"html": func(ctx context.Context, doc drivers.Frame, el drivers.Element, _ map[string]any) (any, error) {
		if el != nil {
			return el.HTML(ctx)
		}
		return doc.HTML(ctx)
	},
	"form": func(ctx context.Context, doc drivers.Frame, el drivers.Element, _ map[string]any) (any, error) {
		if el != nil {
			return el.Form(ctx)
		}
		return doc.Form(ctx)
	},
	"table": readTable,
}

func readText(ctx context.Context, doc drivers.Frame, el drivers.Element, _ map[string]any) (any, error) {
	if el != nil {
		return el.Text(ctx)
	}
	return doc.Text(ctx)
}

// readTable reads the table el (the first table of doc when el is nil) in
// the shape of opts' header: "auto" (the default), "grid" or "none".
func readTable(ctx context.Context, doc drivers.Frame, el drivers.Element, opts map[string]any) (any, error) {
	if el == nil {
		var err error
		if el, _, err = doc.Locate(ctx, []string{"table"}, drivers.ForRead); err != nil {
			return nil, err
		}
	}
	g, err := el.Table(ctx)
	if err != nil {
		return nil, err
	}
	mode, _ := opts["header"].(string)
	switch mode {
	case "auto", "":
		if note, ok := opts["columns"].(func([]string)); ok {
			note(TableKeys(g))
		}
		return TableAuto(g), nil
	case "grid":
		return TableGrid(g), nil
	case "none":
		return TableNone(g), nil
	}
	return nil, core.Errorf(core.KindExpression, `table: header: must be "auto", "grid" or "none", got %q`, mode)
}

// Read is a read action applied to what a host located itself (MCP's
// browser_read, the authoring tools' read): "text", "html", "form" or
// "table" read el, or the page's document when el is nil (table: its first
// table), as the actions of those names do after their Locate; "url" is
// the page's address. opts are the action's own options (table's
// "header": "auto", "grid" or "none"). Values are in the actions' shapes
// (LANGUAGE.md); another action name is an error of kind expression.
func Read(ctx context.Context, action string, page drivers.Page, el drivers.Element, opts map[string]any) (any, error) {
	if action == "url" {
		return page.URL(ctx)
	}
	r, ok := readers[action]
	if !ok {
		return nil, core.Errorf(core.KindExpression, "%q is no read action (text, html, form, table, url)", action)
	}
	return r(ctx, page, el, opts)
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
	start := time.Now()
	timedOut := func(err error, what string) error {
		if ps := drivers.StateOf(err); ps.Verdict() && ctx.Err() == nil {
			// the page settled into a state that will not produce it
			// (LANGUAGE.md, "Fail fast")
			return &core.Error{Kind: core.KindOf(err), Final: true, Err: err,
				Msg: "wait: gave up after " + time.Since(start).Round(100*time.Millisecond).String() + " waiting for " + what + ": " + ps.Text}
		}
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
