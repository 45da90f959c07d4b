"""`opdiff compare`'s parser, group by group, and its arguments as one CompareOptions."""

from __future__ import annotations

import argparse
from typing import Callable, Sequence

from opdiff.commands.args.cluster import add_cluster
from opdiff.commands.args.dump_paths import add_dump_paths, apply_dump_paths
from opdiff.commands.args.isolation import add_isolation
from opdiff.commands.args.output import add_output
from opdiff.commands.args.plugins import add_plugins, apply_plugins
from opdiff.commands.args.reports import add_reports, apply_reports
from opdiff.commands.args.rules import add_rules, apply_rules
from opdiff.commands.args.single_op import add_single_op
from opdiff.commands.args.threads import add_threads, apply_threads
from opdiff.commands.args.verdict import add_verdict, apply_verdict
from opdiff.engine.options import CompareOptions

# Each group's part of the options, in an order where a later part may read an earlier one
# (-advisor turns on the OverFlow column that -overflow_detection asks for; -alg names the plug-ins -c reads)
_PARTS: Sequence[Callable[[argparse.Namespace, CompareOptions], CompareOptions]] = (
    apply_dump_paths, apply_rules, apply_plugins, apply_verdict, apply_reports, apply_threads,
)


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """Every flag of `opdiff compare`, group by group."""
    add_dump_paths(parser)
    add_rules(parser)
    add_output(parser, "the result files")
    add_verdict(parser)
    add_plugins(parser)
    add_reports(parser)
    add_threads(parser, "tensor pairs compared at once")
    add_isolation(parser)
    add_single_op(parser)
    add_cluster(parser)


def compare_options(args: argparse.Namespace) -> CompareOptions:
    """The comparison the arguments ask for; ValueError naming the flag that is wrong."""
    options = CompareOptions()
    for part in _PARTS:
        options = part(args, options)
    return options
