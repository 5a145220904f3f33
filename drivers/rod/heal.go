package rod

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
)

//go:embed heal.js
var healSource string

// healScript is the healing helper (heal.js after selectorgen's generator,
// whose role, accessible name and selectors it uses), installed in a
// document on its first call there and kept like the engine.
var healScript = newScript("rpa.heal/1", func() string {
	return `(() => {
	const k = Symbol.for('rpa.heal/1');
	if (!globalThis[k]) {
		const fn = (() => {
` + selectorgen.Script() + `
return (
` + healSource + `
);
})();
		Object.defineProperty(globalThis, k, { value: fn, configurable: true });
	}
	return globalThis[k];
})()`
})

var _ drivers.Healer = (*frame)(nil)

// heal runs op of heal.js in f (this: the element, or nil; held as in
// frame.run) and decodes its JSON result into out.
func (f *frame) heal(ctx context.Context, this *proto.RuntimeRemoteObject, held bool, out any, op string, args ...any) error {
	res, err := f.run(ctx, healScript, this, held, retValue, op, args...)
	if err != nil {
		return wrapErr(ctx, "heal "+op, err)
	}
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), out); err != nil {
		return &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("heal %s: bad result: %v", op, err), Err: err}
	}
	return nil
}

// Fingerprint describes el (an element of this tab) in one evaluation,
// or in none when the locate that found el took its fingerprint
// (drivers.TakeFingerprint): then it is that one, of the element as found.
func (f *frame) Fingerprint(ctx context.Context, el drivers.Element) (*drivers.Fingerprint, error) {
	e, ok := el.(*element)
	if !ok {
		return nil, &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("fingerprint: not an element of this driver (%T)", el)}
	}
	var fp drivers.Fingerprint
	if e.fp != "" {
		if err := json.Unmarshal([]byte(e.fp), &fp); err != nil {
			return nil, &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("fingerprint: bad result: %v", err), Err: err}
		}
		return &fp, nil
	}
	this, held := e.callee()
	if err := e.f.heal(ctx, this, held, &fp, "fp"); err != nil {
		return nil, err
	}
	return &fp, nil
}

// Candidates scores the document's elements (same-origin iframes
// included) against fp in one evaluation.
func (f *frame) Candidates(ctx context.Context, fp *drivers.Fingerprint, max int, visible bool) ([]drivers.HealCandidate, error) {
	if fp == nil {
		return nil, nil
	}
	var out []drivers.HealCandidate
	if err := f.heal(ctx, nil, false, &out, "cands", fp, max, visible); err != nil {
		return nil, err
	}
	return out, nil
}

// CandidateSelectors returns the selectors of candidate ref of the last
// Candidates call in this document.
func (f *frame) CandidateSelectors(ctx context.Context, ref int) ([]string, error) {
	var out []string
	if err := f.heal(ctx, nil, false, &out, "sels", ref); err != nil {
		return nil, err
	}
	return out, nil
}
