"""`opdiff graph MODEL.om|MODEL.json|ge_proto_*.txt|ge_onnx_*.pbtxt [--json OUT]`: what a model fused, and its atc JSON."""

from __future__ import annotations

import argparse
import gc
from collections import Counter
from typing import TYPE_CHECKING, List, Optional, Tuple, TypeVar

from opdiff.commands.errors import print_error, print_note

if TYPE_CHECKING:
    from typing import Optional

    from rich.console import Console
    from rich.table import Table

    from opdiff.graph import FusionMap
    from opdiff.graph.model_facts import ModelFacts
    from opdiff.graph.om.reader import OmModel
    from opdiff.graph.read import GraphFile

T = TypeVar("T")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "graph",
        help="summarise the fusion provenance of an .om model, its atc JSON or a GE graph dump; export atc JSON",
        description="Read an offline model (.om, OM2 package or atc --mode=1 JSON) or a GE graph dump (ge_proto_*.txt, "
        "ge_onnx_*.pbtxt) and show its header and "
        "partitions (an .om), the ATC command line and soc_version, its ops, fused ops, relations, inputs and outputs.",
    )
    parser.add_argument("model", metavar="MODEL", help="an .om file, OM2 package, atc --mode=1 JSON or GE graph dump")
    parser.add_argument("--json", metavar="OUT", help="also write an atc --mode=1-compatible JSON here")
    parser.add_argument("--limit", type=int, default=20, metavar="N", help="rows per table (default 20; 0 = all)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.text import Text

    from opdiff.graph.errors import GraphFormatError
    from opdiff.graph.read import read_graph_file

    console = Console()
    try:
        graph = read_graph_file(args.model)
        fusion_map = graph.fusion_map
        # The map lives until exit and holds no cycles: keep the collector from rescanning it.
        gc.freeze()
        if args.json:
            from opdiff.graph.json_export import write_atc_json

            write_atc_json(fusion_map, args.json)
    except (GraphFormatError, OSError) as error:
        problem = str(error) if isinstance(error, GraphFormatError) else f"{args.json}: {error.strerror or error}"
        print_error(problem, prefix="opdiff graph: error: ")
        return 2
    _print_summary(console, graph, args.limit)
    if args.json:
        console.print(Text.assemble("atc JSON written to ", (args.json, "bold")), soft_wrap=True)
    if getattr(args, "whole_process", False):
        from opdiff.commands.exit_codes import exit_now

        exit_now(0)  # the output is written and closed; freeing the graph would only cost time
    return 0


def _print_summary(console: Console, graph: GraphFile, limit: int) -> None:
    from rich.markup import escape
    from rich.table import Table

    fusion_map, om = graph.fusion_map, graph.om
    fused = [group for group in fusion_map.groups if len(group.op_names) > 1 or len(group.original_names) > 1]
    overview = Table(title=escape(f"model {fusion_map.name or '(unnamed)'}"), show_header=False)
    overview.add_column()
    overview.add_column(overflow="fold")  # a long path folds, whole, on a narrow terminal
    overview.add_row("source", escape(fusion_map.source))
    overview.add_row("kind", graph.kind.value)
    if om is not None:
        _add_om_rows(overview, om)
    _add_fact_rows(overview, graph.facts)
    overview.add_row("graphs", str(len(fusion_map.graphs)))
    overview.add_row("ops", str(len(fusion_map.ops)))
    overview.add_row("fusion groups", str(len(fusion_map.groups)))
    overview.add_row("fused groups", str(len(fused)))
    console.print(overview)
    if om is not None:
        console.print(_partition_table(om, limit))

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

    console.print(_op_table(fusion_map, limit))

    fused_table = Table(title=f"fused ops ({len(fused)})")
    for column in ("index", "relation", "NPU ops", "original ops"):
        fused_table.add_column(column, overflow="fold")  # an op name too long for a narrow terminal folds, whole
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
        print_note(warning, console)


def _add_om_rows(overview: Table, om: OmModel) -> None:
    from rich.markup import escape

    from opdiff.graph.om.header import ModelType

    header = om.header
    model_num = "no model_num field" if header.model_num is None else f"model_num {header.model_num}"
    overview.add_row("header version", f"{header.version_name} (0x{header.version:08X}), {model_num}")
    model_type = ModelType(header.modeltype).name if header.modeltype in ModelType._value2member_map_ else str(header.modeltype)
    overview.add_row("model type", f"{model_type}, {'wide' if header.wide_table else 'tiny (legacy)'} partition tables")
    overview.add_row("platform version", escape(header.platform_version) or "-")
    overview.add_row("header lengths", f"length {header.length}, model_length {header.model_length}")
    parts = "; ".join(
        f"{sub.index}: " + ", ".join(p.type.name for p in sub.partitions) for sub in om.submodels
    )
    overview.add_row("sub-models", f"{len(om.submodels)} ({parts})")
    overview.add_row("attribute compression", "yes" if om.root_dictionary is not None else "no")


def _add_fact_rows(overview: Table, facts: ModelFacts) -> None:
    """What ATC recorded of the build; "not recorded" where the model has no such attribute."""
    from rich.markup import escape

    missing = "[dim]not recorded[/]"
    soc = escape(facts.soc_version) + (" (from the ATC command line)" if facts.soc_from_cmdline else "") if facts.soc_version else missing
    overview.add_row("soc_version", soc)
    overview.add_row("ATC command line", escape(facts.atc_cmdline) if facts.atc_cmdline else missing)
    if facts.atc_version:
        overview.add_row("ATC version", escape(facts.atc_version))
    if facts.framework_type:
        overview.add_row("framework", escape(facts.framework_type))


def _partition_table(om: OmModel, limit: int) -> Table:
    from rich.table import Table

    rows = [(sub.index, partition) for sub in om.submodels for partition in sub.partitions]
    table = Table(title=f"partitions ({len(rows)})", caption=_cut_caption(len(rows), limit, "partitions"))
    table.add_column("sub-model", justify="right")
    table.add_column("type")
    table.add_column("file offset", justify="right")
    table.add_column("bytes", justify="right")
    for index, partition in _limited(rows, limit):
        table.add_row(str(index), f"{partition.type.name} ({int(partition.type)})", f"{partition.offset:,}", f"{partition.size:,}")
    return table


def _op_table(fusion_map: FusionMap, limit: int) -> Table:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"ops ({len(fusion_map.ops)})", caption=_cut_caption(len(fusion_map.ops), limit, "ops"))
    table.add_column("id", justify="right")
    for column in ("op", "type", "original ops"):
        table.add_column(column, overflow="fold")  # whole names, not cut to an ellipsis on a narrow terminal
    for op in _limited(list(fusion_map.ops), limit):
        table.add_row(str(op.id), escape(op.name), escape(op.type), escape(", ".join(op.original_names)) or "*")
    return table


def _cut_caption(total: int, limit: int, what: str) -> Optional[str]:
    return f"the first {limit} of {total} {what}; --limit 0 lists all" if 0 < limit < total else None


def _limited(rows: List[T], limit: int) -> List[T]:
    return rows if limit <= 0 else rows[:limit]


def _shape(shape: Optional[Tuple[int, ...]]) -> str:
    return "" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"
