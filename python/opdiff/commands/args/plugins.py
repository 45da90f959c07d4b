"""The reference's plug-ins: ``-c DIR`` (custom algorithms and format converters) and ``-a``
(options for the algorithms), into CompareOptions (docs/plugins.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from opdiff.engine.options import CompareOptions


def add_plugins(parser: argparse.ArgumentParser, *, with_options: bool = True) -> None:
    """``-c DIR`` and (for compare) ``-a OPTIONS`` on `parser`."""
    parser.add_argument("-c", "--custom-script-path", dest="custom_script_path", type=Path, default=None, metavar="DIR",
                        help="plug-ins: DIR/algorithm/alg_{Name}.py (selected with -alg Name) and "
                        "DIR/format_convert/convert_{SRC}_to_{DST}.py; they are code, run with your rights")
    if with_options:
        parser.add_argument("-a", "--algorithm-options", dest="algorithm_options", default="", metavar="OPTIONS",
                            help="options for the algorithms, as strings: 'Name:param=value,param2=value;Name2:param=value'")


def apply_plugins(args: argparse.Namespace, options: CompareOptions) -> CompareOptions:
    """The plug-in folder read (PluginError, a ValueError, for a missing or malformed one) and -a."""
    return options.replace(plugins=args.custom_script_path, algorithm_options=args.algorithm_options)
