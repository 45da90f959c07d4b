"""`opdiff demo --statistics`: the statistics-dump network (opdiff.demo.statistics_network)
written as a device in ``"dump_data": "stats"`` mode would write it, compared with its golden
through the fusion rule, and the report printed."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from rich.console import Console

import opdiff
from opdiff.advisor.statistics_advisor import advise_statistics
from opdiff.demo.statistics_network import write_statistics_case
from opdiff.report.file_names import result_file_name
from opdiff.report.statistics.console import print_statistics_report
from opdiff.report.tensor.console import print_findings
from opdiff.results.statistics_report import StatisticsReport


def run_statistics_demo(folder: Path, *, layout: str, dtype: str, fault_from: Optional[int], scale: float,
                        seed: int = 0, console: Optional[Console] = None) -> int:
    """Write the case into `folder`, compare it and print the report; a scale of 1 is no fault."""
    console = console or Console()
    try:
        case = write_statistics_case(folder, layout=layout, dtype=dtype, seed=seed,
                                     fault_from=None if scale == 1 else fault_from, scale=scale)
    except ValueError as error:
        console.print(f"[red]error:[/] {error}", soft_wrap=True)
        return 2
    except OSError as error:
        console.print(f"[red]error:[/] cannot write the demo data to {folder}: {error.strerror or error}", soft_wrap=True)
        return 2
    report = opdiff.compare(case.npu, case.golden, fusion_rule=case.rule, csv=folder / result_file_name())
    assert isinstance(report, StatisticsReport), "the statistics demo writes statistics dumps"
    fault = "no fault" if scale == 1 or fault_from is None else f"every output from op {fault_from} ({case.npu_ops[fault_from]}) on x{scale:g}"
    console.print(f"demo data in [bold]{folder}[/]: npu/ ({dtype} {layout} statistics dumps), golden/ (fp32 .npy), "
                  f"model.json (fusion rule); {fault}")
    print_statistics_report(report, console, report.verdict(), csv_path=str(report.csv_path))
    print_findings(advise_statistics(report), console)
    return 0
