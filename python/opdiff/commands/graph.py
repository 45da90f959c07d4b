"""`opdiff graph MODEL.om|MODEL.json [--json OUT]`: what an offline model fused, and its atc JSON."""

from __future__ import annotations

import argparse
import gc
from collections import Counter
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from typing import Optional, Tuple

    from rich.console import Console
    from rich.table import Table

    from opdiff.graph import FusionMap
    from opdiff.graph.om_reader import OmModel
    from opdiff.graph.read import GraphKind


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
    from rich.text import Text

    from opdiff.graph.errors import GraphFormatError

    console = Console()
    try:
        kind, fusion_map, om = _load(args.model)
        # The map lives until exit and holds no cycles: keep the collector from rescanning it.
        gc.freeze()
        if args.json:
            from opdiff.graph.json_export import write_atc_json

            write_atc_json(fusion_map, args.json)
    except (GraphFormatError, OSError) as error:
        problem = str(error) if isinstance(error, GraphFormatError) else f"{args.json}: {error.strerror or error}"
        Console(stderr=True).print(Text.assemble(("opdiff graph: error: ", "bold red"), problem), soft_wrap=True)
        return 2
    _print_summary(console, fusion_map, args.limit, kind, om)
    if args.json:
        console.print(Text.assemble("atc JSON written to ", (args.json, "bold")))
    if getattr(args, "whole_process", False):
        from opdiff.cli import exit_now

        exit_now(0)  # the output is written and closed; freeing the graph would only cost time
    return 0


def _load(path: str) -> "Tuple[GraphKind, FusionMap, Optional[OmModel]]":
    """The file's kind, its FusionMap and, for an .om, the decoded file (for the header rows)."""
    from opdiff.graph.gc_pause import gc_paused
    from opdiff.graph.om_reader import read_om
    from opdiff.graph.read import GraphKind, detect_graph_kind, read_graph

    kind = detect_graph_kind(path)
    if kind is not GraphKind.OM:
        return kind, read_graph(path), None
    with gc_paused():
        om = read_om(path)
        return kind, om.fusion_map, om


def _print_summary(console: "Console", fusion_map: "FusionMap", limit: int, kind: "GraphKind", om: "Optional[OmModel]") -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    fused = [group for group in fusion_map.groups if len(group.op_names) > 1 or len(group.original_names) > 1]
    overview = Table(title=escape(f"model {fusion_map.name or '(unnamed)'}"), show_header=False)
    overview.add_row("source", escape(fusion_map.source))
    overview.add_row("kind", kind.value)
    if om is not None:
        _add_om_rows(overview, om)
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
        by_type.add_row(escape(type_), str(count))
    console.print(by_type)

    fused_table = Table(title=f"fused ops ({len(fused)})")
    for column in ("index", "relation", "NPU ops", "original ops"):
        fused_table.add_column(column)
    for group in _limited(fused, limit):
        fused_table.add_row(
            str(group.index), group.relation.value, escape("\n".join(group.op_names)), escape(", ".join(group.original_names)) or "*"
        )
    console.print(fused_table)

    io_table = Table(title="inputs and outputs")
    io_table.add_column("kind")
    io_table.add_column("tensor")
    io_table.add_column("dtype")
    io_table.add_column("origin shape")
    for op in fusion_map.data_ops:
        desc = op.output_descs[0] if op.output_descs else None
        io_table.add_row("input", escape(op.name), desc.dtype if desc else "", _shape(desc.origin_shape if desc else None))
    for ref in fusion_map.output_refs:
        producer = fusion_map.producer(ref)
        desc = producer.output_descs[ref.index] if producer and ref.index < len(producer.output_descs) else None
        io_table.add_row("output", escape(str(ref)), desc.dtype if desc else "", _shape(desc.origin_shape if desc else None))
    console.print(io_table)
    for warning in fusion_map.warnings:
        console.print(Text.assemble(("note: ", "yellow"), warning))


def _add_om_rows(overview: "Table", om: "OmModel") -> None:
    from rich.markup import escape

    from opdiff.graph.om_header import ModelType

    header = om.header
    model_type = ModelType(header.modeltype).name if header.modeltype in ModelType._value2member_map_ else str(header.modeltype)
    overview.add_row("model type", f"{model_type}, {'wide' if header.wide_table else 'tiny (legacy)'} partition tables")
    overview.add_row("platform version", escape(header.platform_version) or "-")
    parts = "; ".join(
        f"{sub.index}: " + ", ".join(p.type.name for p in sub.partitions) for sub in om.submodels
    )
    overview.add_row("sub-models", f"{len(om.submodels)} ({parts})")
    overview.add_row("attribute compression", "yes" if om.root_dictionary is not None else "no")


def _limited(rows: "list", limit: int) -> Iterable:
    return rows if limit <= 0 else rows[:limit]


def _shape(shape: "tuple | None") -> str:
    return "" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"
