// rpa console: a run's steps, live (server-sent events); when the run ends the page reloads to
// show the outputs, the failure packet and the screenshot.
"use strict";
(() => {
  const live = document.getElementById("live");
  if (!live || live.dataset.done === "1") return;
  const tbody = document.getElementById("steps");
  const status = document.getElementById("live-status");
  const word = (st) => live.dataset["st" + st.charAt(0).toUpperCase() + st.slice(1)] || st;
  const row = (ev) => {
    let tr = tbody.querySelector('tr[data-index="' + ev.index + '"]');
    if (!tr) {
      const what = rpa.el("td", {}, rpa.el("code", { text: ev.action }), ev.target ? " " + ev.target : "");
      tr = rpa.el("tr", { "data-index": String(ev.index) },
        rpa.el("td", { text: String(ev.index) }), what, rpa.el("td", { text: String(ev.line || "") }),
        rpa.el("td", { class: "status-running", text: word("running") }), rpa.el("td", { text: "" }));
      tbody.append(tr);
    }
    if (ev.kind === "finished") {
      const cells = tr.children;
      cells[3].className = "status-" + ev.status;
      cells[3].textContent = word(ev.status);
      cells[4].textContent = ev.durationMs + " ms";
      if (ev.summary) cells[1].append(rpa.el("span", { class: "muted", text: " — " + ev.summary }));
    }
  };
  const es = new EventSource("/live/" + live.dataset.id + "/events?after=" + (live.dataset.seq || "0"));
  es.addEventListener("step", (m) => {
    const ev = JSON.parse(m.data);
    if (ev.index) row(ev);
    if (status && ev.total) status.textContent = word("running") + " " + ev.index + "/" + ev.total;
  });
  es.addEventListener("done", () => { es.close(); location.reload(); });
})();
