// rpa record: added to every document and frame (Page.addScriptToEvaluateOnNewDocument).
// It reports what a person does through the binding __rpaRecord, one JSON
// object per action. Field values are reported once, final (on change,
// Enter/Tab/Escape, a click elsewhere or leaving the page), never per key;
// a password field's value is never reported.
(() => {
  if (window.__rpaRecInstalled) return;
  window.__rpaRecInstalled = true;
  const CFG = __RPA_CONFIG__;
  const pending = new Map(); // field -> true (typed into, not reported yet)
  const sent = new WeakMap(); // field -> last value reported

  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const textLike = (el) => el && ((el.tagName === 'INPUT' && !/^(checkbox|radio|file|submit|button|reset|image|range|color|hidden)$/i.test(el.type)) || el.tagName === 'TEXTAREA');
  // editableRoot is the contenteditable element holding el, or null.
  function editableRoot(el) {
    if (!el || !el.isContentEditable) return null;
    while (el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
    return el;
  }

  function generatedID(id) {
    return /\d{3,}|^\d|:|^(ember|react|mui|rc-|radix|headlessui|yui|ext-)|[a-f0-9]{8,}|__|[A-Za-z]+_[A-Za-z0-9]{6,}$/i.test(id);
  }
  function unique(doc, css) {
    try { return doc.querySelectorAll(css).length === 1; } catch (e) { return false; }
  }
  function quoteAttr(v) { return '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'; }
  function role(el) {
    const r = el.getAttribute('role');
    if (r) return r;
    const t = el.tagName;
    if (t === 'BUTTON' || (t === 'INPUT' && /^(button|submit|reset|image)$/i.test(el.type))) return 'button';
    if (t === 'A' && el.hasAttribute('href')) return 'link';
    if (t === 'SELECT') return 'combobox';
    if (t === 'TEXTAREA') return 'textbox';
    if (t === 'INPUT') {
      if (el.type === 'checkbox') return 'checkbox';
      if (el.type === 'radio') return 'radio';
      if (el.type === 'password') return '';
      if (textLike(el)) return el.type === 'search' ? 'searchbox' : 'textbox';
    }
    return '';
  }
  function labelOf(el) {
    const doc = el.ownerDocument;
    const al = el.getAttribute('aria-label');
    if (al && norm(al)) return norm(al);
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const t = lb.split(/\s+/).map((id) => doc.getElementById(id)).filter(Boolean).map((e) => norm(e.textContent)).join(' ');
      if (t) return t;
    }
    if (el.labels && el.labels.length) {
      const t = norm(Array.from(el.labels).map((l) => l.innerText).join(' '));
      if (t) return t;
    }
    const r = role(el);
    if (r === 'button' || r === 'link') {
      const t = norm(el.innerText || el.value || el.getAttribute('alt'));
      if (t) return t;
    }
    return norm(el.getAttribute('title') || el.getAttribute('placeholder') || '');
  }
  function innermostTextMatches(doc, tag, txt) {
    let n = 0;
    for (const e of doc.querySelectorAll(tag)) {
      if (norm(e.innerText) === txt) n++;
    }
    return n;
  }
  function cssPath(el) {
    const doc = el.ownerDocument;
    const parts = [];
    let cur = el;
    for (let depth = 0; cur && cur.nodeType === 1 && depth < 6; depth++) {
      if (cur.id && !generatedID(cur.id) && unique(doc, '#' + CSS.escape(cur.id))) {
        parts.unshift('#' + CSS.escape(cur.id));
        break;
      }
      let part = cur.tagName.toLowerCase();
      const parent = cur.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === cur.tagName);
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(cur) + 1) + ')';
      }
      parts.unshift(part);
      if (cur.tagName === 'BODY') break;
      const css = parts.join(' > ');
      if (unique(doc, css)) return css;
      cur = parent;
    }
    const css = parts.join(' > ');
    return unique(doc, css) ? css : '';
  }
  // selectors returns the element's fallback list, best first, each one
  // matching exactly one element of its document.
  function selectors(el) {
    const doc = el.ownerDocument;
    const out = [];
    const tag = el.tagName.toLowerCase();
    if (el.id && !generatedID(el.id) && unique(doc, '#' + CSS.escape(el.id))) out.push('#' + CSS.escape(el.id));
    for (const a of ['data-testid', 'data-test', 'data-qa']) {
      const v = el.getAttribute(a);
      if (v) {
        const s = '[' + a + '=' + quoteAttr(v) + ']';
        if (unique(doc, s)) { out.push(s); break; }
      }
    }
    const name = el.getAttribute('name');
    if (name && /^(input|select|textarea|button)$/.test(tag)) {
      let s = tag + '[name=' + quoteAttr(name) + ']';
      if (el.type === 'radio') s += '[value=' + quoteAttr(el.value) + ']';
      if (unique(doc, s)) out.push(s);
    }
    const label = labelOf(el);
    const r = role(el);
    if (label && label.length <= 80) {
      let n = 0;
      for (const e of doc.querySelectorAll(tag)) if (labelOf(e) === label && role(e) === r) n++;
      if (n === 1) out.push('aria/' + label + (r ? '[role="' + r + '"]' : ''));
    }
    if (r === 'button' || r === 'link') {
      const txt = norm(el.innerText);
      if (txt && txt.length <= 50 && !txt.includes('"') && innermostTextMatches(doc, tag, txt) === 1) out.push('text="' + txt + '"');
    }
    const path = cssPath(el);
    if (path && !out.includes(path)) out.push(path);
    return out.slice(0, 4);
  }
  function framePath() {
    const out = [];
    let w = window;
    while (w !== w.top) {
      const fe = w.frameElement;
      if (!fe) return null; // cross-origin: unknown
      out.unshift(selectors(fe));
      w = w.parent;
    }
    return out;
  }
  function describe(el) {
    const r = role(el) || el.tagName.toLowerCase();
    const l = labelOf(el);
    return l ? r + ' "' + l + '"' : r + (el.id ? ' #' + el.id : '');
  }
  function field(el) {
    return { type: el.tagName === 'INPUT' ? (el.type || 'text') : el.tagName.toLowerCase(), name: el.getAttribute('name') || '', id: el.id || '', label: labelOf(el) };
  }
  function paramOf(el) {
    for (const p of CFG.params || []) {
      try { if (el.matches(p.selector)) return p.name; } catch (e) {}
    }
    return '';
  }
  function send(o, el) {
    o.time = Date.now();
    o.url = location.href;
    if (el) {
      o.selectors = selectors(el);
      o.desc = describe(el);
      o.field = field(el);
      o.param = paramOf(el);
    }
    try { o.frames = framePath(); } catch (e) { o.frames = null; }
    try { window.__rpaRecord(JSON.stringify(o)); } catch (e) {}
  }
  function flushField(el) {
    if (!pending.has(el)) return;
    pending.delete(el);
    const v = el.isContentEditable ? el.innerText : el.value;
    if (sent.get(el) === v) return;
    sent.set(el, v);
    const secret = (el.tagName === 'INPUT' && el.type === 'password') || /pass(word|wd|code)|pwd/i.test((el.name || '') + ' ' + (el.id || ''));
    send({ kind: 'fill', value: secret ? '' : v, secret: secret }, el);
  }
  function flushAll() { for (const el of Array.from(pending.keys())) flushField(el); }
  window.__rpaFlush = flushAll;
  window.__rpaSel = selectors; // Go asks a parent document for its iframe's selectors (cross-origin frames)

  document.addEventListener('input', (e) => {
    if (!e.isTrusted) return;
    if (textLike(e.target)) pending.set(e.target, true);
    else if (editableRoot(e.target)) pending.set(editableRoot(e.target), true);
  }, true);
  document.addEventListener('focusout', (e) => {
    const root = editableRoot(e.target);
    if (e.isTrusted && root) flushField(root);
  }, true);
  document.addEventListener('change', (e) => {
    if (!e.isTrusted) return;
    const el = e.target;
    if (textLike(el)) { pending.set(el, true); flushField(el); return; }
    if (el.tagName === 'SELECT') {
      send({ kind: 'select', value: el.value }, el);
    } else if (el.type === 'checkbox') {
      send({ kind: el.checked ? 'check' : 'uncheck' }, el);
    } else if (el.type === 'radio') {
      if (el.checked) send({ kind: 'check' }, el);
    } else if (el.type === 'file') {
      send({ kind: 'upload', value: Array.from(el.files || []).map((f) => f.name).join('\n') }, el);
    }
  }, true);
  document.addEventListener('keydown', (e) => {
    if (!e.isTrusted || !/^(Enter|Tab|Escape)$/.test(e.key)) return;
    const root = editableRoot(e.target);
    if (root && e.key === 'Enter') return; // a new line of the text
    if (root) flushField(root);
    if (textLike(e.target)) { pending.set(e.target, true); flushField(e.target); }
    send({ kind: 'press', key: e.key });
  }, true);
  document.addEventListener('pointerdown', (e) => {
    if (e.isTrusted) flushAll();
  }, true);
  document.addEventListener('click', (e) => {
    if (!e.isTrusted || editableRoot(e.target)) return; // focusing or placing the caret in an editor
    let el = e.target.closest('a,button,input,select,textarea,label,summary,[role=button],[role=link],[role=tab],[role=menuitem],[role=option],[onclick]') || e.target;
    if (textLike(el) || el.tagName === 'SELECT' || el.tagName === 'OPTION') return; // focusing a field
    if (el.tagName === 'INPUT' && /^(checkbox|radio|file)$/i.test(el.type)) return; // reported on change
    if (el.tagName === 'LABEL') {
      const c = el.control;
      if (c && (c.tagName !== 'INPUT' || /^(checkbox|radio|file)$/i.test(c.type) || textLike(c))) return;
    }
    if (e.detail >= 2) return; // the dblclick that follows is reported
    send({ kind: 'click' }, el);
  }, true);
  document.addEventListener('dblclick', (e) => {
    if (!e.isTrusted) return;
    const el = e.target.closest('a,button,[role=button],[onclick]') || e.target;
    if (textLike(el)) return;
    send({ kind: 'dblclick' }, el);
  }, true);
  window.addEventListener('pagehide', flushAll, true);
  window.addEventListener('beforeunload', flushAll, true);
})();
