// The op x run heat map of a many-run summary: rows are op tensors in execution order, columns are
// runs; red cells fail the verdict, green pass, grey were not compared; a dark frame marks where a
// run first breaks. Drawn on a canvas so that thousands of cells stay cheap.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("data").textContent);
  const runs = data.runs, tensors = data.tensors, cells = data.cells;  // cells[t][r]: [value, failed] or null
  const COLOURS = { fail: "#d73027", pass: "#1a9850", none: "#e0e0e0", frame: "#000" };

  const summary = document.getElementById("summary");
  summary.textContent = `${data.totals.runs} runs: ${data.totals.compared} compared, ${data.totals.failing} failing, ` +
    `${data.totals.not_compared} not compared; verdict ${data.verdict}; cells show ${data.metric}.`;
  if (!data.complete) {
    const note = document.createElement("div");
    note.className = "incomplete";
    note.textContent = `incomplete: ${data.stopped_by || "stopped"}`;
    summary.appendChild(note);
  }
  const legend = document.getElementById("legend");
  for (const [name, colour] of [["fails", COLOURS.fail], ["passes", COLOURS.pass], ["not compared", COLOURS.none]]) {
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colour;
    legend.appendChild(swatch);
    legend.appendChild(document.createTextNode(name));
  }
  const frame = document.createElement("span");
  frame.className = "swatch frame";
  legend.appendChild(frame);
  legend.appendChild(document.createTextNode("the run's first failure (in execution order)"));
  legend.appendChild(document.createTextNode(`; hover a cell for its ${data.metric}`));

  const canvas = document.getElementById("heatmap");
  const size = Math.max(3, Math.min(18, Math.floor(1200 / Math.max(1, runs.length))));
  canvas.width = runs.length * size;
  canvas.height = tensors.length * size;
  const context = canvas.getContext("2d");
  for (let t = 0; t < tensors.length; t++) {
    for (let r = 0; r < runs.length; r++) {
      const cell = cells[t][r];
      context.fillStyle = cell === null ? COLOURS.none : cell[1] ? COLOURS.fail : COLOURS.pass;
      context.fillRect(r * size, t * size, size - (size > 4 ? 1 : 0), size - (size > 4 ? 1 : 0));
    }
  }
  // What was drawn, for the browser tests: cells in all, failing ones, frames.
  canvas.dataset.cells = String(tensors.length * runs.length);
  canvas.dataset.failing = String(cells.reduce((sum, row) => sum + row.filter((cell) => cell && cell[1]).length, 0));
  context.strokeStyle = COLOURS.frame;
  context.lineWidth = Math.max(1, size / 6);
  runs.forEach((run, r) => {
    const t = tensors.findIndex((tensor) => tensor.tensor === run.first_tensor);
    if (t >= 0) context.strokeRect(r * size + 0.5, t * size + 0.5, size - 1, size - 1);
  });
  canvas.dataset.frames = String(runs.filter((run) => run.first_tensor).length);

  labelAxes(size);

  const detail = document.getElementById("cell");
  canvas.addEventListener("mousemove", (event) => {
    const box = canvas.getBoundingClientRect();
    const r = Math.floor((event.clientX - box.left) / size), t = Math.floor((event.clientY - box.top) / size);
    if (r < 0 || t < 0 || r >= runs.length || t >= tensors.length) return;
    const cell = cells[t][r];
    const value = cell === null ? "not compared" : `${data.metric} ${cell[0]}${cell[1] ? " (fails)" : ""}`;
    detail.textContent = `${tensors[t].tensor}  ×  ${runs[r].label}: ${value}`;
  });

  // Axis labels in the page's text (not on the canvas, so that they stay sharp and searchable): every
  // run and op tensor where cells are tall enough for a line, else every k-th, so that none overlap.
  function labelAxes(size) {
    const every = Math.max(1, Math.ceil(12 / size));
    const xAxis = document.getElementById("x-axis"), yAxis = document.getElementById("y-axis");
    xAxis.style.width = `${runs.length * size}px`;
    yAxis.style.height = `${tensors.length * size}px`;
    let xLabels = 0, yLabels = 0;
    runs.forEach((run, r) => {
      if (r % every !== 0) return;
      const label = document.createElement("span");
      label.textContent = run.label;
      label.title = run.label;
      label.style.left = `${r * size + Math.max(0, (size - 14) / 2)}px`;
      xAxis.appendChild(label);
      xLabels++;
    });
    tensors.forEach((tensor, t) => {
      if (t % every !== 0) return;
      const label = document.createElement("span");
      label.textContent = tensor.tensor;
      label.title = tensor.tensor;
      label.style.top = `${t * size + Math.max(0, (size - 14) / 2)}px`;
      yAxis.appendChild(label);
      yLabels++;
    });
    xAxis.dataset.labels = String(xLabels);
    yAxis.dataset.labels = String(yLabels);
  }

  const body = document.querySelector("#runs tbody");
  for (const run of runs) {
    const row = document.createElement("tr");
    row.className = run.status !== "compared" ? "not-compared" : run.failed ? "failing" : "";
    for (const text of [run.label, run.status, run.compared, run.failed, run.first_tensor || "", run.reason || ""]) {
      const cell = document.createElement("td");
      cell.textContent = String(text);
      row.appendChild(cell);
    }
    body.appendChild(row);
  }
})();
