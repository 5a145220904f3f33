// The query page: fetch a region's data page by page and render it as
// table#data-table. While a request runs the table is removed, so whoever
// reads "#data-table" waits for fresh data.
(function () {
  "use strict";
  const $ = (s) => document.querySelector(s);
  // Ids of the page's parts: the demo's, or those the body's data
  // attributes rename (the app's next version, demoapp.V2).
  const ids = Object.assign({ form: "query-form", region: "region", results: "results", table: "data-table" },
    document.body.dataset);
  let region = "";
  let page = 1;
  let busy = false;

  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }

  function setBusy(b) {
    busy = b;
    $("#query-btn").disabled = b;
    if (b) {
      $("#prev").disabled = true;
      $("#next").disabled = true;
    }
  }

  function render(d) {
    const cols = ["date", "region", "kWh", "peak", "valley", "cost"];
    const t = el("table", null, {
      id: ids.table, "data-region": d.region.code, "data-page": d.page,
      "data-pages": d.pages, "data-total": d.total,
    });
    const first = d.rows.length ? d.rows[0].date : "";
    const last = d.rows.length ? d.rows[d.rows.length - 1].date : "";
    t.appendChild(el("caption", d.region.name + " " + d.region.english +
      (first ? " · " + first + " – " + last : "") + " · page " + d.page + " of " + d.pages));
    const head = el("thead"), hr = el("tr");
    cols.forEach((c) => hr.appendChild(el("th", c, { scope: "col" })));
    head.appendChild(hr);
    t.appendChild(head);
    const body = el("tbody");
    d.rows.forEach((r) => {
      const tr = el("tr");
      cols.forEach((c) => tr.appendChild(el("td", r[c])));
      body.appendChild(tr);
    });
    t.appendChild(body);
    const foot = el("tfoot"), fr = el("tr");
    fr.appendChild(el("td", "Total 合计", { colspan: "2", class: "total-label" }));
    fr.appendChild(el("td", d.totals.kWh, { class: "total-kwh" }));
    fr.appendChild(el("td", d.totals.peak, { class: "total-peak" }));
    fr.appendChild(el("td", d.totals.valley, { class: "total-valley" }));
    fr.appendChild(el("td", d.totals.cost, { class: "total-cost" }));
    foot.appendChild(fr);
    t.appendChild(foot);

    const res = $("#" + ids.results);
    res.replaceChildren(t);
    if (!d.rows.length) {
      res.appendChild(el("p", "No data for this region 无数据", { id: "empty", class: "empty" }));
    }
    $("#summary").textContent = d.total + " records, " + d.overall.kWh + " kWh in all";
    $("#summary").dataset.total = d.total;
    $("#page-info").textContent = "Page " + d.page + " / " + d.pages;
    $("#pager").hidden = false;
    $("#prev").disabled = d.page <= 1;
    $("#next").disabled = d.page >= d.pages;
  }

  async function load(p) {
    if (busy) return;
    setBusy(true);
    $("#" + ids.results).replaceChildren();
    $("#summary").textContent = "";
    $("#status").textContent = "Loading… 加载中";
    try {
      const resp = await fetch("/api/data?region=" + encodeURIComponent(region) + "&page=" + p,
        { credentials: "same-origin" });
      if (resp.status === 401) {
        location.href = "/login";
        return;
      }
      const d = await resp.json();
      if (!resp.ok) throw new Error(d.error || resp.statusText);
      page = d.page;
      $("#status").textContent = "";
      render(d);
    } catch (e) {
      $("#status").textContent = "";
      $("#" + ids.results).replaceChildren(el("p", "Error: " + e.message, { id: "error", class: "error" }));
    } finally {
      busy = false;
      $("#query-btn").disabled = false;
    }
  }

  // The script is deferred: the document is parsed when it runs, before
  // DOMContentLoaded, so the handlers are in place when a driver sees the
  // page as loaded.
  $("#" + ids.form).addEventListener("submit", (ev) => {
    ev.preventDefault();
    region = $("#" + ids.region).value;
    load(1);
  });
  $("#prev").addEventListener("click", () => load(page - 1));
  $("#next").addEventListener("click", () => load(page + 1));
  // The button starts disabled in the HTML and is enabled only now, with
  // its handler in place: a click that comes too early cannot submit the
  // form natively (a real race of pages with deferred scripts).
  $("#query-btn").disabled = false;
})();
