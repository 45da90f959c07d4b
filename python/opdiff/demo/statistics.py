"""`opdiff demo --statistics`: the statistics-dump network (opdiff.demo.statistics_network)
written as a device in ``"dump_data": "stats"`` mode would write it, compared with its golden
through the fusion rule (commands/demo.py prints the result)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import opdiff
from opdiff.advisor.statistics_advisor import advise_statistics
from opdiff.demo.run import DemoRun
from opdiff.demo.statistics_network import write_statistics_case
from opdiff.report.file_names import result_file_name
from opdiff.results.statistics_report import StatisticsReport


def run_statistics_demo(folder: Path, *, layout: str, dtype: str, fault_from: Optional[int], scale: float,
                        seed: int = 0) -> DemoRun:
    """Write the case into `folder` and compare it; a scale of 1 is no fault. ValueError for a
    layout, dtype or op the network has not, OSError when `folder` cannot be written."""
    case = write_statistics_case(folder, layout=layout, dtype=dtype, seed=seed,
                                 fault_from=None if scale == 1 else fault_from, scale=scale)
    report = opdiff.compare(case.npu, case.golden, fusion_rule=case.rule, csv=folder / result_file_name())
    assert isinstance(report, StatisticsReport), "the statistics demo writes statistics dumps"
    fault = "no fault" if scale == 1 or fault_from is None else f"every output from op {fault_from} ({case.npu_ops[fault_from]}) on x{scale:g}"
    description = (f"demo data in [bold]{folder}[/]: npu/ ({dtype} {layout} statistics dumps), golden/ (fp32 .npy), "
                   f"model.json (fusion rule); {fault}")
    return DemoRun(description, report, advise_statistics(report))
