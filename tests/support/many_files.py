"""A device dump folder holding very many files (issue 8: "a dump directory with 100k files"), for
tests and benchmarks of compare over it.

One chain model ``input -> op0 -> op1 -> ...`` (NPU vs golden .npy through its atc JSON). The NPU
step folder holds, up to `total` files:

* the newest dump of every op of the chain, some under digits-only names resolved by mapping.csv;
* older iterations of those ops (earlier timestamps) holding another op's values, so a run that
  picked one instead of the newest would fail the comparison;
* dumps of ops the model does not have (other subgraphs: not in the fusion rule);
* junk: names no dump pattern matches, hidden temporary files, ``.partial`` files, digits-only
  names without a mapping.csv entry, convert_failed_file_list.txt.

Some chain ops have no golden file and some no NPU dump. A second, older step folder holds a few
dumps that must not be read.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List

from opdiff.conventions.dump_names import NpuDumpName, device_file_name, golden_file_name, parse_npu_dump_name
from opdiff.graph import OutputDesc, write_atc_json
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from tests.support.graph_dumps import TIMESTAMP, write_graph_dumps

SHAPE = (1, 16, 2, 2)


@dataclass
class ManyFiles:
    """Where things are and what a complete comparison must show."""

    npu: Path  # the step folder compare reads
    golden: Path
    rule: Path
    files_in_npu: int
    chain: List[str]  # op names in order
    no_golden: List[str]  # ops whose output has no golden .npy
    no_dump: List[str]  # ops without an NPU dump
    hashed: Dict[str, str] = field(default_factory=dict)  # op name -> digits-only file name
    junk: List[str] = field(default_factory=list)  # names compare must list as skipped, with a reason
    silent: List[str] = field(default_factory=list)  # names skipped without a note (.partial, service files)
    older_versions: int = 0
    foreign_ops: int = 0


def write_many_files(root: Path, *, total: int = 100_000, ops: int = 2_000, older: int = 2, junk: int = 10_000) -> ManyFiles:
    """Build the folders under `root`; `ops` chain ops, each with `older` earlier iterations, `junk`
    junk names, and dumps of foreign ops filling the step folder up to `total` files."""
    names = [f"layer{i}_op" for i in range(ops)]
    chain = [make_op("input", "Data", output_descs=[OutputDesc("input", 0, "NCHW", SHAPE)])]
    previous = "input"
    for k, name in enumerate(names):
        chain.append(make_op(name, "Relu", id_=k + 1, inputs=[f"{previous}:0"], output_descs=[OutputDesc(name, 0, "NCHW", SHAPE)]))
        previous = name
    rule = build_fusion_map("many", [("g", chain)])
    rule_path = write_atc_json(rule, root / "many.json")
    made = write_graph_dumps(rule, root / "gen", max_elements=64)
    step = root / "npu" / "20261129000000" / "0" / "many" / "1" / "1"
    step.parent.mkdir(parents=True)
    made.npu.rename(step)
    layout = ManyFiles(step, made.golden, rule_path, 0, names, names[7::20], names[13::20])
    dumps = {_dump_name(path).op_name: path for path in step.iterdir()}
    for name in layout.no_golden:
        (made.golden / golden_file_name(name, 0, TIMESTAMP)).unlink()
    for name in layout.no_dump:
        dumps.pop(name).unlink()
    # Bulk files are hard links (real files with real contents, without the bytes and the time of
    # 100k copies): older iterations link to another op's dump, the rest to these two templates.
    paired = sorted(dumps)
    template, junk_text = root / "template.dump", root / "junk.txt"
    shutil.copyfile(dumps[paired[0]], template)
    junk_text.write_bytes(b"junk\n")
    # Older iterations: another op's values under this op's name, earlier timestamps.
    for i, name in enumerate(paired):
        source = dumps[paired[(i + 1) % len(paired)]]
        dump = _dump_name(dumps[name])
        for age in range(1, older + 1):
            older_name = device_file_name(dump.op_type, dump.op_name, dump.task_id, dump.stream_id or 0,
                                          dump.timestamp - 1_000_000 * age)
            os.link(source, step / older_name)
            layout.older_versions += 1
    # Digits-only names: every 50th op, resolved through mapping.csv.
    mapping = []
    for i, name in enumerate(paired[::50]):
        hashed = str(9_000_000_000 + i)
        dumps[name].rename(step / hashed)
        mapping.append(f"{hashed},{dumps[name].name}")
        layout.hashed[name] = hashed
    (step / "mapping.csv").write_text("\n".join(mapping) + "\n")
    (step / "convert_failed_file_list.txt").write_text("")
    layout.silent += ["mapping.csv", "convert_failed_file_list.txt"]
    for i in range(junk):
        kind = i % 5
        if kind == 0:
            name = f"core.{i}"  # a core file: no dump pattern
        elif kind == 1:
            name = f".opdiff-{i:08x}.tmp"  # a writer's temporary name
        elif kind == 2:
            name = device_file_name("Relu", f"layer{i}_op", i, 1, TIMESTAMP) + ".partial"  # half-written
        elif kind == 3:
            name = str(8_000_000_000 + i)  # digits-only, no mapping entry
        else:
            name = f"notes {i}.txt"  # spaces: no dump pattern
        os.link(template if kind in (2, 3) else junk_text, step / name)
        (layout.silent if kind == 2 else layout.junk).append(name)
    existing = sum(1 for _ in step.iterdir())
    for i in range(max(0, total - existing)):
        os.link(template, step / device_file_name("MatMul", f"other_graph_op{i}", 100_000 + i, 1, TIMESTAMP + 10_000 + i))
        layout.foreign_ops += 1
    layout.files_in_npu = sum(1 for _ in step.iterdir())
    older_step = step.parent / "0"  # an earlier step of the same model: compare takes the largest
    older_step.mkdir()
    for name in paired[:10]:
        os.link(template, older_step / f"Relu.{name}.1.1.{TIMESTAMP}")
    shutil.rmtree(root / "gen" / "npu", ignore_errors=True)
    return layout


def _dump_name(path: Path) -> NpuDumpName:
    name = parse_npu_dump_name(path)
    assert name is not None, f"{path}: written by write_graph_dumps, so a dump name"
    return name
