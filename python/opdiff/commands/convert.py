"""`opdiff convert`: dump files to .npy (or raw .bin), optionally re-laid out to a logical format.

Output names follow the reference tool (docs/reference/reference-tool.md §6.6):

* ``{file}.{input|output}.{i}.npy`` — the stored array (dump shape, dump dtype);
* ``-t bin``: ``{file}.{input|output}.{i}.{d0_d1_...}.{dtype}.{FORMAT}.bin`` — raw bytes;
* ``-t msnpy`` (for MindSpore): ``{file'}.{input|output}.{i}.{FORMAT}.npy`` — the same array as npy
  (or, with -f, as laid out), where ``file'`` is the dump's name with its op-name part replaced by
  the last ``/`` part of the op name the dump holds, and FORMAT the array's layout;
* ``-t pt``: ``{file}.{input|output}.{i}.pt`` — the stored array as a PyTorch tensor
  (``torch.save``); it needs PyTorch installed, and takes no -f;
* ``-f FORMAT [-s SHAPE]``: ``{file}.{input|output}.{i}.{d0xd1x...}.npy`` — the tensor laid out
  in FORMAT (logical shape SHAPE, default its original shape), padding removed;
* ``-c DIR``: a converter ``DIR/format_convert/convert_{SRC}_to_{DST}.py`` for the tensor's format
  and -f's replaces opdiff's own (docs/plugins.md); its array is written as with -f;
* buffers ``{file}.l1buffer.{i}.bin``, workspaces ``{file}.space.{i}.bin``;
* a tfdbg dump root (v1 or v2): golden ``{op}.{output}.{µs}.npy`` files (``/`` as ``_``), the
  step of ``--step`` into the output folder, or every step into ``step_{n}/`` below it;
* ``Opdebug.Node_OpDebug.*`` overflow records: ``{file}.output.0.json``, the decoded record
  (addresses and status words in hex) instead of the raw bytes.

bfloat16/float8/HiFloat8 values are written as float32 .npy (as the reference does; np.load has no
such types), packed int4 as int8. Files are converted in parallel threads (the core releases the
GIL), each output is written under a temporary name and renamed, and a file that cannot be read
is reported and listed in ``convert_failed_file_list.txt`` while the others go on.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import List, Optional

from opdiff.commands.args.dump_paths import add_step
from opdiff.commands.args.output import add_output
from opdiff.commands.args.plugins import add_plugins
from opdiff.commands.args.threads import add_threads
from opdiff.commands.errors import print_error, print_note
from opdiff.commands.exit_codes import ExitCode
from opdiff.dumps.conversion import ConversionLookup, ConvertOptions, convert, prepare_output, write_failed_list
from opdiff.dumps.discovery import CONVERT_FAILED_LIST, NOT_DUMPS


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("convert", help="convert dump files to .npy or .bin, optionally to a logical format",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-d", "--dump", required=True, metavar="FILE|DIR|F1,F2", help="a dump file, a directory of them, or a comma-separated list")
    add_output(parser, "the converted files", required=True)
    parser.add_argument("-t", "--type", choices=("npy", "bin", "msnpy", "pt"), default="npy",
                        help="output file type: npy (default), bin, msnpy (npy named for MindSpore), pt (PyTorch; needs torch)")
    parser.add_argument("-f", "--format", metavar="FORMAT", help="lay tensors out in this logical format (NCHW, NHWC, ND, ...)")
    parser.add_argument("-s", "--shape", metavar="D0,D1,...", help="logical shape for -f (default: each tensor's original shape)")
    parser.add_argument("-o", "--output-index", type=int, metavar="I", help="with -f: convert only output I")
    parser.add_argument("-i", "--input-index", type=int, metavar="I", help="with -f: convert only input I")
    add_plugins(parser, with_options=False)
    add_threads(parser, "files converted at once")
    add_step(parser)  # a tfdbg root's step (default: every step, each into -out/step_{n}/)
    parser.set_defaults(run=run)


def input_files(spec: str) -> List[Path]:
    """The files named by -d: one file, every regular file of a directory (not recursive, as the
    reference), or a comma-separated list."""
    paths = [Path(p) for p in spec.split(",") if p] if "," in spec else [Path(spec)]
    files: List[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.is_file() and p.name not in NOT_DUMPS and not p.name.startswith("."))
        else:
            files.append(path)
    return files


def _custom_conversions(folder: Optional[Path]) -> Optional[ConversionLookup]:
    """-c DIR's converters (format_convert/convert_{SRC}_to_{DST}.py) as a lookup; None without -c."""
    if folder is None:
        return None
    from opdiff.plugins import read_plugins
    from opdiff.plugins.converters import ConverterSet

    return ConverterSet(read_plugins(folder)).find


def _file_type_refusal(file_type: str, target_format: Optional[str]) -> Optional[str]:
    """Why -t cannot be honoured here, or None: ``pt`` needs PyTorch, and writes stored arrays only."""
    if file_type != "pt":
        return None
    if importlib.util.find_spec("torch") is None:
        return "-t pt writes PyTorch tensors and needs PyTorch, which is not installed (pip install torch); -t npy writes the same arrays"
    if target_format:
        return "-t pt writes the stored arrays: it does not combine with -f (use -t npy or -t msnpy with -f)"
    return None


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from opdiff.commands.tfdbg_root import convert_root, is_tfdbg_root
    from opdiff.dumps.formats import format_name, format_number, parse_shape

    if is_tfdbg_root(args.dump):
        return convert_root(args)
    console = Console(stderr=True)
    try:
        target_format = format_name(format_number(args.format)) if args.format else None
        shape = parse_shape(args.shape)
    except ValueError as error:
        print_error(f"{error}", console)
        return ExitCode.BAD_INPUT
    if shape is not None and not target_format:
        print_error("-s needs -f", console)
        return ExitCode.BAD_INPUT
    refusal = _file_type_refusal(args.type, target_format)
    if refusal:
        print_error(refusal, console)
        return ExitCode.BAD_INPUT
    files = input_files(args.dump)
    if not files:
        print_error(f"no files in {args.dump}", console)
        return ExitCode.BAD_INPUT
    try:
        custom = _custom_conversions(args.custom_script_path)
    except ValueError as error:  # PluginError: the folder, or a script in it, cannot be used
        print_error(f"{error}", console)
        return ExitCode.BAD_INPUT
    options = ConvertOptions(Path(args.output), args.type, target_format, shape, args.output_index, args.input_index, custom)
    try:
        prepare_output(options.out_dir)
    except OSError as error:
        print_error(f"cannot write to {options.out_dir}: {error.strerror or error}", console)
        return ExitCode.BAD_INPUT
    start = time.perf_counter()
    results = convert(files, options, args.threads or 0)
    seconds = time.perf_counter() - start
    failed = [r for r in results if r.error or r.tensor_errors]
    for result in failed:
        for message in [result.error] if result.error else result.tensor_errors:
            print_note(message, console, label="skipped ")
    if failed:
        try:
            write_failed_list(options.out_dir, failed)
        except OSError as error:
            print_error(f"cannot write {CONVERT_FAILED_LIST}: {error.strerror or error}", console)
    megabytes = sum(r.bytes_read for r in results) / 1e6
    table = Table(title="opdiff convert", show_header=False)
    table.add_row("files converted", f"{len(results) - len(failed)} of {len(results)} in full")
    table.add_row("files written", str(sum(len(r.written) for r in results)))
    table.add_row("tensor data", f"{megabytes:,.1f} MB in {seconds:.2f} s ({megabytes / max(seconds, 1e-9):,.0f} MB/s)")
    table.add_row("output", str(options.out_dir))
    Console().print(table)
    return ExitCode.INVALID_DUMP_DATA if failed else ExitCode.OK
