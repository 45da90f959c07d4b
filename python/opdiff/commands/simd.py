"""`opdiff simd`: which SIMD kernels this machine runs."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("simd", help="show the SIMD kernel path in use and what the CPU supports")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from opdiff import simd_info

    info = simd_info()
    table = Table(title="opdiff SIMD kernels", show_header=False)
    table.add_row("active", f"[bold green]{info['active']}[/]")
    table.add_row("supported", ", ".join(info["supported"]))
    table.add_row("cpu features", ", ".join(info["cpu_features"]) or "-")
    table.add_row("forced by OPDIFF_SIMD", info["forced_by"] or "-")
    Console().print(table)
    return 0
