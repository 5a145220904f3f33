package drivers

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// HoldsSecret reports whether a form field's value holds a secret (the
// whole value, or a secret inside it). Capture asks it about every field
// of the page before taking a picture.
type HoldsSecret func(value string) bool

// SecretValues returns a HoldsSecret that is true for a value equal to or
// containing one of secrets (empty strings are ignored). Callers holding
// a run's masker (interp's Mask, mcpserver's per-profile secrets) may pass
// their own test instead.
func SecretValues(secrets []string) HoldsSecret {
	var list []string
	for _, s := range secrets {
		if s != "" {
			list = append(list, s)
		}
	}
	return func(v string) bool {
		for _, s := range list {
			if strings.Contains(v, s) {
				return true
			}
		}
		return false
	}
}

// MaskGlyphs is what a masked field shows while a picture is taken: the
// same eight bullets whatever the secret, so neither its characters nor
// its length reach the pixels.
const MaskGlyphs = "••••••••"

// Capture takes a PNG with every secret out of sight. It is the one way
// rpa takes pictures of a page — the `screenshot` action, browser_read's
// image and the failure screenshots of run evidence all go through it:
//
//	png, err := drivers.Capture(ctx, page, nil, false, holds)    // the viewport
//	png, err := drivers.Capture(ctx, page, nil, true, holds)     // the full page
//	png, err := drivers.Capture(ctx, page, el, false, holds)     // one element's box
//
// Before the picture, every form field (input, textarea, contenteditable;
// in the page, its open shadow roots and its same-origin frames) whose
// value holds a secret by holds, and every password field, shows
// MaskGlyphs instead of its value, every text node of the page whose
// text holds a secret by holds ("Your key: Zq7-…") shows MaskGlyphs
// instead of its text, and carets are hidden; after it, the fields get
// their values (and selections) back and the text nodes their text. A
// secret split across elements ("Zq7-<b>SECRET</b>") is not recognised
// in text. No input or change event is fired (a MutationObserver of the
// page does see the text change and change back). A nil holds masks
// password fields only. Fields and text inside cross-origin frames are
// not reached (they are shown as they are).
func Capture(ctx context.Context, p Page, el Element, full bool, holds HoldsSecret) ([]byte, error) {
	restore, err := MaskFields(ctx, p, holds)
	if err != nil {
		return nil, err
	}
	defer restore()
	if el != nil {
		return el.Screenshot(ctx)
	}
	return p.Screenshot(ctx, full)
}

// MaskFields masks the page's secret-holding and password fields as
// Capture does and returns the func that restores them (call it once,
// also after an error; it uses its own 5 s bound so a cancelled ctx still
// restores). Use it to take several pictures under one mask.
func MaskFields(ctx context.Context, p Page, holds HoldsSecret) (restore func(), err error) {
	v, err := p.Eval(ctx, maskCollectJS)
	if err != nil {
		return nil, fmt.Errorf("mask secrets before the screenshot: %w", err)
	}
	fields, _ := v.([]any)
	pick := []any{}
	for i, f := range fields {
		m, _ := f.(map[string]any)
		pw, _ := m["password"].(bool)
		val, _ := m["value"].(string)
		if pw || (holds != nil && val != "" && holds(val)) {
			pick = append(pick, i)
		}
	}
	if _, err := p.Eval(ctx, maskApplyJS, pick, MaskGlyphs); err != nil {
		undo(p)
		return nil, fmt.Errorf("mask secrets before the screenshot: %w", err)
	}
	return func() { undo(p) }, nil
}

func undo(p Page) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = p.Eval(ctx, maskRestoreJS)
}

// maskCollectJS lists the page's fields and its text nodes with more than
// white space (not of script, style, noscript, template, textarea or
// title; kept in a page-side list for maskApplyJS) as {value, password}.
const maskCollectJS = `() => {
  const out = [], els = [];
  const skip = new Set(["checkbox","radio","file","hidden","submit","button","image","reset","color","range"]);
  const noText = new Set(["SCRIPT","STYLE","NOSCRIPT","TEMPLATE","TEXTAREA","TITLE"]);
  const walk = (root) => {
    let nodes;
    try { nodes = root.querySelectorAll("*"); } catch (e) { return; }
    try {
      const tw = (root.ownerDocument || root).createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let t = tw.nextNode(); t; t = tw.nextNode()) {
        const p = t.parentNode;
        if (!t.data.trim() || (p && noText.has(p.nodeName))) continue;
        els.push(t); out.push({ value: t.data, password: false });
      }
    } catch (e) {}
    for (const n of nodes) {
      const tag = n.tagName;
      if (tag === "INPUT" && !skip.has((n.type || "").toLowerCase())) {
        els.push(n); out.push({ value: String(n.value || ""), password: (n.type || "").toLowerCase() === "password" });
      } else if (tag === "TEXTAREA") {
        els.push(n); out.push({ value: String(n.value || ""), password: false });
      } else if (n.isContentEditable && !(n.parentElement && n.parentElement.isContentEditable)) {
        els.push(n); out.push({ value: String(n.innerText || ""), password: false });
      }
      if (n.shadowRoot) walk(n.shadowRoot);
      if (tag === "IFRAME" || tag === "FRAME") {
        try { if (n.contentDocument) walk(n.contentDocument); } catch (e) {}
      }
    }
  };
  walk(document);
  window.__rpaMask = { els, saved: [], styles: [] };
  return out;
}`

// maskApplyJS masks the fields of maskCollectJS at the given indexes and
// hides carets in every document it reached.
const maskApplyJS = `(idx, glyphs) => {
  const st = window.__rpaMask;
  if (!st) return 0;
  const docs = new Set([document]);
  for (const i of idx) {
    const n = st.els[i];
    if (!n) continue;
    const d = n.ownerDocument;
    docs.add(d);
    if (n.nodeType === 3) { // a text node of the page
      st.saved.push({ n, data: n.data });
      n.data = glyphs;
    } else if (n.tagName === "INPUT" || n.tagName === "TEXTAREA") {
      let s = null, e = null;
      try { s = n.selectionStart; e = n.selectionEnd; } catch (x) {}
      st.saved.push({ n, value: n.value, s, e });
      n.value = glyphs;
    } else {
      st.saved.push({ n, html: n.innerHTML });
      n.textContent = glyphs;
    }
  }
  for (const d of docs) {
    const s = d.createElement("style");
    s.textContent = "*, *::before, *::after { caret-color: transparent !important; }";
    (d.head || d.documentElement).appendChild(s);
    st.styles.push(s);
  }
  return idx.length;
}`

// maskRestoreJS puts the values back (last masked first) and removes the
// caret style.
const maskRestoreJS = `() => {
  const st = window.__rpaMask;
  if (!st) return 0;
  delete window.__rpaMask;
  for (const r of st.saved.reverse()) {
    if ("data" in r) { r.n.data = r.data; continue; }
    if ("html" in r) { r.n.innerHTML = r.html; continue; }
    r.n.value = r.value;
    if (r.s !== null) { try { r.n.setSelectionRange(r.s, r.e); } catch (x) {} }
  }
  for (const s of st.styles) s.remove();
  return st.saved.length;
}`
