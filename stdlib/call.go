package stdlib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
)

// Env is the runtime an action runs in: the current tab and frame, the
// host's hooks, secrets and the run log. interp implements it; a flow's run
// has one Env shared by all its actions (a `call` gets its own scope but the
// same tabs).
type Env interface {
	// Browser is the run's browser (nil when the caller gave none).
	Browser() drivers.Browser
	// CurrentPage is the current tab, nil when the run has none yet.
	CurrentPage() drivers.Page
	// Page returns the current tab, opening a blank one when there is none.
	Page(ctx context.Context) (drivers.Page, error)
	// Frame returns the current document: the innermost `frame` block's
	// iframe, else the current tab's top document (opening a tab if needed).
	Frame(ctx context.Context) (drivers.Frame, error)
	// SetPage makes p the current tab (nil: none); opener is the tab that
	// opened it when known (for `close`), else nil.
	SetPage(p drivers.Page, opener drivers.Page)
	// Opener returns the tab that opened p, when known and still open.
	Opener(p drivers.Page) drivers.Page
	// Closed records that p was closed (it is no one's opener any more).
	Closed(p drivers.Page)
	// SetDialogPolicy sets the dialog policy of the current and every later tab.
	SetDialogPolicy(accept bool, text string)
	// Host returns the host's hooks (ask, llm, exec).
	Host() core.Host
	// CallFlow runs the flow named name with args and returns its outputs.
	CallFlow(ctx context.Context, name string, args map[string]any) (any, error)
	// AddSecret registers s as a secret: it is shown as *** from now on.
	AddSecret(s string)
	// Mask returns v with every secret value inside its strings replaced
	// by *** (what a model may see: `llm` prompt and input).
	Mask(v any) any
	// Logf adds a line to the run log (masked).
	Logf(format string, args ...any)
	// TempFile records a file or folder the action made in the temporary
	// folder for the run alone (a `screenshot` without path:, a `download`
	// without to:): the host removes it, with what it holds, after the run
	// (interp.Result.RemoveTempFiles).
	TempFile(path string)
}

// Call is one action invocation as its implementation sees it. interp fills
// the inputs; Locate records which selector matched.
type Call struct {
	Action *actions.Action
	// Args are the evaluated positional arguments, one per Action.Params
	// entry (nil for an absent optional one).
	Args []any
	// Opts are the evaluated options of the action's own table (not the
	// common replay options). A KindExpr option (until:) is a
	// func(context.Context) (any, error) that evaluates it afresh.
	Opts map[string]any
	// Wait bounds each element wait (the resolved `wait:`).
	Wait time.Duration
	// Timeout bounds the whole action (the resolved `timeout:`);
	// TimeoutSet says whether the action itself gave `timeout:`.
	Timeout    time.Duration
	TimeoutSet bool
	Env        Env

	// Selector and SelectorIndex name the selector that matched (set by
	// Locate); SelectorIndex is -1 until then.
	Selector      string
	SelectorIndex int
	// Located and Checks are the fallback list the action's last Locate
	// looked for and the checks it waited for (set by Locate, also when it
	// fails; nil and 0 when the action located nothing): what a failure
	// report re-checks on the page, as the action did.
	Located []string
	Checks  drivers.Checks

	// Flow and Line are the flow (its name) and source line of the action
	// (set by interp; healing keys fingerprints by them). Heal is what
	// healing did in Locate (nil: nothing), copied into the step's result.
	Flow string
	Line int
	Heal *HealInfo
}

// Locate finds the element of sels that passes want in the current frame,
// waiting at most c.Wait, and records the selector that matched.
func (c *Call) Locate(ctx context.Context, sels []string, want drivers.Checks) (drivers.Element, error) {
	c.Located, c.Checks = sels, want&^drivers.Hints // the checks, without the hints
	f, err := c.Env.Frame(ctx)
	if err != nil {
		return nil, err
	}
	// cut: the action's timeout ends before this wait would (wait: longer
	// than timeout:, or late tries); the error then says so.
	dl, hasDL := ctx.Deadline()
	cut := hasDL && time.Until(dl) < c.Wait
	wctx, cancel := context.WithTimeout(ctx, c.Wait)
	el, err := c.hookLocate(ctx, wctx, f, sels, want) // healing (heal.go): a plain locate without a hook
	cancel()
	if err == nil && c.Heal != nil && c.Heal.Status == HealHealed {
		c.Selector, c.SelectorIndex = c.Heal.Selectors[0], -1
		return el, nil
	}
	if err != nil {
		var de *core.Error
		if !errors.As(err, &de) && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("no element matching %s was ready within %s", quoteList(sels), c.Wait), Err: err}
		}
		if cut && errors.Is(ctx.Err(), context.DeadlineExceeded) && c.Timeout > 0 {
			msg := err.Error()
			kind := core.KindOf(err)
			if errors.As(err, &de) {
				msg, kind = de.Msg, de.Kind
			}
			why := fmt.Sprintf("the action's timeout %s ran out during the wait", c.Timeout)
			if c.Timeout < c.Wait {
				why = fmt.Sprintf("timeout: cut the wait of %s short", c.Wait)
			}
			err = &core.Error{Kind: kind, Msg: fmt.Sprintf("%s within %s (%s)", msg, c.Timeout, why), Err: err}
		}
		return nil, err
	}
	return el, nil
}

func quoteList(sels []string) string {
	q := make([]string, len(sels))
	for i, s := range sels {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// argErr reports a bad argument value.
func (c *Call) argErr(what string, v any, want string) error {
	return &core.Error{Kind: core.KindExpression, Msg: fmt.Sprintf("%s: %s must be %s, got %s", c.Action.Name, what, want, lang.TypeName(v))}
}

// Has reports whether positional i was given.
func (c *Call) Has(i int) bool { return i < len(c.Args) && c.Args[i] != nil }

func toSels(c *Call, what string, v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil, &core.Error{Kind: core.KindExpression, Msg: fmt.Sprintf("%s: %s is empty", c.Action.Name, what)}
		}
		return []string{x}, nil
	case []string:
		if len(x) > 0 {
			return x, nil
		}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				return nil, c.argErr(what, v, "a selector or a list of selectors")
			}
			out = append(out, s)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, c.argErr(what, v, "a selector or a list of selectors")
}

func toStr(c *Call, what string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), nil
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	}
	return "", c.argErr(what, v, "a string")
}

// Opt returns option name and whether it was given.
func (c *Call) Opt(name string) (any, bool) {
	v, ok := c.Opts[name]
	return v, ok && v != nil
}
