"""``-map``: which files each tensor would be compared with, without comparing (docs/reference/reference-tool.md §3.6):
``mapping_<YYYYmmddHHMMSS>.csv`` with Index, OpType, NPUDump, GroundTruth, TensorIndex, NPUDumpPath,
GroundTruthPath (NaN where a side has no file)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable, Iterator, List, Sequence

from opdiff.dumps import DumpFormatError, read_dump
from opdiff.fileio.atomic import RESULT_MODE, replacing
from opdiff.match.op_matching import OpPlan

HEADER = ["Index", "OpType", "NPUDump", "GroundTruth", "TensorIndex", "NPUDumpPath", "GroundTruthPath"]


def mapping_rows(plans: Sequence[OpPlan]) -> Iterator[List[str]]:
    for plan in plans:
        counts = {"input": 0, "output": 0}
        if plan.my_path is not None:
            try:
                dump = read_dump(plan.my_path)
                counts = {"input": len(dump.inputs), "output": len(dump.outputs)}
            except (DumpFormatError, OSError):
                pass
        if not any(counts.values()):
            yield [str(plan.index), plan.op_type, plan.npu_dump, plan.ground_truth, "NaN", plan.my_path or "NaN", "NaN"]
            continue
        for role, target_of in (("input", plan.input_target), ("output", plan.output_target)):
            for k in range(counts[role]):
                target = target_of(k)
                if not target.skip:
                    yield [str(plan.index), plan.op_type, plan.npu_dump, plan.ground_truth, f"{plan.op_name}:{role}:{k}",
                           plan.my_path or "NaN", target.path or "NaN"]


def write_mapping_csv(plans: Sequence[OpPlan], path: Path) -> Path:
    """Write the mapping file through a temporary name; rows in Index order."""
    return write_mapping_rows(mapping_rows(sorted(plans, key=lambda plan: plan.index)), path)


def write_mapping_rows(rows: Iterable[Sequence[str]], path: Path) -> Path:
    """Write mapping rows already made (a cluster worker makes them where the files are) through a
    temporary name."""
    with replacing(path, mode=RESULT_MODE) as temporary:
        with open(temporary, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(HEADER)
            writer.writerows(rows)
    return Path(path)
