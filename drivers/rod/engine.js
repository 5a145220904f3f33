// rpa's in-page engine: selector matching, actionability checks, waiting and
// reads. Every new document gets it from an init script; an older one gets
// its source on its first call (see frame.go). It is called as
// engine(op, ...args) with `this` bound to an element for element
// operations. One instance lives per JS context (kept under a registered
// symbol of the global object, not enumerable): state such as the armed
// click interception (arm/disarm) and boxes seen by locate (lastBox) must
// survive from one call to the next even if the source runs again.
//
// Where each rule of LANGUAGE.md lives (one place each):
//   text normalisation, textKey ("确 定")   norm, textKey (below)
//   visible, why not                        visible, hiddenWhy
//   enabled                                 drivers/a11y disabledBy (spliced in); disabledWhy
//   stable                                  steady, stableNow, settling ("checks")
//   receives the hit, scrolling             receives, hitOK ("hit-testing")
//   the click lands where aimed             aim, arm, disarm ("hit target at dispatch")
//   a click has its effect                  expectation, effectDone, effectWait
//   hidden checkboxes, what check acts on   toggleTarget, proxies, checkTarget, drawnFor
//   text= and its widget                    queryText, widgetOf
//   the value lands where the flow says     holdFocus, guardText, sameValue ("values")
//   table, a grid                           plainTable, readGrid ("tables and grids")
(() => {
  const instanceKey = Symbol.for('rpa.engine/2');
  if (globalThis[instanceKey]) return globalThis[instanceKey];
  const closedRoots = new WeakMap(); // host -> closed ShadowRoot, learnt from CDP

  // How the document stands, for waits that end early (LANGUAGE.md, "Fail
  // fast"; see pageState). lastMut is when an element was last added to or
  // removed from the document (performance.now(); text and attribute
  // changes, a ticking clock, do not count): the observer starts with the
  // engine, which documents created since the tab was set up get before
  // their own scripts run. lastTarget is the element the last locate in
  // this document found, the last action's (null in a document no action
  // has touched: one the last action navigated to).
  let lastMut = performance.now();
  let lastTarget = null;
  try {
    new MutationObserver((recs) => {
      for (const r of recs) {
        for (const n of r.addedNodes) if (n.nodeType === 1) { lastMut = performance.now(); return; }
        for (const n of r.removedNodes) if (n.nodeType === 1) { lastMut = performance.now(); return; }
      }
    }).observe(document, { childList: true, subtree: true });
  } catch (e) { /* a document that cannot be observed */ }

  // Text as a person reads it (LANGUAGE.md, "Text normalisation"; what
  // Playwright's normalizeWhiteSpace does): zero-width characters (U+200B,
  // U+200C, U+200D, U+FEFF) and soft hyphens (U+00AD) are removed, no-break
  // spaces count as spaces, runs of ASCII whitespace become one space, ends
  // trimmed.
  const invisibleRe = /[\u200b\u200c\u200d\ufeff\u00ad]/g;
  // Other spaces (U+3000 ideographic space, ...) are text and kept.
  const norm = (s) => String(s == null ? '' : s).replace(invisibleRe, '').replace(/[ \t\n\r\f\v\u00a0]+/g, ' ').replace(/^ | $/g, '');
  // normValue is norm without collapsing or trimming (form values keep
  // their own spacing).
  const normValue = (s) => String(s == null ? '' : s).replace(invisibleRe, '').replace(/\u00a0/g, ' ');
  const collapse = norm;
  const collapseKeepNbsp = norm;
  // textKey is text as it is compared (text=, aria/, wait text:, option
  // labels): normalised, and without the space a library puts between two
  // Han characters (Ant Design renders the two-character label 确定 as
  // "确 定"), so "确定" and "确 定" match each other. Reads keep the text.
  const hanGap = /(\p{Script=Han}) (?=\p{Script=Han})/gu;
  const textKey = (s) => norm(s).replace(hanGap, '$1');
  // appendAll appends every item of b to a (a.push(...b) passes b as arguments: RangeError past ~100,000).
  const appendAll = (a, b) => { for (const x of b) a.push(x); };

  function describe(el) {
    if (!el || el.nodeType !== 1) return String(el);
    let s = el.localName;
    if (el.id) s += '#' + el.id;
    const cls = (typeof el.className === 'string' ? el.className : '').trim().split(/\s+/).filter(Boolean);
    for (const c of cls.slice(0, 3)) s += '.' + c;
    return s;
  }

  function shadowOf(el) {
    return el.shadowRoot || closedRoots.get(el) || null;
  }

  // visible(el): drivers/a11y, spliced in below (one rule with selectorgen).

  // hiddenWhy says why visible(el) is false, for a message: " (display:
  // none on div#x)", " (visibility: hidden)", " (it has no size)", "".
  function hiddenWhy(el) {
    if (!el.isConnected) return ' (it was removed from the page)';
    for (let n = el; n; n = composedParent(n)) {
      if (n.nodeType === 1 && getComputedStyle(n).display === 'none') return ' (display: none' + (n === el ? '' : ' on ' + describe(n)) + ')';
    }
    const st = getComputedStyle(el);
    if (st.visibility !== 'visible') return ' (visibility: ' + st.visibility + ')';
    const r = el.getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) return ' (it has no size)';
    return '';
  }

  // disabledWhy returns '' when el is enabled (drivers/a11y's disabledBy,
  // LANGUAGE.md "Enabled"), else why not, for a message.
  function disabledWhy(el) {
    const d = disabledBy(el);
    if (!d) return '';
    const on = d.by === el ? '' : ' on ' + describe(d.by);
    if (d.how === 'inert') return ' (inside the inert ' + describe(d.by) + ')';
    if (d.how === 'label') return ' (it labels the disabled ' + describe(d.by) + ')';
    if (d.how === 'drawn') return ' (it draws the disabled ' + describe(d.by) + ')';
    if (d.how === 'aria-disabled') return ' (aria-disabled="true"' + on + ')';
    return d.by === el ? '' : ' (inside the disabled ' + describe(d.by) + ')';
  }

  const nonText = new Set(['button', 'checkbox', 'radio', 'submit', 'reset', 'image', 'file', 'hidden']);
  function editable(el) {
    if (el.isContentEditable) return true;
    const t = el.localName;
    if (t === 'textarea') return !el.readOnly;
    if (t === 'select') return true;
    if (t === 'input') return !el.readOnly && !nonText.has((el.type || 'text').toLowerCase());
    return false;
  }

  function composedParent(n) {
    if (n.parentNode) return n.parentNode;
    if (n.host) return n.host;
    return null;
  }
  function containsComposed(a, b) {
    for (let n = b; n; n = composedParent(n)) if (n === a) return true;
    return false;
  }

  function hitAt(doc, x, y) {
    let h = doc.elementFromPoint(x, y);
    for (let i = 0; h && i < 32; i++) {
      const root = shadowOf(h);
      if (!root) break;
      const d = root.elementFromPoint(x, y);
      if (!d || d === h) break;
      h = d;
    }
    return h;
  }

  // ---- hit-testing ----

  // clipParents lists el's ancestors (across shadow roots) that clip their
  // content (overflow other than visible), innermost first. The document's
  // own scroller is the viewport and is left out.
  function clipParents(el) {
    const out = [];
    const doc = el.ownerDocument;
    for (let n = composedParent(el); n; n = composedParent(n)) {
      if (n.nodeType !== 1) continue;
      if (n === doc.documentElement || n === doc.body || n === doc.scrollingElement) continue;
      const st = getComputedStyle(n);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      if (st.display === 'inline' || st.display === 'contents') continue;
      out.push(n);
    }
    return out;
  }

  // inClips reports whether the point x,y (the frame's viewport) is inside
  // the viewport and inside the inner box of every clipping ancestor of el.
  function inClips(el, x, y) {
    const win = el.ownerDocument.defaultView;
    if (!(x >= 0 && y >= 0 && x < win.innerWidth && y < win.innerHeight)) return false;
    for (const n of clipParents(el)) {
      const r = n.getBoundingClientRect();
      const l = r.left + n.clientLeft, t = r.top + n.clientTop;
      const w = n.clientWidth || r.width, h = n.clientHeight || r.height;
      if (x < l || y < t || x >= l + w || y >= t + h) return false;
    }
    return true;
  }

  // pinned returns the fixed or sticky element that hit sits in, unless
  // that element also holds el (then scrolling cannot separate them).
  function pinned(hit, el) {
    for (let n = hit; n; n = composedParent(n)) {
      if (n.nodeType !== 1) continue;
      if (containsComposed(n, el)) return null;
      const p = getComputedStyle(n).position;
      if (p === 'fixed' || p === 'sticky') return n;
    }
    return null;
  }

  // hitOK reports whether a pointer event on hit reaches el: hit is el or
  // inside it, inside one of its labels (a label forwards clicks to its
  // control), inside the label el is part of, or the host of a closed
  // shadow root el lives in.
  function hitOK(el, hit, doc) {
    if (containsComposed(el, hit)) return true;
    if (el.labels && Array.from(el.labels).some((l) => containsComposed(l, hit))) return true;
    // within the <label> el is in, every click reaches the same control
    // (a transparent input laid over the label's text)
    const lab = el.closest && el.closest('label');
    if (lab && lab.control && containsComposed(lab, hit)) return true;
    if (!shadowOf(hit) && containsComposed(hit, el) && hit.shadowRoot === null && hit !== el.parentElement &&
        el.getRootNode() !== doc) return true;
    return false;
  }

  // Scroll alignments tried in turn to bring an element out from under a
  // fixed or sticky bar.
  const aligns = ['center', 'start', 'end'];

  // receives checks that el gets a pointer event at its centre, scrolling
  // as a person would first: when the centre is outside the viewport or
  // outside the view of a scroll container, el is scrolled to the middle
  // (scrollIntoView moves every scrollable ancestor); when a fixed or sticky
  // element covers the point, el is scrolled out from under it (centre,
  // then start, then end). tries (el -> scrolls so far, one map per wait)
  // bounds the scrolling. Returns {ok, x, y} (the frame's viewport), {retry}
  // after a scroll (look again after a frame: a virtualised list may have
  // re-rendered), {cover, hit} or {outside}.
  function receives(el, tries) {
    const doc = el.ownerDocument;
    tries = tries || new WeakMap();
    let n = tries.get(el) || 0;
    // scroll reports whether scrolling to block moved el (else there is
    // nothing to wait for: go on with the hit test)
    const scroll = (block) => {
      tries.set(el, ++n);
      const k = rectKey(el);
      el.scrollIntoView({ block, inline: 'center', behavior: 'instant' });
      return rectKey(el) !== k;
    };
    let r = el.getBoundingClientRect();
    let x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (!inClips(el, x, y) && n < 3) {
      if (scroll('center')) return { retry: true };
    }
    const hit = hitAt(doc, x, y);
    if (!hit) return { outside: true };
    if (hitOK(el, hit, doc)) return { ok: true, x, y };
    if (pinned(hit, el)) {
      while (n < 3) if (scroll(aligns[n % aligns.length])) return { retry: true, cover: describe(hit) };
    }
    return { cover: describe(hit), hit };
  }

  // ---- what a click should change (LANGUAGE.md, "A click has its effect") ----
  //
  // A widget that declares its state (aria-expanded="false", aria-checked,
  // aria-pressed, aria-selected="false") says what a click on it changes.
  // arm records that expectation (expectation), disarm checks it once
  // (effectDone) and effectWait waits a little for it; the driver clicks
  // again, within the action's time, when the page did not take the
  // click, then fails saying what did not happen.

  // clickRoles are the roles of widgets that take a click themselves.
  const clickRoles = new Set(['button', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'tab',
    'treeitem', 'checkbox', 'radio', 'switch']);
  // takesClick reports whether n is a widget a person clicks: a button,
  // a link, a summary, an option, or an element with one of clickRoles.
  function takesClick(n) {
    const ln = n.localName;
    if (ln === 'button' || ln === 'summary' || ln === 'option' || (ln === 'a' && n.hasAttribute('href'))) return true;
    const r = (n.getAttribute('role') || '').trim().split(/\s+/)[0].toLowerCase();
    return clickRoles.has(r);
  }
  // widgetOf returns the nearest element, el or one of its five closest
  // ancestors (across shadow roots), that takes the click; null if none.
  function widgetOf(el) {
    let n = el;
    for (let i = 0; n && i < 6; i++, n = composedParent(n)) {
      if (n.nodeType === 1 && takesClick(n)) return n;
      if (n.nodeType !== 1 && n.nodeType !== 11) break;
    }
    return null;
  }

  const popupSel = '[role=menu],[role=listbox],[role=dialog],[role=alertdialog],[role=tree],[role=grid],[role=tooltip],[aria-modal=true]';
  const popups = (doc) => Array.from(doc.querySelectorAll(popupSel)).filter(visible).length;
  const ariaTargets = (w) => ((w.getAttribute('aria-controls') || '') + ' ' + (w.getAttribute('aria-owns') || ''))
    .split(/\s+/).filter(Boolean).map((id) => w.ownerDocument.getElementById(id)).filter(Boolean);

  // expectation reads what a left click on el should change: null when
  // its widget declares nothing (or el is a native checkbox or radio,
  // which have their own rule), else {w, attr, before, verb, ...}.
  function expectation(el) {
    if (isToggle(el)) return null;
    const w = widgetOf(el) || el;
    const r = role(w);
    const a = (n) => { const v = w.getAttribute(n); return v == null ? null : v.trim().toLowerCase(); };
    let e = null;
    // an expansion is expected only of a widget that says what it expands:
    // a popup (aria-haspopup), a controlled or owned element, a tree item
    // or row holding a group (a leaf may say aria-expanded="false" too)
    const hp = a('aria-haspopup');
    const expands = (hp !== null && hp !== 'false') || ariaTargets(w).length > 0 ||
      ((r === 'treeitem' || r === 'row') && !!w.querySelector('[role=group]'));
    if (a('aria-expanded') === 'false' && expands) e = { attr: 'aria-expanded', verb: 'expand' };
    else if ((r === 'checkbox' || r === 'switch' || r === 'menuitemcheckbox') && (a('aria-checked') === 'true' || a('aria-checked') === 'false')) e = { attr: 'aria-checked', verb: 'change' };
    else if ((r === 'radio' || r === 'menuitemradio') && a('aria-checked') === 'false') e = { attr: 'aria-checked', verb: 'check' };
    else if (a('aria-pressed') === 'true' || a('aria-pressed') === 'false') e = { attr: 'aria-pressed', verb: 'change' };
    else if (a('aria-selected') === 'false' && (r === 'tab' || r === 'option' || r === 'treeitem' || r === 'gridcell' || r === 'row')) e = { attr: 'aria-selected', verb: 'select' };
    if (!e) return null;
    e.w = w;
    e.before = w.getAttribute(e.attr);
    // a combobox or text field takes a click by taking the focus (a remote
    // select opens nothing until something is typed)
    e.field = e.verb === 'expand' && (['combobox', 'textbox', 'searchbox'].includes(r) || editable(w));
    e.focused = e.field && hasFocus(w);
    e.popups = popups(w.ownerDocument);
    e.targets = ariaTargets(w).map((t) => [t, visible(t)]);
    return e;
  }

  // effectDone reports whether the page took the click: the declared
  // attribute changed, the widget went away or out of sight, a menu,
  // listbox, dialog or the widget's aria-controls / aria-owns target
  // appeared (a cascader's item opens the next column), or a combobox or
  // text field took the focus.
  function effectDone(e) {
    const w = e.w;
    if (!w.isConnected || !visible(w)) return true;
    if (w.getAttribute(e.attr) !== e.before) return true;
    if (e.field && !e.focused && hasFocus(w)) return true;
    if (e.targets.some(([t, was]) => !was && t.isConnected && visible(t))) return true;
    if (ariaTargets(w).some((t) => !e.targets.some(([x]) => x === t) && visible(t))) return true;
    return popups(w.ownerDocument) > e.popups;
  }

  // due is the expectation disarm found not met yet.
  let due = null;

  // effectWait waits up to ms for the effect disarm found due, and
  // resolves to '' when it came, else to what did not happen:
  // 'clicking menuitem "浙江省" did not expand it (aria-expanded stayed
  // "false")'.
  async function effectWait(ms) {
    const e = due;
    if (!e) return '';
    const end = Date.now() + ms;
    for (;;) {
      if (effectDone(e)) { due = null; return ''; }
      const left = end - Date.now();
      if (left <= 0) break;
      await waitChange(e.w.ownerDocument, Math.min(left, 40));
    }
    return 'clicking ' + who(e.w) + ' did not ' + e.verb + ' it (' + e.attr + ' stayed ' + JSON.stringify(e.before) + ')';
  }

  // ---- styled checkboxes, radios and switches ----

  function isToggle(el) {
    if (el.localName !== 'input') return false;
    const t = (el.type || '').toLowerCase();
    return t === 'checkbox' || t === 'radio';
  }

  // proxies lists what a person clicks to toggle a checkbox or radio whose
  // native input is hidden, 0x0, transparent or clipped: its visible
  // labels, then a visible styled sibling (the drawn box or switch).
  function proxies(el) {
    const out = [];
    if (el.labels) for (const l of el.labels) if (visible(l) && !out.includes(l)) out.push(l);
    for (const s of [el.nextElementSibling, el.previousElementSibling]) {
      if (s && !out.includes(s) && visible(s) && !s.matches('input, select, textarea, button, a[href]')) out.push(s);
    }
    return out;
  }

  // toggleTarget returns the element a pointer action on el aims at: el
  // itself, or for a checkbox/radio too small or hidden to click, its k-th
  // proxy (null when k is past the last).
  function toggleTarget(el, k) {
    if (!isToggle(el)) return k === 0 ? el : null;
    const r = el.getBoundingClientRect();
    const own = visible(el) && r.width >= 4 && r.height >= 4;
    const list = own ? [el, ...proxies(el)] : proxies(el);
    if (!list.length && k === 0) return el;
    return list[k] || null;
  }

  // ---- hit target at dispatch ----

  // armed intercepts the trusted pointer events of one click: an event
  // whose target is not the aimed element (the page moved under the
  // pointer) is stopped before the page sees it, so nothing else is
  // clicked, and recorded; disarm reports it and the driver re-aims.
  let armed = null;
  const instanceID = Math.random();
  function inst() { return instanceID; }
  const hitEvents = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'auxclick', 'contextmenu'];
  function arm(target, el, expect, soft) {
    disarmNow();
    const win = target.ownerDocument.defaultView;
    const anchors = [target, el];
    if (el.labels) anchors.push(...el.labels);
    for (const x of [target, el]) {
      for (let root = x.getRootNode(); root && root.host; root = root.host.getRootNode()) {
        if (root.mode === 'closed') anchors.push(root.host);
      }
    }
    const st = { seen: 0, bad: '', soft, down: false };
    const h = (ev) => {
      if (!ev.isTrusted) return;
      // armed by a locate (soft), nothing is held until the click's own
      // press: a click a key makes (Enter on a button) has none
      if (st.soft && !st.down && ev.type !== 'pointerdown' && ev.type !== 'mousedown') return;
      if (!st.down) {
        // the element still is what its selector found: a virtualised
        // list re-uses a row's node for another row when it re-renders
        const gone = reused(el);
        if (gone) st.bad = 'replaced\t' + gone;
      }
      st.down = true;
      st.seen++;
      const path = ev.composedPath();
      if (!st.bad && !anchors.some((a) => path.includes(a))) st.bad = describe(path[0]);
      if (st.bad) { ev.preventDefault(); ev.stopImmediatePropagation(); }
      if (ev.type === 'click') { st.clicked = true; if (st.wake) st.wake(); }
    };
    for (const t of hitEvents) win.addEventListener(t, h, true);
    st.off = () => { for (const t of hitEvents) win.removeEventListener(t, h, true); };
    st.el = el;
    st.effect = expect ? expectation(el) : null;
    armed = st;
    // never outlive the click: a keyboard or later click must not be held
    // up if the driver could not disarm (see element.go, disarmWait)
    setTimeout(() => { if (armed === st) disarmNow(); }, 1500);
  }
  function disarmNow() {
    const st = armed;
    armed = null;
    if (st) st.off();
    return st;
  }

  // aim prepares a pointer action on this element: it picks the target
  // (the element, or the k-th proxy of a hidden checkbox/radio), checks the
  // box did not move since the element was located, scrolls and hit-tests
  // like locate, and, when arming (a click), checks the element is enabled
  // and intercepts the click's events (see arm; soft when a locate aims). Returns [x, y, checked] (the frame's viewport; checked is the toggle's
  // state or null) or "reason\tmessage" (reason "retry": aim again after a
  // frame; "none": no further proxy).
  function aim(k, doArm, expect, soft) {
    const el = this;
    if (!el.isConnected) return 'not_found\telement was detached';
    const gone = reused(el);
    if (gone) return 'not_found\t' + gone;
    const t = toggleTarget(el, k);
    if (!t) return 'none\tno other control toggles ' + describe(el);
    if (!visible(t)) return 'not_visible\t' + describe(t) + ' is not visible';
    // a click on a control the page disabled since it was located is
    // ignored by the browser: wait for it to be enabled, as locate does
    if (doArm && disabledBy(el)) return 'disabled\t' + describe(el) + ' is disabled' + disabledWhy(el);
    const key = centreOf(t);
    const before = lastBox.get(t);
    lastBox.set(t, key);
    if (before !== undefined && !sameCentre(before, key)) return 'retry\t' + describe(t) + ' moved';
    const h = receives(t, aimTries);
    if (h.retry) { lastBox.delete(t); return 'retry\t' + describe(t) + ' was scrolled into view'; }
    let target = t, x = h.x, y = h.y;
    if (!h.ok) {
      const p = proxyHit(el, h.hit);
      if (!p) return h.outside ? 'not_visible\t' + describe(t) + ' is outside the viewport' : 'covered\t' + describe(t) + ' is covered by ' + h.cover;
      const r = t.getBoundingClientRect();
      target = p; x = r.left + r.width / 2; y = r.top + r.height / 2;
    }
    aimTries = new WeakMap();
    if (doArm) arm(target, el, expect, soft);
    return [x, y, isToggle(el) ? !!el.checked : null, isToggle(el) ? el.type.toLowerCase() : ''];
  }
  let aimTries = new WeakMap();

  // foundBy remembers the selector locate found each element by, and
  // reused says (a sentence, else '') when el no longer matches it: the
  // page re-used the node for other content (a virtualised list recycles
  // its row nodes on a scroll, moving them and changing their text and
  // attributes). A click must not land on such a node: it is another row.
  const foundBy = new WeakMap();
  function reused(el) {
    const f = foundBy.get(el);
    if (!f) return '';
    let els;
    try { els = query(document, f.p); } catch (e) { return ''; }
    return els.includes(el) ? '' : describe(el) + ' no longer matches ' + JSON.stringify(f.s) + ' (the page re-used it for other content)';
  }

  // disarm ends the interception of the last aim and reports [events seen,
  // the wrong target hit or "", the toggle's state or null, whether the
  // effect the clicked widget declares is still due (see effectWait)];
  // expect false leaves the effect out (a click that was not a single
  // left one, aimed by a locate that could not know).
  function disarm(expect) {
    const st = disarmNow();
    due = null;
    if (!st) return [0, '', null, false];
    if (expect !== false && st.effect && st.seen && !st.bad && !effectDone(st.effect)) due = st.effect;
    return [st.seen, st.bad, isToggle(st.el) ? !!st.el.checked : null, !!due];
  }

  // disarmOnClick is disarm once the click's 'click' event was handled (a
  // task after it, so that the page's own handlers and what they queued
  // as microtasks ran): the driver sends it beside a single left click's
  // events, and it may run before they arrive. It waits up to ms for that
  // click, else resolves to "pending" with the interception still armed
  // (the driver then disarms after the events' answer).
  function disarmOnClick(expect, ms) {
    const st = armed;
    if (!st || st.clicked) return disarm(expect);
    return new Promise((res) => {
      const t = setTimeout(() => { st.wake = null; res('pending'); }, ms);
      st.wake = () => {
        clearTimeout(t);
        st.wake = null;
        setTimeout(() => res(armed === st ? disarm(expect) : 'pending'), 0);
      };
    });
  }

  function toggleState() { return isToggle(this) ? !!this.checked : null; }

  // checkTarget is what check and uncheck act on for this element: itself
  // when it is a checkbox or radio, or declares aria-checked or a checkbox,
  // radio or switch role; else the control of the <label> it is or is in
  // (the text of an el-checkbox); else the one checkbox or radio inside
  // it (a tree item's box); else itself (LANGUAGE.md, "check").
  const checkRoles = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  function checkTarget() {
    const el = this;
    if (isToggle(el) || el.hasAttribute('aria-checked') || checkRoles.has(role(el))) return el;
    const lab = el.closest('label');
    if (lab && lab.control && isToggle(lab.control)) return lab.control;
    const inner = el.querySelectorAll('input[type=checkbox], input[type=radio]');
    if (inner.length === 1) return inner[0];
    const drawn = drawnFor(el);
    if (drawn) return drawn;
    return el;
  }

  // drawnFor returns the hidden native checkbox or radio that el (or one
  // of its two closest ancestors) is drawn for or labels: the control
  // right before it (layui draws div.layui-form-checkbox after the input
  // it hides), or the one before the drawn control right before it (the
  // text of a layui tree node follows its drawn box).
  function drawnFor(el) {
    const hidden = (x) => x && isToggle(x) && !visible(x);
    let n = el;
    for (let i = 0; n && i < 3; i++, n = n.parentElement) {
      const p = n.previousElementSibling;
      if (hidden(p)) return p;
      if (p && !isToggle(p) && visible(p) && hidden(p.previousElementSibling)) return p.previousElementSibling;
    }
    return null;
  }

  // contentOrigin is where the content box of this iframe lies in its
  // document's viewport: [x, y].
  function contentOrigin() {
    const el = this;
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    return [r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0), r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0)];
  }

  // ---- accessible names (drivers/a11y: role, accName, textOf) ----
  /*rpa:a11y*/

  // ---- selectors ----
  function parse(sel) {
    const p = parseRaw(sel);
    if (!p.q) throw new Error('empty selector ' + JSON.stringify(String(sel)));
    return p;
  }
  function parseRaw(sel) {
    const s = String(sel).trim();
    let m;
    if (s.startsWith('xpath=')) return { kind: 'xpath', q: s.slice(6) };
    if (s.startsWith('xpath/')) return { kind: 'xpath', q: s.slice(6) };
    if (s.startsWith('//') || s.startsWith('(//')) return { kind: 'xpath', q: s };
    if (s.startsWith('css=')) return { kind: 'css', q: s.slice(4) };
    if (s.startsWith('text=') || s.startsWith('text/')) {
      const q = s.slice(5);
      if ((m = /^"((?:[^"\\]|\\.)*)"$/.exec(q)) || (m = /^'((?:[^'\\]|\\.)*)'$/.exec(q))) {
        return { kind: 'text', exact: true, q: textKey(m[1].replace(/\\(.)/g, '$1')) };
      }
      return { kind: 'text', exact: false, q: textKey(q).toLowerCase() };
    }
    if (s.startsWith('aria/')) {
      let q = s.slice(5), r = '';
      if ((m = /^(.*)\[role=["']?([^"'\]]+)["']?\]$/.exec(q))) { q = m[1]; r = m[2].trim().toLowerCase(); }
      return { kind: 'aria', q: textKey(q), role: r };
    }
    if (s.startsWith('pierce/')) return { kind: 'pierce', q: s.slice(7) };
    return { kind: 'css', q: s };
  }

  function docOf(root) { return root.nodeType === 9 ? root : root.ownerDocument; }

  function queryXPath(root, q) {
    const doc = docOf(root);
    const res = doc.evaluate(q, root.nodeType === 9 ? doc : root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < res.snapshotLength; i++) {
      const n = res.snapshotItem(i);
      if (n.nodeType === 1) out.push(n);
      else if (n.parentElement) out.push(n.parentElement);
    }
    return out;
  }

  const skipText = new Set(['script', 'style', 'template', 'noscript', 'head', 'title', 'meta', 'link']);
  // queryText finds the elements whose rendered text holds p.q (exact:
  // equals it), compared by textKey: the innermost such elements, each
  // then replaced by the widget that takes its click (widgetOf: a button,
  // link, menu item, option, tab, ...) when the widget's text is that same
  // text (its label, not a larger part of it); those whose whole text is
  // p.q first, then those that only contain it, each in document order.
  function queryText(root, p) {
    const doc = docOf(root);
    const start = root.nodeType === 9 ? (doc.body || doc.documentElement) : root;
    const found = [];
    const key = (el) => textKey(textOf(el));
    const test = (el) => {
      const t = key(el);
      return p.exact ? t.includes(p.q) : t.toLowerCase().includes(p.q);
    };
    // The innermost element holding the text is found by content, and
    // taken only when it is visible: a menu still scaled to nothing holds
    // its items' text, and its ancestors (up to the body) must not stand
    // in for them.
    const visit = (el) => {
      if (skipText.has(el.localName)) return false;
      if (!test(el)) return false;
      let any = false;
      for (const c of el.children) if (visit(c)) any = true;
      if (!any && visible(el)) found.push(el);
      return true;
    };
    // exact match: innermost element whose whole text equals q.
    const visitExact = (el) => {
      if (skipText.has(el.localName)) return false;
      const t = key(el);
      if (!t.includes(p.q)) return false;
      let any = false;
      for (const c of el.children) if (visitExact(c)) any = true;
      if (!any && t === p.q) { if (visible(el)) found.push(el); return true; }
      return any;
    };
    if (p.exact) visitExact(start); else visit(start);
    // buttons drawn by <input type=submit|button|reset> show their value,
    // which no element's text holds (Playwright matches them so too)
    let buttons = 0;
    for (const b of start.querySelectorAll('input[type=submit i], input[type=button i], input[type=reset i]')) {
      const v = textKey(b.value);
      if ((p.exact ? v === p.q : v.toLowerCase().includes(p.q)) && visible(b)) { found.push(b); buttons++; }
    }
    if (buttons && found.length > buttons) {
      found.sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    }
    const out = [];
    for (const el of found) {
      const w = widgetOf(el);
      const t = w && w !== el && (root.nodeType === 9 || root.contains(w)) && key(w) === key(el) ? w : el;
      if (!out.includes(t)) out.push(t);
    }
    if (p.exact) return out;
    // what reads exactly the query comes before what only contains it:
    // text=查询 is the 查 询 button, not the heading 电费查询 above it
    const whole = (el) => (el.localName === 'input' ? textKey(el.value) : key(el)).toLowerCase() === p.q;
    return out.filter(whole).concat(out.filter((el) => !whole(el)));
  }

  function queryAria(root, p) {
    const out = [];
    const all = root.querySelectorAll('*');
    for (const el of all) {
      if (p.role && role(el) !== p.role) continue;
      if (!p.role) {
        // Only elements that can carry a name are candidates.
        const r = role(el);
        if (!r && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby') && !el.hasAttribute('title')) continue;
      }
      if (el.closest('[aria-hidden="true"]')) continue;
      if (textKey(accName(el)) === p.q) out.push(el);
    }
    return out;
  }

  function queryPierce(root, q) {
    const out = [];
    const walkRoot = (r) => {
      const it = docOf(r).createTreeWalker(r, NodeFilter.SHOW_ELEMENT);
      let n = it.nextNode();
      while (n) {
        try { if (n.matches(q)) out.push(n); } catch (e) { throw new Error('bad selector ' + JSON.stringify(q) + ': ' + e.message); }
        const sr = shadowOf(n);
        if (sr) walkRoot(sr);
        n = it.nextNode();
      }
    };
    walkRoot(root);
    return out;
  }

  function query(root, sel) {
    const p = typeof sel === 'string' ? parse(sel) : sel;
    switch (p.kind) {
      case 'bad': throw p.err;
      case 'xpath': return queryXPath(root, p.q);
      case 'text': return queryText(root, p);
      case 'aria': return queryAria(root, p);
      case 'pierce': return queryPierce(root, p.q);
      default:
        try { return Array.from(root.querySelectorAll(p.q)); } catch (e) { throw new Error('bad CSS selector ' + JSON.stringify(p.q)); }
    }
  }

  // ---- checks ----
  // aim, prepFill, fp and table are not checks: locate also aims a click
  // at what it found, prepares a fill, takes the element's fingerprint or
  // reads the table (see locate)
  const C = { attached: 1, visible: 2, stable: 4, enabled: 8, editable: 16, receives: 32, aim: 64, prepFill: 128, fp: 256, table: 512 };

  // fingerprintOf is the healing helper's fingerprint of el (heal.js, op
  // fp) as JSON, or '' when the document has no helper (the driver then
  // asks the helper itself) or it failed.
  function fingerprintOf(el) {
    const heal = globalThis[Symbol.for('rpa.heal/1')];
    if (typeof heal !== 'function') return '';
    try { return JSON.stringify(heal.call(el, 'fp')); } catch (e) { return ''; }
  }

  // Synchronous checks except stable and receives.
  // t is the element pointer checks apply to (el, or the label or drawn
  // control of a hidden checkbox/radio).
  function syncCheck(el, want, t) {
    t = t || el;
    if (!el.isConnected) return ['not_found', 'element was detached'];
    if (want & (C.visible | C.receives | C.stable)) {
      if (!visible(t)) return ['not_visible', describe(el) + ' is not visible' + hiddenWhy(t)];
    }
    if (want & C.enabled) {
      if (disabledBy(el)) return ['disabled', describe(el) + ' is disabled' + disabledWhy(el)];
    }
    if (want & C.editable) {
      if (!editable(el)) {
        if (el.readOnly) return ['disabled', describe(el) + ' is read-only'];
        // not a kind of element that takes text: no wait will change that
        // (locate gives up early when every match is like this, see attempt)
        return ['disabled', describe(el) + ' is not editable (it takes an input, textarea, select or contenteditable element)', true];
      }
    }
    return null;
  }

  // frame resolves at the next animation frame, or after ms when frames do
  // not come (a background tab).
  const frame = (ms = 50) => new Promise((res) => {
    let done = false;
    const fin = () => { if (!done) { done = true; res(); } };
    requestAnimationFrame(fin);
    setTimeout(fin, ms);
  });

  function rectKey(el) {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10).join(',');
  }

  // The stability rule (LANGUAGE.md, "Checks before acting"): an element
  // is stable when its box is exactly the same on two consecutive
  // animation frames, or when only its size changed around a centre that
  // did not move (to a thousandth of a pixel): an endless pulse, a spin.
  // A slide, a zoom from an edge, a layout shift move the centre and are
  // waited out; no rounding lets the last frames of an easing pass. While
  // an animation runs on the element or an ancestor, a third frame must
  // agree too: a back-and-forth motion shows the same box on the two
  // frames around its turn (see stableNow).
  function steady(a, b) {
    if (a.left === b.left && a.top === b.top && a.width === b.width && a.height === b.height) return true;
    return b.width > 0 && b.height > 0 && Math.abs(centreX(a) - centreX(b)) < 1e-3 && Math.abs(centreY(a) - centreY(b)) < 1e-3;
  }
  const centreX = (r) => r.left + r.width / 2;
  const centreY = (r) => r.top + r.height / 2;
  // centreOf is where a click on el aims: its box's centre, [x, y].
  function centreOf(el) {
    const r = el.getBoundingClientRect();
    return [centreX(r), centreY(r)];
  }
  // animated reports whether a CSS animation or transition (or a Web
  // Animation) runs on el or one of its ancestors.
  function animated(el) {
    const doc = el.ownerDocument;
    if (typeof doc.getAnimations !== 'function') return false;
    for (const a of doc.getAnimations()) {
      const t = a.playState === 'running' && a.effect && a.effect.target;
      if (t && t.nodeType === 1 && containsComposed(t, el)) return true;
    }
    return false;
  }

  // settling returns the element whose finite animation of its place,
  // size or visibility (a menu zooming or fading in, a tree's children
  // sliding open, a drawer sliding in) still runs on el or an ancestor,
  // or null. An element is not stable until it ends: libraries ignore
  // clicks during such an opening, or click a stand-in they replace at
  // its end. Endless animations (a pulse, a spinner) do not count.
  const settleProps = /^(transform|translate|scale|rotate|top|left|right|bottom|inset|width|height|max-height|max-width|margin|padding|opacity|visibility|clip-path|all)/;
  function settling(el) {
    const doc = el.ownerDocument;
    if (typeof doc.getAnimations !== 'function') return null;
    for (const a of doc.getAnimations()) {
      if (a.playState !== 'running' || !a.effect) continue;
      const t = a.effect.target;
      if (!t || t.nodeType !== 1 || !containsComposed(t, el)) continue;
      const timing = a.effect.getComputedTiming ? a.effect.getComputedTiming() : {};
      if (timing.iterations === Infinity || timing.endTime === Infinity) continue;
      let props = [];
      if (a.transitionProperty) props = [a.transitionProperty];
      else if (a.effect.getKeyframes) for (const k of a.effect.getKeyframes()) props.push(...Object.keys(k));
      if (props.some((x) => settleProps.test(x.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())))) return t;
    }
    return null;
  }
  // stableNow applies the rule to el from its box b1 now: false when it
  // moved on the next frame (or on the one after, while animated).
  async function stableNow(el) {
    const b1 = el.getBoundingClientRect();
    await frame();
    if (!el.isConnected) return true; // the caller sees it is gone
    const b2 = el.getBoundingClientRect();
    if (!steady(b1, b2)) return false;
    if (!animated(el)) return true;
    await frame();
    return !el.isConnected || steady(b2, el.getBoundingClientRect());
  }
  const sameCentre = (a, b) => Math.abs(a[0] - b[0]) < 1e-3 && Math.abs(a[1] - b[1]) < 1e-3;
  // lastBox remembers where each element's centre was when locate found it
  // stable, so a click can tell that it moved since (aim).
  const lastBox = new WeakMap();

  // proxyHit returns the proxy of toggle el that holds hit (the drawn box
  // of a styled checkbox lying over its native input), or null.
  function proxyHit(el, hit) {
    if (!hit || !isToggle(el)) return null;
    return proxies(el).find((p) => containsComposed(p, hit)) || null;
  }

  // One attempt: returns {el, index}, {retry} (something was scrolled:
  // look again after a frame) or {reason, msg}.
  async function attempt(root, parsed, sels, want, tries) {
    let firstReason = null;
    let bad = null, nbad = 0;
    // final: every selector matched, and every match is of a kind no wait
    // can fix (syncCheck's third field)
    let final = true;
    const pointer = want & (C.visible | C.receives | C.stable);
    for (let i = 0; i < parsed.length; i++) {
      let els;
      try {
        els = query(root, parsed[i]);
      } catch (e) {
        // a bad selector in a fallback list is skipped; all bad is an error
        if (!bad) bad = e;
        if (++nbad === parsed.length) throw bad;
        continue;
      }
      if (!els.length) { final = false; continue; }
      let n = 0;
      for (const el of els) {
        if (++n > 50) break;
        // a hidden native checkbox/radio is checked through what a person
        // clicks instead (its label or drawn control)
        const t = pointer ? (toggleTarget(el, 0) || el) : el;
        const r = syncCheck(el, want, t);
        if (r) { if (!firstReason) firstReason = r; if (!r[2]) final = false; continue; }
        final = false;
        if (want & C.stable) {
          const moving = settling(t);
          if (moving) { if (!firstReason) firstReason = ['not_visible', describe(t) + ' is still moving (an animation of ' + describe(moving) + ' runs)']; continue; }
          const still = await stableNow(t);
          if (!el.isConnected || !t.isConnected) { if (!firstReason) firstReason = ['not_found', 'element was detached']; continue; }
          if (!still) { if (!firstReason) firstReason = ['not_visible', describe(t) + ' is still moving']; continue; }
          lastBox.set(t, centreOf(t));
        }
        if (want & C.receives) {
          const h = receives(t, tries);
          if (h.retry) {
            return h.cover ? { retry: true, reason: 'covered', msg: describe(t) + ' is covered by ' + h.cover } :
              { retry: true, reason: 'not_visible', msg: describe(t) + ' is out of view (scrolling it into view)' };
          }
          if (!h.ok && !proxyHit(el, h.hit)) {
            if (!firstReason) {
              firstReason = h.outside ? ['not_visible', describe(t) + ' is outside the viewport and cannot be scrolled into it'] :
                ['covered', describe(t) + ' is covered by ' + h.cover];
            }
            continue;
          }
        }
        return { el, index: i };
      }
    }
    if (firstReason) return { reason: firstReason[0], msg: firstReason[1], final: final && nbad === 0 };
    const names = sels.map((s) => JSON.stringify(s)).join(', ');
    return { reason: 'not_found', msg: 'no element matches ' + names };
  }

  function waitChange(doc, ms) {
    return new Promise((res) => {
      let done = false;
      const mo = new MutationObserver(() => fin());
      const t = setTimeout(() => fin(), ms);
      function fin() { if (done) return; done = true; mo.disconnect(); clearTimeout(t); res(); }
      mo.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    });
  }

  // settledAim aims the click a locate found el for (drivers.Aim). The
  // click's events follow its answer at once, without the round trip a
  // separate aim gave the page, so it first lets the page's due tasks run
  // (a timer of 0 ms: a tree that takes no click until the timeout its
  // re-render set, ant-design-vue's listChanging), then requires that el
  // is still where the stability check saw it (aim's comparison with
  // lastBox), that no animation of its place settles on it any more, and
  // that it is still visible and enabled (want's) and receives the hit at
  // the aim point (aim's hit test). Returns aim's answer: [x, y, ...], or
  // "reason\tmessage" (look again).
  async function settledAim(el, want) {
    await new Promise((res) => setTimeout(res, 0));
    const t = toggleTarget(el, 0) || el;
    if (!el.isConnected || !t.isConnected) return 'not_found\telement was detached';
    const moving = settling(t);
    if (moving) return 'retry\t' + describe(t) + ' is still moving (an animation of ' + describe(moving) + ' runs)';
    const r = syncCheck(el, want & (C.visible | C.enabled), t);
    if (r) return r[0] + '\t' + r[1];
    return aim.call(el, 0, true, true, true);
  }

  // parseList parses a fallback list; bad entries are kept as throwing
  // stubs (see attempt), unless all are bad.
  function parseList(sels) {
    let first = null;
    const out = sels.map((s) => {
      try { return parse(s); } catch (e) { if (!first) first = e; return { kind: 'bad', err: e }; }
    });
    if (out.every((p) => p.kind === 'bad')) throw first;
    return out;
  }

  // locate waits up to sliceMs for a match that passes want. It resolves to
  // the element (one selector), [index, element] (several), [index,
  // element, the aim's answer...] (want has aim: see settledAim), [index,
  // element, prepFill's answer] (want has prepFill), or a string
  // "reason\tmessage", or "reason\tmessage\tfinal" when no wait can help
  // (see attempt). With table in want: [index, element, the table as
  // JSON] (read once the page's due tasks ran; '' when it cannot be read:
  // the driver's own call then says why). With fp in want the array is
  // always returned, the element's fingerprint (fingerprintOf, taken
  // before a fill's preparation) after the element: [index, element, fp,
  // answer...].
  async function locate(sels, want, sliceMs, ...roots) {
    learnRoots(roots);
    const fpOf = (el) => (want & C.fp ? [fingerprintOf(el)] : []);
    const root = document;
    const parsed = parseList(sels);
    const end = Date.now() + sliceMs;
    const tries = new WeakMap();
    let last = null;
    for (;;) {
      const r = await attempt(root, parsed, sels, want, tries);
      if (r.el) {
        lastTarget = new WeakRef(r.el);
        foundBy.set(r.el, { p: parsed[r.index], s: sels[r.index] });
        if (want & C.aim) {
          // a click follows: aim at it in this same evaluation (see
          // settledAim), arming the interception softly (it engages at
          // the click's own press)
          const a = await settledAim(r.el, want);
          if (Array.isArray(a)) return [r.index, r.el, ...fpOf(r.el), ...a];
          const [reason, msg] = a.split('\t');
          last = { reason: reason === 'retry' ? 'not_visible' : reason, msg };
          const left = end - Date.now();
          if (left <= 0) return last.reason + '\t' + last.msg;
          await frame(Math.min(left, 100));
          continue;
        }
        if (want & C.prepFill) { // a fill follows
          const fp = fpOf(r.el);
          return [r.index, r.el, ...fp, await prepFill.call(r.el)];
        }
        if (want & C.table) { // the table is read next
          // as a call a round trip later would: after the page's due
          // tasks (a render that fills the rows it just inserted)
          await new Promise((res) => setTimeout(res, 0));
          if (!r.el.isConnected) { // re-rendered: look again
            if (Date.now() >= end) return 'not_found\telement was detached';
            continue;
          }
          let t = '';
          try { t = JSON.stringify(table.call(r.el)); } catch (e) { /* the driver's call says why */ }
          return [r.index, r.el, ...fpOf(r.el), t];
        }
        if (want & C.fp) return [r.index, r.el, ...fpOf(r.el)];
        return sels.length === 1 ? r.el : [r.index, r.el];
      }
      if (!r.retry || !last) last = r;
      const left = end - Date.now();
      if (left <= 0) return last ? last.reason + '\t' + last.msg + (last.final ? '\tfinal' : '') : 'not_visible\tstill scrolling into view';
      if (r.retry) { await frame(Math.min(left, 100)); continue; }
      // Re-check on any DOM change, and at least every 40 ms (CSS-only changes).
      await waitChange(root, Math.min(left, 40));
    }
  }

  function learnRoots(roots) {
    if (!roots) return;
    for (const r of roots) if (r && r.host) closedRoots.set(r.host, r);
  }

  function all(sel, ...roots) {
    learnRoots(roots);
    return query(document, sel);
  }

  function count(sel, ...roots) {
    learnRoots(roots);
    return query(document, sel).length;
  }

  // waitState waits up to sliceMs for the first match of sels to reach st;
  // resolves to the index, or -1.
  async function waitState(sels, st, sliceMs, ...roots) {
    learnRoots(roots);
    const parsed = parseList(sels);
    const q = (p) => { try { return query(document, p); } catch (e) { if (parsed.length === 1) throw e; return []; } };
    const end = Date.now() + sliceMs;
    for (;;) {
      let idx = -1;
      if (st === 'detached' || st === 'hidden') {
        // all selectors: satisfied when the earliest-listed one with a match
        // satisfies it, or when nothing matches at all.
        let any = false;
        for (let i = 0; i < parsed.length && idx < 0; i++) {
          const els = q(parsed[i]);
          if (!els.length) continue;
          any = true;
          if (st === 'hidden' && !visible(els[0])) idx = i;
          break;
        }
        if (!any) idx = 0;
      } else {
        for (let i = 0; i < parsed.length && idx < 0; i++) {
          const els = q(parsed[i]);
          if (!els.length) continue;
          if (st === 'attached') idx = i;
          else if (els.some(visible)) idx = i;
        }
      }
      if (idx >= 0) return idx;
      const left = end - Date.now();
      if (left <= 0) return -1;
      await waitChange(document, Math.min(left, 40));
    }
  }

  // explainState says what the first matches of sels show, for a wait
  // for state st that ran out: 'no element matches "#x"', '"#x" matches
  // div#x, which is not visible (display: none)', '"#x" matches div#x,
  // which is still visible'.
  function explainState(sels, st, ...roots) {
    learnRoots(roots);
    const parsed = parseList(sels);
    for (let i = 0; i < parsed.length; i++) {
      let els;
      try { els = query(document, parsed[i]); } catch (e) { continue; }
      if (!els.length) continue;
      const el = els[0];
      const what = JSON.stringify(sels[i]) + ' matches ' + (els.length > 1 ? els.length + ' elements, the first ' : '') + describe(el);
      if (st === 'visible') return what + ', which is not visible' + hiddenWhy(el);
      if (st === 'hidden') return what + ', which is still visible';
      return what;
    }
    return 'no element matches ' + sels.map((x) => JSON.stringify(x)).join(', ');
  }

  async function waitText(s, sliceMs) {
    const end = Date.now() + sliceMs;
    const q = textKey(s);
    for (;;) {
      const b = document.body || document.documentElement;
      if (b && textKey(b.innerText).includes(q)) return true;
      const left = end - Date.now();
      if (left <= 0) return false;
      await waitChange(document, Math.min(left, 40));
    }
  }

  // ---- element operations (this = element) ----
  function text() { return collapseKeepNbsp(this.innerText !== undefined ? this.innerText : this.textContent); }

  function value() {
    const el = this;
    if (el.localName === 'select') {
      if (el.multiple) return Array.from(el.selectedOptions).map((o) => o.value).join(',');
      return el.value;
    }
    if ('value' in el && (el.localName === 'input' || el.localName === 'textarea' || el.localName === 'button' ||
        el.localName === 'option' || el.localName === 'output' || el.localName === 'progress' || el.localName === 'meter')) {
      return String(el.value);
    }
    if (el.isContentEditable) return collapseKeepNbsp(el.innerText);
    return collapseKeepNbsp(el.textContent);
  }

  function maskedHTML(el) {
    const clone = el.cloneNode(true);
    const list = [];
    if (clone.matches && clone.matches('input[type=password]')) list.push(clone);
    if (clone.querySelectorAll) appendAll(list, clone.querySelectorAll('input[type=password]'));
    for (const i of list) if (i.hasAttribute('value')) i.setAttribute('value', '***');
    if (clone.nodeType === 9) return clone.documentElement.outerHTML;
    return clone.outerHTML;
  }
  function html() { return maskedHTML(this); }
  function docHTML() {
    const dt = document.doctype ? '<!DOCTYPE ' + document.doctype.name + '>' : '';
    return dt + maskedHTML(document.documentElement);
  }

  function attr(name) { return this.hasAttribute(name) ? this.getAttribute(name) : null; }

  function isPassword() { return this.localName === 'input' && (this.type || '').toLowerCase() === 'password'; }

  // checked is the state of this element's checkTarget: a native
  // input's, else its aria-checked, else that of the checkbox or radio
  // inside it (a switch that drops aria-checked when off).
  function checked() {
    const el = checkTarget.call(this);
    if ('checked' in el && el.localName === 'input') return !!el.checked;
    const ac = el.getAttribute('aria-checked');
    if (ac !== null) return ac === 'true';
    const inner = el.querySelector && el.querySelector('input[type=checkbox], input[type=radio]');
    if (inner) return !!inner.checked;
    if (checkRoles.has(role(el))) return false;
    throw new Error(describe(this) + ' is not a checkbox or radio');
  }

  // ---- values: fill, type and select, verified ----
  //
  // A value must land in the element the flow named, and nowhere else
  // (LANGUAGE.md, "fill"). Three parts, each in one place:
  //   - holdFocus focuses the target and lets the page react (a focus
  //     trap that moves focus on the next microtask or task) before any
  //     text is sent, focusing again while the page keeps moving it;
  //   - the text guard (guardText/unguardText) stops, before the page
  //     sees it, every trusted key or text insertion whose target is not
  //     the element (focus moved between the driver's calls), and counts
  //     what it stopped, so nothing is typed into another field;
  //   - sameValue says whether what the element holds afterwards is the
  //     value, as a person reads it.

  // who names an element for a person: its role and accessible name
  // (`textbox "姓名"`), else describe.
  function who(el) {
    if (!el || el.nodeType !== 1) return 'the page';
    let r = '', n = '';
    try { r = role(el); n = accName(el); } catch (e) { /* detached */ }
    if (r && n) return r + ' ' + JSON.stringify(n.length > 40 ? n.slice(0, 39) + '…' : n);
    return describe(el);
  }

  // tick resolves once the microtasks the page queued before it (and
  // those they queue, a few deep) have run: the reactions to a focus or an
  // input that frameworks defer to a microtask (Vue's nextTick, a focus
  // trap's Promise, a controlled input's re-render). It does not wait for
  // a task: that would cost a frame's rendering on a busy page on every
  // fill (BenchmarkFill). Reactions deferred to a timer or a frame are
  // met by the text guard (text bound elsewhere is held back) and by the
  // retries.
  const tick = async () => { for (let i = 0; i < 4; i++) await null; };

  // deepActive is the focused element, through shadow roots.
  function deepActive(doc) {
    let a = doc.activeElement;
    for (let i = 0; a && i < 32; i++) {
      const r = shadowOf(a);
      if (!r || !r.activeElement) break;
      a = r.activeElement;
    }
    return a;
  }

  // owns reports whether the node t (an event's target) is el or part of
  // el's editable content; or, seen from outside a closed shadow root that
  // el lives in (events are retargeted to its host), the host while el
  // has the focus.
  function owns(el, t) {
    if (!t || t.nodeType !== 1) return false;
    if (t === el || (el.isContentEditable && containsComposed(el, t))) return true;
    return el.getRootNode() !== el.ownerDocument && !!shadowOf(t) && containsComposed(t, el) && hasFocus(el);
  }

  // hasFocus reports whether el is focused (for a contenteditable: its
  // editing host is).
  function hasFocus(el) {
    const a = el.getRootNode().activeElement;
    if (a === el) return true;
    return !!(a && el.isContentEditable && a.isContentEditable && (containsComposed(a, el) || containsComposed(el, a)));
  }

  // holdFocus focuses el until it keeps the focus over a tick (at most
  // three times); returns '' or what took the focus.
  async function holdFocus(el, caretEnd) {
    let thief = '';
    for (let i = 0; i < 3; i++) {
      if (!hasFocus(el)) {
        el.focus({ preventScroll: false });
        if (caretEnd) caretToEnd(el);
        // A focus trap that reacts to this focus in a task of its own
        // (setTimeout 0, as dialogs' traps do) runs before this timer: it
        // must move the focus now, not while the first key is handled,
        // where the guard would take its move for the page's own reaction.
        await new Promise((r) => setTimeout(r, 0));
      }
      await tick();
      if (hasFocus(el)) return '';
      thief = who(deepActive(el.ownerDocument));
    }
    return thief;
  }

  function caretToEnd(el) {
    if (typeof el.setSelectionRange === 'function' && typeof el.value === 'string') {
      try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* email, number: no selection API */ }
    } else if (el.isContentEditable) {
      const sel = el.ownerDocument.getSelection();
      const r = el.ownerDocument.createRange();
      r.selectNodeContents(el);
      r.collapse(false);
      sel.removeAllRanges();
      sel.addRange(r);
    }
  }

  // The text guard. While armed for el, every trusted keydown, keypress,
  // keyup and beforeinput in el's window whose target el does not own is
  // stopped (default prevented, propagation stopped in the capture phase,
  // so the page never sees it). A unit is what one character sends: a
  // keydown (a key the US layout has) or a beforeinput without one
  // (Input.insertText). Once a unit is stopped, every later one is too,
  // so the driver can send the rest again, in order, after refocusing:
  // blocked is the index of the first stopped unit (-1: none).
  // Focus the page itself moves while handling one of the guard's own
  // units (a one-time-code box that moves to the next box) is followed:
  // that element is allowed from then on (follow, for type).
  let guard = null;
  const guardEvents = ['keydown', 'keypress', 'keyup', 'beforeinput', 'focusin'];
  function guardText(el, follow) {
    unguardText();
    const win = el.ownerDocument.defaultView;
    const st = { el, allowed: [el], units: 0, blocked: -1, bad: '', inUnit: false, own: false };
    const allowedFor = (t) => st.allowed.some((a) => owns(a, t));
    const h = (ev) => {
      if (ev.type === 'focusin') {
        const t = ev.composedPath()[0];
        if (follow && st.own && st.blocked < 0 && t && t.nodeType === 1 && !st.allowed.includes(t)) st.allowed.push(t);
        return;
      }
      if (!ev.isTrusted) return;
      const t = ev.composedPath()[0];
      if (ev.type === 'keydown') { st.units++; st.inUnit = true; } else if (ev.type === 'beforeinput' && !st.inUnit) st.units++;
      if (ev.type === 'keyup') st.inUnit = false;
      if (st.blocked < 0 && allowedFor(t)) {
        // the page's reaction to this unit may move the focus on
        st.own = true;
        const c = new MessageChannel();
        c.port1.onmessage = () => { c.port1.close(); st.own = false; };
        c.port2.postMessage(0);
        return;
      }
      // a keyup carries no text: the unit's text already landed (the
      // page moved the focus between its keydown and its keyup)
      if (st.blocked < 0 && ev.type !== 'keyup') { st.blocked = Math.max(0, st.units - 1); st.bad = who(t && t.nodeType === 1 ? t : deepActive(el.ownerDocument)); }
      ev.preventDefault();
      ev.stopImmediatePropagation();
    };
    for (const t of guardEvents) win.addEventListener(t, h, true);
    st.off = () => { for (const t of guardEvents) win.removeEventListener(t, h, true); };
    guard = st;
    // never outlive the action (see arm): a later keyboard action must not
    // be held up if the driver could not disarm
    setTimeout(() => { if (guard === st) unguardText(); }, 5000);
    return st;
  }
  function unguardText() {
    const st = guard;
    guard = null;
    if (st) st.off();
    return st;
  }

  // Significant characters: letters and digits, lower-cased (what is left
  // of a value once a mask's spaces, dashes and brackets are gone).
  const significant = (s) => normValue(s).replace(/[^\p{L}\p{N}\p{M}]+/gu, '').toLowerCase();
  // A number as a person writes it, grouping and currency aside.
  const asNumber = (s) => {
    const t = normValue(s).replace(/[\s,_'¥$€£￥]/g, '');
    return t !== '' && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t) ? Number(t) : NaN;
  };
  // sameValue reports whether got (what the element holds) is want as a
  // person reads it: equal; or equal in its letters and digits, ignoring
  // case (a mask's formatting, an upper-casing field); or the same number
  // (a field that formats 12800 as 12,800.00).
  function sameValue(got, want) {
    if (normValue(got) === normValue(want)) return true;
    const g = significant(got), w = significant(want);
    if (w !== '' && g === w) return true;
    const gn = asNumber(got), wn = asNumber(want);
    return !Number.isNaN(gn) && gn === wn;
  }
  // holdsText reports whether got contains typed as sameValue reads it.
  function holdsText(got, typed) {
    if (normValue(got).includes(normValue(typed))) return true;
    const w = significant(typed);
    return w === '' || significant(got).includes(w);
  }

  // current is what el holds: a control's value, a contenteditable's text.
  function current(el) {
    if (el.isContentEditable && el.localName !== 'input' && el.localName !== 'textarea') return collapseKeepNbsp(el.innerText);
    return el.value;
  }

  const setterInputTypes = new Set(['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']);

  // prepFill checks that this element takes text, holds the focus on it
  // (holdFocus), selects its whole content and arms the text guard.
  // Resolves to "text" (insert the text now), "setter" (a date, color or
  // range input: set through the native setter, setValue) or
  // "stolen\tWHO" (the page kept moving the focus to WHO).
  async function prepFill() {
    const el = this;
    const t = el.localName;
    if (t === 'select') throw new Error(describe(el) + ' is a select: use select');
    if (t === 'input') {
      const ty = (el.type || 'text').toLowerCase();
      if (nonText.has(ty) && !setterInputTypes.has(ty)) throw new Error(describe(el) + ' is an input of type ' + ty + ' and cannot be filled');
      if (setterInputTypes.has(ty)) return 'setter';
    }
    if (t !== 'input' && t !== 'textarea' && !el.isContentEditable) throw new Error(describe(el) + ' is not an input, textarea or contenteditable');
    const thief = await holdFocus(el, false);
    if (thief) return 'stolen\t' + thief;
    if (t === 'input' || t === 'textarea') {
      try { el.select(); } catch (e) { /* some types refuse select() */ }
      try { el.setSelectionRange(0, el.value.length); } catch (e) { /* email/number */ }
    } else {
      const sel = el.ownerDocument.getSelection();
      const r = el.ownerDocument.createRange();
      r.selectNodeContents(el);
      sel.removeAllRanges();
      sel.addRange(r);
    }
    guardText(el, false);
    return 'text';
  }

  function nativeSet(el, v) {
    const proto = el.localName === 'textarea' ? HTMLTextAreaElement.prototype :
      el.localName === 'select' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const d = Object.getOwnPropertyDescriptor(proto, 'value');
    d.set.call(el, v);
  }

  function setValue(v) {
    const el = this;
    nativeSet(el, v);
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  // afterFill ends a fill: it disarms the text guard, fires change like a
  // finished edit (when the text reached the element and changed is not
  // set: setValue fired it already), lets the page
  // react (tick) and reports [holds want, what it holds (null for a
  // password field), who the guard stopped text for ('' none), who has
  // the focus now when it is not this element ('')].
  async function afterFill(want, changed) {
    const el = this;
    const st = unguardText();
    const bad = st && st.blocked >= 0 ? st.bad : '';
    if (!bad && !changed) el.dispatchEvent(new Event('change', { bubbles: true }));
    await tick();
    const got = current(el);
    const a = deepActive(el.ownerDocument);
    const away = a && a !== el.ownerDocument.body && !hasFocus(el) ? who(a) : '';
    return [!bad && sameValue(got, want), isPassword.call(el) ? null : got, bad, away];
  }

  function clearValue() { return current(this); }

  function focus() {
    if (this.getRootNode().activeElement !== this) this.focus();
    return true;
  }

  function isFocused() { return this.getRootNode().activeElement === this; }

  // prepType readies a `type`: it holds the focus on this element as a
  // person clicking into it would (an element that was not focused gets
  // the caret at the end of its value or text; a focused one keeps its
  // caret and selection, so a select all before typing still replaces)
  // and arms the text guard, following focus the page moves itself in
  // reaction to the keys. Resolves to "" or "stolen\tWHO".
  async function prepType() {
    const el = this;
    const thief = await holdFocus(el, true);
    if (thief) return 'stolen\t' + thief;
    guardText(el, true);
    return '';
  }

  // afterType ends a `type` of typed: it disarms the text guard, lets the
  // page react (tick) and reports [index of the first unit the guard
  // stopped (-1: none), who it was stopped for, whether the page moved
  // the focus on by itself (then the text is spread over several
  // elements), whether this element holds typed (holdsText), what it
  // holds (null for a password field)].
  async function afterType(typed) {
    const el = this;
    const st = unguardText();
    await tick();
    const got = current(el);
    return [st ? st.blocked : -1, st ? st.bad : '', !!st && st.allowed.length > 1, holdsText(got, typed),
      isPassword.call(el) ? null : got];
  }

  function whoAmI() { return who(this); }

  // findOption returns the index of the enabled option of select el
  // matching v by value, label or index (by "" = value, then label, then
  // label ignoring case), or a message saying why there is none.
  function findOption(el, v, by) {
    const opts = Array.from(el.options);
    let idx = -1;
    const label = (o) => textKey(o.label || o.textContent);
    const want = by === 'label' || by === '' || by == null ? textKey(v) : String(v);
    if (by === 'index') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new Error('select: index must be a whole number >= 0, got ' + JSON.stringify(v));
      if (n >= opts.length) return 'select: no option at index ' + v + ' (' + opts.length + ' options)';
      idx = n;
    } else if (by === 'value') {
      idx = opts.findIndex((o) => o.value === v);
    } else if (by === 'label') {
      idx = opts.findIndex((o) => label(o) === want);
      if (idx < 0) idx = opts.findIndex((o) => label(o).toLowerCase() === want.toLowerCase());
    } else {
      idx = opts.findIndex((o) => o.value === v);
      if (idx < 0) idx = opts.findIndex((o) => label(o) === want);
      if (idx < 0) idx = opts.findIndex((o) => label(o).toLowerCase() === want.toLowerCase());
    }
    if (idx < 0) {
      // each option as the flow may name it: "value" (label) when they differ
      const shown = (o) => (by !== 'label' && o.value !== label(o) ? JSON.stringify(o.value) + ' (' + label(o) + ')' : JSON.stringify(label(o)));
      const have = opts.slice(0, 10).map(shown).join(', ') + (opts.length > 10 ? ', ... (' + opts.length + ' in all)' : '');
      return 'select: no option matches ' + JSON.stringify(v) + (by ? ' by ' + by : '') + ' (options: ' + (have || 'none') + ')';
    }
    if (opts[idx].disabled) return 'select: option ' + JSON.stringify(label(opts[idx])) + ' is disabled';
    return idx;
  }

  // selectOption waits up to sliceMs for an enabled option matching v (a
  // cascading select loads its options after another choice), selects it
  // with the input and change events of a person's choice, lets the page
  // react (tick) and resolves to [true, value]; [false, why] when the
  // slice ends first; [false, why, true] when the option did not stay
  // selected (a framework put its own state back).
  async function selectOption(v, by, sliceMs) {
    const el = this;
    if (el.localName !== 'select') throw new Error(describe(el) + ' is not a select');
    const end = Date.now() + (sliceMs || 0);
    let idx;
    for (;;) {
      idx = findOption(el, v, by);
      if (typeof idx === 'number') break;
      const left = end - Date.now();
      if (left <= 0) return [false, idx];
      await waitChange(el.ownerDocument, Math.min(left, 40));
    }
    const opts = Array.from(el.options);
    if (el.getRootNode().activeElement !== el) el.focus();
    if (el.multiple) {
      for (const o of opts) o.selected = false;
    }
    const chosen = opts[idx];
    chosen.selected = true;
    el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    await tick();
    if (!chosen.selected) {
      const now = el.selectedOptions[0];
      return [false, who(el) + ' shows ' + (now ? JSON.stringify(norm(now.label || now.textContent)) : 'no option') +
        ' after choosing ' + JSON.stringify(norm(chosen.label || chosen.textContent)) + ' (the page changed it back)', true];
    }
    return [true, chosen.value];
  }

  function scrollIntoView() {
    this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    return true;
  }

  // scrollContent scrolls like a person would: after the page rendered its
  // last change (so IntersectionObservers saw a sentinel leave) and waiting
  // for the frame that delivers the scroll.
  async function scrollContent(to) {
    const el = this;
    const target = (el === el.ownerDocument.documentElement || el === el.ownerDocument.body) ?
      (el.ownerDocument.scrollingElement || el) : el;
    // two frames: the second starts after the first frame's rendering
    // (where intersection states are computed) finished
    await frame(250); await frame(250);
    target.scrollTop = to === 'top' ? 0 : target.scrollHeight;
    await frame(250); await frame(250);
    return target.scrollTop;
  }

  function scrollPage(to) {
    const se = document.scrollingElement || document.documentElement;
    window.scrollTo({ top: to === 'top' ? 0 : se.scrollHeight, behavior: 'instant' });
    return se.scrollTop;
  }

  // ---- tables and grids (LANGUAGE.md, "table" and "a grid") ----

  const rendered = (el) => getComputedStyle(el).display !== 'none';
  const cellText = (c) => collapseKeepNbsp(c.innerText !== undefined ? c.innerText : c.textContent);

  // textReader returns text(cell): cellText, read a row at a time where
  // it can. innerText costs tens of microseconds a call on a table cell,
  // so a row of several cells is read with one innerText, which puts a
  // tab between its cells (and line breaks around block content, which
  // normalising trims); when the tabs split it into exactly its cells,
  // each cell's text is its piece, normalised the same way; else (a cell
  // holding a tab, a cell not rendered) the row's cells are read one by
  // one. With hiddenEmpty, a cell that is not rendered (display: none)
  // reads as '' (innerText would give its source text).
  function textReader(hiddenEmpty) {
    const memo = new Map();
    const done = new Set();
    const byRow = (r) => {
      done.add(r);
      const n = r.cells.length;
      if (n < 3 || r.innerText === undefined) return;
      const pieces = r.innerText.split('\t');
      if (pieces.length !== n) return;
      for (let k = 0; k < n; k++) memo.set(r.cells[k], collapseKeepNbsp(pieces[k]));
    };
    return (c) => {
      let v = memo.get(c);
      if (v !== undefined) return v;
      const r = c.parentElement;
      if (r && r.localName === 'tr' && !done.has(r)) {
        byRow(r);
        v = memo.get(c);
        if (v !== undefined) return v;
      }
      v = hiddenEmpty && !rendered(c) ? '' : cellText(c);
      memo.set(c, v);
      return v;
    };
  }

  // layout places rows rs (one section of a table) on a grid, colspan and
  // rowspan expanded: a line per row ({row, slots}), a slot per column
  // ({cell, header, spanned}; null for a hole). A spanned slot repeats
  // the cell it copies.
  function layout(rs) {
    const lines = [];
    const pending = []; // pending[col] = {left, cell, header}
    rs.forEach((r, ri) => {
      const slots = [];
      let col = 0;
      const place = () => {
        while (pending[col] && pending[col].left > 0) {
          slots[col] = { cell: pending[col].cell, header: pending[col].header, spanned: true };
          pending[col].left--;
          col++;
        }
      };
      for (const c of r.cells) {
        place();
        const header = c.localName === 'th';
        const cs = Math.max(1, Math.min(1000, c.colSpan || 1));
        let rsn = c.rowSpan;
        if (rsn === 0) rsn = rs.length - ri;
        rsn = Math.max(1, Math.min(65534, rsn || 1));
        for (let k = 0; k < cs; k++) {
          slots[col] = { cell: c, header, spanned: k > 0 };
          if (rsn > 1) pending[col] = { left: rsn - 1, cell: c, header };
          col++;
        }
      }
      // trailing spans from rows above
      while (col < pending.length) {
        if (pending[col] && pending[col].left > 0) {
          slots[col] = { cell: pending[col].cell, header: pending[col].header, spanned: true };
          pending[col].left--;
        }
        col++;
      }
      for (let k = 0; k < slots.length; k++) if (!slots[k]) slots[k] = null;
      lines.push({ row: r, slots });
    });
    return lines;
  }

  // sections lays out table t's rows by section, in document order (a
  // thead first as rendered): {head, body, foot}, lines as layout's.
  // Without a thead, the leading body rows whose cells are all th are
  // the head.
  function sections(t) {
    const groups = [];
    let cur = null;
    for (const r of Array.from(t.rows)) {
      const p = r.parentElement;
      const sec = p.localName === 'thead' ? 'head' : p.localName === 'tfoot' ? 'foot' : 'body';
      if (!cur || cur.node !== p) { cur = { node: p, sec, rows: [] }; groups.push(cur); }
      cur.rows.push(r);
    }
    const head = [], body = [], foot = [];
    let hasHead = false;
    for (const g of groups) {
      const lines = layout(g.rows);
      // appendAll, not push(...lines): a spread of 200,000 rows overflows the stack (RangeError).
      if (g.sec === 'head') { hasHead = true; appendAll(head, lines); } else if (g.sec === 'foot') appendAll(foot, lines);
      else appendAll(body, lines);
    }
    if (!hasHead) {
      while (body.length && body[0].slots.length && body[0].slots.every((s) => s && s.header)) head.push(body.shift());
    }
    return { head, body, foot };
  }

  // cells turns lines into the driver's rows of cells ({text, header,
  // spanned}); text(slot, line, col) gives a slot's text.
  function cells(lines, text) {
    return lines.map((l) => l.slots.map((s, k) => {
      if (!s) return { text: '', header: false };
      const c = { text: text(s, l, k), header: s.header };
      if (s.spanned) c.spanned = true;
      return c;
    }));
  }

  // plainTable reads one <table> as it always did (LANGUAGE.md, "table").
  function plainTable(t) {
    const s = sections(t);
    const read = textReader();
    const text = (slot) => read(slot.cell);
    return { head: cells(s.head, text), body: cells(s.body, text), foot: cells(s.foot, text) };
  }

  // table reads this element: a <table>, or a grid. A grid is a logical
  // table whose header, body and fixed-column copies are separate tables
  // inside one container (Element UI, Ant Design, vxe-table, layui): see
  // readGrid. A <table> without header rows that is the body of such a
  // grid reads as the whole grid; any other table reads as itself.
  function table() {
    const t = this;
    if (t.localName === 'table') {
      const s = sections(t);
      if (!s.head.length) {
        const g = gridAround(t);
        if (g) return g;
      }
      return plainTable(t);
    }
    const g = readGrid(t);
    if (typeof g === 'string') throw new Error(g);
    return g;
  }

  // gridTables lists the tables of container el: those inside it that are
  // not inside a cell of another table in it (a nested table is a cell's
  // content).
  function gridTables(el) {
    return Array.from(el.querySelectorAll('table')).filter((t) => {
      const c = t.parentElement && t.parentElement.closest('td, th');
      return !(c && el.contains(c));
    });
  }

  // gridAround reads the grid that body table t belongs to: of its six
  // closest ancestors, the outermost one whose tables still read as one
  // grid (a fixed copy's wrapper holds a grid too, the whole grid's
  // container a larger one); null when none does.
  function gridAround(t) {
    let best = null, n = 1;
    let a = t.parentElement;
    for (let i = 0; a && i < 6; i++, a = a.parentElement) {
      const ts = gridTables(a);
      if (ts.length <= n) continue;
      n = ts.length;
      const g = readGrid(a, ts);
      if (typeof g === 'string') break;
      best = g;
    }
    return best;
  }

  // footHint: a table of a grid that is its footer (summary) row, by the
  // class names libraries give its wrapper.
  const footHint = /(^|[-_\s])(foot|footer|summary|total|sum)([-_\s]|$)/i;
  function isFootTable(t, container) {
    for (let n = t; n && n !== container; n = n.parentElement) {
      if (typeof n.className === 'string' && footHint.test(n.className)) return true;
    }
    return false;
  }

  // readGrid reads container el (tables: its gridTables) as one logical
  // table, or returns why it cannot.
  //  1. Parts: in document order, a table with header rows only is a
  //     header, joined with the next table that has none (its body); a
  //     table with both is a part by itself; a footer table (footHint)
  //     gives the foot of the part before it.
  //  2. The main part is the widest (columns of the body, else of the
  //     header), the first of equals; the others are copies that fixed
  //     columns are drawn from: a copy as wide as the main part maps
  //     column to column, a narrower one by header text.
  //  3. A cell reads as a person sees it: the main part's text, else,
  //     where that is empty (the content is hidden: the fixed copy shows
  //     it), the first copy's non-empty text at that place.
  //  4. Rows the person does not see (display: none, aria-hidden) and rows
  //     of a single cell across the whole width (a "no data" row, an
  //     expanded detail row) are left out; header columns past the body's
  //     width that are empty or not rendered (a scrollbar gutter) too.
  function readGrid(el, tables) {
    const ts = tables || gridTables(el);
    if (!ts.length) return describe(el) + ' is not a table and holds no table';
    if (ts.length === 1) return plainTable(ts[0]);
    const parts = [];
    const widthOf = (lines) => lines.reduce((w, l) => Math.max(w, l.slots.length), 0);
    let header = null;
    const flush = () => { if (header) { parts.push({ head: header.head, body: [], foot: [], tables: [header.t] }); header = null; } };
    for (const t of ts) {
      const s = sections(t);
      if (isFootTable(t, el)) {
        const p = parts[parts.length - 1];
        if (p) { appendAll(p.foot, s.head); appendAll(p.foot, s.body); appendAll(p.foot, s.foot); p.tables.push(t); }
        continue;
      }
      if (s.head.length && !s.body.length) { flush(); header = { head: s.head, t }; continue; }
      if (s.head.length) { flush(); parts.push({ head: s.head, body: s.body, foot: s.foot, tables: [t] }); continue; }
      // a header joins the body below it when their columns agree (the
      // header may end with a scrollbar gutter)
      const hw = header ? widthOf(header.head) : 0, bw = widthOf(s.body);
      if (header && s.body.length && bw !== hw && bw !== hw - 1) flush();
      parts.push({ head: header ? header.head : [], body: s.body, foot: s.foot, tables: header ? [header.t, t] : [t] });
      header = null;
    }
    flush();
    const text = textReader(true);
    // a header's width: its columns up to the last one that shows text
    const headWidth = (lines) => {
      let w = 0;
      for (const l of lines) l.slots.forEach((s, k) => { if (s && text(s.cell) !== '') w = Math.max(w, k + 1); });
      return w;
    };
    for (const p of parts) p.width = p.body.length ? widthOf(p.body) : headWidth(p.head);
    let main = parts[0];
    for (const p of parts) if (p.width > main.width) main = p;
    const width = main.width;
    const keyOf = (p, k) => {
      const seen = [];
      for (const l of p.head) { const s = l.slots[k]; const v = s ? text(s.cell) : ''; if (v && !seen.includes(v)) seen.push(v); }
      return seen.join(' / ');
    };
    // each copy's column map: main column -> copy column
    const copies = [];
    const mainKeys = Array.from({ length: width }, (_, m) => keyOf(main, m));
    for (const p of parts) {
      if (p === main) continue;
      const map = new Map();
      if (p.width === width) {
        for (let k = 0; k < width; k++) map.set(k, k);
      } else {
        for (let k = 0; k < p.width; k++) {
          const key = keyOf(p, k);
          if (!key) continue;
          for (let m = 0; m < width; m++) {
            if (!map.has(m) && mainKeys[m] === key) { map.set(m, k); break; }
          }
        }
      }
      if (!map.size || (p.body.length && p.body.length !== main.body.length)) {
        return describe(el) + ' holds ' + ts.length + ' tables that are not one grid (a header, a body and fixed-column copies of the same rows): point table at one of them';
      }
      copies.push({ p, map });
    }
    // merge: a slot's text is the main part's, else the first copy's
    const merged = (section) => (slot, i, k) => {
      const own = slot ? text(slot.cell) : '';
      if (own !== '') return own;
      for (const c of copies) {
        const lines = c.p[section];
        const ck = c.map.get(k);
        if (ck === undefined || lines.length !== main[section].length) continue;
        const s = lines[i].slots[ck];
        const v = s ? text(s.cell) : '';
        if (v !== '') return v;
      }
      return '';
    };
    // the main part's lines, width columns each, merged
    const read = (section) => {
      const lines = main[section];
      const m = merged(section);
      return lines.map((l, i) => {
        const row = [];
        for (let k = 0; k < width; k++) {
          const s = l.slots[k] || null;
          if (!s) { row.push({ text: m(null, i, k), header: false }); continue; }
          const c = { text: m(s, i, k), header: s.header };
          if (s.spanned) c.spanned = true;
          row.push(c);
        }
        return row;
      });
    };
    const shown = (l) => {
      const r = l.row;
      if (!r.isConnected || !rendered(r) || r.getAttribute('aria-hidden') === 'true' || r.hidden) return false;
      // one cell across the whole width: "no data", an expanded detail
      if (width > 1 && l.slots.length >= width && l.slots.every((s) => s && s.cell === l.slots[0].cell)) return false;
      return true;
    };
    const head = read('head');
    const body = read('body').filter((_, i) => shown(main.body[i]));
    const foot = read('foot');
    return { head, body, foot };
  }

  function form() {
    const root = this;
    const out = {};
    const seen = {};
    const ctrls = root.querySelectorAll ? root.querySelectorAll('input, select, textarea') : [];
    const boxes = {};
    for (const el of ctrls) {
      const name = el.name || el.id;
      if (!name) continue;
      if (el.localName === 'input') {
        const ty = (el.type || 'text').toLowerCase();
        if (['button', 'submit', 'reset', 'image'].includes(ty)) continue;
        if (ty === 'checkbox') { (boxes[name] = boxes[name] || []).push(el); continue; }
        if (ty === 'radio') {
          if (!(name in out)) out[name] = null;
          if (el.checked) out[name] = el.value;
          continue;
        }
        if (ty === 'password') { out[name] = '***'; continue; }
        if (ty === 'file') { out[name] = Array.from(el.files || []).map((f) => f.name); continue; }
        out[name] = normValue(el.value);
        continue;
      }
      if (el.localName === 'select') {
        out[name] = el.multiple ? Array.from(el.selectedOptions).map((o) => o.value) : el.value;
        continue;
      }
      out[name] = normValue(el.value);
      seen[name] = true;
    }
    for (const [name, list] of Object.entries(boxes)) {
      if (list.length === 1) out[name] = list[0].checked;
      else out[name] = list.filter((b) => b.checked).map((b) => b.value);
    }
    return out;
  }

  function docForm() { return form.call(document); }
  function docText() { const b = document.body || document.documentElement; return b ? collapseKeepNbsp(b.innerText) : ''; }
  function desc() { return describe(this); }

  // forceClick is `click force: true`: when this element receives the hit
  // at its centre it returns true and the caller clicks with the real mouse;
  // otherwise (a cover, an invisible element) it dispatches the pointer and
  // mouse events of count clicks of button on the element itself, so the
  // cover never gets the click, and returns false.
  function forceClick(button, count) {
    const el = this;
    if (visible(el)) {
      const tries = new WeakMap();
      let h = receives(el, tries);
      for (let i = 0; i < 4 && h.retry; i++) h = receives(el, tries);
      if (h.ok) return true;
    }
    const win = el.ownerDocument.defaultView;
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const b = { left: 0, middle: 1, right: 2 }[button] ?? 0;
    const bs = [1, 4, 2][b];
    const base = { bubbles: true, cancelable: true, composed: true, view: win, clientX: x, clientY: y, button: b };
    const P = win.PointerEvent || win.MouseEvent;
    const ptr = { pointerId: 1, pointerType: 'mouse', isPrimary: true };
    el.dispatchEvent(new P('pointerover', { ...base, ...ptr }));
    el.dispatchEvent(new win.MouseEvent('mouseover', base));
    for (let i = 1; i <= count; i++) {
      el.dispatchEvent(new P('pointerdown', { ...base, ...ptr, buttons: bs }));
      el.dispatchEvent(new win.MouseEvent('mousedown', { ...base, buttons: bs, detail: i }));
      if (i === 1 && typeof el.focus === 'function') el.focus({ preventScroll: true });
      el.dispatchEvent(new P('pointerup', { ...base, ...ptr, buttons: 0 }));
      el.dispatchEvent(new win.MouseEvent('mouseup', { ...base, buttons: 0, detail: i }));
      const kind = b === 0 ? 'click' : b === 2 ? 'contextmenu' : 'auxclick';
      el.dispatchEvent(new win.MouseEvent(kind, { ...base, buttons: 0, detail: i }));
      if (b === 0 && i === 2) el.dispatchEvent(new win.MouseEvent('dblclick', { ...base, buttons: 0, detail: 2 }));
    }
    return false;
  }

  // frameState reports an iframe's content document state, evaluated inside
  // that document: [href, readyState].
  function frameState() { return [location.href, document.readyState]; }

  function iframeSrc() {
    const el = this;
    if (el.localName !== 'iframe' && el.localName !== 'frame') throw new Error(describe(el) + ' is not an iframe');
    return [el.src || '', el.hasAttribute('srcdoc')];
  }

  function domReady() {
    if (document.readyState !== 'loading') return Promise.resolve([location.href, document.readyState]);
    return new Promise((res) => document.addEventListener('DOMContentLoaded', () => res([location.href, document.readyState]), { once: true }));
  }

  // ---- fail fast: what the page says while a wait finds nothing ----
  // A step's selectors that name a sign-in form's own parts: such a step
  // acts on a sign-in page on purpose, which then says nothing about it.
  const loginWords = /user|login|log ?in|sign|pass|pwd|e-?mail|account|captcha|otp|code|remember|登录|登陆|用户|密码|账号|帐号|验证码/i;
  // What a sign-in wall says (English and Chinese).
  const wallText = /\b(not (currently )?(logged|signed) in|(log|sign)[- ]?in (is )?required|please (log|sign)[- ]?in|you (must|need to|have to) (be )?(log|sign)(ged)?[- ]?in|(log|sign)[- ]?in to (continue|proceed|view)|session (has )?(expired|timed out))\b|请(先)?登录|请重新登录|未登录|登录(已)?(过期|失效|超时)|会话(已)?(过期|失效)/i;
  // Error messages: an alert, an error banner, a form field's error.
  const errorSel = '[role=alert], [aria-live=assertive], .error, .errors, .alert-danger, .alert-error, .invalid-feedback, ' +
    '.error-message, .errormsg, .flash-error, .form-error, .field-error, .notification.is-danger, .el-form-item__error, ' +
    '.el-message--error, .ant-form-item-explain-error, .ant-alert-error, .ant-message-error';
  const cutText = (t, n) => (t.length > n ? t.slice(0, n - 1) + '…' : t);
  function shownText(el) {
    if (!visible(el)) return '';
    return norm(el.innerText !== undefined ? el.innerText : el.textContent);
  }
  // wallSays is the line of the page (or of el) that says it is a sign-in
  // wall, '' when none does.
  function wallSays(el) {
    const t = el ? (el.innerText || '') : (document.body ? document.body.innerText : '');
    if (!wallText.test(t)) return '';
    for (const line of t.split('\n')) {
      if (wallText.test(line)) return cutText(norm(line), 120);
    }
    return '';
  }
  // errorNear is the text of an error message the page shows near the last
  // action: anywhere in a document the last action did not touch (the page
  // a form was posted to), else an alert anywhere or a message in or next
  // to the last action's form, dialog or fieldset.
  function errorNear(last) {
    const near = last ? (last.closest('form, [role=form], dialog, [role=dialog], fieldset') || last.parentElement) : null;
    const scope = near ? (near.parentElement || near) : null;
    const found = [...document.querySelectorAll(errorSel)];
    for (const f of document.querySelectorAll('[aria-invalid=true]')) {
      for (const id of (f.getAttribute('aria-errormessage') || f.getAttribute('aria-describedby') || '').split(/\s+/)) {
        const el = id && document.getElementById(id);
        if (el) found.push(el);
      }
    }
    for (const el of found) {
      const t = shownText(el);
      if (!t || t.length > 300) continue;
      const alert = el.getAttribute('role') === 'alert' || el.getAttribute('aria-live') === 'assertive';
      if (last && !alert && !(scope && scope.contains(el))) continue;
      return cutText(t, 160);
    }
    return '';
  }
  // verdict says why the document will not produce what a wait waits for:
  // [kind, sentence] or null. sels are what the step looks for (its
  // selectors, or the URL pattern of a wait url:).
  function verdict(sels) {
    const nav = performance.getEntriesByType('navigation')[0];
    const status = nav && nav.responseStatus;
    if (status >= 400) {
      const h = document.querySelector('h1') || document.querySelector('h2');
      const t = cutText(norm((h && h.innerText) || document.title || ''), 100);
      return ['http_error', 'the page is an HTTP ' + status + ' error document' + (t ? ' (' + JSON.stringify(t) + ')' : '')];
    }
    const l = lastTarget && lastTarget.deref();
    const last = l && l.isConnected ? l : null;
    const err = errorNear(last);
    if (err) return ['error', 'the page shows an error: ' + JSON.stringify(err)];
    if ((sels || []).some((s) => loginWords.test(s))) return null;
    // a sign-in page: in a document the last action did not touch, or in
    // a dialog over the page (a session that ran out)
    let where = last ? null : document;
    if (!where) {
      for (const d of document.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]')) {
        if (visible(d)) { where = d; break; }
      }
    }
    if (!where) return null;
    const pw = [...where.querySelectorAll('input[type=password]')].some(visible);
    const says = wallSays(where === document ? null : where);
    if (!pw && !says) return null;
    return ['sign_in', 'the page is a sign-in page' + (pw ? ': it asks for a password' : '') +
      (says ? (pw ? ' and says ' : ': it says ') + JSON.stringify(says) : '')];
  }
  // pageState is how the document stands: quiet, the milliseconds since an
  // element was last added or removed; ready, whether it loaded; verdict
  // (above).
  function pageState(sels) {
    return { quiet: Math.round(performance.now() - lastMut), ready: document.readyState === 'complete', verdict: verdict(sels) };
  }

  const api = {
    pageState,
    locate, all, count, waitState, explainState, waitText, text, value, html, docHTML, attr, isPassword, checked, prepFill,
    afterFill, clearValue, setValue, effectWait, checkTarget, focus, isFocused, prepType, afterType, who: whoAmI, selectOption, scrollIntoView, scrollContent, scrollPage,
    table, form, docForm, docText, desc, frameState, iframeSrc, domReady, forceClick, aim, disarm, disarmOnClick, toggleState, contentOrigin, inst,
  };
  const engine = function (op, ...args) {
    const f = api[op];
    if (!f) throw new Error('rpa engine: unknown op ' + op);
    return f.apply(this, args);
  };
  Object.defineProperty(globalThis, instanceKey, { value: engine, configurable: true });
  return engine;
})()
