// rpa console: the editor's element picker (picker.go). Pick opens the flow's page in a browser
// of the console's; without a display its live picture (screencast frames over server-sent
// events) shows here: moving over it outlines the element under the pointer, a click picks it.
// With a display the page opens in a window and the click there picks. The chosen selector is
// inserted at the editor's cursor as the literal the server quoted. While a debug run is paused
// (debug.js sets data-debug on the dialog), Pick shows the debug run's own page instead: the
// browser the flow signed in, at the paused line; a typed address still opens a page of its own.
"use strict";
(() => {
  const dlg = document.getElementById("picker");
  const openBtn = document.getElementById("open-picker");
  if (!dlg || !openBtn) return;
  const text = document.getElementById("text");
  const form = document.getElementById("picker-form");
  const urlIn = document.getElementById("picker-url");
  const status = document.getElementById("picker-status");
  const view = document.getElementById("picker-view");
  const img = document.getElementById("picker-img");
  const box = document.getElementById("picker-box");
  const result = document.getElementById("picker-result");
  const sels = document.getElementById("picker-sels");
  const framesNote = document.getElementById("picker-frames");
  const action = document.getElementById("picker-action");
  const tableNote = document.getElementById("picker-table");
  const D = dlg.dataset;
  let id = null, es = null, fw = 0, fh = 0, cursor = [0, 0], pick = null;

  const say = (s, alert) => { status.textContent = s; if (alert) status.setAttribute("role", "alert"); else status.setAttribute("role", "status"); };
  const stop = () => {
    if (es) { es.close(); es = null; }
    if (id) { const old = id; id = null; rpa.post("/api/picker/" + old + "/close", {}).catch(() => {}); }
    view.hidden = true; box.hidden = true; img.removeAttribute("src");
  };
  // point maps a pointer event on the picture to the page's viewport (CSS pixels).
  const point = (e) => {
    const r = img.getBoundingClientRect();
    return { x: (e.clientX - r.left) * fw / r.width, y: (e.clientY - r.top) * fh / r.height };
  };
  let shown = null; // the box outlined, kept so a resized picture moves it
  const outline = (b) => {
    shown = b;
    if (!b || !fw) { box.hidden = true; return; }
    const k = img.clientWidth / fw;
    box.style.left = (b.x * k) + "px"; box.style.top = (b.y * k) + "px";
    box.style.width = (b.w * k) + "px"; box.style.height = (b.h * k) + "px";
    box.hidden = false;
  };
  // chosen is what the action inserts: the table around a picked cell for "table", else the pick.
  const chosen = () => (action.value === "table" && pick.table) ? pick.table : pick;
  const listSelectors = () => {
    const c = chosen();
    sels.replaceChildren();
    c.selectors.forEach((s, i) => {
      const rid = "picker-sel-" + i;
      sels.append(rpa.el("div", {}, rpa.el("input", { type: "radio", name: "picker-sel", id: rid, value: String(i), checked: i === 0 }), " ", rpa.el("label", { for: rid, text: s.selector })));
    });
    tableNote.hidden = c === pick;
    if (!tableNote.hidden) tableNote.textContent = D.table.replace("{table}", c.desc);
    outline(c.box || pick.box);
  };
  const showPick = (v) => {
    pick = v;
    listSelectors();
    framesNote.hidden = !(v.frames && v.frames.length) && !v.apart;
    framesNote.setAttribute("role", v.apart ? "alert" : "note");
    if (v.apart) framesNote.textContent = D.apart;
    else if (!framesNote.hidden) framesNote.textContent = D.inFrame.replace("{frames}", v.frames.map((f) => f[0].selector).join(" › "));
    result.hidden = false;
    say(D.picked.replace("{el}", v.desc));
  };
  action.addEventListener("change", () => { if (pick) listSelectors(); });
  const start = async (onDebug) => {
    stop();
    result.hidden = true;
    say(D.opening);
    const debug = onDebug ? D.debug || "" : "";
    try {
      const v = await rpa.post("/api/picker/start", { file: D.file, text: text.value, url: debug ? "" : urlIn.value, debug });
      id = v.id;
      if (!debug) urlIn.value = v.url;
      if (v.window) { say(D.window); inspect(id); return; }
      say(debug ? D.onDebug.replace("{line}", D.debugLine || "") : D.ready);
      es = new EventSource("/api/picker/" + id + "/frames");
      es.addEventListener("frame", (ev) => {
        const f = JSON.parse(ev.data);
        fw = f.w; fh = f.h;
        img.src = "data:image/jpeg;base64," + f.jpeg;
        view.hidden = false;
      });
      es.addEventListener("closed", () => { stop(); say(D.closed); });
      // a picker that ended before its stream opened (404): the browser gives the stream up
      es.addEventListener("error", () => { if (es && es.readyState === EventSource.CLOSED) { stop(); say(D.closed); } });
    } catch (err) {
      say(err.message, true);
      if (err.body && err.body.needURL) urlIn.focus();
    }
  };
  // inspect waits for clicks in the picker's window, one pick after another.
  const inspect = async (my) => {
    while (id === my) {
      try {
        showPick(await rpa.post("/api/picker/" + my + "/inspect", {}));
      } catch (err) {
        if (id === my) say(err.message, true);
        return;
      }
    }
  };
  let hovering = false, next = null;
  const hover = async (pt) => {
    if (hovering) { next = pt; return; }
    hovering = true;
    try {
      const v = await rpa.post("/api/picker/" + id + "/hover", pt);
      outline(v.found ? v.box : null);
    } catch (e) { /* the next move asks again */ }
    hovering = false;
    if (next) { const n = next; next = null; if (id) hover(n); }
  };
  new ResizeObserver(() => { if (!box.hidden) outline(shown); }).observe(img);
  img.addEventListener("mousemove", (e) => { if (id && fw) hover(point(e)); });
  img.addEventListener("mouseleave", () => { outline(pick ? (chosen().box || pick.box) : null); });
  img.addEventListener("click", async (e) => {
    if (!id || !fw) return;
    say(D.picking);
    try {
      const v = await rpa.post("/api/picker/" + id + "/pick", point(e));
      if (v.found === false) { say(v.error); return; }
      showPick(v);
    } catch (err) { say(err.message, true); }
  });
  // insert puts the chosen selector (as the chosen action) at the editor's cursor.
  document.getElementById("picker-insert").addEventListener("click", () => {
    if (!pick) return;
    const c = chosen();
    const radio = sels.querySelector("input[name=picker-sel]:checked");
    const at = radio ? Number(radio.value) : 0;
    let lit = c.selectors[at].literal;
    // the chosen selector first, the others after it: a fallback list (LANGUAGE.md, "Selectors")
    const fb = document.getElementById("picker-fallbacks");
    const withAll = fb && fb.checked && c.selectors.length > 1;
    if (withAll) lit = "[" + [c.selectors[at]].concat(c.selectors.filter((_, i) => i !== at)).map((s) => s.literal).join(", ") + "]";
    const note = withAll ? " # " + c.desc.replace(/\s+/g, " ") : "";
    const forms = { sel: lit, click: "click " + lit + note, fill: "fill " + lit + ' ""' + note, text: "value = text " + lit + note, table: "rows = table " + lit + note, wait: "wait " + lit + note };
    let ins = forms[action.value] || lit;
    // inside iframes: the action goes into `frame` statements, outermost first (LANGUAGE.md)
    if (action.value !== "sel" && pick.frames && pick.frames.length) {
      for (let i = pick.frames.length - 1; i >= 0; i--) {
        ins = "frame " + pick.frames[i][0].literal + " {\n" + ins.split("\n").map((l) => "    " + l).join("\n") + "\n}";
      }
    }
    const [a, b] = cursor;
    if (action.value !== "sel") {
      if (a > 0 && text.value[a - 1] !== "\n") ins = "\n" + ins;
      if (text.value[b] !== undefined && text.value[b] !== "\n") ins += "\n";
    }
    text.setRangeText(ins, a, b, "end");
    cursor = [text.selectionStart, text.selectionEnd];
    text.dispatchEvent(new Event("input"));
    const line = text.value.slice(0, a + (ins.startsWith("\n") ? 1 : 0)).split("\n").length;
    say(D.inserted.replace("{line}", String(line)));
  });
  form.addEventListener("submit", (e) => { e.preventDefault(); start(false); });
  openBtn.addEventListener("click", () => {
    cursor = [text.selectionStart, text.selectionEnd];
    result.hidden = true;
    pick = null;
    dlg.showModal();
    start(true);
  });
  openBtn.disabled = false; // the page comes with it disabled: a click before this script ran did nothing
  document.getElementById("picker-close").addEventListener("click", () => dlg.close());
  dlg.addEventListener("close", () => { stop(); text.focus(); text.setSelectionRange(cursor[0], cursor[1]); });
  window.addEventListener("pagehide", stop);
})();
