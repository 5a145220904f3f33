// rpa console: the flow editor (line numbers, diagnostics as you type, save) and the publish dialog.
"use strict";
(() => {
  const form = document.getElementById("editor");
  if (!form) return;
  if (form.dataset.readonly === "1") {
    // A file that is not UTF-8 text: shown, never saved (the server refuses too).
    form.addEventListener("submit", (e) => e.preventDefault());
    return;
  }
  const text = document.getElementById("text");
  const gutter = document.getElementById("gutter");
  const problems = document.getElementById("problems");
  const status = document.getElementById("status");
  const openPub = document.getElementById("open-publish");
  const file = form.dataset.file;
  let hash = form.dataset.hash;
  let saved = text.value;
  let seq = 0;

  const renumber = () => {
    const n = text.value.split("\n").length;
    let s = "";
    for (let i = 1; i <= n; i++) s += (i > 1 ? "\n" : "") + i;
    gutter.textContent = s;
    gutter.scrollTop = text.scrollTop;
  };
  const showDiags = (ds) => {
    problems.replaceChildren();
    if (!ds || ds.length === 0) {
      problems.append(rpa.el("p", { class: "ok", text: problems.dataset.clean }));
      return;
    }
    for (const d of ds) problems.append(rpa.el("pre", { class: "diag " + d.severity, text: d.text }));
  };
  const dirty = () => text.value !== saved;
  const updateDirty = () => {
    if (openPub) {
      openPub.disabled = openPub.dataset.broken === "1" || dirty();
      openPub.title = dirty() ? problems.dataset.saveFirst : "";
    }
    if (dirty()) status.textContent = problems.dataset.unsaved;
  };
  const check = rpa.debounce(async () => {
    const my = ++seq;
    try {
      const v = await rpa.post("/api/check", { file, text: text.value });
      if (my !== seq) return; // an older answer
      showDiags(v.diagnostics);
      if (openPub) openPub.dataset.broken = v.diagnostics.some((d) => d.severity === "error") ? "1" : "";
      updateDirty();
    } catch (e) {
      status.textContent = e.message;
    }
  }, 300);

  text.addEventListener("input", () => { renumber(); updateDirty(); check(); });
  text.addEventListener("scroll", () => { gutter.scrollTop = text.scrollTop; });
  text.addEventListener("keydown", (e) => {
    if (e.key === "Tab" && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) {
      // Tab indents (4 spaces); Escape then Tab leaves the textarea (WCAG 2.1.2).
      if (text.dataset.escaped === "1") { text.dataset.escaped = ""; return; }
      e.preventDefault();
      text.setRangeText("    ", text.selectionStart, text.selectionEnd, "end");
      text.dispatchEvent(new Event("input"));
    } else if (e.key === "Escape") {
      text.dataset.escaped = "1";
    } else if ((e.ctrlKey || e.metaKey) && e.key === "s") {
      e.preventDefault();
      form.requestSubmit();
    } else {
      text.dataset.escaped = "";
    }
  });
  let saving = false; // one save at a time: a second Ctrl-S while one is in flight (or the page
  // reloads after it) would send the old hash and be refused as a conflict
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (saving) return;
    saving = true;
    try {
      const v = await rpa.post("/api/save", { file, text: text.value, hash });
      hash = v.hash;
      saved = text.value;
      seq++; // a check still pending answers for text the reload replaces
      // Reload: the publish dialog and the page show the saved flow.
      location.replace(location.pathname + "?saved=1");
    } catch (err) {
      saving = false;
      status.textContent = err.message;
      status.setAttribute("role", "alert");
    }
  });
  window.addEventListener("beforeunload", (e) => { if (dirty()) { e.preventDefault(); e.returnValue = ""; } });

  // The publish dialog.
  const dlg = document.getElementById("publish");
  if (!dlg) return;
  const pform = document.getElementById("publish-form");
  const perr = document.getElementById("publish-error");
  const open = () => { perr.replaceChildren(); dlg.showModal(); document.getElementById("pub-name").focus(); };
  openPub.addEventListener("click", open);
  document.getElementById("publish-cancel").addEventListener("click", () => dlg.close());
  for (const fs of pform.querySelectorAll("fieldset.param")) {
    const req = fs.querySelector("[data-role=required]");
    const def = fs.querySelector("[data-role=default]");
    if (req && def) {
      const sync = () => { def.disabled = req.checked; };
      req.addEventListener("change", sync);
      sync();
    }
  }
  pform.addEventListener("submit", async (e) => {
    e.preventDefault();
    const params = [];
    for (const fs of pform.querySelectorAll("fieldset.param")) {
      const get = (r) => fs.querySelector("[data-role=" + r + "]");
      const req = get("required");
      const def = get("default");
      params.push({
        name: fs.dataset.param,
        description: get("description").value,
        default: def ? def.value : "",
        required: req ? req.checked : true,
      });
    }
    const body = { file, hash, name: pform.elements.name.value, description: pform.elements.description.value, params };
    try {
      const v = await rpa.post("/api/publish", body);
      location.assign("/flows?published=" + encodeURIComponent(v.tool));
    } catch (err) {
      perr.replaceChildren(rpa.el("p", { class: "bad", text: err.message }));
      if (err.body && err.body.diagnostics) for (const d of err.body.diagnostics) perr.append(rpa.el("pre", { class: "diag " + d.severity, text: d.text }));
    }
  });
  if (form.dataset.openPublish === "1" && !openPub.disabled) open();
})();
