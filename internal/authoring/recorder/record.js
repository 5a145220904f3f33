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

  // role is the recorder's coarse role, for field labels (selectors and
  // descriptions come from the shared generator, package selectorgen).
  function role(el) {
    const r = el.getAttribute('role');
    if (r) return r;
    const t = el.tagName;
    if (t === 'BUTTON' || (t === 'INPUT' && /^(button|submit|reset|image)$/i.test(el.type))) return 'button';
    if (t === 'A' && el.hasAttribute('href')) return 'link';
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
  const GEN = globalThis.__rpaSelGen; // selectorgen.js, installed just before this script
  // selectors returns the element's fallback list, best first, each one
  // matching exactly one element of its document; the XPath only when
  // nothing else names the element (recorded flows stay readable).
  const selectors = (el) => {
    const all = GEN.selectors(el, 0);
    const short = all.filter((s) => !s.startsWith('xpath='));
    return (short.length ? short : all).slice(0, 4);
  };
  const framePath = () => {
    if (window === window.top) return [];
    const out = [];
    let w = window;
    try {
      while (w !== w.top) {
        const fe = w.frameElement;
        if (!fe) return null; // another origin: Go asks each parent document
        out.unshift(selectors(fe));
        w = w.parent;
      }
    } catch (e) { return null; }
    return out;
  };
  const describe = (el) => GEN.describe(el);
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
