"use strict";
// The graph view: the compared model's NPU ops as nodes (data.graph, from graph_view.py), laid out
// by dagre (vendored, unmodified) and drawn in SVG. Every op has one element, made once, that keeps
// its place in the DOM: an op inside a folded "/" scope is hidden (data-folded="true"), not removed.
// Only what is visible is laid out, so a 5,000-op graph opens with its scopes folded.
(function () {
  const report = window.opdiffReport;
  const svg = document.getElementById("graph");
  const section = document.getElementById("graph-section");
  if (!report || !report.data.graph || !svg || typeof dagre === "undefined") {
    if (section) section.hidden = true;
    return;
  }
  const G = report.data.graph;
  const { rows, F, num, fmtFloat, el } = report;
  const N = G.ops.length;
  const NS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  // Scopes opened when the page opens, breadth first, while at most this many items are visible.
  const FIRST_VIEW = 120;
  // A scope with more direct items (ops and scopes) than this gets them in runs of execution order,
  // each a scope of its own: no dagre graph grows past a few hundred nodes, however the ops are named.
  const CHUNK = 60;
  const NODE_H = 34, SCOPE_H = 38, LABEL_H = 18, PAD = 24;

  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const shortName = (name) => name.slice(name.lastIndexOf("/") + 1) || name;
  const labelWidth = (text, px) => Math.min(260, Math.max(64, Math.round(text.length * px) + 18));

  // ---- marks: culprits, the first divergence, the path from a model input to it; on a precision
  // search's page (only there: G.kept), the ops it keeps, each with its label ("kept in fp32")
  const culprit = new Set(G.culprits), onPath = new Set(G.path);
  const kept = new Map((G.kept || []).map((i, k) => [i, G.kept_as[k]]));
  const pathStep = new Set();
  for (let k = 1; k < G.path.length; k++) pathStep.add(`${G.path[k - 1]}>${G.path[k]}`);

  // ---- "/" scopes: a tree of names; each op sits in the scope named by its name up to the last "/"
  const root = { name: "", parent: null, ops: [], children: [], first: 0, total: 0, fails: 0, marked: false, kept: false, elem: null };
  const scopes = new Map([["", root]]);
  function scopeNamed(name) {
    let scope = scopes.get(name);
    if (scope) return scope;
    const cut = name.lastIndexOf("/");
    const parent = scopeNamed(cut < 0 ? "" : name.slice(0, cut));
    scope = { name, parent, ops: [], children: [], first: Infinity, total: 0, fails: 0, marked: false, kept: false, elem: null };
    parent.children.push(scope);
    scopes.set(name, scope);
    return scope;
  }
  const scopeOf = G.ops.map((name, i) => {
    const cut = name.lastIndexOf("/");
    const scope = scopeNamed(cut < 0 ? "" : name.slice(0, cut));
    scope.ops.push(i);
    const marked = culprit.has(i) || i === G.first_divergence;
    for (let s = scope; s; s = s.parent) {
      s.total++;
      s.first = Math.min(s.first, i);
      if (G.verdicts[i] === "fail") s.fails++;
      if (marked) s.marked = true;
      if (kept.has(i)) s.kept = true;
    }
    return scope;
  });
  function chunk(scope) {
    const children = scope.children.slice();
    const items = scope.children.map((s) => ({ first: s.first, scope: s })).concat(scope.ops.map((i) => ({ first: i, op: i })));
    if (items.length > CHUNK) {
      items.sort((a, b) => a.first - b.first);  // execution order
      const size = Math.max(CHUNK, Math.ceil(items.length / CHUNK));
      scope.children = [];
      scope.ops = [];
      for (let k = 0; k < items.length; k += size) {
        const part = items.slice(k, k + size);
        const label = `[${k + 1}\u2013${k + part.length}] of ${items.length}`;
        const run = { name: `${scope.name}#${label}`, label, synthetic: true, parent: scope, ops: [], children: [], first: part[0].first,
          total: 0, fails: 0, marked: false, kept: false, elem: null };
        for (const item of part) {
          if (item.scope) {
            item.scope.parent = run;
            run.children.push(item.scope);
            run.total += item.scope.total; run.fails += item.scope.fails; run.marked = run.marked || item.scope.marked;
            run.kept = run.kept || item.scope.kept;
          } else {
            scopeOf[item.op] = run;
            run.ops.push(item.op);
            run.total++;
            if (G.verdicts[item.op] === "fail") run.fails++;
            if (culprit.has(item.op) || item.op === G.first_divergence) run.marked = true;
            if (kept.has(item.op)) run.kept = true;
          }
        }
        scope.children.push(run);
        scopes.set(run.name, run);
      }
    }
    for (const child of children) chunk(child);
  }
  chunk(root);
  const scopeLabel = (scope) => scope.label || `${shortName(scope.name)}/`;
  const open = new Set([root]);
  // The item that stands for op i: its outermost folded scope, or the op itself.
  function standIn(i) {
    let found = null;
    for (let s = scopeOf[i]; s; s = s.parent) if (!open.has(s)) found = s;
    return found;
  }

  // ---- the elements, made once
  const layer = { clusters: svgEl("g", { id: "graph-clusters" }), edges: svgEl("g", { id: "graph-edges" }),
    scopes: svgEl("g", { id: "graph-scopes" }), ops: svgEl("g", { id: "graph-ops" }) };
  const view = svgEl("g", { id: "graph-view" });
  view.append(layer.clusters, layer.edges, layer.scopes, layer.ops);
  svg.append(view);

  function failFill(offBy) {
    // light red just past the threshold, dark red for an unrelated tensor
    return `hsl(0, 72%, ${Math.round(86 - 48 * offBy)}%)`;
  }
  const opElems = G.ops.map((name, i) => {
    const label = shortName(name);
    const w = labelWidth(label, 7);
    const node = svgEl("g", { class: "op", "data-op": name, "data-verdict": G.verdicts[i], "data-at": String(i),
      "data-folded": "true" });
    if (culprit.has(i)) node.setAttribute("data-culprit", "true");
    if (kept.has(i)) node.setAttribute("data-kept", "true");
    if (i === G.first_divergence) node.setAttribute("data-first-divergence", "true");
    if (onPath.has(i)) node.setAttribute("data-on-path", "true");
    if (G.local) node.setAttribute("data-local", G.local[i]);  // --isolate's local verdict, once it exists
    const box = svgEl("rect", { width: w, height: NODE_H, rx: 4 });
    if (G.verdicts[i] === "fail") {
      box.setAttribute("fill", failFill(G.off_by[i]));
      if (G.off_by[i] > 0.55) node.classList.add("dark");
    }
    node.append(box, svgEl("text", { x: 8, y: 13, class: "type" }, G.types[i]), svgEl("text", { x: 8, y: 27 }, label),
      svgEl("title", {}, `${name} (${G.types[i]}): ${G.verdicts[i]}`));
    // a kept op's ring goes around the box, so that a frame the box has (first divergence) still shows
    if (kept.has(i)) node.append(svgEl("rect", { class: "kept-ring", x: -4, y: -4, width: w + 8, height: NODE_H + 8, rx: 7 }));
    if (culprit.has(i) || i === G.first_divergence || kept.has(i)) {
      const words = [kept.get(i) || "", culprit.has(i) ? "culprit" : "", i === G.first_divergence ? "first divergence" : ""].filter(Boolean);
      node.append(svgEl("text", { x: w + (kept.has(i) ? 9 : 5), y: 21, class: kept.has(i) ? "badge kept" : "badge" }, words.join(" \u00b7 ")));
    }
    node._w = w;
    layer.ops.append(node);
    return node;
  });
  function scopeElem(scope) {
    if (scope.elem) return scope.elem;
    const label = scopeLabel(scope);
    const counts = `${scope.total} ops${scope.fails ? ` \u00b7 ${scope.fails} fail` : ""}`;
    const w = Math.max(labelWidth(label, 7.5), labelWidth(counts, 6.5));
    const node = svgEl("g", { class: "scope", "data-scope": scope.name, "data-hidden": "true",
      "data-scope-verdict": scope.fails ? "fail" : "pass" });  // not data-verdict: that is the ops' own
    if (scope.marked) node.setAttribute("data-marked", "true");
    if (scope.kept) node.setAttribute("data-kept", "true");
    node.append(svgEl("rect", { width: w, height: SCOPE_H, rx: 6 }), svgEl("text", { x: 8, y: 15 }, `\u25b8 ${label}`),
      svgEl("text", { x: 8, y: 30, class: "type" }, counts), svgEl("title", {}, `${scope.name}/: click to unfold`));
    node._w = w;
    layer.scopes.append(node);
    scope.elem = node;
    return node;
  }

  // ---- which scopes are open when the page opens
  function openFirstView() {
    let visible = root.children.length + root.ops.length;
    const queue = root.children.slice();
    while (queue.length) {
      const scope = queue.shift();
      const more = scope.children.length + scope.ops.length - 1;
      if (visible + more > FIRST_VIEW) continue;
      open.add(scope);
      visible += more;
      queue.push(...scope.children);
    }
    // what the advisor points at, and what a precision search keeps, is always in view
    for (const i of G.culprits.concat(G.first_divergence === null ? [] : [G.first_divergence], [...kept.keys()])) openAround(i);
  }
  function openAround(i) {
    let changed = false;
    for (let s = scopeOf[i]; s; s = s.parent) if (!open.has(s)) { open.add(s); changed = true; }
    return changed;
  }

  // ---- layout: each open scope is laid out on its own by dagre, its children (ops, folded scopes,
  // open scopes as boxes of their own layout's size) as nodes, so every dagre graph stays small
  // however large the model. An edge is routed by dagre in the innermost scope holding both ends,
  // between the children that hold them, and continued straight to ends deeper inside.
  const box = { w: 0, h: 0 };
  const placed = new Map();  // element -> {x, y} of its centre, for zooming to it
  const itemKey = (item) => (typeof item === "number" ? `o:${item}` : `s:${item.name}`);
  const containerOf = (item) => (typeof item === "number" ? scopeOf[item] : item.parent);
  function visibleEdges() {
    const byScope = new Map(), drawn = new Map();
    for (let i = 0; i < N; i++) {
      const b = standIn(i) || i;
      for (const p of G.inputs[i]) {
        const a = standIn(p) || p;
        if (a === b) continue;
        const key = `${itemKey(a)}\u0000${itemKey(b)}`;
        let edge = drawn.get(key);
        if (!edge) {
          // the innermost scope holding both ends, and its children that hold them
          const above = new Map();
          for (let s = containerOf(a), below = a; s; below = s, s = s.parent) above.set(s, below);
          let B = b, L = containerOf(b);
          while (!above.has(L)) { B = L; L = L.parent; }
          edge = { a, b, L, A: above.get(L), B, onPath: false };
          drawn.set(key, edge);
          if (!byScope.has(L)) byScope.set(L, []);
          byScope.get(L).push(edge);
        }
        if (pathStep.has(`${p}>${i}`)) edge.onPath = true;
      }
    }
    return { byScope, drawn };
  }
  function layoutScope(scope, byScope) {
    const graph = new dagre.graphlib.Graph();
    graph.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 30, marginx: scope === root ? PAD : 10, marginy: scope === root ? PAD : 8 });
    graph.setDefaultEdgeLabel(() => ({}));
    for (const child of scope.children) {
      if (open.has(child)) {
        const inner = layoutScope(child, byScope);
        graph.setNode(itemKey(child), { width: inner.w, height: inner.h, inner, scope: child });
      } else {
        graph.setNode(itemKey(child), { width: scopeElem(child)._w, height: SCOPE_H, scope: child });
      }
    }
    for (const i of scope.ops) graph.setNode(itemKey(i), { width: opElems[i]._w, height: NODE_H, op: i });
    for (const edge of byScope.get(scope) || []) {
      const A = itemKey(edge.A), B = itemKey(edge.B);
      if (A !== B && !graph.hasEdge(A, B)) graph.setEdge(A, B);
    }
    dagre.layout(graph);
    const size = graph.graph();
    const label = scope === root ? 0 : LABEL_H;
    return { scope, graph, w: Math.max(size.width || 0, labelWidth(scopeLabel(scope), 6.5) + 10), h: (size.height || 0) + label, label };
  }
  function place(laid, left, top, frames, origins) {
    const dx = left, dy = top + laid.label;
    origins.set(laid.scope, { x: dx, y: dy, graph: laid.graph });
    for (const key of laid.graph.nodes()) {
      const item = laid.graph.node(key);
      const x = dx + item.x - item.width / 2, y = dy + item.y - item.height / 2;
      if (item.inner) {
        const frame = svgEl("g", { class: "cluster", "data-scope": item.scope.name, transform: `translate(${x},${y})` });
        // the frame's label is its fold button: the middle of the frame is full of its ops
        const label = `\u25be ${scopeLabel(item.scope)}`;
        frame.append(svgEl("rect", { width: item.width, height: item.height, rx: 8 }),
          svgEl("rect", { class: "fold-tab", x: 2, y: 2, width: Math.min(item.width - 4, labelWidth(label, 6.5)), height: LABEL_H - 4, rx: 4 }),
          svgEl("text", { x: 8, y: 13 }, label), svgEl("title", {}, `${item.scope.name}: click the label to fold`));
        frames.append(frame);
        place(item.inner, x, y, frames, origins);
        continue;
      }
      const elem = item.scope ? item.scope.elem : opElems[item.op];
      elem.setAttribute("transform", `translate(${x},${y})`);
      elem.setAttribute(item.scope ? "data-hidden" : "data-folded", "false");
      placed.set(elem, { x: dx + item.x, y: dy + item.y, h: item.height });
    }
  }
  function edgePath(edge, origins) {
    const at = origins.get(edge.L);
    const route = at.graph.edge(itemKey(edge.A), itemKey(edge.B));
    const points = route ? route.points.map((p) => ({ x: p.x + at.x, y: p.y + at.y })) : [];
    const end = (item, top) => {
      const spot = placed.get(typeof item === "number" ? opElems[item] : item.elem);
      return { x: spot.x, y: spot.y + (top ? -spot.h / 2 : spot.h / 2) };
    };
    if (edge.a !== edge.A || !points.length) points.unshift(end(edge.a, false));
    if (edge.b !== edge.B || points.length < 2) points.push(end(edge.b, true));
    return points.map((p, k) => `${k ? "L" : "M"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join("");
  }
  function layout() {
    const start = performance.now();
    for (const node of opElems) node.setAttribute("data-folded", "true");
    for (const scope of scopes.values()) if (scope.elem) scope.elem.setAttribute("data-hidden", "true");
    placed.clear();
    const { byScope, drawn } = visibleEdges();
    const laid = layoutScope(root, byScope);
    const frames = document.createDocumentFragment(), origins = new Map();
    place(laid, 0, 0, frames, origins);
    layer.clusters.replaceChildren(frames);
    const edgeFrag = document.createDocumentFragment();
    for (const edge of drawn.values()) {
      edgeFrag.append(svgEl("path", { d: edgePath(edge, origins),
        class: `edge${edge.onPath ? " on-path" : ""}${G.source === "dump order" ? " order" : ""}`,
        "marker-end": `url(#${edge.onPath ? "arrow-path" : "arrow"})` }));
    }
    layer.edges.replaceChildren(edgeFrag);
    box.w = laid.w || 100; box.h = laid.h || 100;
    svg.dataset.layoutMs = (performance.now() - start).toFixed(1);
    svg.dataset.visible = String(placed.size);
    svg.dataset.openScopes = String(open.size - 1);
  }

  // ---- pan and zoom: the viewBox
  const cam = { x: 0, y: 0, w: 100, h: 100 };
  function applyCam() { svg.setAttribute("viewBox", `${cam.x} ${cam.y} ${cam.w} ${cam.h}`); }
  function aspect() { return (svg.clientHeight || 600) / (svg.clientWidth || 1000); }
  function fit() {
    const a = aspect();
    cam.w = Math.max(box.w, box.h / a, 300); cam.h = cam.w * a;
    cam.x = (box.w - cam.w) / 2; cam.y = Math.min(0, (box.h - cam.h) / 2);
    applyCam();
  }
  // The first view: the whole graph when it is readable so; else, at about the page's scale, the
  // first divergence (or the top of the graph).
  function firstCamera() {
    fit();
    const px = svg.clientWidth || 1000;
    if (cam.w <= 2.5 * px) return;
    const at = G.first_divergence === null ? null : placed.get(opElems[G.first_divergence]);
    cam.w = 1.2 * px; cam.h = cam.w * aspect();
    cam.x = at ? at.x - cam.w / 2 : box.w / 2 - cam.w / 2;
    cam.y = at ? at.y - cam.h / 2 : 0;
    applyCam();
  }
  function centreOn(elem) {
    const at = placed.get(elem);
    if (!at) return;
    cam.w = Math.min(Math.max(cam.w, 600), 1400); cam.h = cam.w * aspect();
    cam.x = at.x - cam.w / 2; cam.y = at.y - cam.h / 2;
    applyCam();
  }
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const r = svg.getBoundingClientRect();
    const fx = (event.clientX - r.left) / r.width, fy = (event.clientY - r.top) / r.height;
    const k = event.deltaY > 0 ? 1.15 : 1 / 1.15;
    const px = cam.x + fx * cam.w, py = cam.y + fy * cam.h;
    cam.w *= k; cam.h *= k; cam.x = px - fx * cam.w; cam.y = py - fy * cam.h;
    applyCam();
  }, { passive: false });
  let drag = null;
  svg.addEventListener("mousedown", (event) => { drag = { x: event.clientX, y: event.clientY, cx: cam.x, cy: cam.y, moved: false }; });
  window.addEventListener("mousemove", (event) => {
    if (!drag) return;
    if (!(event.buttons & 1)) { drag = null; return; }  // released outside the page: no stale drag
    const r = svg.getBoundingClientRect();
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) drag.moved = true;
    cam.x = drag.cx - dx * cam.w / r.width; cam.y = drag.cy - dy * cam.h / r.height;
    if (drag.moved) applyCam();
  });
  window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); });

  // ---- clicks: an op shows its details; a folded scope unfolds, an open one's frame folds it
  svg.addEventListener("click", (event) => {
    if (drag && drag.moved) return;
    const opNode = event.target.closest("[data-op]");
    if (opNode) { selectOp(Number(opNode.dataset.at)); return; }
    const scopeNode = event.target.closest(".scope, .fold-tab") && event.target.closest("[data-scope]");
    if (!scopeNode) return;
    const scope = scopes.get(scopeNode.dataset.scope);
    if (open.has(scope)) foldUnder(scope); else open.add(scope);
    layout();
    const elem = scope.elem && scope.elem.dataset.hidden === "false" ? scope.elem : null;
    if (elem) centreOn(elem);
  });
  function foldUnder(scope) {
    open.delete(scope);
    for (const child of scope.children) foldUnder(child);
  }

  let selected = -1;
  function selectOp(i, zoom) {
    if (!(i >= 0 && i < N)) return;
    if (openAround(i)) layout();
    if (selected >= 0) opElems[selected].classList.remove("selected");
    selected = i;
    opElems[i].classList.add("selected");
    if (zoom) centreOn(opElems[i]);
    showDetail(i);
  }
  function showDetail(i) {
    const panel = $("graph-detail");
    panel.dataset.selectedOp = G.ops[i];  // not data-op: that names the ops' own elements only
    const facts = el("table", {});
    const fact = (k, v) => facts.append(el("tr", {}, el("th", { text: k }), el("td", { text: v })));
    fact("type", G.types[i]);
    fact("verdict", G.verdicts[i]);
    const marks = [kept.get(i) || "", culprit.has(i) ? "culprit" : "", i === G.first_divergence ? "first divergence" : "",
      onPath.has(i) ? "on the path to the first divergence" : ""].filter(Boolean);
    if (marks.length) fact("marked", marks.join(", "));
    if (G.local) fact("local (isolated)", G.local[i]);
    const originals = el("ul", { class: "originals" });
    for (const name of G.originals[i]) originals.append(el("li", { text: name }));
    if (!G.originals[i].length) originals.append(el("li", { class: "hint", text: "none recorded" }));
    const tensors = el("table", { class: "op-rows" },
      el("tr", {}, el("th", { text: "tensor" }), el("th", { text: "status" }), el("th", { text: "cosine" }), el("th", { text: "NormRatioErr" })));
    for (const at of G.rows[i]) {
      const r = rows[at];
      tensors.append(el("tr", { class: report.status(r) },
        el("td", {}, el("a", { href: `#row=${at}`, class: "row-link", "data-row": String(at), text: r[F.tensor_index] })),
        el("td", { text: report.status(r) }), el("td", { class: "num", text: r[F.compared] ? fmtFloat(num(r[F.cosine_similarity])) : "" }),
        el("td", { class: "num", text: r[F.compared] ? fmtFloat(num(r[F.norm_ratio_error])) : "" })));
    }
    const inputs = el("p", { class: "inputs" });
    G.inputs[i].forEach((p, k) => {
      if (k) inputs.append(", ");
      inputs.append(el("a", { href: `#op=${encodeURIComponent(G.ops[p])}`, text: G.ops[p] }));
    });
    panel.replaceChildren(el("h3", { text: G.ops[i] }), facts,
      el("h4", { text: `rows (${G.rows[i].length})` }), G.rows[i].length ? tensors : el("p", { class: "hint", text: "no dump names this op" }),
      el("h4", { text: "original ops" }), originals);
    if (G.inputs[i].length) panel.append(el("h4", { text: G.source === "dump order" ? "after (execution order)" : "inputs from" }), inputs);
  }

  // ---- search by name: matches marked, the first one (then the next, on Enter) shown
  const search = { text: "", hits: [], at: -1 };
  function find(text) {
    for (const i of search.hits) opElems[i].removeAttribute("data-match");
    for (const scope of scopes.values()) if (scope.elem) scope.elem.removeAttribute("data-match");
    search.text = text.trim().toLowerCase();
    search.hits = [];
    search.at = -1;
    if (search.text) {
      G.ops.forEach((name, i) => { if (name.toLowerCase().includes(search.text)) search.hits.push(i); });
      for (const i of search.hits) {
        opElems[i].setAttribute("data-match", "true");
        const folded = standIn(i);
        if (folded) scopeElem(folded).setAttribute("data-match", "true");
      }
    }
    $("graph-found").textContent = search.text ? `${search.hits.length} found${search.hits.length ? " (Enter: next)" : ""}` : "";
    $("graph-found").dataset.found = String(search.hits.length);
  }
  function nextHit() {
    if (!search.hits.length) return;
    search.at = (search.at + 1) % search.hits.length;
    selectOp(search.hits[search.at], true);
    find($("graph-search").value);  // re-mark: unfolding may have changed which scopes stand in
  }
  $("graph-search").addEventListener("input", (event) => find(event.target.value));
  $("graph-search").addEventListener("keydown", (event) => { if (event.key === "Enter") nextHit(); });

  $("graph-fold").onclick = () => { foldUnder(root); open.add(root); layout(); fit(); };
  $("graph-unfold").onclick = () => { for (const scope of scopes.values()) open.add(scope); layout(); fit(); };
  $("graph-fit").onclick = fit;

  function legend() {
    const key = (cls, text) => el("span", { class: "key" }, el("i", { class: cls }), text);
    // a precision search's page (kept ops, no culprit) says what its ring means, not what a culprit is
    const culpritKey = culprit.size || !kept.size ? [key("culprit", "culprit")] : [];
    const keptKey = kept.size ? [key("kept", [...new Set(kept.values())].join(" / "))] : [];
    $("graph-legend").append(key("pass", "pass"), key("fail-light", "fail (darker: further off)"), key("not-compared", "not compared"),
      ...culpritKey, key("first", "first divergence"), key("path", "path from a model input"), ...keptKey);
  }
  function arrows() {
    const defs = svgEl("defs");
    for (const [id, cls] of [["arrow", "arrow"], ["arrow-path", "arrow on-path"]]) {
      const marker = svgEl("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
      marker.append(svgEl("path", { d: "M0,0L10,5L0,10z", class: cls }));
      defs.append(marker);
    }
    svg.prepend(defs);
  }

  // The hash: #op=NAME selects an op; #graph=unfolded opens every scope (the full layout).
  function followHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get("graph") === "unfolded") { for (const scope of scopes.values()) open.add(scope); layout(); fit(); }
    if (params.has("op")) {
      const i = G.ops.indexOf(params.get("op"));
      if (i >= 0) selectOp(i, true);
    }
  }

  const begun = performance.now();
  arrows();
  legend();
  const origin = G.source === "fusion rule" ? `from the fusion rule${G.name ? ` of ${G.name}` : ""}` : "as the dumps name them, in execution order";
  $("graph-section").querySelector("h2").textContent = `Graph (${N} ops, ${origin})`;
  openFirstView();
  layout();
  firstCamera();
  window.addEventListener("hashchange", followHash);
  followHash();
  svg.dataset.ops = String(N);
  svg.dataset.graphMs = (performance.now() - begun).toFixed(1);
  svg.dataset.ready = "1";
  document.body.dataset.graphReadyMs = performance.now().toFixed(1);
})();
