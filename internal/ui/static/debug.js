// rpa console: the editor's step debugger. Breakpoints by clicking a line number (or F9 in the
// text); Debug runs the saved flow (POST /api/debug) and follows it (server-sent events):
// paused before a line, the variables (secrets *** by the server) and a picture of the page;
// Step, Continue, Stop. Leaving the page ends the run (the server sees its event stream close).
"use strict";
(() => {
  const box = document.getElementById("debugger");
  const btn = document.getElementById("debug");
  if (!box || !btn) return;
  const text = document.getElementById("text");
  const gutter = document.getElementById("gutter");
  const file = box.dataset.file;
  const loaded = text.value;
  const msg = (key, ...a) => (box.dataset[key] || key).replace(/%(\d)/g, (_, i) => a[+i - 1] === undefined ? "" : String(a[+i - 1]));
  const $ = (id) => document.getElementById(id);
  const status = $("dbg-status"), bpsList = $("dbg-bps"), controls = $("dbg-controls");
  const stepB = $("dbg-step"), contB = $("dbg-continue"), stopB = $("dbg-stop");
  const panes = $("dbg-panes"), vars = $("dbg-vars"), shot = $("dbg-shot"), noshot = $("dbg-noshot");
  const key = "rpa-bp:" + file;
  let bps = new Set();
  try { bps = new Set(JSON.parse(sessionStorage.getItem(key) || "[]")); } catch (e) { bps = new Set(); }
  let session = null, es = null, cur = 0;

  // The gutter: one span per line (breakpoint and current line marked).
  const paint = () => {
    const n = text.value.split("\n").length;
    const kids = [];
    for (let i = 1; i <= n; i++) {
      if (i > 1) kids.push("\n");
      const cls = (bps.has(i) ? "bp " : "") + (i === cur ? "cur" : "");
      kids.push(rpa.el("span", { "data-line": String(i), class: cls.trim() || null, text: String(i) }));
    }
    gutter.replaceChildren(...kids);
    gutter.scrollTop = text.scrollTop;
    bpsList.replaceChildren();
    const lines = [...bps].sort((a, b) => a - b);
    if (lines.length === 0) bpsList.append(rpa.el("li", { class: "muted", text: msg("nobps") }));
    for (const l of lines) {
      const rm = rpa.el("button", { type: "button", "aria-label": msg("bpRemove", l), text: "×" });
      rm.addEventListener("click", () => toggle(l));
      bpsList.append(rpa.el("li", { "data-line": String(l) }, String(l), rm));
    }
  };
  const toggle = (line) => {
    if (bps.has(line)) bps.delete(line); else bps.add(line);
    sessionStorage.setItem(key, JSON.stringify([...bps]));
    paint();
    if (session) rpa.post("/api/debug/" + session + "/breakpoints", { breakpoints: [...bps] }).catch(() => {});
  };
  gutter.addEventListener("click", (e) => {
    const s = e.target.closest("span[data-line]");
    if (s) toggle(+s.dataset.line);
  });
  text.addEventListener("input", paint); // after editor.js's renumber
  text.addEventListener("keydown", (e) => {
    if (e.key !== "F9") return;
    e.preventDefault();
    toggle(text.value.slice(0, text.selectionStart).split("\n").length);
  });
  paint();

  const setStatus = (t, cls) => { status.textContent = t; status.className = cls || ""; };
  const showLine = (line) => {
    cur = line;
    paint();
    if (line > 0) {
      // Bring the line into view in the text.
      const lh = parseFloat(getComputedStyle(text).lineHeight) || 18;
      const top = (line - 1) * lh;
      if (top < text.scrollTop || top > text.scrollTop + text.clientHeight - lh) text.scrollTop = Math.max(0, top - text.clientHeight / 3);
      gutter.scrollTop = text.scrollTop;
    }
  };
  const value = (v) => {
    const s = JSON.stringify(v);
    return s === undefined ? "null" : (s.length > 20000 ? s.slice(0, 20000) + "…" : s);
  };
  const showScopes = (scopes) => {
    vars.replaceChildren();
    for (const sc of scopes || []) {
      if (!sc.Vars || sc.Vars.length === 0) continue;
      const t = rpa.el("table", {}, rpa.el("caption", { text: msg("scope", msg("s" + sc.Kind.charAt(0).toUpperCase() + sc.Kind.slice(1)), sc.Flow) }));
      const tb = rpa.el("tbody");
      for (const v of sc.Vars || []) tb.append(rpa.el("tr", {}, rpa.el("th", { scope: "row", text: v.Name }), rpa.el("td", {}, rpa.el("code", { text: value(v.Value) }))));
      t.append(tb);
      vars.append(t);
    }
  };
  // The element picker (picker.js) picks on the run's page while it is paused.
  const picker = document.getElementById("picker");
  const lend = (id, line) => {
    if (!picker) return;
    if (id) { picker.dataset.debug = id; picker.dataset.debugLine = String(line); } else { delete picker.dataset.debug; delete picker.dataset.debugLine; }
  };
  const running = (on) => { stepB.disabled = on; contB.disabled = on; if (on) lend(null); };
  const end = () => {
    running(true);
    stopB.disabled = true;
    btn.disabled = false;
    if (es) es.close();
    es = null;
    session = null;
    showLine(0);
  };
  const follow = (id) => {
    es = new EventSource("/api/debug/" + id + "/events");
    es.addEventListener("paused", (m) => {
      const ev = JSON.parse(m.data);
      showLine(ev.depth ? cur : ev.line);
      const what = (ev.action || ev.stmt) + (ev.args ? " " + ev.args.filter((a) => a !== null).map(value).join(" ") : "") + (ev.depth ? " (" + ev.file + ")" : "");
      setStatus(msg("paused", ev.line, what), "paused");
      showScopes(ev.scopes);
      panes.hidden = false;
      if (ev.shot) {
        shot.onload = () => { shot.hidden = false; noshot.hidden = true; shot.dataset.shown = String(ev.shot); };
        shot.alt = msg("shotAlt", ev.line);
        shot.src = "/api/debug/" + id + "/shot/" + ev.shot;
      } else {
        shot.hidden = true; noshot.hidden = false; shot.dataset.shown = "none-" + ev.seq;
        noshot.textContent = msg(ev.noShot ? "shotfailed" : "nopicture");
      }
      running(false);
      lend(id, ev.line);
    });
    es.addEventListener("resumed", () => { running(true); setStatus(msg("running")); });
    es.addEventListener("done", (m) => {
      const ev = JSON.parse(m.data);
      const t = ev.status === "ok" ? msg("doneOk") : ev.status === "failed" ? msg("doneFailed", ev.errorLine, ev.error)
        : ev.status === "cancelled" ? msg("doneCancelled") : msg("doneError", ev.error);
      setStatus(t, ev.status === "ok" ? "ok" : "bad");
      if (ev.runId) status.append(" ", rpa.el("a", { href: "/runs/" + encodeURIComponent(ev.runId), text: msg("record") }));
      end();
    });
  };
  const start = async (args) => {
    btn.disabled = true;
    controls.hidden = false;
    stopB.disabled = false;
    running(true);
    setStatus(msg("starting"));
    try {
      const v = await rpa.post("/api/debug", { file, args, breakpoints: [...bps] });
      session = v.id;
      follow(v.id);
    } catch (err) {
      setStatus(err.message, "bad");
      end();
    }
  };
  stepB.addEventListener("click", () => { if (session) { running(true); rpa.post("/api/debug/" + session + "/step", {}).catch((e) => setStatus(e.message, "bad")); } });
  contB.addEventListener("click", () => { if (session) { running(true); rpa.post("/api/debug/" + session + "/continue", {}).catch((e) => setStatus(e.message, "bad")); } });
  stopB.addEventListener("click", () => { if (session) rpa.post("/api/debug/" + session + "/stop", {}).catch((e) => setStatus(e.message, "bad")); });

  const dlg = document.getElementById("debug-args");
  btn.addEventListener("click", () => {
    if (text.value !== loaded) { setStatus(msg("saveFirst"), "bad"); return; }
    if (!dlg) { start({}); return; }
    document.getElementById("debug-error").replaceChildren();
    dlg.showModal();
  });
  btn.disabled = false; // the page comes with it disabled: a click before this script ran did nothing
  if (dlg) {
    const form = document.getElementById("debug-form");
    document.getElementById("debug-cancel").addEventListener("click", () => dlg.close());
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const args = {};
      for (const inp of form.querySelectorAll("input[name]")) args[inp.name] = inp.value;
      dlg.close();
      for (const inp of form.querySelectorAll("input[type=password]")) inp.value = ""; // typed again each time
      start(args);
    });
  }
})();
