// rpa's selector generator: given an element, the fallback list of
// selectors that replay will race (LANGUAGE.md, "Selectors"), best first,
// each checked to match exactly that one element of its document with the
// semantics of drivers/rod's engine.js (role, accessible name and rendered
// text are computed the same way here; selectorgen's tests check every
// generated selector against the engine). Evaluating this script defines
// globalThis.__rpaSelGen once per document; evaluating it again is a no-op.
(() => {
  if (globalThis.__rpaSelGen) return;

  const collapseKeepNbsp = (s) => (s || '').replace(/[ \t\n\r\f\v\u200b]+/g, ' ').replace(/\u00a0/g, ' ').trim();

  // ---- the engine's notions (kept in step with drivers/rod/engine.js) ----
  const shadowOf = (el) => el.shadowRoot || null; // closed roots are unknown here
  // visible, role, accName, textOf: the engine's own (drivers/a11y)
  /*rpa:a11y*/
  const skipText = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'meta', 'link']);
  // exactText lists what the engine's text="q" returns in doc: the
  // innermost visible elements whose whole rendered text is q.
  function exactText(doc, q) {
    const out = [];
    const visit = (el) => {
      if (skipText.has(el.localName)) return false;
      if (!visible(el) && el.localName !== 'body') return false;
      const t = textOf(el);
      if (!t.includes(q)) return false;
      let found = false;
      for (const c of el.children) if (visit(c)) found = true;
      if (!found && t === q) { out.push(el); return true; }
      return found;
    };
    visit(doc.body || doc.documentElement);
    return out;
  }

  // ---- candidates ----
  // generatedID: ids that frameworks make up per render or per build.
  function generatedID(id) {
    return /\d{3,}|^\d|:|^\$|^(ember|react|mui|rc-|radix|headlessui|yui|ext-)|[a-f0-9]{8,}|__|[A-Za-z]+_[A-Za-z0-9]{6,}$/i.test(id);
  }
  // stableClass: a class name that looks written by a person (no digits,
  // no CSS-modules hash), usable in a selector.
  function stableClass(c) {
    return c.length <= 30 && /^[A-Za-z][A-Za-z_-]*$/.test(c) && !c.includes('__') && !/^(active|selected|focus|hover|open|show|hidden|disabled|is-|has-)/.test(c);
  }
  function classOf(el) {
    const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/) : [];
    for (const c of cls) if (c && stableClass(c)) return '.' + CSS.escape(c);
    return '';
  }
  function quote(v) { return '"' + v.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"'; }
  function xq(v) {
    if (!v.includes("'")) return "'" + v + "'";
    if (!v.includes('"')) return '"' + v + '"';
    return 'concat(' + v.split("'").map((p) => "'" + p + "'").join(', "\'", ') + ')';
  }
  // roots lists doc and every open shadow root inside it, in document order.
  function roots(doc) {
    const out = [doc];
    const walk = (r) => {
      const it = doc.createTreeWalker(r, NodeFilter.SHOW_ELEMENT);
      for (let n = it.nextNode(); n; n = it.nextNode()) {
        if (n.shadowRoot) { out.push(n.shadowRoot); walk(n.shadowRoot); }
      }
    };
    walk(doc);
    return out;
  }
  // count matches css in the element's scope: its document, or (pierce)
  // the document and every open shadow root.
  function count(scope, css) {
    let n = 0;
    try {
      for (const r of scope) n += r.querySelectorAll(css).length;
    } catch (e) { return -1; }
    return n;
  }

  function cssPath(el, scope, full) {
    const parts = [];
    let cur = el;
    const top = el.getRootNode();
    const shadow = top.nodeType === 11;
    for (let depth = 0; cur && cur.nodeType === 1 && depth < 8; depth++) {
      if (cur.id && !generatedID(cur.id) && count(scope, '#' + CSS.escape(cur.id)) === 1) {
        parts.unshift('#' + CSS.escape(cur.id));
        break;
      }
      // classes only inside shadow roots, where a bare tag path may also
      // match in closed roots this script cannot see
      const cls = (c) => (shadow ? classOf(c) : '');
      let part = cur.localName + cls(cur);
      const parent = cur.parentElement || (cur.parentNode === top && top.nodeType === 11 ? top : null);
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.localName === cur.localName && cls(c) === cls(cur));
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(cur) + 1) + ')';
      }
      parts.unshift(part);
      if (cur.localName === 'body' || parent === top) break;
      if (!full && count(scope, parts.join(' > ')) === 1) return parts.join(' > ');
      cur = cur.parentElement;
    }
    const css = parts.join(' > ');
    return count(scope, css) === 1 ? css : '';
  }

  function xpath(el) {
    const steps = [];
    for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentElement) {
      if (cur !== el && cur.id && !generatedID(cur.id) && cur.ownerDocument.querySelectorAll('#' + CSS.escape(cur.id)).length === 1) {
        steps.unshift('//*[@id=' + xq(cur.id) + ']');
        return steps.join('/');
      }
      const name = cur.localName;
      const tag = /^[a-z][a-z0-9-]*$/.test(name) ? name : '*[local-name()=' + xq(name) + ']';
      let i = 1, n = 0;
      for (const s of (cur.parentElement ? cur.parentElement.children : [cur])) {
        if (s.localName === name) { n++; if (s === cur) i = n; }
      }
      steps.unshift(n > 1 ? tag + '[' + i + ']' : tag);
    }
    return '/' + steps.join('/');
  }

  // selectors returns el's fallback list, best first: a stable id,
  // data-testid (data-test, data-qa, data-cy), a form control's name,
  // aria/Name[role="r"], text="..." (buttons, links, tabs, menu items), a
  // short CSS path and an xpath, each matching exactly el in its document
  // (elements inside open shadow roots get pierce/ selectors only). At
  // most max entries (default all).
  function selectors(el, max) {
    const doc = el.ownerDocument;
    const inShadow = el.getRootNode() !== doc;
    const scope = inShadow ? roots(doc) : [doc];
    const pre = inShadow ? 'pierce/' : '';
    const out = [];
    const add = (s) => { if (s && !out.includes(s)) out.push(s); };
    const tag = el.localName;
    const cssOK = (css) => count(scope, css) === 1;
    if (el.id && !generatedID(el.id) && cssOK('#' + CSS.escape(el.id))) add(pre + '#' + CSS.escape(el.id));
    for (const a of ['data-testid', 'data-test', 'data-qa', 'data-cy']) {
      const v = el.getAttribute(a);
      if (v) {
        const s = '[' + a + '=' + quote(v) + ']';
        if (cssOK(s)) { add(pre + s); break; }
      }
    }
    const name = el.getAttribute('name');
    if (name && /^(input|select|textarea|button|iframe|frame)$/.test(tag)) {
      let s = tag + '[name=' + quote(name) + ']';
      if (el.type === 'radio' || el.type === 'checkbox') {
        if (!cssOK(s)) s += '[value=' + quote(el.value) + ']';
      }
      if (cssOK(s)) add(pre + s);
    }
    const r = role(el);
    // roles whose name is their content (data, not a label) make no
    // aria/ selector: it would break when the data changes
    const dataRole = /^(table|grid|treegrid|row|cell|gridcell|rowheader|listitem|list|paragraph|status|alert|log|generic|group|region|article|main|form|presentation|none)$/.test(r);
    if (!inShadow && r && !dataRole && !el.closest('[aria-hidden="true"]')) {
      const label = accName(el);
      if (label && label.length <= 60 && !/[\r\n]/.test(label)) {
        let n = 0;
        for (const e of doc.querySelectorAll('*')) {
          if (role(e) === r && !e.closest('[aria-hidden="true"]') && accName(e) === label && ++n > 1) break;
        }
        if (n === 1) add('aria/' + label + '[role=' + quote(r) + ']');
      }
    }
    if (!inShadow && !r && (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) && !el.closest('[aria-hidden="true"]')) {
      // no role: aria/Name alone, matched among the elements that can
      // carry a name (as the engine does)
      const label = accName(el);
      if (label && label.length <= 60 && !/[\r\n]/.test(label)) {
        let n = 0;
        for (const e of doc.querySelectorAll('*')) {
          if (!role(e) && !e.hasAttribute('aria-label') && !e.hasAttribute('aria-labelledby') && !e.hasAttribute('title')) continue;
          if (!e.closest('[aria-hidden="true"]') && accName(e) === label && ++n > 1) break;
        }
        if (n === 1) add('aria/' + label);
      }
    }
    if (!inShadow && /^(button|link|tab|menuitem|menuitemcheckbox|menuitemradio|option|treeitem)$/.test(r)) {
      const txt = textOf(el);
      if (txt && txt.length <= 60) {
        const hits = exactText(doc, txt);
        if (hits.length === 1 && (hits[0] === el || el.contains(hits[0]))) add('text=' + quote(txt));
      }
    }
    if (inShadow) {
      // the short path, and the path up to the shadow root
      for (const full of [false, true]) {
        const p = cssPath(el, scope, full);
        if (p) add(pre + p);
      }
    } else {
      add(cssPath(el, scope, false));
    }
    if (!inShadow) {
      const xp = xpath(el);
      try {
        const res = doc.evaluate(xp, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        if (res.snapshotLength === 1 && res.snapshotItem(0) === el) add('xpath=' + xp);
      } catch (e) { /* not expressible */ }
    }
    return max > 0 ? out.slice(0, max) : out;
  }

  // framePath lists the selectors of the iframes around el's document,
  // outermost first; [] in the top document, null when an ancestor
  // document is out of reach (another origin).
  function framePath(el, max) {
    const out = [];
    let w = el.ownerDocument.defaultView;
    try {
      while (w && w !== w.top) {
        const fe = w.frameElement;
        if (!fe) return null;
        out.unshift(selectors(fe, max));
        w = w.parent;
      }
    } catch (e) { return null; }
    return out;
  }

  // describe names el for a person: `role "name"`, else the tag.
  function describe(el) {
    const r = role(el) || el.localName;
    const l = accName(el);
    return l ? r + ' "' + (l.length > 60 ? l.slice(0, 57) + '...' : l) + '"' : r + (el.id ? ' #' + el.id : '');
  }

  // target is everything the recorder and authoring log about el.
  function target(el, max) {
    return {
      selectors: selectors(el, max), frames: framePath(el, max), desc: describe(el), role: role(el), name: accName(el),
      tag: el.localName, type: el.localName === 'input' ? (el.type || 'text').toLowerCase() : '',
      id: el.id || '', fieldName: el.getAttribute('name') || '',
    };
  }

  globalThis.__rpaSelGen = { selectors, framePath, describe, target, role, accName, generatedID, visible, textOf };
})();
