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
    const first = rows.findIndex((r) => status(r) === "failing");
    const line = $("first-failure");
    if (first < 0) { line.hidden = true; return; }
    line.append("first failing tensor in execution order: ",
      el("a", { href: `#row=${first}`, class: "first-link", "data-row": String(first), text: rows[first][F.tensor_index] }),
      ` (Index ${rows[first][F.index]}, ${rows[first][F.op_type]})`);
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
      const scope = t.applies_to || "every tensor";
      if (!metrics.includes(t.metric)) metrics.push(t.metric);
      if (!pairs.includes(scope)) pairs.push(scope);
      cell[`${scope}\u0000${t.metric}`] = `${t.fails_when === "below" ? "<" : t.fails_when === "above" ? ">" : t.fails_when} ${roundThreshold(t.value)}`;
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
    // the kinds that name an op a precision search keeps: the graph's labels of its kept ops
    const keptKinds = new Set((data.graph && data.graph.kept_as) || []);
    for (const f of data.findings) {
      const good = f.kind === "end-to-end verdict" && /matches the golden/.test(f.advice);
      const meh = f.kind === "end-to-end verdict" && /deviate/.test(f.advice);
      const kept = keptKinds.has(f.kind);
      const at = rowOfFinding(f);
      const link = el("a", { href: `#row=${at}`, class: "finding-link", "data-row": String(at), text: f.tensor_index });
      const item = el("li", { class: "finding" },
        el("span", { class: `kind ${good ? "good" : meh ? "meh" : kept ? "kept" : "bad"}`, text: f.kind }), `: ${f.op} (`, link, `, Index ${f.index})`,
        el("div", { class: "evidence", text: f.evidence }));
      if (f.chain && f.chain.length) {
        const trend = f.chain.map(([t, c]) => `${t.split(":")[0]} ${fmt(num(c), 4)}`).join(" \u2192 ");
        item.append(el("div", { class: "trend", text: `cosine along the path: ${trend}` }));
      }
      item.append(el("div", { class: "advice", text: f.advice }));
      list.append(item);
    }
  }

  // ---- chart: the schema's series per compared row; similarities on the left (linear, up to 1),
  // errors on the right (log10), each dashed at its threshold
  const chart = { points: [], x0: 56, x1: 0, y0: 10, y1: 0 };
  const VIEW = data.view;
  function thresholdOf(series) {
    return series.threshold ? data.thresholds.find((t) => t.metric === series.threshold) : undefined;
  }
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
    const left = VIEW.series.filter((s) => s.axis === "left"), right = VIEW.series.filter((s) => s.axis === "right");
    let cmin = 1, rmin = Infinity, rmax = -Infinity;
    for (const s of left) { const thr = thresholdOf(s); if (thr) cmin = Math.min(cmin, thr.value); }
    for (const s of right) { const thr = thresholdOf(s); if (thr && thr.value > 0) { rmin = Math.min(rmin, thr.value); rmax = Math.max(rmax, thr.value); } }
    for (const i of pts) {
      for (const s of left) { const c = num(rows[i][F[s.field]]); if (isFinite(c)) cmin = Math.min(cmin, c); }
      for (const s of right) { const v = num(rows[i][F[s.field]]); if (isFinite(v) && v > 0) { rmin = Math.min(rmin, v); rmax = Math.max(rmax, v); } }
    }
    if (!isFinite(rmin)) { rmin = 1e-6; rmax = 1; }
    const lo = Math.floor(Math.log10(rmin)), hi = Math.max(Math.ceil(Math.log10(rmax)), lo + 1);
    cmin = Math.max(-1, cmin - (1 - cmin) * 0.05 - 1e-6);
    const X = (k) => chart.x0 + (pts.length > 1 ? (k / (pts.length - 1)) : 0.5) * (chart.x1 - chart.x0);
    const YC = (c) => chart.y0 + (1 - (c - cmin) / (1 - cmin)) * (chart.y1 - chart.y0);
    const YR = (e) => chart.y1 - ((Math.log10(Math.max(e, Math.pow(10, lo))) - lo) / (hi - lo)) * (chart.y1 - chart.y0);
    const Y = (s) => (s.axis === "left" ? YC : YR);
    chart.X = X;
    // axes and grid
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, H);
    g.strokeStyle = "#ddd"; g.lineWidth = 1; g.font = "11px system-ui, sans-serif"; g.fillStyle = "#555";
    if (left.length) {
      for (let k = 0; k <= 4; k++) {
        const c = cmin + (1 - cmin) * k / 4, y = YC(c);
        g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke();
        g.textAlign = "right"; g.fillStyle = left[0].colour; g.fillText(c.toFixed(4), chart.x0 - 4, y + 4);
      }
    }
    if (right.length) {
      g.textAlign = "left"; g.fillStyle = right[0].colour;
      for (let p = lo; p <= hi; p++) {
        const y = YR(Math.pow(10, p));
        if (!left.length) { g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke(); }
        g.fillText(`1e${p}`, chart.x1 + 4, y + 4);
      }
    }
    g.fillStyle = "#555"; g.textAlign = "center";
    g.fillText(`compared tensors in execution order (${pts.length})`, (chart.x0 + chart.x1) / 2, H - 8);
    g.strokeStyle = "#999"; g.strokeRect(chart.x0, chart.y0, chart.x1 - chart.x0, chart.y1 - chart.y0);
    // thresholds: dashed, in the colour of their series
    g.setLineDash([6, 4]); g.lineWidth = 1.5;
    for (const s of VIEW.series) {
      const thr = thresholdOf(s);
      if (!thr || (s.axis === "right" && !(thr.value > 0))) continue;
      g.strokeStyle = s.colour; const y = Y(s)(thr.value); g.beginPath(); g.moveTo(chart.x0, y); g.lineTo(chart.x1, y); g.stroke();
    }
    g.setLineDash([]);
    // series: errors first, so the similarity is drawn on top
    for (const s of right.concat(left)) {
      g.strokeStyle = s.colour; g.lineWidth = 1.2; g.beginPath();
      let open = false;
      pts.forEach((i, k) => {
        const v = num(rows[i][F[s.field]]);
        if (!isFinite(v)) { open = false; return; }
        const x = X(k), y = Y(s)(v);
        if (open) g.lineTo(x, y); else g.moveTo(x, y);
        open = true;
      });
      g.stroke();
    }
    // failing tensors marked on the first series (or on the axis when it is NaN)
    const marked = VIEW.series[0];
    g.fillStyle = "#c62828";
    pts.forEach((i, k) => {
      if (!rows[i][F.failing] || !marked) return;
      const v = num(rows[i][F[marked.field]]);
      g.beginPath(); g.arc(X(k), isFinite(v) ? Y(marked)(v) : chart.y1, 3, 0, 2 * Math.PI); g.fill();
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
    for (const s of left.concat(right)) legend.append(key(s.colour, `${s.label} (${s.axis === "left" ? "left axis" : "right axis, log"})`));
    legend.append(key("#c62828", "failing tensor"));
    for (const s of left.concat(right)) {
      const thr = thresholdOf(s);
      if (thr) legend.append(key(s.colour, `${s.label} threshold ${roundThreshold(thr.value)}`, true));
    }
    canvas.dataset.series = VIEW.series.map((s) => s.field).join(" ");
  }

  // ---- table: the schema's columns
  function cellOf(column, r, i) {
    const f = F[column.field];
    switch (column.kind) {
      case "position": return i;
      case "float": return num(r[f]);
      case "pair": return `${r[f] || ""}/${r[F[column.second]] || ""}`;
      case "list": return (r[f] || []).join(",");
      case "status": return status(r);
      case "reason": return (r[f] || []).join(", ");
      default: return r[f] === null || r[f] === undefined ? "" : r[f];
    }
  }
  const CELL_CLASS = { position: "num", int: "num", float: "num", status: "status", reason: "reason" };
  const COLUMNS = VIEW.columns.map((c) => [c.label, (r, i) => cellOf(c, r, i), c.kind]);
  const SEARCH = VIEW.search.map((name) => F[name]);
  const view = { order: rows.map((_, i) => i), shown: [], sortBy: -1, asc: true, page: 0, selected: -1 };

  function applyView() {
    const text = $("filter").value.trim().toLowerCase();
    const want = $("status").value;
    let shown = view.order.filter((i) => {
      const r = rows[i];
      if (want !== "all" && status(r) !== want) return false;
      if (!text) return true;
      return SEARCH.some((f) => String(r[f]).toLowerCase().includes(text))
        || VIEW.reasons.some((name) => (r[F[name]] || []).some((s) => s.toLowerCase().includes(text)));
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
      COLUMNS.forEach(([, key, kind], c) => {
        const v = key(r, i);
        // a value the row does not have (not compared) is an empty cell; a NaN it has reads "NaN"
        const absent = r[F[VIEW.columns[c].field]] === null;
        const text = kind === "float" ? (absent ? "" : fmtFloat(v)) : String(v);
        tr.append(el("td", kind === "reason" ? { class: kind, title: text, text } : { class: CELL_CLASS[kind] || "", text }));
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
    for (const section of VIEW.detail) {
      const when = section.when ? r[F[section.when]] : true;
      if (when === null || when === undefined || when === false) continue;
      if (section.title) panel.append(el("h3", { text: section.title }));
      if (section.lines.length) panel.append(table(section.lines.map(([label, field, kind]) => [label, detailText(r, field, kind)])));
      if (section.sides.length) {
        const sides = el("table", { class: "sides" }, el("tr", {}, el("th", { text: "" }), el("th", { text: "my" }), el("th", { text: "golden" })));
        for (const [label, mine, golden, kind] of section.sides) {
          sides.append(el("tr", {}, el("th", { text: label }), el("td", { text: detailText(r, mine, kind) }), el("td", { text: detailText(r, golden, kind) })));
        }
        panel.append(sides);
      }
    }
    const reasons = [].concat(...VIEW.reasons.map((name) => r[F[name]] || []));
    panel.append(el("h3", { text: "reasons" }), el("p", { class: "reasons", text: reasons.length ? reasons.join("; ") : "none" }));
    const tr = $(`row-${i}`);
    if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: "nearest" });
  }
  // One line of the detail: "pair" fields are "mine / golden" (the second field after "|").
  function detailText(r, field, kind) {
    if (kind === "status") return status(r);
    if (kind === "pair") { const [a, b] = field.split("|"); return `${r[F[a]] || "-"} / ${r[F[b]] || "-"}`; }
    const v = r[F[field]];
    if (kind === "float") return fmtFloat(num(v));
    if (kind === "list") return (v || []).join(", ");
    if (kind === "text") return v === null || v === undefined || v === "" ? "-" : String(v);
    return fmt(v);
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
