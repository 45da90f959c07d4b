"use strict";
// Renders the embedded opdiff report. Rows are arrays (data.fields names their positions); only one
// page of the table is in the DOM at a time, so 20,000 rows stay fast.
(function () {
  const data = JSON.parse(document.getElementById("opdiff-data").textContent);
  const F = {};
  data.fields.forEach((name, i) => { F[name] = i; });
  const rows = data.rows;
  // Undo the writer's packing: string-table positions back to strings, 0/1 back to booleans.
  const stringAt = data.string_fields.map((name) => F[name]);
  const boolAt = data.bool_fields.map((name) => F[name]);
  for (const r of rows) {
    for (const f of stringAt) if (r[f] !== null) r[f] = data.strings[r[f]];
    for (const f of boolAt) if (r[f] !== null) r[f] = r[f] === 1;
  }
  const PAGE = 100;
  const $ = (id) => document.getElementById(id);

  // JSON holds NaN and Inf as strings; numbers for sorting and drawing.
  function num(v) {
    if (typeof v === "number") return v;
    if (v === "nan") return NaN;
    if (v === "inf") return Infinity;
    if (v === "-inf") return -Infinity;
    return NaN;
  }
  function fmt(v, digits) {
    if (v === null || v === undefined) return "";
    if (typeof v === "string") return v;
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (Number.isInteger(v) && Math.abs(v) < 1e15 && !digits) return String(v);
    return digits ? v.toFixed(digits) : fmtFloat(v);
  }
  function fmtFloat(v) {
    if (isNaN(v)) return "NaN";
    if (!isFinite(v)) return v > 0 ? "inf" : "-inf";
    const a = Math.abs(v);
    return (a !== 0 && (a < 1e-4 || a >= 1e6)) ? v.toExponential(4) : v.toFixed(6);
  }
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const child of children) node.append(child);
    return node;
  }
  function status(r) {
    if (!r[F.compared]) return "missing";
    return r[F.failing] ? "failing" : "passing";
  }

  // ---- header
  function renderHeader() {
    const meta = $("meta");
    const items = [["scenario", data.scenario], ["my (compared)", data.my], ["golden", data.golden],
      ["verdict", data.verdict],
      ["created", `${data.created} by opdiff ${data.opdiff_version}${data.complete ? "" : " (interrupted: partial)"}`]];
    for (const [k, v] of items) { meta.append(el("dt", { text: k }), el("dd", { text: v })); }
    renderThresholds();
    const s = data.summary;
    $("summary").append(
      el("span", { class: "count", text: `${s.rows} rows` }),
      el("span", { class: "count", text: `${s.compared} compared` }),
      el("span", { class: "count pass", text: `${s.passing} pass` }),
      el("span", { class: "count fail", text: `${s.failing} fail` }),
      el("span", { class: "count", text: `${s.not_compared} not compared` }));
  }

  // A threshold as a person reads it: near 1 (cosine), enough decimals that 1 - value keeps 3
  // significant digits; elsewhere 3 significant digits.
  function roundThreshold(v) {
    if (typeof v !== "number" || !isFinite(v)) return fmt(v);
    if (v > 0.9 && v < 1) return v.toFixed(Math.max(4, Math.ceil(-Math.log10(1 - v)) + 2));
    return Number(v.toPrecision(3)).toString();
  }
  // The verdict's thresholds as a small table: one row per dtype pair, one column per metric.
  function renderThresholds() {
    const metrics = [], pairs = [], cell = {};
    for (const t of data.thresholds) {
      if (!metrics.includes(t.metric)) metrics.push(t.metric);
      if (!pairs.includes(t.applies_to)) pairs.push(t.applies_to);
      cell[`${t.applies_to}\u0000${t.metric}`] = `${t.fails_when === "below" ? "<" : t.fails_when === "above" ? ">" : t.fails_when} ${roundThreshold(t.value)}`;
    }
    const table = $("thresholds");
    if (!pairs.length) { table.hidden = true; return; }
    table.append(el("caption", { text: `thresholds of the verdict "${data.verdict}": a tensor fails when` }),
      el("tr", {}, el("th", { text: "applies to" }), ...metrics.map((m) => el("th", { text: m }))));
    for (const pair of pairs) {
      table.append(el("tr", {}, el("th", { text: pair }),
        ...metrics.map((m) => el("td", { class: "num", text: cell[`${pair}\u0000${m}`] || "" }))));
    }
  }

  // ---- findings: each links to its row (#row=N, N = position in data.rows)
  function rowOfFinding(f) {
    for (let i = 0; i < rows.length; i++) if (rows[i][F.tensor_index] === f.tensor_index) return i;
    return -1;
  }
  function renderFindings() {
    const list = $("findings");
    if (!data.findings.length) { list.append(el("li", { class: "hint", text: "no advisor findings in this report" })); return; }
    for (const f of data.findings) {
      const good = f.kind === "end-to-end verdict" && /matches the golden/.test(f.advice);
      const meh = f.kind === "end-to-end verdict" && /deviate/.test(f.advice);
      const at = rowOfFinding(f);
      const link = el("a", { href: `#row=${at}`, class: "finding-link", "data-row": String(at), text: f.tensor_index });
      const item = el("li", { class: "finding" },
        el("span", { class: `kind ${good ? "good" : meh ? "meh" : "bad"}`, text: f.kind }), `: ${f.op} (`, link, `, Index ${f.index})`,
        el("div", { class: "evidence", text: f.evidence }));
      if (f.chain && f.chain.length) {
        const trend = f.chain.map(([t, c]) => `${t.split(":")[0]} ${fmt(num(c), 4)}`).join(" \u2192 ");
        item.append(el("div", { class: "trend", text: `cosine along the path: ${trend}` }));
      }
      item.append(el("div", { class: "advice", text: f.advice }));
      list.append(item);
    }
  }

  // ---- chart: cosine (left, linear), max relative error and NormRatioError (right, log10) per compared row
  const chart = { points: [], x0: 56, x1: 0, y0: 10, y1: 0 };
  const NORM = "#ef6c00";
  function renderChart() {
    const canvas = $("chart");
    const ratio = window.devicePixelRatio || 1;
    const W = canvas.clientWidth || 1200, H = canvas.clientHeight || 280;
    canvas.width = W * ratio; canvas.height = H * ratio;
    const g = canvas.getContext("2d");
    g.scale(ratio, ratio);
    chart.x1 = W - 64; chart.y1 = H - 28;
    const pts = [];
    rows.forEach((r, i) => { if (r[F.compared]) pts.push(i); });
    chart.points = pts;
    const cosThr = data.thresholds.find((t) => t.metric === "CosineSimilarity");
    const relThr = data.thresholds.find((t) => t.metric === "MaxRelativeError");
    const normThr = data.thresholds.find((t) => t.metric === "NormRatioError");
    let cmin = cosThr ? cosThr.value : 1;
    let rmin = Infinity, rmax = -Infinity;
    for (const i of pts) {
      const c = num(rows[i][F.cosine_similarity]), e = num(rows[i][F.max_relative_error]);
      if (isFinite(c)) cmin = Math.min(cmin, c);
      const n = num(rows[i][F.norm_ratio_error]);
      for (const v of [e, n]) if (isFinite(v) && v > 0) { rmin = Math.min(rmin, v); rmax = Math.max(rmax, v); }
    }
    for (const thr of [relThr, normThr]) if (thr && thr.value > 0) { rmin = Math.min(rmin, thr.value); rmax = Math.max(rmax, thr.value); }
    if (!isFinite(rmin)) { rmin = 1e-6; rmax = 1; }
    const lo = Math.floor(Math.log10(rmin)), hi = Math.max(Math.ceil(Math.log10(rmax)), lo + 1);
    cmin = Math.max(-1, cmin - (1 - cmin) * 0.05 - 1e-6);
    const X = (k) => chart.x0 + (pts.length > 1 ? (k / (pts.length - 1)) : 0.5) * (chart.x1 - chart.x0);
    const YC = (c) => chart.y0 + (1 - (c - cmin) / (1 - cmin)) * (chart.y1 - chart.y0);
    const YR = (e) => chart.y1 - ((Math.log10(Math.max(e, Math.pow(10, lo))) - lo) / (hi - lo)) * (chart.y1 - chart.y0);
    chart.X = X;
    // axes and grid
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, H);
    g.strokeStyle = "#ddd"; g.lineWidth = 1; g.font = "11px system-ui, sans-serif"; g.fillStyle = "#555";
    for (let k = 0; k <= 4; k++) {
      const c = cmin + (1 - cmin) * k / 4, y = YC(c);
      g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke();
      g.textAlign = "right"; g.fillStyle = "#1565c0"; g.fillText(c.toFixed(4), chart.x0 - 4, y + 4);
    }
    g.textAlign = "left"; g.fillStyle = "#8e24aa";
    for (let p = lo; p <= hi; p++) g.fillText(`1e${p}`, chart.x1 + 4, YR(Math.pow(10, p)) + 4);
    g.fillStyle = "#555"; g.textAlign = "center";
    g.fillText(`compared tensors in execution order (${pts.length})`, (chart.x0 + chart.x1) / 2, H - 8);
    g.strokeStyle = "#999"; g.strokeRect(chart.x0, chart.y0, chart.x1 - chart.x0, chart.y1 - chart.y0);
    // thresholds: dashed, in the colour of their series
    g.setLineDash([6, 4]); g.lineWidth = 1.5;
    if (cosThr) { g.strokeStyle = "#1565c0"; const y = YC(cosThr.value); g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke(); }
    if (relThr && relThr.value > 0) { g.strokeStyle = "#8e24aa"; const y = YR(relThr.value); g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke(); }
    if (normThr && normThr.value > 0) { g.strokeStyle = NORM; const y = YR(normThr.value); g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke(); }
    g.setLineDash([]);
    // series
    const series = (field, Y, colour) => {
      g.strokeStyle = colour; g.lineWidth = 1.2; g.beginPath();
      let open = false;
      pts.forEach((i, k) => {
        const v = num(rows[i][field]);
        if (!isFinite(v)) { open = false; return; }
        const x = X(k), y = Y(v);
        if (open) g.lineTo(x, y); else g.moveTo(x, y);
        open = true;
      });
      g.stroke();
    };
    series(F.max_relative_error, YR, "rgba(142,36,170,0.75)");
    series(F.norm_ratio_error, YR, NORM);
    series(F.cosine_similarity, YC, "#1565c0");
    // failing tensors marked at their cosine (or on the axis when it is NaN)
    g.fillStyle = "#c62828";
    pts.forEach((i, k) => {
      if (!rows[i][F.failing]) return;
      const c = num(rows[i][F.cosine_similarity]);
      g.beginPath(); g.arc(X(k), isFinite(c) ? YC(c) : chart.y1, 3, 0, 2 * Math.PI); g.fill();
    });
    // let tests (and people) see the chart was drawn: count painted pixels in a column band
    const ink = g.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let p = 0; p < ink.length; p += 4 * 97) if (ink[p] < 250 || ink[p + 1] < 250 || ink[p + 2] < 250) painted++;
    canvas.dataset.points = String(pts.length);
    canvas.dataset.ink = String(painted);
    canvas.onclick = (event) => {
      const box = canvas.getBoundingClientRect();
      const x = (event.clientX - box.left) * (W / box.width);
      if (!pts.length) return;
      const k = Math.round(((x - chart.x0) / (chart.x1 - chart.x0)) * (pts.length - 1));
      showRow(pts[Math.max(0, Math.min(pts.length - 1, k))]);
    };
    const legend = $("legend");
    const key = (colour, text, dashed) => el("span", {}, el("i", { style: `background:${colour};${dashed ? "height:0;border-top:2px dashed " + colour : ""}` }), text);
    legend.append(key("#1565c0", "cosine similarity (left axis)"), key("#8e24aa", "max relative error (right axis, log)"),
      key(NORM, "NormRatioError (right axis, log)"), key("#c62828", "failing tensor"));
    if (cosThr) legend.append(key("#1565c0", `cosine threshold ${roundThreshold(cosThr.value)}`, true));
    if (relThr) legend.append(key("#8e24aa", `max relative error threshold ${roundThreshold(relThr.value)}`, true));
    if (normThr) legend.append(key(NORM, `NormRatioError threshold ${roundThreshold(normThr.value)}`, true));
    canvas.dataset.series = "cosine_similarity max_relative_error norm_ratio_error";
  }

  // ---- table
  const COLUMNS = [
    ["#", (r, i) => i, "num"], ["Index", (r) => r[F.index], "num"], ["OpType", (r) => r[F.op_type]],
    ["TensorIndex", (r) => r[F.tensor_index]], ["GroundTruth", (r) => r[F.ground_truth]],
    ["dtype", (r) => `${r[F.my_dtype] || ""}/${r[F.golden_dtype] || ""}`], ["Shape", (r) => (r[F.shape] || []).join(",")],
    ["Cosine", (r) => num(r[F.cosine_similarity]), "float"], ["MaxAbsErr", (r) => num(r[F.max_absolute_error]), "float"],
    ["MaxRelErr", (r) => num(r[F.max_relative_error]), "float"], ["MeanRelErr", (r) => num(r[F.mean_relative_error]), "float"],
    ["RMSE", (r) => num(r[F.root_mean_square_error]), "float"], ["status", (r) => status(r), "status"],
    ["reasons", (r) => (r[F.reasons] || []).join(", "), "reason"],
  ];
  const view = { order: rows.map((_, i) => i), shown: [], sortBy: -1, asc: true, page: 0, selected: -1 };

  function applyView() {
    const text = $("filter").value.trim().toLowerCase();
    const want = $("status").value;
    let shown = view.order.filter((i) => {
      const r = rows[i];
      if (want !== "all" && status(r) !== want) return false;
      if (!text) return true;
      return [F.op_type, F.tensor_index, F.npu_dump, F.ground_truth].some((f) => String(r[f]).toLowerCase().includes(text))
        || (r[F.reasons] || []).some((s) => s.toLowerCase().includes(text));
    });
    view.shown = shown;
    view.page = Math.min(view.page, Math.max(0, Math.ceil(shown.length / PAGE) - 1));
    renderPage();
  }
  function sortBy(c, asc) {
    view.asc = asc !== undefined ? asc : view.sortBy === c ? !view.asc : true;
    view.sortBy = c;
    const key = COLUMNS[c][1], sign = view.asc ? 1 : -1;
    // NaN (and missing rows) sort last either way: they are neither good nor bad numbers
    view.order = rows.map((_, i) => i).sort((a, b) => {
      const x = key(rows[a], a), y = key(rows[b], b);
      const xn = typeof x === "number" && isNaN(x), yn = typeof y === "number" && isNaN(y);
      if (xn || yn) return xn === yn ? a - b : xn ? 1 : -1;
      return (x < y ? -1 : x > y ? 1 : a - b) * sign;
    });
    document.querySelectorAll("#head th").forEach((th, k) => { th.className = k === c ? (view.asc ? "asc" : "desc") : ""; });
    applyView();
  }
  function renderPage() {
    const body = $("body");
    const pages = Math.max(1, Math.ceil(view.shown.length / PAGE));
    const start = view.page * PAGE;
    const frag = document.createDocumentFragment();
    for (const i of view.shown.slice(start, start + PAGE)) {
      const r = rows[i];
      const tr = el("tr", { class: `row ${status(r)}${i === view.selected ? " selected" : ""}`, id: `row-${i}`, "data-row": String(i) });
      COLUMNS.forEach(([, key, kind]) => {
        const v = key(r, i);
        const text = kind === "float" ? fmtFloat(v) : String(v);
        tr.append(el("td", kind === "reason" ? { class: kind, title: text, text } : { class: kind === "float" ? "num" : kind || "", text }));
      });
      frag.append(tr);
    }
    body.replaceChildren(frag);
    $("row-count").textContent = `${view.shown.length} of ${rows.length} rows`;
    $("row-count").dataset.shown = String(view.shown.length);
    $("page").textContent = `page ${view.page + 1} / ${pages}`;
    $("prev").disabled = view.page === 0;
    $("next").disabled = view.page >= pages - 1;
  }
  function renderTable() {
    const head = $("head");
    COLUMNS.forEach(([name], c) => { const th = el("th", { text: name }); th.onclick = () => sortBy(c); head.append(th); });
    $("filter").oninput = () => { view.page = 0; applyView(); };
    $("status").onchange = () => { view.page = 0; applyView(); };
    $("prev").onclick = () => { view.page--; renderPage(); };
    $("next").onclick = () => { view.page++; renderPage(); };
    $("body").onclick = (event) => {
      const tr = event.target.closest("tr.row");
      if (tr) location.hash = `row=${tr.dataset.row}`;
    };
    applyView();
  }

  // ---- detail of one row
  function showRow(i) {
    if (!(i >= 0 && i < rows.length)) return;
    view.selected = i;
    let at = view.shown.indexOf(i);
    if (at < 0) { $("filter").value = ""; $("status").value = "all"; view.shown = view.order.slice(); at = view.shown.indexOf(i); }
    view.page = Math.floor(at / PAGE);
    renderPage();
    const r = rows[i];
    const panel = $("detail");
    const table = (pairs) => {
      const t = el("table");
      for (const [k, v] of pairs) t.append(el("tr", {}, el("th", { text: k }), el("td", { text: v })));
      return t;
    };
    panel.replaceChildren(el("h3", { text: r[F.tensor_index] }));
    panel.dataset.row = String(i);
    panel.append(table([["status", status(r)], ["Index", fmt(r[F.index])], ["OpType", r[F.op_type]], ["NPUDump", r[F.npu_dump]],
      ["GroundTruth", r[F.ground_truth]], ["dtype (my / golden)", `${r[F.my_dtype] || "-"} / ${r[F.golden_dtype] || "-"}`],
      ["address (my / golden)", `${r[F.my_address] || "-"} / ${r[F.golden_address] || "-"}`],
      ["shape", (r[F.shape] || []).join(", ")], ["overflow", fmt(r[F.overflow])]]));
    if (r[F.compared]) {
      panel.append(el("h3", { text: "metrics" }));
      const names = ["count", "cosine_similarity", "max_absolute_error", "max_absolute_error_index", "max_relative_error",
        "max_relative_error_index", "mean_absolute_error", "mean_relative_error", "accumulated_relative_error",
        "relative_euclidean_distance", "root_mean_square_error", "kullback_leibler_divergence", "sqnr_db", "allclose_fraction",
        "norm_ratio_error"];
      panel.append(table(names.map((n) => [n, n === "count" || n.endsWith("_index") ? fmt(r[F[n]]) : fmtFloat(num(r[F[n]]))])));
      const stats = el("table", { class: "sides" }, el("tr", {}, el("th", { text: "" }), el("th", { text: "my" }), el("th", { text: "golden" })));
      for (const s of ["min", "max", "mean", "std", "nan", "pos_inf", "neg_inf"]) {
        stats.append(el("tr", {}, el("th", { text: s }), el("td", { text: side(r[F["x_" + s]], s) }), el("td", { text: side(r[F["y_" + s]], s) })));
      }
      panel.append(el("h3", { text: "both sides" }), stats);
    }
    if (r[F.local_verdict] !== null && r[F.local_verdict] !== undefined) {  // --isolate: the op re-run alone
      panel.append(el("h3", { text: "own error (op re-run alone on the device's inputs)" }));
      panel.append(table([["local verdict", r[F.local_verdict]], ["local cosine_similarity", fmtFloat(num(r[F.local_cosine_similarity]))],
        ["local norm_ratio_error", fmtFloat(num(r[F.local_norm_ratio_error]))], ["amplification", fmtFloat(num(r[F.local_amplification]))],
        ["reason", r[F.local_reason] || "-"]]));
    }
    const reasons = (r[F.reasons] || []).concat(r[F.notes] || []);
    panel.append(el("h3", { text: "reasons" }), el("p", { class: "reasons", text: reasons.length ? reasons.join("; ") : "none" }));
    const tr = $(`row-${i}`);
    if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: "nearest" });
  }
  function side(v, stat) {
    return ["nan", "pos_inf", "neg_inf"].includes(stat) ? fmt(v) : fmtFloat(num(v));
  }
  // The hash is a shareable view: #row=N opens a row; #status=failing&sort=Cosine&order=desc&q=conv
  // sets the table's filter and order.
  function followHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.has("status")) $("status").value = params.get("status");
    if (params.has("q")) $("filter").value = params.get("q");
    const c = COLUMNS.findIndex(([name]) => name === params.get("sort"));
    if (c >= 0) sortBy(c, params.get("order") !== "desc");
    else if (params.has("status") || params.has("q")) { view.page = 0; applyView(); }
    if (params.has("row")) showRow(Number(params.get("row")));
  }

  renderHeader();
  renderFindings();
  renderChart();
  renderTable();
  window.addEventListener("hashchange", followHash);
  followHash();
  // The graph view (graph.js, its own script) shares the parsed data and the row detail.
  window.opdiffReport = { data, rows, F, num, fmtFloat, el, status, showRow: (i) => { location.hash = `row=${i}`; } };
  document.body.dataset.renderMs = performance.now().toFixed(1);
  document.body.dataset.ready = "1";
})();
