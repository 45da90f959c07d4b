"""`find_what_to_keep_tf`: the search for a frozen TensorFlow graph (``opdiff precision MODEL.pb``),
evaluated only through the device loop: opdiff makes no CPU run of a TensorFlow model in the
device's precision of its own to evaluate candidate sets with (dump-tf's ``--dtype fp16`` stands
in for a device in the tests and the docs, through that same loop).

* The golden is dump-tf's float32 run of the graph (:func:`opdiff.producers.tf.dump.run_frozen`:
  graph optimisation off, random ops seeded as dump-tf seeds them by default), at the model outputs
  dump-tf records (:func:`opdiff.producers.tf.graph.model_outputs`).
* The candidates are the graph's computing ops (:func:`opdiff.producers.tf.fp16.computing_ops`: a
  float32 output, not a Placeholder, Const, Identity-like or control-flow op), less those kept in
  every run.
* They are ranked by an isolation CSV's local errors or a comparison's error growth when given,
  else in graph order (noted in the finding): there is no fp16 CPU run to rank them by.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, List, Mapping, Optional, Tuple

import numpy as np

from opdiff.precision.candidates import Candidate, ranked_by_isolation
from opdiff.precision.device import DUMP_FOLDER, MODEL_FILE, DeviceEvaluator, step_folder
from opdiff.precision.evaluate import Evaluation
from opdiff.precision.html import GraphRows, device_rows
from opdiff.precision.run import PrecisionFinding, PrecisionOptions, open_steps
from opdiff.precision.search import Outcome, search
from opdiff.precision.target import Target
from opdiff.producers.tf.support import TfGraphDef

GRAPH_ORDER_NOTE = ("candidates ranked in graph order: opdiff makes no fp16 CPU run of a TensorFlow model to rank them "
                    "by (--isolation CSV, or a comparison -m/-g, ranks them by their errors)")


def find_what_to_keep_tf(graph_def: TfGraphDef, feeds: Mapping[str, np.ndarray], target: Target, out: Path,
                         options: PrecisionOptions, *, resume: bool = False,
                         on_step: Optional[Callable[[int, Evaluation], None]] = None) -> PrecisionFinding:
    """The 1-minimal set of `graph_def`'s ops to keep so that its outputs pass `target`, evaluated
    by ``options.device`` (required); the step log goes to ``out/steps.jsonl``. ValueError when
    there is no device loop, a kept op the graph lacks, or no model output was fetched."""
    from opdiff.conventions.keep_dtype import keep_list
    from opdiff.producers.tf.dump import TfDumpOptions, run_frozen
    from opdiff.producers.tf.fp16 import check_kept, computing_ops
    from opdiff.producers.tf.graph import imported_graph

    if options.device is None:
        raise ValueError("a TensorFlow model is evaluated only through the device loop: give --build and --run")
    started = time.perf_counter()
    check_kept(graph_def, keep_list(options.keep_names))
    golden_run = run_frozen(graph_def, feeds, TfDumpOptions(threads=options.threads))
    fetched = golden_run.fetched.tensors
    outputs = {name: _writer(name) for name in golden_run.outputs if name in fetched}
    if not outputs:
        raise ValueError(f"no model output could be fetched (outputs: {', '.join(golden_run.outputs) or 'none'})")
    golden = {name: fetched[name] for name in outputs}
    candidates = [Candidate(op.name, op.op_type, 0.0, op.position) for op in computing_ops(imported_graph(golden_run.graph_def))
                  if op.name not in options.keep_names and op.op_type not in options.keep_types]
    notes = [f"model output {name} could not be fetched: not checked" for name in golden_run.outputs if name not in fetched]
    # the HTML report needs each candidate's first output; the rest of the run is let go
    tensors = {name: fetched[name] for name in {f"{c.name}:0" for c in candidates} if name in fetched}
    del golden_run, fetched
    if options.local_errors is not None:
        ranked = ranked_by_isolation(candidates, options.local_errors)
    else:
        ranked = candidates
        notes.append(GRAPH_ORDER_NOTE)
    device = DeviceEvaluator(options.device, out, target, golden, outputs, options.keep_types, options.keep_names)
    steps = open_steps(device.evaluate, out, resume, on_step)
    result = search([c.name for c in ranked], steps, options.search)
    view, view_notes = _view(out, steps.order, ranked, tensors) if result.outcome is not Outcome.NOTHING_NEEDED else (None, [])
    finding = PrecisionFinding(result, ranked, steps, target, len(graph_def.node), view=view, notes=notes + view_notes)
    finding.seconds = time.perf_counter() - started
    finding.evaluation_seconds = sum(e.seconds for e in steps.order)
    return finding


def _writer(tensor: str) -> Tuple[str, int]:
    op, _, index = tensor.rpartition(":")
    return op, int(index)


def _view(out: Path, order: List[Evaluation], ranked: List[Candidate],
          golden: Mapping[str, np.ndarray]) -> Tuple[Optional[GraphRows], List[str]]:
    """The HTML report's graph and rows: the device's run with nothing kept (the search's first
    step) against the golden run; None, with a note, when that step's folder is gone."""
    step = step_folder(out, 1)
    if not order or order[0].kept or not (step / MODEL_FILE).is_file():
        return None, ["precision.html not written: the device's run with nothing kept (step 1) is not in the output folder"]
    try:
        return device_rows(step / DUMP_FOLDER, step / MODEL_FILE, ranked, golden, "float16"), []
    except (ValueError, OSError) as error:
        return None, [f"precision.html not written: {error}"]

