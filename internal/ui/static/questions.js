// rpa console: waiting questions (ask / hitl_prompt) of every local run.
// Follows /questions/events on any page that loads it: the count in the title
// and the nav, a desktop notification per new question, and on the Questions
// page the list of answer forms (kept in place while a person types).
"use strict";
(() => {
  if (window.rpaQuestions) return;
  window.rpaQuestions = true;
  const me = document.currentScript;
  const texts = (me && me.dataset) || {};
  const baseTitle = document.title;
  const seenKey = "rpa-questions-notified";
  const notified = new Set(JSON.parse(sessionStorage.getItem(seenKey) || "[]"));
  const root = document.getElementById("questions");

  function fmt(s, v) { return (s || "%s").replace(/%[sd]/, v); }
  function clock(iso) {
    if (!iso || iso.startsWith("0001-")) return "";
    const d = new Date(iso);
    return isNaN(d) ? "" : d.toLocaleTimeString();
  }

  function notify(q) {
    if (notified.has(q.id)) return;
    notified.add(q.id);
    sessionStorage.setItem(seenKey, JSON.stringify([...notified].slice(-200)));
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try { new Notification(fmt(texts.new, q.title), { body: q.message || "", tag: "rpa-q-" + q.id }); } catch (e) { /* not allowed here */ }
  }

  function badge(n) {
    document.title = n ? "(" + n + ") " + baseTitle : baseTitle;
    const link = document.querySelector('header nav a[href="/questions"]');
    if (!link) return;
    let b = link.querySelector(".q-badge");
    if (!n) { if (b) b.remove(); return; }
    if (!b) { b = rpa.el("span", { class: "badge q-badge" }); link.append(" ", b); }
    b.textContent = String(n);
    b.setAttribute("aria-label", fmt(texts.count, n));
  }

  function card(q) {
    const t = document.getElementById("q-template");
    const a = t.content.firstElementChild.cloneNode(true);
    a.dataset.id = q.id;
    const h = a.querySelector("h2");
    h.id = "q-" + q.id + "-title";
    h.textContent = q.title;
    a.setAttribute("aria-labelledby", h.id);
    const m = a.querySelector(".q-message");
    if (q.message) m.textContent = q.message; else m.remove();
    a.querySelector(".q-from").textContent = q.fromText || q.from || "";
    a.querySelector(".q-asked").textContent = clock(q.asked);
    const dl = clock(q.deadline);
    if (dl) a.querySelector(".q-deadline").textContent = dl; else a.querySelector(".q-dl").remove();
    const f = a.querySelector("form");
    f.setAttribute("action", "/questions/" + q.id);
    const input = f.querySelector("input[name=answer]");
    input.id = "q-" + q.id + "-answer";
    input.type = q.input === "password" ? "password" : q.input === "number" ? "number" : "text";
    f.querySelector("label").htmlFor = input.id;
    if (q.input !== "password") f.querySelector(".q-hidden").remove();
    return a;
  }

  function render(list) {
    if (!root) return;
    const want = new Map(list.map((q) => [q.id, q]));
    for (const a of root.querySelectorAll("article.question")) {
      if (!want.has(a.dataset.id)) a.remove();
    }
    const have = new Set([...root.querySelectorAll("article.question")].map((a) => a.dataset.id));
    for (const q of list) if (!have.has(q.id)) root.append(card(q));
    document.getElementById("q-none").hidden = list.length > 0;
  }

  function update(list) {
    badge(list.length);
    list.forEach(notify);
    render(list);
  }

  const es = new EventSource("/questions/events");
  es.addEventListener("questions", (ev) => {
    try { update(JSON.parse(ev.data) || []); } catch (e) { /* a broken event: wait for the next */ }
  });

  if (root) {
    root.addEventListener("submit", async (e) => {
      const f = e.target;
      e.preventDefault();
      const action = (e.submitter && e.submitter.value) || "send";
      const input = f.querySelector("input[name=answer]");
      const body = new URLSearchParams({ action: action, answer: action === "decline" ? "" : input.value });
      const status = document.getElementById("q-status");
      for (const b of f.querySelectorAll("button")) b.disabled = true;
      try {
        const r = await fetch(f.getAttribute("action"), { method: "POST", credentials: "same-origin", body: body,
          headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" } });
        const v = await r.json().catch(() => ({}));
        input.value = "";
        if (r.ok || r.status === 410) {
          f.closest("article").remove();
          document.getElementById("q-none").hidden = root.querySelector("article.question") !== null;
        } else {
          for (const b of f.querySelectorAll("button")) b.disabled = false;
        }
        status.textContent = v.message || v.error || "";
      } catch (err) {
        for (const b of f.querySelectorAll("button")) b.disabled = false;
        status.textContent = String(err);
      }
    });
    const nb = document.getElementById("q-notify");
    const ns = document.getElementById("q-notify-state");
    const show = () => {
      if (!("Notification" in window) || Notification.permission === "denied") { ns.textContent = texts.notifyOff || ""; nb.hidden = true; return; }
      if (Notification.permission === "granted") { ns.textContent = texts.notifyOn || ""; nb.hidden = true; }
    };
    show();
    nb.addEventListener("click", () => { Notification.requestPermission().then(show, show); });
  }
})();
