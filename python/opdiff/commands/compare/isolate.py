"""``opdiff compare --isolate MODEL``: load the source model before anything is compared, then re-run
each op alone (opdiff.isolate) and write the isolation CSV beside the result CSV."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Optional

from rich.console import Console
from rich.markup import escape

from opdiff.graph import FusionMap


def check_isolate_args(args: argparse.Namespace, fusion_rule: Optional[FusionMap]) -> Any:
    """The loaded source model of --isolate, ONNX, a frozen TensorFlow .pb or a Caffe prototxt (None without it);
    ValueError (exit 2) naming the file and what is wrong."""
    if args.isolate is None:
        return None
    if fusion_rule is None:
        raise ValueError(f"{args.isolate}: --isolate needs -f, the device model's fusion rule (.om or atc JSON): it maps "
                         "each op to the model's nodes")
    from opdiff.isolate.load import load_source_graph

    if args.isolate_weights is not None and Path(args.isolate).suffix.lower() != ".prototxt":
        raise ValueError(f"{args.isolate_weights}: --isolate-weights is the caffemodel of a Caffe --isolate MODEL.prototxt")
    return load_source_graph(Path(args.isolate), threads=args.threads or 0, weights=args.isolate_weights)


def run_isolation(report: Any, args: argparse.Namespace, fusion_rule: FusionMap, model: Any, console: Console) -> Path:
    """Attach each op's local error to `report`'s rows and write the isolation CSV; ValueError when
    no compared op maps to a node of the model."""
    from opdiff.isolate.engine import isolate
    from opdiff.report.file_names import isolation_file_name
    from opdiff.report.tensor.isolation_csv import write_isolation_csv

    run = isolate(report, fusion_rule, model)  # on the files the comparison itself read
    if run.ops == 0:
        raise ValueError(f"{args.isolate}: --isolate: no compared op maps to a node of this model (its original op names "
                         "are not node names here: give the source model the device model was converted from)")
    report.rows = run.rows
    path = write_isolation_csv(report, args.output / isolation_file_name())
    console.print(f"isolation: {escape(str(path))} ({run.isolated_ops} of {run.ops} ops isolated, {run.sessions} "
                  f"{model.runtime} sessions, {run.seconds:.2f} s)", soft_wrap=True, highlight=False)
    return path
