// rpa's healing helper: fingerprints of elements and scoring of a page's
// elements against one (package heal, docs/healing.md). Installed in a
// document on its first call there (see heal.go), after selectorgen's
// script (globalThis.__rpaSelGen: role, accName, textOf, visible,
// selectors), and called as fn(op, ...args), `this` bound to the element
// for 'fp'. Never reads a form field's value.
(() => {
  const G = globalThis.__rpaSelGen;
  const norm = (s) => String(s == null ? '' : s).replace(/[\u200b\u200c\u200d\ufeff\u00ad]/g, '').replace(/[\s\u00a0]+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const fields = new Set(['input', 'textarea', 'select']);
  const clickTypes = new Set(['submit', 'button', 'reset', 'image']);
  const isField = (el) => fields.has(el.localName) && !(el.localName === 'input' && clickTypes.has((el.type || '').toLowerCase())) || el.isContentEditable;
  const keyAttrs = ['title', 'alt', 'aria-label', 'data-testid', 'data-test', 'data-qa', 'data-cy', 'for'];
  const pathAttrs = ['href', 'src', 'action'];

  function cls(el) {
    return (typeof el.className === 'string' ? el.className : (el.getAttribute('class') || '')).trim().split(/\s+/).filter(Boolean).slice(0, 8);
  }
  function short(el) {
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    const c = cls(el);
    if (c.length) s += '.' + c[0];
    return s;
  }
  function ownText(el) {
    if (isField(el) || el.localName === 'select') return '';
    return cut(norm(el.textContent), 120);
  }
  // renderedText is the text as shown (innerText: cells and blocks apart),
  // for fingerprints; ownText (textContent) serves the cheap pass.
  function renderedText(el) {
    if (isField(el) || el.localName === 'select') return '';
    return cut(norm(G.textOf(el)), 120);
  }
  function label(el) {
    try {
      if (el.labels && el.labels.length) return cut(norm(el.labels[0].textContent), 80);
    } catch (e) { /* not labelable */ }
    const l = el.closest && el.closest('label');
    if (l && l !== el) return cut(norm(l.textContent), 80);
    return '';
  }
  function sibText(el) {
    if (!el || isField(el) || el.localName === 'select') return '';
    return cut(norm(el.textContent), 40);
  }
  function neighbours(el) {
    const out = [];
    const push = (s) => { if (s && !out.includes(s) && out.length < 4) push0(s); };
    const push0 = (s) => out.push(s);
    push(sibText(el.previousElementSibling));
    push(sibText(el.nextElementSibling));
    const p = el.parentElement;
    if (p) {
      let own = '';
      const kids = p.childNodes;
      for (let i = 0; i < kids.length && i < 40; i++) if (kids[i].nodeType === 3) own += kids[i].textContent;
      push(cut(norm(own), 40));
      if (out.length < 2) {
        push(sibText(p.previousElementSibling));
        push(sibText(p.nextElementSibling));
      }
    }
    return out;
  }
  function path(u) {
    try { const x = new URL(u, document.baseURI); return x.pathname + (x.hash || ''); } catch (e) { return u; }
  }
  function attrs(el) {
    let o = null;
    for (const k of keyAttrs) {
      const v = el.getAttribute(k);
      if (v) (o = o || {})[k] = cut(norm(v), 80);
    }
    for (const k of pathAttrs) {
      const v = el.getAttribute(k);
      if (v && !/^javascript:/i.test(v)) (o = o || {})[k] = cut(path(v), 80);
    }
    return o;
  }
  function typeOf(el) {
    if (el.localName === 'input') return (el.getAttribute('type') || 'text').toLowerCase();
    if (el.localName === 'button') return (el.getAttribute('type') || 'submit').toLowerCase();
    return '';
  }
  function box(el) {
    const r = el.getBoundingClientRect();
    const w = el.ownerDocument.defaultView;
    return { x: Math.round(r.x + w.scrollX), y: Math.round(r.y + w.scrollY), w: Math.round(r.width), h: Math.round(r.height) };
  }
  function fingerprint(el, depth) {
    const anc = [];
    for (let p = el.parentElement; p && anc.length < 5 && p.localName !== 'body' && p.localName !== 'html'; p = p.parentElement) anc.push(short(p));
    const fp = {
      tag: el.localName, id: el.id || '', classes: cls(el), name: el.getAttribute('name') || '', type: typeOf(el),
      role: G.role(el) || '', accName: isField(el) && !el.labels ? '' : cut(norm(G.accName(el)), 120), text: renderedText(el), label: label(el),
      placeholder: cut(norm(el.getAttribute('placeholder') || ''), 80), attrs: attrs(el), ancestors: anc, neighbours: neighbours(el), box: box(el),
    };
    if (depth) fp.frame = depth;
    return fp;
  }

  // Similarity of two short strings in [0, 1]: 1 when equal (ignoring
  // case), else 0.9 times the better of word overlap and bigram overlap
  // (Dice), halved when the numbers of short strings differ ("Item 100"
  // is not "Item 1000": numbers tell rows, orders and ids apart).
  // digits are the numbers of a short string (at most 4 words and 40
  // characters: labels, names, ids; there
  // numbers tell things apart); a long text (a table, a paragraph) has
  // none, its numbers being data that changes.
  const digits = (s) => (s.length > 40 || s.split(' ').length > 4 ? '' : (s.match(/\d+/g) || []).join(','));
  function sim(a, b) {
    if (!a || !b) return 0;
    a = a.toLowerCase(); b = b.toLowerCase();
    if (a === b) return 1;
    const s = 0.9 * sim0(a, b);
    return digits(a) === digits(b) ? s : s / 2;
  }
  function sim0(a, b) {
    const wa = a.split(/[\s\-_:./#]+/).filter(Boolean), wb = new Set(b.split(/[\s\-_:./#]+/).filter(Boolean));
    let common = 0;
    for (const w of wa) if (wb.has(w)) common++;
    const words = wa.length + wb.size ? (2 * common) / (wa.length + wb.size) : 0;
    if (a.length < 2 || b.length < 2) return words;
    const bg = new Map();
    for (let i = 0; i < a.length - 1; i++) { const k = a.substr(i, 2); bg.set(k, (bg.get(k) || 0) + 1); }
    let hit = 0;
    for (let i = 0; i < b.length - 1; i++) { const k = b.substr(i, 2); const n = bg.get(k); if (n) { hit++; bg.set(k, n - 1); } }
    const dice = (2 * hit) / (a.length + b.length - 2);
    return Math.max(words, dice);
  }
  function setSim(a, b) {
    if (!a || !b || !a.length || !b.length) return 0;
    const s = new Set(b);
    let n = 0;
    for (const x of a) if (s.has(x)) n++;
    return n / (a.length + b.length - n);
  }
  const clickTags = new Set(['button', 'a', 'summary']);
  function group(fp) {
    if (fields.has(fp.tag)) return clickTypes.has(fp.type) ? 'click' : 'field';
    if (clickTags.has(fp.tag) || fp.role === 'button' || fp.role === 'link') return 'click';
    return fp.tag;
  }
  function tagSim(fp, c) {
    if (fp.tag === c.tag) return 1;
    return group(fp) === group(c) ? 0.6 : 0;
  }
  // Weights of the features (docs/healing.md lists them); a feature counts
  // only when the fingerprint has it.
  const W = { tag: 1.5, id: 2, classes: 1, name: 2, type: 0.5, role: 1, accName: 3, text: 2, label: 2, placeholder: 1.5, attrs: 1, ancestors: 1, neighbours: 1.5, box: 1 };

  // cheap ranks an element for the full score on the features that need
  // no layout or accessible name, with a quick string test (equal 1,
  // containing 0.6, else the share of fp's words it has, halved when the
  // numbers differ); q is prep(fp).
  function prep(fp) {
    const lw = (s) => (s || '').toLowerCase();
    const q = { id: lw(fp.id), name: lw(fp.name), text: lw(fp.text), ph: lw(fp.placeholder) };
    q.words = new Set(q.text.split(/\s+/).filter(Boolean));
    q.textDigits = digits(q.text);
    return q;
  }
  function quick(a, b) {
    if (!a || !b) return 0;
    b = b.toLowerCase();
    if (a === b) return 1;
    if (b.includes(a) || a.includes(b)) return digits(a) === digits(b) ? 0.6 : 0.3;
    return 0;
  }
  function cheap(fp, q, c) {
    let num = 0, den = 0;
    const add = (w, has, s) => { if (has) { den += w; num += w * s; } };
    add(W.tag, true, tagSim(fp, c));
    add(W.id, q.id, quick(q.id, c.id));
    add(W.classes, fp.classes && fp.classes.length, setSim(fp.classes, c.classes));
    add(W.name, q.name, quick(q.name, c.name));
    add(W.type, fp.type, fp.type === c.type ? 1 : 0);
    if (q.text) {
      let s = quick(q.text, c.text);
      if (!s && c.text && q.words.size) {
        let n = 0;
        const lt = c.text.toLowerCase();
        for (const w of lt.split(/\s+/)) if (q.words.has(w)) n++;
        s = (n / Math.max(q.words.size, 1)) * (digits(lt) === q.textDigits ? 0.8 : 0.4);
      }
      add(W.text, true, s);
    }
    add(W.placeholder, q.ph, quick(q.ph, c.placeholder));
    return den ? num / den : 0;
  }
  // full is the score used for decisions: 80% what the element is (tag,
  // id, classes, name, type, role, accessible name, text, label,
  // placeholder, key attributes), 20% where it is (ancestors, neighbours,
  // box), so that a moved or rewrapped element still scores high while
  // look-alikes are told apart only by their place (a small margin: auto
  // refuses).
  function full(fp, c) {
    let num = 0, den = 0;
    const add = (w, has, s) => { if (has) { den += w; num += w * s; } };
    add(W.tag, true, tagSim(fp, c));
    // an id that is gone is weaker evidence than a different id
    add(c.id ? W.id : W.id / 2, fp.id, sim(fp.id, c.id));
    add(W.classes, fp.classes && fp.classes.length, setSim(fp.classes, c.classes));
    add(W.name, fp.name, fp.name === c.name ? 1 : sim(fp.name, c.name) * 0.8);
    add(W.type, fp.type, fp.type === c.type ? 1 : 0);
    add(W.role, fp.role, fp.role === c.role ? 1 : 0);
    add(W.accName, fp.accName, sim(fp.accName, c.accName));
    add(W.text, fp.text, sim(fp.text, c.text));
    // a field's label is usually its accessible name: counted once
    add(W.label, fp.label && fp.label !== fp.accName, sim(fp.label, c.label));
    add(W.placeholder, fp.placeholder, sim(fp.placeholder, c.placeholder));
    const ka = fp.attrs ? Object.keys(fp.attrs) : [];
    if (ka.length) {
      let s = 0;
      for (const k of ka) s += c.attrs && c.attrs[k] ? sim(fp.attrs[k], c.attrs[k]) : 0;
      add(W.attrs, true, s / ka.length);
    }
    const what = den ? num / den : 0;
    num = 0; den = 0;
    if (fp.ancestors && fp.ancestors.length) {
      // the nearest ancestors count most; a wrapper added shifts them by one
      let s = 0, t = 0;
      const ca = c.ancestors || [];
      fp.ancestors.slice(0, 3).forEach((a, i) => {
        const w = 1 / (i + 1);
        t += w;
        if (ca.includes(a)) s += w * (ca[i] === a ? 1 : 0.8);
      });
      add(W.ancestors, true, t ? s / t : 0);
    }
    if (fp.neighbours && fp.neighbours.length) {
      let s = 0;
      for (const n of fp.neighbours) {
        let b = 0;
        for (const m of c.neighbours || []) b = Math.max(b, sim(n, m));
        s += b;
      }
      add(W.neighbours, true, s / fp.neighbours.length);
    }
    if (fp.box && (fp.box.w || fp.box.h)) {
      const d = Math.hypot(fp.box.x - c.box.x, fp.box.y - c.box.y);
      const size = Math.min(fp.box.w * fp.box.h, c.box.w * c.box.h) / Math.max(1, fp.box.w * fp.box.h, c.box.w * c.box.h);
      add(W.box, true, 0.6 * Math.exp(-d / 300) + 0.4 * size);
    }
    const where = den ? num / den : what;
    return 0.8 * what + 0.2 * where;
  }
  function cheapOf(el) {
    return { tag: el.localName, id: el.id || '', classes: cls(el), name: el.getAttribute('name') || '', type: typeOf(el),
      text: ownText(el), placeholder: cut(norm(el.getAttribute('placeholder') || ''), 80) };
  }
  function docs(doc, depth, out) {
    out.push([doc, depth]);
    if (depth >= 3) return out;
    for (const f of doc.querySelectorAll('iframe, frame')) {
      let d = null;
      try { d = f.contentDocument; } catch (e) { d = null; }
      if (d && d.documentElement) docs(d, depth + 1, out);
    }
    return out;
  }
  function inGroup(g, el) {
    const t = el.localName;
    if (g === 'field') return (fields.has(t) && !(t === 'input' && clickTypes.has((el.type || '').toLowerCase()))) || el.isContentEditable || el.getAttribute('role') === 'textbox' || el.getAttribute('role') === 'combobox';
    if (g === 'click') return clickTags.has(t) || (t === 'input' && clickTypes.has((el.type || '').toLowerCase())) || el.getAttribute('role') === 'button' || el.getAttribute('role') === 'link';
    return t === g;
  }
  // candidates scores the elements of this document and of its
  // same-origin iframes: a cheap pass over every element of fp's group,
  // then the full score (role, accessible name, label, ancestors,
  // neighbours, box) of the best 60.
  function candidates(fp, max, needVisible) {
    const g = group(fp);
    const q = prep(fp);
    const pre = [];
    for (const [doc, depth] of docs(document, 0, [])) {
      const all = doc.getElementsByTagName('*');
      for (let i = 0; i < all.length; i++) {
        const el = all[i];
        if (!inGroup(g, el)) continue;
        const c = cheapOf(el);
        pre.push({ el, depth, s: cheap(fp, q, c) });
      }
    }
    pre.sort((a, b) => b.s - a.s);
    const scored = [];
    for (const p of pre) {
      if (scored.length >= 60) break;
      if (needVisible && !G.visible(p.el)) continue;
      const c = fingerprint(p.el, p.depth);
      scored.push({ el: p.el, c, s: full(fp, c) });
    }
    scored.sort((a, b) => b.s - a.s);
    const top = scored.slice(0, Math.max(1, max));
    ranked = top.map((x) => new WeakRef(x.el));
    // selectors (package selectorgen) cost more than the scoring on a big
    // page: they come on demand (op sels)
    return top.map((x, i) => ({
      score: Math.round(x.s * 1000) / 1000, selectors: null, desc: G.describe(x.el), frame: x.c.frame || 0, fingerprint: x.c, ref: i,
    }));
  }
  let ranked = []; // the last candidates of this document, by ref
  const ops = {
    fp() { return fingerprint(this, 0); },
    cands(fp, max, vis) { return candidates(fp, max, vis); },
    sels(ref) {
      const el = ranked[ref] && ranked[ref].deref();
      return el && el.isConnected ? G.selectors(el, 5) : null;
    },
    // score: the full score of this element against fp (tests, benchmarks)
    score(fp) { return full(fp, fingerprint(this, 0)); },
  };
  return function (op, ...a) { return ops[op].apply(this, a); };
})()
