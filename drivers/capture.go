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
// password fields only. With a holds, cross-origin frames (out-of-process
// ones too) are entered and masked the same way, to a depth of 3 and
// within a budget of 3 s for all of them; a frame that cannot be entered
// in time is hidden (visibility: hidden) for the picture instead, so a
// secret never shows because a frame was slow. Without a holds, such
// frames are shown as they are (their password fields draw bullets).
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
	m := &masker{holds: holds, deadline: time.Now().Add(frameBudget)}
	if err := m.frame(ctx, p, 0); err != nil {
		m.restore()
		return nil, fmt.Errorf("mask secrets before the screenshot: %w", err)
	}
	return m.restore, nil
}

// Bounds of entering cross-origin frames for a picture (see Capture).
const (
	frameBudget = 3 * time.Second // for all frames of one picture
	frameDepth  = 3               // frames in frames in frames
)

// masker masks one document after another (the page, then the
// cross-origin frames its walk found) and undoes them in reverse.
type masker struct {
	holds    HoldsSecret
	deadline time.Time
	undo     []func()
}

func (m *masker) restore() {
	for i := len(m.undo) - 1; i >= 0; i-- {
		m.undo[i]()
	}
	m.undo = nil
}

// frame masks document f (and the same-origin frames its walk reaches),
// then enters every cross-origin frame the walk marked; one it cannot
// enter is hidden.
func (m *masker) frame(ctx context.Context, f Frame, depth int) error {
	v, err := f.Eval(ctx, maskCollectJS, m.holds != nil && depth < frameDepth)
	m.undo = append(m.undo, func() { undo(f) })
	if err != nil {
		return err
	}
	res, _ := v.(map[string]any)
	fields, _ := res["fields"].([]any)
	pick := []any{}
	for i, x := range fields {
		fm, _ := x.(map[string]any)
		pw, _ := fm["password"].(bool)
		val, _ := fm["value"].(string)
		if pw || (m.holds != nil && val != "" && m.holds(val)) {
			pick = append(pick, i)
		}
	}
	if _, err := f.Eval(ctx, maskApplyJS, pick, MaskGlyphs); err != nil {
		return err
	}
	paths, _ := res["frames"].([]any)
	for _, x := range paths {
		path, _ := x.([]any)
		if len(path) == 0 {
			continue
		}
		if !m.enter(ctx, f, path, depth) {
			if _, err := f.Eval(ctx, maskHideJS, path[len(path)-1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// enter masks the cross-origin frame at path (marker ids of the iframes
// from f down to it) within the budget; false when it could not.
func (m *masker) enter(ctx context.Context, f Frame, path []any, depth int) bool {
	fctx, cancel := context.WithDeadline(ctx, m.deadline)
	defer cancel()
	cur := f
	for _, id := range path {
		sub, err := cur.Frame(fctx, []string{fmt.Sprintf(`[data-rpa-mask="%v"]`, id)})
		if err != nil {
			return false
		}
		cur = sub
	}
	n := len(m.undo)
	if err := m.frame(fctx, cur, depth+1); err != nil {
		// undo what this frame did, then hide it
		for i := len(m.undo) - 1; i >= n; i-- {
			m.undo[i]()
		}
		m.undo = m.undo[:n]
		return false
	}
	return true
}

func undo(f Frame) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = f.Eval(ctx, maskRestoreJS)
}

// maskCollectJS lists the document's fields and its text nodes with more
// than white space (not of script, style, noscript, template, textarea or
// title; kept in a page-side list for maskApplyJS) as {value, password},
// walking open shadow roots and same-origin frames. With xo it marks the
// iframes it walks through and the cross-origin ones it cannot enter
// (attribute data-rpa-mask, removed by maskRestoreJS) and lists the latter
// as paths of marker ids from this document: {fields, frames}.
const maskCollectJS = `(xo) => {
  const out = [], els = [], frames = [], marks = {};
  let k = 0;
  const mark = (n) => { const id = String(++k); n.setAttribute("data-rpa-mask", id); marks[id] = n; return id; };
  const skip = new Set(["checkbox","radio","file","hidden","submit","button","image","reset","color","range"]);
  const noText = new Set(["SCRIPT","STYLE","NOSCRIPT","TEMPLATE","TEXTAREA","TITLE"]);
  const walk = (root, path) => {
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
      if (n.shadowRoot) walk(n.shadowRoot, path);
      if (tag === "IFRAME" || tag === "FRAME") {
        let d = null;
        try { d = n.contentDocument; } catch (e) {}
        if (d) walk(d, xo ? path.concat(mark(n)) : path);
        else if (xo) frames.push(path.concat(mark(n)));
      }
    }
  };
  walk(document, []);
  window.__rpaMask = { els, saved: [], styles: [], marks, hidden: [] };
  return { fields: out, frames };
}`

// maskHideJS hides the marked iframe id for the picture (one whose
// document could not be entered and masked).
const maskHideJS = `(id) => {
  const st = window.__rpaMask;
  const n = st && st.marks[id];
  if (!n) return false;
  st.hidden.push({ n, style: n.getAttribute("style") });
  n.style.setProperty("visibility", "hidden", "important");
  return true;
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
  for (const h of st.hidden.reverse()) {
    if (h.style === null) h.n.removeAttribute("style"); else h.n.setAttribute("style", h.style);
  }
  for (const id in st.marks) st.marks[id].removeAttribute("data-rpa-mask");
  return st.saved.length;
}`
