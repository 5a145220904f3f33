// rpa console: the Record page reloads itself when the recording it shows ends
// (the browser window was closed), to show the result and the publish link.
"use strict";
(() => {
  const act = document.getElementById("rec-active");
  if (!act) return;
  const poll = async () => {
    try {
      const r = await fetch("/record/state", { credentials: "same-origin", headers: { "Accept": "application/json" } });
      const v = await r.json();
      if (!v.active) { location.reload(); return; }
    } catch (e) { /* the console went away: try again */ }
    setTimeout(poll, 1000);
  };
  setTimeout(poll, 1000);
})();
