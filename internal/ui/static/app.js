// rpa console: shared helpers (no framework, nothing fetched from the network).
"use strict";
window.rpa = {
  // debounce returns fn delayed until ms after the last call.
  debounce(fn, ms) {
    let t = null;
    return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  },
  // post sends body as JSON and returns the decoded JSON answer (throws with the server's text).
  async post(url, body) {
    const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), credentials: "same-origin" });
    const text = await r.text();
    let v = null;
    try { v = JSON.parse(text); } catch (e) { v = null; }
    if (!r.ok) { const err = new Error((v && v.error) || text || r.statusText); err.status = r.status; err.body = v; throw err; }
    return v;
  },
  // el makes an element with attributes and children (strings become text nodes).
  el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") e.textContent = v; else e.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  },
};
