"""`opdiff convert`: dump files to .npy (or raw .bin), optionally re-laid out to a logical format.

Output names follow the reference tool (msaccucmp-behaviour.md §6.6):

* ``{file}.{input|output}.{i}.npy`` — the stored array (dump shape, dump dtype);
* ``-t bin``: ``{file}.{input|output}.{i}.{d0_d1_...}.{dtype}.{FORMAT}.bin`` — raw bytes;
* ``-f FORMAT [-s SHAPE]``: ``{file}.{input|output}.{i}.{d0xd1x...}.npy`` — the tensor laid out
  in FORMAT (logical shape SHAPE, default its original shape), padding removed;
* buffers ``{file}.l1buffer.{i}.bin``, workspaces ``{file}.space.{i}.bin``;
* ``Opdebug.Node_OpDebug.*`` overflow records: ``{file}.output.0.json``, the decoded record
  (addresses and status words in hex) instead of the raw bytes.

bfloat16/float8/HiFloat8 values are written as float32 .npy (as the reference does; np.load has no
such types), packed int4 as int8. Files are converted in parallel threads (the core releases the
GIL), each output is written under a temporary name and renamed, and a file that cannot be read
is reported and listed in ``convert_failed_file_list.txt`` while the others go on.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np

from opdiff.commands.errors import print_error, print_note

EXIT_SOME_FAILED = 11  # the reference's "invalid dump data" code
SKIPPED_NAMES = ("mapping.csv", "convert_failed_file_list.txt")
MAX_NAME = 255
WIDENED = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser("convert", help="convert dump files to .npy or .bin, optionally to a logical format",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-d", "--dump", required=True, metavar="FILE|DIR|F1,F2", help="a dump file, a directory of them, or a comma-separated list")
    parser.add_argument("-out", "--output", required=True, metavar="DIR", help="output directory (created if missing)")
    parser.add_argument("-t", "--type", choices=("npy", "bin"), default="npy", help="output file type (default npy)")
    parser.add_argument("-f", "--format", metavar="FORMAT", help="lay tensors out in this logical format (NCHW, NHWC, ND, ...)")
    parser.add_argument("-s", "--shape", metavar="D0,D1,...", help="logical shape for -f (default: each tensor's original shape)")
    parser.add_argument("-o", "--output-index", type=int, metavar="I", help="with -f: convert only output I")
    parser.add_argument("-i", "--input-index", type=int, metavar="I", help="with -f: convert only input I")
    parser.add_argument("-j", "--threads", type=int, default=0, help="files converted at once (default: every core)")
    parser.set_defaults(run=run)


@dataclass(frozen=True)
class ConvertOptions:
    out_dir: Path
    file_type: str = "npy"
    target_format: Optional[str] = None
    target_shape: Optional[Tuple[int, ...]] = None
    output_index: Optional[int] = None
    input_index: Optional[int] = None


@dataclass
class FileResult:
    path: Path
    written: List[Path] = field(default_factory=list)
    bytes_read: int = 0
    error: Optional[str] = None  # the file could not be read at all
    tensor_errors: List[str] = field(default_factory=list)  # tensors skipped, the rest written


def input_files(spec: str) -> List[Path]:
    """The files named by -d: one file, every regular file of a directory (not recursive, as the
    reference), or a comma-separated list."""
    paths = [Path(p) for p in spec.split(",") if p] if "," in spec else [Path(spec)]
    files: List[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.is_file() and p.name not in SKIPPED_NAMES and not p.name.startswith("."))
        else:
            files.append(path)
    return files


def npy_header(dtype: np.dtype, shape: Sequence[int]) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": tuple(shape)})
    return buffer.getvalue()


class NameMapper:
    """Shortens names of MAX_NAME characters or more (uuid3 + suffix) and records them in
    mapping.csv, as the reference does; shared by the worker threads."""

    def __init__(self, out_dir: Path) -> None:
        self._out_dir = out_dir
        self._lock = threading.Lock()

    def name(self, stem: str, suffix: str) -> str:
        full = stem + suffix
        if len(full) < MAX_NAME:
            return full
        short = uuid.uuid3(uuid.NAMESPACE_URL, full).hex + suffix
        with self._lock, open(self._out_dir / "mapping.csv", "a", encoding="utf-8") as mapping:
            mapping.write(f"{short},{full}\n")
        return short


def _publish(temporary: Path, final: Path) -> Path:
    os.replace(temporary, final)
    return final


@contextmanager
def _removed_on_failure(temporary: Path) -> Iterator[None]:
    """An output that fails midway (disk full, file truncated under us) leaves nothing behind."""
    try:
        yield
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _temporary(out_dir: Path, name: str) -> Path:
    return out_dir / f".opdiff-{uuid.uuid4().hex}.tmp"  # short: the final name may be near the limit


def convert_file(path: Path, options: ConvertOptions, names: NameMapper) -> FileResult:
    """Convert every tensor of one file; problems are recorded in the result, never raised."""
    from opdiff.dumps import DumpFormatError, read_dump
    from opdiff.dumps.opdebug import is_opdebug_name

    result = FileResult(path)
    try:
        dump = read_dump(path)
    except (DumpFormatError, OSError) as error:
        result.error = str(error)
        return result
    opdebug = is_opdebug_name(path)
    for tensor in dump.tensors:
        try:
            if opdebug and tensor.role.value == "output" and tensor.index == 0:
                written = _write_opdebug_json(path, tensor, options.out_dir, names)
            else:
                written = _convert_tensor(path, tensor, options, names)
        except (DumpFormatError, OSError) as error:
            result.tensor_errors.append(str(error))
            continue
        if written is not None:
            result.written.append(written)
            result.bytes_read += tensor.size
    return result


def _convert_tensor(path: Path, tensor, options: ConvertOptions, names: NameMapper) -> Optional[Path]:
    """Write one tensor; None when -o/-i leave it out."""
    from opdiff.dumps.reader import numpy_dtype

    role = tensor.role.value
    if role in ("buffer", "workspace"):
        kind = "l1buffer" if role == "buffer" else "space"
        return _write_raw(options.out_dir, names.name(path.name, f".{kind}.{tensor.index}.bin"), tensor)
    if options.target_format:
        if options.output_index is not None and (role != "output" or tensor.index != options.output_index):
            return None
        if options.input_index is not None and (role != "input" or tensor.index != options.input_index):
            return None
        view = tensor.view(options.target_format, options.target_shape)
    else:
        view = tensor.view(as_stored=True)
    shape = tuple(view.shape)
    widen = view.dtype in WIDENED
    if options.file_type == "bin":
        layout = options.target_format.upper() if options.target_format else tensor.format_name
        name = names.name(path.name, f".{role}.{tensor.index}.{'_'.join(map(str, shape))}.{view.stored_dtype}.{layout}.bin")
        if not options.target_format and tensor.dtype != "int4":
            return _write_raw(options.out_dir, name, tensor)
        return _write_view(options.out_dir, name, view, b"", False)
    dtype = np.dtype(np.float32) if widen else numpy_dtype(view.dtype)
    suffix = f".{role}.{tensor.index}.npy" if not options.target_format else f".{role}.{tensor.index}.{'x'.join(map(str, shape))}.npy"
    return _write_view(options.out_dir, names.name(path.name, suffix), view, npy_header(dtype, shape), widen)


def _write_opdebug_json(path: Path, tensor, out_dir: Path, names: NameMapper) -> Path:
    """The record an Opdebug dump holds in output 0, decoded, as ``{file}.output.0.json``."""
    from opdiff.dumps.opdebug import decode_opdebug, record_json

    record = decode_opdebug(tensor.stored_bytes(), path)
    tensor.check_intact()  # the mapped bytes are void if the file shrank meanwhile
    name = names.name(path.name, ".output.0.json")
    temporary = _temporary(out_dir, name)
    with _removed_on_failure(temporary):
        temporary.write_text(json.dumps(record_json(record, path), indent=2) + "\n", encoding="utf-8")
    return _publish(temporary, out_dir / name)


def _write_raw(out_dir: Path, name: str, tensor) -> Path:
    temporary = _temporary(out_dir, name)
    with _removed_on_failure(temporary):
        with open(temporary, "wb") as out:
            out.write(memoryview(tensor.stored_bytes()))  # straight from the mapped file
        tensor.check_intact()  # those bytes are void if the file shrank meanwhile
    return _publish(temporary, out_dir / name)


def _write_view(out_dir: Path, name: str, view, prefix: bytes, widen: bool) -> Path:
    temporary = _temporary(out_dir, name)
    with _removed_on_failure(temporary):
        view.write_file(str(temporary), prefix, float32=widen)
    return _publish(temporary, out_dir / name)


def prepare_output(out_dir: Path) -> None:
    """Creates `out_dir` and checks a file can be made in it; raises OSError when not."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".opdiff-probe-"):
        pass


def write_failed_list(out_dir: Path, failed: Sequence[FileResult]) -> None:
    """convert_failed_file_list.txt, written whole or not at all."""
    temporary = _temporary(out_dir, "convert_failed_file_list.txt")
    with _removed_on_failure(temporary):
        with open(temporary, "w", encoding="utf-8") as listing:
            listing.writelines(f"{r.path}\n" for r in failed)
    _publish(temporary, out_dir / "convert_failed_file_list.txt")


def convert(files: Sequence[Path], options: ConvertOptions, threads: int = 0) -> List[FileResult]:
    """Convert `files` in parallel; results in input order.

    >>> import numpy as np, opdiff, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = opdiff.write_dump(d / "Add.add.1.1.1700000000000000", "add", outputs=[np.ones((2, 3), np.float16)])
    >>> [p.name for r in convert([d / "Add.add.1.1.1700000000000000"], ConvertOptions(d / "out")) for p in r.written]
    ['Add.add.1.1.1700000000000000.output.0.npy']
    """
    prepare_output(options.out_dir)
    names = NameMapper(options.out_dir)
    workers = threads or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda p: convert_file(p, options, names), files))


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from opdiff.dumps.formats import format_name, format_number, parse_shape

    console = Console(stderr=True)
    try:
        target_format = format_name(format_number(args.format)) if args.format else None
        shape = parse_shape(args.shape)
    except ValueError as error:
        print_error(f"{error}", console)
        return 2
    if shape is not None and not target_format:
        print_error("-s needs -f", console)
        return 2
    files = input_files(args.dump)
    if not files:
        print_error(f"no files in {args.dump}", console)
        return 2
    options = ConvertOptions(Path(args.output), args.type, target_format, shape, args.output_index, args.input_index)
    try:
        prepare_output(options.out_dir)
    except OSError as error:
        print_error(f"cannot write to {options.out_dir}: {error.strerror or error}", console)
        return 2
    start = time.perf_counter()
    results = convert(files, options, args.threads)
    seconds = time.perf_counter() - start
    failed = [r for r in results if r.error or r.tensor_errors]
    for result in failed:
        for message in [result.error] if result.error else result.tensor_errors:
            print_note(message, console, label="skipped ")
    if failed:
        try:
            write_failed_list(options.out_dir, failed)
        except OSError as error:
            print_error(f"cannot write convert_failed_file_list.txt: {error.strerror or error}", console)
    megabytes = sum(r.bytes_read for r in results) / 1e6
    table = Table(title="opdiff convert", show_header=False)
    table.add_row("files converted", f"{len(results) - len(failed)} of {len(results)} in full")
    table.add_row("files written", str(sum(len(r.written) for r in results)))
    table.add_row("tensor data", f"{megabytes:,.1f} MB in {seconds:.2f} s ({megabytes / max(seconds, 1e-9):,.0f} MB/s)")
    table.add_row("output", str(options.out_dir))
    Console().print(table)
    return EXIT_SOME_FAILED if failed else 0
