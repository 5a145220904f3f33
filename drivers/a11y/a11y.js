// rpa's accessible role and name of an element (what `role=` and `name=`
// selectors match; LANGUAGE.md, "Selectors"): the implicit ARIA role of
// its tag, then its name from aria-labelledby, aria-label, the control's
// labels, alt, title and placeholder, or its content. It is spliced
// (package a11y, Splice) into drivers/rod's engine and selectorgen's
// generator, so both compute the same role and name, and decide alike
// whether an element is visible. It expects in scope: collapseKeepNbsp(s)
// (text normalised) and shadowOf(el) (the element's shadow root, open or
// closed, or null).
  // visible: connected, not hidden by display, visibility or
  // checkVisibility, and with a size (a display: contents wrapper when a
  // child is visible; an option when its select is).
  function visible(el) {
    if (!el.isConnected) return false;
    if (el.localName === 'option' || el.localName === 'optgroup') {
      const sel = el.closest('select');
      return sel ? visible(sel) : false;
    }
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ visibilityProperty: true })) return false;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.visibility === 'collapse' || st.display === 'none') return false;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return true;
    if (st.display === 'contents') {
      for (const c of el.children) if (visible(c)) return true;
    }
    return false;
  }
  const implicitRoles = {
    button: 'button', a: (e) => (e.hasAttribute('href') ? 'link' : ''), select: (e) => (e.multiple || e.size > 1 ? 'listbox' : 'combobox'),
    textarea: 'textbox', img: (e) => (e.getAttribute('alt') === '' ? 'presentation' : 'img'),
    h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    li: 'listitem', ul: 'list', ol: 'list', nav: 'navigation', main: 'main', form: 'form', table: 'table',
    tr: 'row', td: 'cell', th: 'columnheader', option: 'option', dialog: 'dialog', summary: 'button',
    progress: 'progressbar', article: 'article', section: 'region', aside: 'complementary',
    input: (e) => {
      const t = (e.type || 'text').toLowerCase();
      if (['button', 'submit', 'reset', 'image'].includes(t)) return 'button';
      if (t === 'checkbox') return 'checkbox';
      if (t === 'radio') return 'radio';
      if (t === 'range') return 'slider';
      if (t === 'number') return 'spinbutton';
      if (t === 'search') return 'searchbox';
      if (t === 'hidden') return '';
      return 'textbox';
    },
  };
  function role(el) {
    const r = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (r) return r.toLowerCase();
    const f = implicitRoles[el.localName];
    return typeof f === 'function' ? f(el) : (f || '');
  }
  const nameFromContent = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'tab',
    'heading', 'checkbox', 'radio', 'switch', 'cell', 'columnheader', 'rowheader', 'treeitem', 'tooltip', 'gridcell', 'row']);

  function textOf(el) {
    return collapseKeepNbsp(el.innerText !== undefined && visible(el) ? el.innerText : el.textContent);
  }

  function accName(el) {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const doc = el.getRootNode();
      const parts = lb.split(/\s+/).map((id) => (doc.getElementById ? doc.getElementById(id) : null) || el.ownerDocument.getElementById(id))
        .filter(Boolean).map((e) => collapseKeepNbsp(e.getAttribute('aria-label') || e.textContent));
      const s = parts.join(' ').trim();
      if (s) return s;
    }
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) return collapseKeepNbsp(al);
    const t = el.localName;
    if (t === 'input' || t === 'select' || t === 'textarea') {
      const ty = (el.type || '').toLowerCase();
      if (t === 'input' && ['button', 'submit', 'reset'].includes(ty)) {
        return collapseKeepNbsp(el.value || (ty === 'submit' ? 'Submit' : ty === 'reset' ? 'Reset' : ''));
      }
      if (t === 'input' && ty === 'image') return collapseKeepNbsp(el.alt || el.title || 'Submit');
      if (el.labels && el.labels.length) {
        const s = Array.from(el.labels).map((l) => labelText(l, el)).join(' ').trim();
        if (s) return s;
      }
      if (el.title) return collapseKeepNbsp(el.title);
      if (el.placeholder) return collapseKeepNbsp(el.placeholder);
      return '';
    }
    if (t === 'img' || t === 'area') {
      if (el.hasAttribute('alt')) return collapseKeepNbsp(el.getAttribute('alt'));
      return collapseKeepNbsp(el.title);
    }
    if (t === 'fieldset') {
      const lg = el.querySelector(':scope > legend');
      if (lg) return textOf(lg);
    }
    if (t === 'table') {
      const c = el.querySelector(':scope > caption');
      if (c) return textOf(c);
    }
    if (nameFromContent.has(role(el))) {
      const s = contentName(el);
      if (s) return s;
    }
    if (el.title) return collapseKeepNbsp(el.title);
    return '';
  }
  // Name from content: text plus alt of images, aria-label of children.
  function contentName(el) {
    let out = '';
    const walk = (n) => {
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1) return;
      if (n.getAttribute('aria-hidden') === 'true') return;
      const ln = n.localName;
      if (ln === 'script' || ln === 'style' || ln === 'template') return;
      if (n !== el) {
        const al = n.getAttribute('aria-label');
        if (al) { out += ' ' + al + ' '; return; }
        if (ln === 'img') { out += ' ' + (n.getAttribute('alt') || '') + ' '; return; }
        const st = getComputedStyle(n);
        if (st.display === 'none' || st.visibility === 'hidden') return;
      }
      const sr = shadowOf(n);
      const kids = sr ? sr.childNodes : n.childNodes;
      const block = n !== el && /^(div|p|li|br|tr|h[1-6])$/.test(ln);
      if (block) out += ' ';
      for (const k of kids) walk(k);
      if (block) out += ' ';
    };
    walk(el);
    return collapseKeepNbsp(out);
  }
  function labelText(l, control) {
    let out = '';
    const walk = (n) => {
      if (n === control) return;
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1) return;
      const ln = n.localName;
      if (ln === 'script' || ln === 'style') return;
      if (ln === 'input' || ln === 'select' || ln === 'textarea') return;
      for (const k of n.childNodes) walk(k);
    };
    walk(l);
    return collapseKeepNbsp(out);
  }
  // disabledBy is the enabled rule (LANGUAGE.md, "Enabled"): null when a
  // person could use el, else {by, how}: the element that disables it
  // (el itself or an ancestor) and how: "disabled" (a disabled form
  // control: its own disabled attribute, a disabled fieldset outside its
  // first legend, a disabled optgroup; el is that control or inside it,
  // like the label of a disabled button), "label" (el is or is inside the
  // <label> of a disabled control), "drawn" (el is, or is inside, the
  // control drawn right after a hidden disabled checkbox or radio),
  // "inert", or "aria-disabled"
  // (aria-disabled="true" on el or an ancestor, across shadow roots; the
  // nearest element with aria-disabled "true" or "false" decides, so
  // "false" below a disabled wrapper enables again). Playwright's rule,
  // except that ancestors count for every element, not only those with a
  // widget role: a text= selector may name the label inside a widget.
  const formControls = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup']);
  function parentAcross(n) {
    if (n.parentElement) return n.parentElement;
    const r = n.getRootNode && n.getRootNode();
    return r && r.host ? r.host : null;
  }
  function disabledBy(el) {
    // a label (or its text) clicks its control: a disabled control disables it
    const lab = el.closest && el.closest('label');
    if (lab && lab.control && lab.control !== el) {
      let d = false;
      try { d = lab.control.matches(':disabled'); } catch (e) { /* not a control */ }
      if (d) return { by: lab.control, how: 'label' };
    }
    // a control drawn in place of a hidden checkbox or radio just before it
    // (layui) is disabled with it
    for (let n = el, i = 0; n && n.nodeType === 1 && i < 3; n = n.parentElement, i++) {
      const p = n.previousElementSibling;
      if (p && p.localName === 'input' && /^(checkbox|radio)$/i.test(p.type) && !visible(p) && p.disabled) return { by: p, how: 'drawn' };
    }
    for (let n = el; n; n = parentAcross(n)) {
      if (!formControls.has(n.localName)) continue;
      let d = false;
      try { d = n.matches(':disabled'); } catch (e) { /* not a control */ }
      if (d) return { by: n, how: 'disabled' };
      if (n.localName !== 'optgroup') break; // the nearest control decides
    }
    const inert = el.closest && el.closest('[inert]');
    if (inert) return { by: inert, how: 'inert' };
    for (let n = el; n; n = parentAcross(n)) {
      const a = (n.getAttribute('aria-disabled') || '').trim().toLowerCase();
      if (a === 'true') return { by: n, how: 'aria-disabled' };
      if (a === 'false') return null;
    }
    return null;
  }
