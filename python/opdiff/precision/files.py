"""What a search writes under its output folder:

* ``keep_dtype.cfg``: ATC's ``--keep_dtype`` file, the kept op names one a line (fp16), or
  ``OpType::X`` for an Ascend type all of whose ops are kept, when a rule gives the types;
* ``modify_mixlist.json``: ATC's ``--modify_mixlist`` file moving those types to the black list;
* ``amct_skip_layers.cfg``: for int8, the lines ``skip_layers : "NAME"`` of AMCT's simplified
  quantization config, the layers left unquantized;
* ``precision.json``: the report (each step, the ops kept, what each one gains at the outputs);
* ``precision.html``: compare's HTML report of the run with nothing kept, the kept ops marked kept
  ("kept in fp32", "left unquantized") on its graph view and in its findings (when a search ran:
  not when nothing needs keeping).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from opdiff.conventions.keep_dtype import keep_list, skip_layers_text
from opdiff.fileio.atomic import write_bytes
from opdiff.precision.evaluate import Evaluation, Mode
from opdiff.precision.html import write_precision_html
from opdiff.precision.run import PrecisionFinding
from opdiff.precision.steps import as_json

KEEP_DTYPE_FILE = "keep_dtype.cfg"
AMCT_SKIP_FILE = "amct_skip_layers.cfg"
REPORT_FILE = "precision.json"
HTML_FILE = "precision.html"
MIXLIST_FILE = "modify_mixlist.json"


def write_outputs(finding: PrecisionFinding, out: Path, mode: Mode, ascend_types: Optional[Mapping[str, str]] = None) -> List[Path]:
    """The files of the module notes, for what `finding` kept; the paths written. With
    `ascend_types` (each original op's Ascend IR type, from a rule), a type all of whose ops are
    kept, two or more, is one ``OpType::`` line, and modify_mixlist.json moves it to the black list."""
    kept = list(finding.result.kept)
    written = []
    if mode is Mode.INT8:
        written.append(write_bytes(out / AMCT_SKIP_FILE, skip_layers_text(kept).encode("utf-8")))
    else:
        names, types = whole_types(kept, ascend_types or {})
        written.append(write_bytes(out / KEEP_DTYPE_FILE, keep_list(names, types).text().encode("utf-8")))
        if types:
            mixlist = {"black-list": {"to-add": types}}  # to-add moves a type off the white or gray list onto the black one
            written.append(write_bytes(out / MIXLIST_FILE, json.dumps(mixlist, indent=2).encode("utf-8")))
    written.append(write_bytes(out / REPORT_FILE, json.dumps(report_json(finding, mode), indent=2).encode("utf-8")))
    if finding.view is not None:
        gains = {name: _gain_text(finding, name) for name in kept}
        written.append(write_precision_html(finding.view, kept, gains, out / HTML_FILE, mode=mode))
    return written


def _gain_text(finding: PrecisionFinding, name: str) -> str:
    gain = gain_of(finding, name)
    if gain is None:
        return ""
    with_it, without = gain["with"], gain["without"]
    assert isinstance(with_it, list) and isinstance(without, list)
    return "; ".join(f"{a['output']}: cosine {a['cosine']} with it, {b['cosine']} without; NormRatioError {a['norm_ratio_error']} "
                     f"with, {b['norm_ratio_error']} without" for a, b in zip(with_it, without))


def whole_types(kept: Sequence[str], ascend_types: Mapping[str, str]) -> Tuple[List[str], List[str]]:
    """`kept` as (op names, Ascend types): a type is named instead of its ops where every op of
    that type is kept and there are two or more (the shorter file).

    >>> whole_types(["a", "b", "c"], {"a": "MatMulV2", "b": "MatMulV2", "c": "Add", "d": "Add"})
    (['c'], ['MatMulV2'])
    """
    by_type: Dict[str, List[str]] = {}
    for name, type_ in ascend_types.items():
        by_type.setdefault(type_, []).append(name)
    chosen = [t for t, ops in by_type.items() if len(ops) > 1 and all(op in kept for op in ops)]
    covered = {op for t in chosen for op in by_type[t]}
    return [name for name in kept if name not in covered], sorted(chosen)


def gain_of(finding: PrecisionFinding, name: str) -> Optional[Dict[str, object]]:
    """What keeping `name` gains at the outputs: the checks with the kept set, and without `name`."""
    kept = list(finding.result.kept)
    with_it, without = finding.evaluation(kept), finding.evaluation([k for k in kept if k != name])
    if with_it is None or without is None:
        return None
    return {"op": name, "with": _outputs(with_it), "without": _outputs(without)}


def _outputs(evaluation: Evaluation) -> List[Dict[str, object]]:
    return [check.as_json() for check in evaluation.checks]


def _cost(finding: PrecisionFinding) -> Dict[str, object]:
    """The ops kept, their share of the model's ops, and of its multiply-adds (None when the model
    has no op whose multiply-adds are counted)."""
    kept = finding.result.kept
    total = sum(finding.multiply_adds.values())
    kept_macs = sum(finding.multiply_adds.get(name, 0) for name in kept)
    return {"ops_kept": len(kept), "ops": finding.ops, "share_of_ops": len(kept) / finding.ops if finding.ops else 0.0,
            "multiply_adds_kept": kept_macs, "share_of_multiply_adds": kept_macs / total if total else None}


def report_json(finding: PrecisionFinding, mode: Mode) -> Dict[str, object]:
    types = {c.name: c.op_type for c in finding.ranked}
    return {
        "outcome": finding.result.outcome.value,
        "mode": mode.value,
        "target": finding.target.text(),
        "kept": [{"op": name, "type": types.get(name, "")} for name in finding.result.kept],
        "gains": [g for g in (gain_of(finding, name) for name in finding.result.kept) if g is not None],
        "cost": _cost(finding),
        "candidates": [{"op": c.name, "type": c.op_type, "harm": c.harm if c.harm == c.harm and abs(c.harm) != float("inf") else str(c.harm)}
                       for c in finding.ranked],
        "evaluations": len(finding.steps.order),
        "evaluations_made_now": finding.steps.made,
        "seconds": round(finding.seconds, 3),
        "evaluation_seconds": round(finding.evaluation_seconds, 3),
        "reference_run_seconds": round(finding.reference_seconds, 3),
        "steps": [as_json(k + 1, e) for k, e in enumerate(finding.steps.order)],
        "notes": list(finding.notes),
    }
