"""`opdiff graph MODEL.om|MODEL.json [--json OUT]`: what an offline model fused, and its atc JSON."""

from __future__ import annotations

import argparse
import gc
from collections import Counter
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from rich.console import Console

    from opdiff.graph import FusionMap


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "graph",
        help="summarise the fusion provenance of an .om model or its atc JSON; export atc JSON",
        description="Read an offline model (.om, OM2 package or atc --mode=1 JSON) and show its ops, "
        "fused ops, relations, inputs and outputs.",
    )
    parser.add_argument("model", metavar="MODEL", help="an .om file, OM2 package or atc --mode=1 JSON")
    parser.add_argument("--json", metavar="OUT", help="also write an atc --mode=1-compatible JSON here")
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="rows per table (default 20; 0 = all)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from opdiff.graph import GraphFormatError, read_graph, write_atc_json

    console = Console()
    try:
        fusion_map = read_graph(args.model)
        # The map lives until exit and holds no cycles: keep the collector from rescanning it.
        gc.freeze()
        if args.json:
            write_atc_json(fusion_map, args.json)
    except GraphFormatError as error:
        Console(stderr=True).print(f"[bold red]opdiff graph: error:[/] {error}", markup=True, highlight=False, soft_wrap=True)
        return 2
    except OSError as error:
        Console(stderr=True).print(f"[bold red]opdiff graph: error:[/] {args.json}: {error.strerror or error}", highlight=False, soft_wrap=True)
        return 2
    _print_summary(console, fusion_map, args.limit)
    if args.json:
        console.print(f"atc JSON written to [bold]{args.json}[/]", highlight=False)
    return 0


def _print_summary(console: "Console", fusion_map: "FusionMap", limit: int) -> None:
    from rich.table import Table

    fused = [group for group in fusion_map.groups if len(group.op_names) > 1 or len(group.original_names) > 1]
    overview = Table(title=f"model {fusion_map.name or '(unnamed)'}", show_header=False)
    overview.add_row("source", fusion_map.source)
    overview.add_row("graphs", str(len(fusion_map.graphs)))
    overview.add_row("ops", str(len(fusion_map.ops)))
    overview.add_row("fusion groups", str(len(fusion_map.groups)))
    overview.add_row("fused groups", str(len(fused)))
    console.print(overview)

    relations = Table(title="relations")
    relations.add_column("relation")
    relations.add_column("groups", justify="right")
    for relation, count in fusion_map.relation_counts.items():
        relations.add_row(relation.value, str(count))
    console.print(relations)

    by_type = Table(title="ops by type")
    by_type.add_column("type")
    by_type.add_column("ops", justify="right")
    for type_, count in _limited(Counter(op.type for op in fusion_map.ops).most_common(), limit):
        by_type.add_row(type_, str(count))
    console.print(by_type)

    fused_table = Table(title=f"fused ops ({len(fused)})")
    for column in ("index", "relation", "NPU ops", "original ops"):
        fused_table.add_column(column)
    for group in _limited(fused, limit):
        fused_table.add_row(str(group.index), group.relation.value, "\n".join(group.op_names), ", ".join(group.original_names) or "*")
    console.print(fused_table)

    io_table = Table(title="inputs and outputs")
    io_table.add_column("kind")
    io_table.add_column("tensor")
    io_table.add_column("dtype")
    io_table.add_column("origin shape")
    for op in fusion_map.data_ops:
        desc = op.output_descs[0] if op.output_descs else None
        io_table.add_row("input", op.name, desc.dtype if desc else "", _shape(desc.origin_shape if desc else None))
    for ref in fusion_map.output_refs:
        producer = fusion_map.producer(ref)
        desc = producer.output_descs[ref.index] if producer and ref.index < len(producer.output_descs) else None
        io_table.add_row("output", str(ref), desc.dtype if desc else "", _shape(desc.origin_shape if desc else None))
    console.print(io_table)
    for warning in fusion_map.warnings:
        console.print(f"[yellow]note:[/] {warning}", highlight=False)


def _limited(rows: "list", limit: int) -> Iterable:
    return rows if limit <= 0 else rows[:limit]


def _shape(shape: "tuple | None") -> str:
    return "" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"
