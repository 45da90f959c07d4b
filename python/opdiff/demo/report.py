"""Runs the demo network as a framework would (fp32 golden, one .npy per op) and as an NPU would
(fp16, fused ops, 5HD layouts, one Ascend dump per op, one op faulty), writes the fusion rule (as
atc JSON, and as the .om ATC would have built), then compares the two with opdiff.compare
(commands/demo.py prints the result)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Dict

import numpy as np

import opdiff
from opdiff.advisor.tensor_advisor import advise
from opdiff.conventions.dump_names import device_file_name, golden_file_name
from opdiff.demo.fusion import fuse, fusion_rule, layout_of
from opdiff.demo.network import build_network, run_network, with_fault
from opdiff.demo.run import DemoRun
from opdiff.dumps import Tensor
from opdiff.dumps.writer import save_npy
from opdiff.graph import write_atc_json
from opdiff.graph.om.writer import write_fusion_map_om
from opdiff.report.file_names import result_file_name
from opdiff.results.tensor_report import Report


def write_case(folder: Path, seed: int, fault: str, fault_scale: float) -> Dict[str, Path]:
    """golden/ (.npy per framework op), npu/ (Ascend dumps per NPU op), the fusion rule as atc JSON
    (model.json) and the same model as an .om (model.om, standing for the one ATC builds).

    Compared, the case gives a Report that shows itself in a notebook and on the console:

    >>> import io, tempfile
    >>> from rich.console import Console
    >>> case = write_case(Path(tempfile.mkdtemp()), seed=0, fault="block2/conv1", fault_scale=1.5)
    >>> report = opdiff.compare(case["npu"], case["golden"], fusion_rule=case["rule"])
    >>> report.first_failure().op_type, report.verdict().fails(report.first_failure())
    ('Conv2D', True)
    >>> "first failing tensor in execution order" in report._repr_html_()
    True
    >>> console = Console(record=True, width=120, file=io.StringIO())
    >>> console.print(report)
    >>> "opdiff compare (npu vs golden (fusion rule))" in console.export_text()
    True
    """
    ops = build_network(seed)
    if fault not in {op.name for op in ops}:
        raise ValueError(f"no op named {fault!r} in the demo network")
    image = np.random.default_rng(seed + 1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    golden = run_network(ops, image)
    device = run_network(with_fault(ops, fault, fault_scale), image, np.float16)
    stamp = int(time.time() * 1e6)
    paths = {"golden": folder / "golden", "npu": folder / "npu", "rule": folder / "model.json", "om": folder / "model.om"}
    paths["golden"].mkdir(parents=True, exist_ok=True)
    paths["npu"].mkdir(parents=True, exist_ok=True)
    for name, array in golden.items():
        save_npy(paths["golden"] / golden_file_name(name, 0, stamp), array)
    npu_ops = fuse(ops)
    for task, op in enumerate(npu_ops, start=1):
        inputs = [Tensor(device[name], layout=layout_of(device[name]), dtype="float16") for name in op.inputs]
        output = device[op.output]
        opdiff.write_dump(
            paths["npu"] / device_file_name(op.type, op.name, task, 1, stamp + task),
            op.name,
            inputs=inputs,
            outputs=[Tensor(output, layout=layout_of(output), dtype="float16")],
        )
    rule = fusion_rule(npu_ops, {name: array.shape for name, array in golden.items()})
    write_atc_json(rule, paths["rule"])
    write_fusion_map_om(paths["om"], rule)
    return paths


def run_demo(folder: Path, seed: int, fault: str, fault_scale: float) -> DemoRun:
    """Write the case into `folder` and compare it; ValueError for a fault the network has not,
    OSError when `folder` cannot be written."""
    paths = write_case(folder, seed, fault, fault_scale)
    report = opdiff.compare(paths["npu"], paths["golden"], fusion_rule=paths["rule"], csv=folder / result_file_name())
    assert isinstance(report, Report), "the demo dumps full tensors"
    description = (f"demo data in [bold]{folder}[/]: npu/ (fp16 Ascend dumps, fused ops), golden/ (fp32 .npy), "
                   f"model.json and model.om (fusion rule); the device run has a fault in [bold]{fault}[/]")
    return DemoRun(description, report, advise(report, opdiff.read_graph(paths["rule"])))
