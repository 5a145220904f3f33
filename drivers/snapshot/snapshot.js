// rpa's accessibility snapshot of one document (package snapshot). Runs
// after selectorgen.js (it uses its role, accName, visible and textOf, the
// engine's notions). Called as a function of one options object:
//   {start: next ref number, scope: CSS selector or ref ("" = whole page),
//    maxRows, maxOptions, maxText, refPrefix, around: [selectors]}
// It returns {lines: [{d: depth, t: text, r: ref}], next, frames: [{at:
// line index, d: depth, sels: [...]}] (iframes of another origin, to be
// snapshotted by the caller), url, title, target: ref of the around
// element, error}.
// Every actionable node gets a ref ("e12"), kept by the element across
// snapshots (a WeakMap), so a later snapshot's unchanged lines are equal
// and a diff shows what changed. Refs resolve through
// globalThis.__rpaRefs (ref → element).
(opts) => {
  const G = globalThis.__rpaSelGen;
  const top = globalThis;
  if (!top.__rpaRefs) { top.__rpaRefs = new Map(); top.__rpaRefOf = new WeakMap(); }
  // ref numbers never repeat in a window, whatever start says
  let next = Math.max(opts.start || 1, top.__rpaRefNext || 1);
  const prefix = opts.refPrefix || 'e';
  const maxRows = opts.maxRows || 10, maxOptions = opts.maxOptions || 25, maxText = opts.maxText || 100;
  const lines = [], frames = [];
  let target = null, targetRef = '';

  const interactive = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem']);
  const refRoles = new Set([...interactive, 'table', 'grid', 'heading', 'dialog', 'alertdialog', 'img', 'form', 'status', 'alert']);
  const landmark = new Set(['main', 'navigation', 'banner', 'contentinfo', 'complementary', 'region', 'form', 'search', 'dialog',
    'alertdialog', 'list', 'table', 'grid', 'tablist', 'menu', 'menubar', 'tree', 'group', 'radiogroup', 'toolbar', 'status', 'alert',
    'article', 'heading', 'paragraph', 'listitem', 'img', 'figure', 'tabpanel']);
  const skip = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'svg', 'br', 'wbr']);
  const collapse = (s) => (s || '').replace(/[\s\u200b\u00a0]+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  // Every text the snapshot shows is one line: quoted as JSON, with the
  // line and paragraph separators JSON leaves raw escaped too; a value
  // (after ': ') stays bare only when it holds nothing that could pass for
  // a line, a quote, a state or a ref.
  const q = (s) => JSON.stringify(s).replace(/[\u0085\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  const val = (s) => (/^[^\x00-\x1f\x7f-\x9f\u2028\u2029"\\[\]]*$/.test(s) && s.trim() === s ? s : q(s));

  function refOf(el) {
    let r = top.__rpaRefOf.get(el);
    if (!r || top.__rpaRefs.get(r) !== el) {
      r = prefix + next++;
      top.__rpaRefOf.set(el, r);
    }
    top.__rpaRefs.set(r, el);
    return r;
  }
  function hidden(el) {
    if (el.getAttribute('aria-hidden') === 'true' || el.hidden) return true;
    const st = getComputedStyle(el);
    if (st.display === 'none') return true;
    if (st.visibility === 'hidden' || st.visibility === 'collapse') {
      // a visible child may still show: only leaves are dropped here
      return el.children.length === 0;
    }
    return false;
  }
  function roleOf(el) {
    let r = G.role(el);
    if (!r) {
      const ln = el.localName;
      if (ln === 'p') r = 'paragraph';
      else if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) r = 'textbox';
      else if (ln === 'header' && !el.closest('article, section, main')) r = 'banner';
      else if (ln === 'footer' && !el.closest('article, section, main')) r = 'contentinfo';
      else if (ln === 'iframe' || ln === 'frame') r = 'iframe';
      else if (el.hasAttribute('onclick') || (el.tabIndex >= 0 && el.hasAttribute('tabindex'))) r = 'generic-clickable';
    }
    if (r === 'section' || (r === 'region' && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby'))) r = '';
    if (r === 'presentation' || r === 'none') r = '';
    return r;
  }
  function states(el, r) {
    const s = [];
    if (r === 'heading') {
      const m = /^h([1-6])$/.exec(el.localName);
      s.push('level=' + (el.getAttribute('aria-level') || (m ? m[1] : '2')));
    }
    if (r === 'checkbox' || r === 'radio' || r === 'switch' || r === 'menuitemcheckbox' || r === 'menuitemradio') {
      const c = el.localName === 'input' ? el.checked : el.getAttribute('aria-checked') === 'true';
      if (c) s.push('checked');
    }
    if (r === 'option' && (el.selected || el.getAttribute('aria-selected') === 'true')) s.push('selected');
    if (r === 'tab' && el.getAttribute('aria-selected') === 'true') s.push('selected');
    const ex = el.getAttribute('aria-expanded');
    if (ex === 'true') s.push('expanded');
    if (ex === 'false') s.push('collapsed');
    try { if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') s.push('disabled'); } catch (e) { /* */ }
    if (el.required || el.getAttribute('aria-required') === 'true') s.push('required');
    if (el.readOnly && (el.localName === 'input' || el.localName === 'textarea')) s.push('readonly');
    return s;
  }
  function valueOf(el, r) {
    const ln = el.localName;
    if (ln === 'input' && (el.type || '').toLowerCase() === 'password') return el.value ? '***' : '';
    if (ln === 'input' || ln === 'textarea') {
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes((el.type || '').toLowerCase())) return '';
      return el.value || '';
    }
    if (ln === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? collapse(o.label || o.textContent) + (o.value && o.value !== collapse(o.textContent) ? ' (' + o.value + ')' : '') : '';
    }
    if (r === 'textbox' && el.isContentEditable) return collapse(el.innerText);
    return '';
  }
  function line(d, text, el, r) {
    const withRef = el && (refRoles.has(r) || el === target);
    const ref = withRef ? refOf(el) : '';
    if (el && el === target) targetRef = ref;
    // n: the accessible name in full, which binds the ref to the element
    // this snapshot showed (a click on the ref checks it again)
    lines.push(ref ? { d, t: text + ' [ref=' + ref + ']', r: ref, n: G.accName(el) } : { d, t: text, r: '' });
  }
  function node(el, r, d, extra) {
    const name = cut(G.accName(el), 80);
    let t = '- ' + r.replace('generic-clickable', 'generic');
    if (name) t += ' ' + q(name);
    const st = states(el, r);
    if (el === target) st.push('target');
    if (st.length) t += ' [' + st.join('] [') + ']';
    line(d, t, el, r === 'generic-clickable' ? 'button' : r);
    const v = valueOf(el, r);
    if (v) lines[lines.length - 1].t += ': ' + val(cut(v, maxText));
    if (extra) lines[lines.length - 1].t += extra;
    return name;
  }
  function textLine(d, s) {
    s = collapse(s);
    if (s) lines.push({ d, t: '- text: ' + q(cut(s, maxText)), r: '' });
  }
  function rowText(tr) {
    const cells = [];
    for (const c of tr.cells || tr.children) cells.push(cut(collapse(c.innerText !== undefined ? c.innerText : c.textContent), 40));
    return cells.join(' | ');
  }
  function table(el, d) {
    const rows = Array.from(el.rows || el.querySelectorAll('[role=row]'));
    const head = [], body = [];
    for (const tr of rows) {
      if (!collapse(tr.textContent)) continue; // an empty row says nothing
      if (tr.closest('table') !== el && el.localName === 'table') continue; // nested tables stay in their cell
      if ((tr.parentElement && tr.parentElement.localName === 'thead') || (tr.cells && tr.cells.length && Array.from(tr.cells).every((c) => c.localName === 'th') && !body.length)) head.push(tr);
      else if (!(tr.parentElement && tr.parentElement.localName === 'tfoot')) body.push(tr);
    }
    node(el, 'table', d, ' (' + body.length + (body.length === 1 ? ' row)' : ' rows)'));
    for (const tr of head) lines.push({ d: d + 1, t: '- row (header): ' + q(rowText(tr)), r: '' });
    for (const tr of body.slice(0, maxRows)) lines.push({ d: d + 1, t: '- row: ' + q(rowText(tr)), r: '' });
    if (body.length > maxRows) lines.push({ d: d + 1, t: '- text: "… ' + (body.length - maxRows) + ' more rows (browser_read {ref, action: \\"table\\"} reads them all)"', r: '' });
  }
  function select(el, r, d) {
    node(el, r, d);
    const opts = Array.from(el.options || []);
    for (const o of opts.slice(0, maxOptions)) {
      let t = '- option ' + q(cut(collapse(o.label || o.textContent), 60));
      if (o.value && o.value !== collapse(o.textContent)) t += ' (value ' + q(o.value) + ')';
      if (o.selected) t += ' [selected]';
      if (o.disabled) t += ' [disabled]';
      lines.push({ d: d + 1, t, r: '' });
    }
    if (opts.length > maxOptions) lines.push({ d: d + 1, t: '- text: "… ' + (opts.length - maxOptions) + ' more options"', r: '' });
  }
  function children(el, d) {
    const kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    const st = getComputedStyle(el);
    const showText = st.visibility !== 'hidden' && st.visibility !== 'collapse';
    for (const k of kids) {
      if (k.nodeType === 3) { if (showText) textLine(d, k.data); }
      else if (k.nodeType === 1) walk(k, d);
    }
  }
  const inner = 'a[href],button,input,select,textarea,[role=button],[role=link],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],' +
    '[role=option],[role=tab],[role=checkbox],[role=radio],[role=switch],[role=textbox],[role=menu],[role=listbox],[contenteditable=""],[contenteditable=true]';
  const rich = 'a,button,input,select,textarea,table,iframe,frame,h1,h2,h3,h4,h5,h6,img,ul,ol,dialog,details,summary,[role],[onclick],[tabindex],[contenteditable]';
  // plain is true when el's subtree holds only text and inline markup:
  // it is written as one text line.
  function plain(el) {
    if (target && el !== target && el.contains(target)) return false;
    if (el.querySelector(rich)) return false;
    for (const e of el.querySelectorAll('*')) if (e.shadowRoot) return false;
    return !el.shadowRoot;
  }
  function walk(el, d) {
    const ln = el.localName;
    if (skip.has(ln)) return;
    if (ln === 'label' && el.control) {
      // its text is the control's name: only the elements inside count
      if (hidden(el)) return;
      for (const k of el.children) walk(k, d);
      return;
    }
    if (ln === 'slot') {
      for (const k of el.assignedNodes({ flatten: true })) {
        if (k.nodeType === 3) textLine(d, k.data); else if (k.nodeType === 1) walk(k, d);
      }
      return;
    }
    if (hidden(el)) return;
    const r = roleOf(el);
    if (r === 'iframe') {
      line(d, '- iframe' + (el.title || el.name ? ' ' + q(el.title || el.name) : ''), null, '');
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      if (doc && doc.body) walk(doc.body, d + 1);
      else frames.push({ at: lines.length, d: d + 1, path: (G.framePath(el, 4) || []).concat([G.selectors(el, 4)]) });
      return;
    }
    if (r === 'table' || r === 'grid') { table(el, d); return; }
    if (ln === 'select') { select(el, r, d); return; }
    if (el === target && (!r || r === 'generic')) {
      // the around element is shown even when it is a bare container
      node(el, 'generic', d);
      children(el, d + 1);
      return;
    }
    if (!r || r === 'generic' || r === 'listitem' || (!landmark.has(r) && !interactive.has(r) && r !== 'generic-clickable' && !refRoles.has(r))) {
      if (el.children.length && plain(el)) { textLine(d, el.innerText); return; }
      children(el, d);
      return;
    }
    if (r === 'paragraph' && !collapse(el.textContent) && !el.children.length) return; // empty
    const name = node(el, r, d);
    const leaf = interactive.has(r) || r === 'generic-clickable' || r === 'heading' || r === 'img';
    if (leaf && Array.from(el.querySelectorAll(inner)).some((e) => G.visible(e))) {
      // a menu item holding a submenu, a button holding a link: what is
      // inside can be acted on too
      children(el, d + 1);
      return;
    }
    if (leaf) {
      // name from content: the text is the name; other content stays
      const txt = collapse(el.innerText || '');
      if (txt && name && txt !== name && !txt.startsWith(name) && (r === 'link' || r === 'button' || r === 'generic-clickable') && txt.length <= maxText) {
        lines[lines.length - 1].t += ': ' + q(txt);
      }
      return;
    }
    if (r === 'paragraph' && plain(el)) {
      const s = collapse(el.innerText);
      if (s) lines[lines.length - 1].t += ': ' + q(cut(s, maxText));
      return;
    }
    children(el, d + 1);
  }

  // match finds the first element of sel in the selector forms of
  // LANGUAGE.md ("Selectors"): CSS, xpath= or //, text=, aria/, pierce/.
  // Closed shadow roots are not searched.
  function shadowRoots() {
    const out = [document];
    const it = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT);
    const walkRoot = (w) => { for (let n = w.nextNode(); n; n = w.nextNode()) if (n.shadowRoot) { out.push(n.shadowRoot); walkRoot(document.createTreeWalker(n.shadowRoot, NodeFilter.SHOW_ELEMENT)); } };
    walkRoot(it);
    return out;
  }
  function match(sel) {
    try {
      if (sel.startsWith('xpath=') || sel.startsWith('//') || sel.startsWith('(//')) {
        const x = sel.startsWith('xpath=') ? sel.slice(6) : sel;
        const n = document.evaluate(x, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
        return n && n.nodeType === 1 ? n : null;
      }
      if (sel.startsWith('pierce/')) {
        for (const r of shadowRoots()) { const e = r.querySelector(sel.slice(7)); if (e) return e; }
        return null;
      }
      if (sel.startsWith('aria/')) {
        let name = sel.slice(5), role = '';
        const m = /^(.*)\[role=["']?([^"'\]]*)["']?\]$/.exec(name);
        if (m) { name = m[1]; role = m[2]; }
        for (const e of document.querySelectorAll('*')) {
          if ((!role || G.role(e) === role) && G.accName(e) === name) return e;
        }
        return null;
      }
      if (sel.startsWith('text=')) {
        let t = sel.slice(5), exact = false;
        if (t.length > 1 && t.startsWith('"') && t.endsWith('"')) { t = JSON.parse(t); exact = true; }
        t = collapse(t).toLowerCase();
        const hit = (e) => {
          if (skip.has(e.localName) || !G.visible(e)) return false;
          const s = collapse(G.textOf(e)).toLowerCase();
          return exact ? s === t : s.includes(t);
        };
        // the innermost match, first in document order
        for (const e of document.body ? document.body.querySelectorAll('*') : []) {
          if (hit(e) && !Array.from(e.children).some(hit)) return e;
        }
        return null;
      }
      return document.querySelector(sel);
    } catch (e) {
      return null; // a selector this document rejects: try the next
    }
  }
  // the region of the around element: its nearest landmark, form or
  // dialog ancestor (across open shadow roots), else the document
  const regionSel = 'main, nav, form, dialog, aside, header, footer, section, article, fieldset, ' +
    '[role=main], [role=navigation], [role=form], [role=search], [role=dialog], [role=alertdialog], [role=region], [role=complementary]';
  function regionOf(el) {
    for (let e = el; e;) {
      const c = e.parentElement ? e.parentElement.closest(regionSel) : null;
      if (c) return c;
      const h = e.getRootNode().host;
      if (!h) return null;
      if (h.matches(regionSel)) return h;
      e = h;
    }
    return null;
  }

  let root = document.body || document.documentElement;
  const scope = opts.scope || '';
  if (!scope && opts.around && opts.around.length) {
    for (const s of opts.around) { target = match(String(s)); if (target) break; }
    if (target) {
      const region = regionOf(target);
      if (region) {
        walk(region, 0);
        if (!lines.length) children(region, 0);
      }
    }
  }
  if (scope) {
    root = /^[ef]\d+$|^f\d+e\d+$/.test(scope) ? top.__rpaRefs.get(scope) : null;
    if (!root) {
      try { root = document.querySelector(scope); } catch (e) { return { error: 'bad selector ' + q(scope) + ': ' + e.message }; }
    }
    if (!root) return { error: 'nothing matches ' + q(scope) };
    walk(root, 0);
    if (!lines.length) children(root, 0);
  } else if (lines.length) {
    // the around element's region, taken above
  } else if (root) {
    children(root, 0);
  }
  top.__rpaRefNext = next;
  // adjacent text lines of one level read as one sentence
  const merged = [];
  for (const l of lines) {
    const prev = merged[merged.length - 1];
    if (prev && !prev.r && !l.r && prev.d === l.d && prev.t.startsWith('- text: ') && l.t.startsWith('- text: ') &&
        !frames.some((f) => f.at === merged.length)) {
      const a = JSON.parse(prev.t.slice(8)), b = JSON.parse(l.t.slice(8));
      if (a.length + b.length < 2 * maxText) { prev.t = '- text: ' + q(a + ' ' + b); continue; }
    }
    merged.push(l);
  }
  // frame placeholders point into lines: recount them
  if (frames.length && merged.length !== lines.length) {
    return { lines, next, frames, url: location.href, title: document.title, target: targetRef };
  }
  return { lines: merged, next, frames, url: location.href, title: document.title, target: targetRef };
}
