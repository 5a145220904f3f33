// rpa's accessibility snapshot (drivers.Snapshot documents the form): the
// text form of Playwright's aria snapshots, with Playwright MCP's refs.
// Called as fn(target, maxChars) with target an element (or null); the
// snapshot covers the target's nearest landmark/form/dialog ancestor, else
// the whole document. Field values are never read.
function (target, maxChars) {
  const REF = Symbol.for('rpa.snapshot.ref');
  const win = window;
  if (!win[REF]) win[REF] = { next: 1 };
  const refOf = (el) => {
    if (!el[REF]) el[REF] = 'e' + (win[REF].next++);
    return el[REF];
  };
  const collapse = (s) => (s || '').replace(/[\s\u200b\u00a0]+/g, ' ').trim();
  const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

  const inputRole = (el) => {
    const t = (el.getAttribute('type') || 'text').toLowerCase();
    switch (t) {
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'button': case 'submit': case 'reset': case 'image': return 'button';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'hidden': return '';
      default: return el.hasAttribute('list') ? 'combobox' : 'textbox';
    }
  };
  const inSection = (el) => !!el.parentElement && !!el.parentElement.closest('article, aside, main, nav, section');
  const implicit = {
    a: (el) => (el.hasAttribute('href') ? 'link' : ''), area: (el) => (el.hasAttribute('href') ? 'link' : ''),
    article: 'article', aside: 'complementary', button: 'button', dialog: 'dialog', details: 'group',
    fieldset: 'group', figure: 'figure', footer: (el) => (inSection(el) ? '' : 'contentinfo'),
    form: 'form', h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    header: (el) => (inSection(el) ? '' : 'banner'), hr: 'separator', img: (el) => (el.getAttribute('alt') === '' ? '' : 'img'),
    input: inputRole, li: 'listitem', main: 'main', menu: 'list', nav: 'navigation', ol: 'list', ul: 'list',
    option: 'option', p: 'paragraph', progress: 'progressbar', section: (el) => (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : ''),
    select: (el) => (el.multiple || el.size > 1 ? 'listbox' : 'combobox'), summary: 'button', table: 'table',
    tbody: 'rowgroup', thead: 'rowgroup', tfoot: 'rowgroup', td: 'cell', th: 'columnheader', tr: 'row',
    textarea: 'textbox', iframe: 'iframe', label: '', dl: 'list', dt: 'term', dd: 'definition',
  };
  const roleOf = (el) => {
    const r = (el.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    if (r && r !== 'presentation' && r !== 'none') return r;
    if (r) return '';
    const f = implicit[el.localName];
    return typeof f === 'function' ? f(el) : (f || '');
  };
  const fromContent = new Set(['button', 'link', 'heading', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'option', 'cell', 'columnheader', 'rowheader', 'treeitem', 'listitem', 'term']);
  const textName = (el) => collapse(el.innerText !== undefined ? el.innerText : el.textContent);
  const nameOf = (el, role) => {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const doc = el.getRootNode();
      const s = collapse(lb.split(/\s+/).map((id) => {
        const e = (doc.getElementById && doc.getElementById(id)) || el.ownerDocument.getElementById(id);
        return e ? e.textContent : '';
      }).join(' '));
      if (s) return s;
    }
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) return collapse(al);
    const t = el.localName;
    if (t === 'input' || t === 'select' || t === 'textarea') {
      const ty = (el.type || '').toLowerCase();
      if (t === 'input' && (ty === 'submit' || ty === 'reset' || ty === 'button')) {
        return collapse(el.getAttribute('value') || (ty === 'submit' ? 'Submit' : ty === 'reset' ? 'Reset' : ''));
      }
      if (el.labels && el.labels.length) {
        const s = collapse(Array.from(el.labels).map((l) => l.textContent).join(' '));
        if (s) return s;
      }
      return collapse(el.title || el.getAttribute('placeholder') || '');
    }
    if (t === 'img') return collapse(el.getAttribute('alt') || el.title || '');
    if (t === 'fieldset') { const lg = el.querySelector(':scope > legend'); if (lg) return collapse(lg.textContent); }
    if (t === 'table') { const c = el.querySelector(':scope > caption'); if (c) return collapse(c.textContent); }
    if (fromContent.has(role)) return textName(el);
    return collapse(el.title || '');
  };
  const hidden = (el) => {
    if (el.getAttribute('aria-hidden') === 'true' || el.hidden) return true;
    const st = getComputedStyle(el);
    return st.display === 'none' || st.visibility === 'hidden';
  };
  const states = (el, role) => {
    const out = [];
    if (role === 'heading') out.push('level=' + (Number(el.getAttribute('aria-level')) || Number(el.localName.slice(1)) || 2));
    const aria = (n) => el.getAttribute('aria-' + n);
    if ((role === 'checkbox' || role === 'radio' || role === 'switch')) {
      const c = el.localName === 'input' ? el.checked : aria('checked') === 'true';
      if (c) out.push('checked');
    }
    if (aria('pressed') === 'true') out.push('pressed');
    if (aria('expanded') === 'true') out.push('expanded');
    if (aria('selected') === 'true' || (el.localName === 'option' && el.selected)) out.push('selected');
    let dis = aria('disabled') === 'true';
    try { dis = dis || el.matches(':disabled'); } catch (e) { /* not a control */ }
    if (dis) out.push('disabled');
    if (el === target) out.push('target');
    return out;
  };
  const skip = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'svg']);
  const lines = [];
  const textAt = {}, textBuf = {}; // line index → depth, text of a text line
  const q = (s) => JSON.stringify(s);

  // walk emits the children of node at depth.
  const walk = (node, depth) => {
    let kids;
    if (node.nodeType === 1 && node.shadowRoot) kids = node.shadowRoot.childNodes;
    else if (node.nodeType === 1 && node.localName === 'slot') kids = node.assignedNodes().length ? node.assignedNodes() : node.childNodes;
    else kids = node.childNodes;
    for (const n of kids) visit(n, depth);
  };
  const visit = (n, depth) => {
    const pad = '  '.repeat(depth);
    if (n.nodeType === 3) {
      const s = collapse(n.data);
      if (!s) return;
      // Inline text split by generic elements is one text line.
      const last = lines.length - 1;
      if (textAt[last] === depth) {
        textBuf[last] = clip(textBuf[last] + ' ' + s, 200);
        lines[last] = pad + '- text: ' + q(textBuf[last]);
        return;
      }
      lines.push(pad + '- text: ' + q(clip(s, 200)));
      textAt[lines.length - 1] = depth;
      textBuf[lines.length - 1] = clip(s, 200);
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 11) return;
    if (n.nodeType === 11) { walk(n, depth); return; }
    const el = n;
    if (skip.has(el.localName) || hidden(el)) return;
    const role = roleOf(el);
    if (!role && el !== target) { walk(el, depth); return; }
    const name = role ? nameOf(el, role) : '';
    let head = pad + '- ' + (role || 'generic') + (name ? ' ' + q(clip(name, 120)) : '');
    for (const s of states(el, role)) head += ' [' + s + ']';
    head += ' [ref=' + refOf(el) + ']';
    if (role === 'iframe') {
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      if (doc && doc.body) {
        lines.push(head + ':');
        visit(doc.body, depth + 1);
      } else {
        lines.push(head); // cross-origin: its own snapshot
      }
      return;
    }
    // Name from content already shows the text: leave leaf text out.
    const start = lines.length;
    lines.push(head);
    const before = lines.length;
    if (!(fromContent.has(role) && name && el.children.length === 0)) walk(el, depth + 1);
    if (lines.length > before) lines[start] = head + ':';
  };

  let root = document.body || document.documentElement;
  if (target) {
    const region = target.closest('main, nav, form, dialog, [role=dialog], [role=alertdialog], [role=main], [role=form], aside, header, footer, section, article, table');
    if (region) root = region;
  }
  if (root === document.body || root === document.documentElement) walk(root, 0); else visit(root, 0);

  const max = maxChars > 0 ? maxChars : 8000;
  let used = 0, cut = lines.length;
  for (let i = 0; i < lines.length; i++) {
    used += lines[i].length + 1;
    if (used > max) { cut = i; break; }
  }
  const truncated = cut < lines.length;
  const out = lines.slice(0, cut);
  if (truncated) out.push('- ... (' + (lines.length - cut) + ' more lines left out)');
  return { text: out.join('\n'), truncated, target: target ? refOf(target) : '' };
}
