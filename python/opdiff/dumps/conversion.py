"""Converting dump files to .npy (or raw .bin), optionally re-laid out to a logical format: the
engine of `opdiff convert` (commands/convert.py), whose docstring lists the output names
(docs/reference/reference-tool.md §6.6).

Files are converted in parallel threads (the core releases the GIL); each output is written whole
or not at all (opdiff.fileio.atomic); a file that cannot be read is reported in its FileResult
while the others go on.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from opdiff.dumps import core_files
from opdiff.dumps.discovery import CONVERT_FAILED_LIST
from opdiff.dumps.numpy_types import numpy_dtype
from opdiff.dumps.opdebug import decode_opdebug, is_opdebug_name, record_json
from opdiff.dumps.reader import DumpFormatError, DumpTensor, read_dump, view_to_numpy
from opdiff.fileio.atomic import replacing, write_text

MAX_NAME = 255
WIDENED = ("bfloat16", "float8_e4m3fn", "float8_e5m2")


# A conversion a plug-in offers: (shape_from, shape_to, flat stored array, group) -> the array
Conversion = Callable[[Sequence[int], Sequence[int], np.ndarray, int], np.ndarray]
# (source format, target format) -> the plug-in's conversion between them, if it offers one (-c DIR)
ConversionLookup = Callable[[str, str], Optional[Conversion]]


@dataclass(frozen=True)
class ConvertOptions:
    out_dir: Path
    file_type: str = "npy"  # npy, bin, msnpy (npy named for MindSpore) or pt (PyTorch, needs torch)
    target_format: Optional[str] = None
    target_shape: Optional[Tuple[int, ...]] = None
    output_index: Optional[int] = None
    input_index: Optional[int] = None
    custom: Optional[ConversionLookup] = None  # -c DIR: converters that replace opdiff's own for -f


@dataclass
class FileResult:
    path: Path
    written: List[Path] = field(default_factory=list)
    bytes_read: int = 0
    error: Optional[str] = None  # the file could not be read at all
    tensor_errors: List[str] = field(default_factory=list)  # tensors skipped, the rest written


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


def convert_file(path: Path, options: ConvertOptions, names: NameMapper) -> FileResult:
    """Convert every tensor of one file; problems are recorded in the result, never raised."""
    result = FileResult(path)
    try:
        dump = read_dump(path)
    except (DumpFormatError, OSError) as error:
        result.error = str(error)
        return result
    opdebug = is_opdebug_name(path)
    for tensor in dump.tensors:
        try:
            written: Optional[Path]
            if opdebug and tensor.role.value == "output" and tensor.index == 0:
                written = _write_opdebug_json(path, tensor, options.out_dir, names)
            else:
                written = _convert_tensor(path, tensor, options, names, dump.op_name)
        except (DumpFormatError, OSError) as error:
            result.tensor_errors.append(str(error))
            continue
        if written is not None:
            result.written.append(written)
            result.bytes_read += tensor.size
    return result


def _convert_tensor(path: Path, tensor: DumpTensor, options: ConvertOptions, names: NameMapper, op_name: str = "") -> Optional[Path]:
    """Write one tensor; None when -o/-i leave it out."""
    role = tensor.role.value
    if role in ("buffer", "workspace"):
        kind = "l1buffer" if role == "buffer" else "space"
        return _write_raw(options.out_dir, names.name(path.name, f".{kind}.{tensor.index}.bin"), tensor)
    if options.target_format:
        if options.output_index is not None and (role != "output" or tensor.index != options.output_index):
            return None
        if options.input_index is not None and (role != "input" or tensor.index != options.input_index):
            return None
        conversion = options.custom(tensor.format_name, options.target_format.upper()) if options.custom else None
        if conversion is not None:
            return _write_custom(path, tensor, options, names, conversion)
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
    if options.file_type == "pt":
        return _write_pt(options.out_dir, names.name(path.name, f".{role}.{tensor.index}.pt"), view, widen)
    dtype = np.dtype(np.float32) if widen else numpy_dtype(view.dtype)
    if options.file_type == "msnpy":
        layout = options.target_format.upper() if options.target_format else tensor.format_name
        name = names.name(msnpy_stem(path.name, op_name), f".{role}.{tensor.index}.{layout}.npy")
    else:
        suffix = f".{role}.{tensor.index}.npy" if not options.target_format else f".{role}.{tensor.index}.{'x'.join(map(str, shape))}.npy"
        name = names.name(path.name, suffix)
    return _write_view(options.out_dir, name, view, npy_header(dtype, shape), widen)


def _write_custom(path: Path, tensor: DumpTensor, options: ConvertOptions, names: NameMapper, conversion: Conversion) -> Path:
    """One tensor through a plug-in's converter (the stored elements, flat, in; its array out) as
    ``{file}.{role}.{i}.{d0xd1x...}.npy``; the converter's failure is the tensor's (DumpFormatError)."""
    stored = tensor.to_numpy(logical=False)
    if stored.dtype.name in WIDENED:
        stored = stored.astype(np.float32)
    shape_to = options.target_shape or tensor.original_shape or tensor.shape
    try:
        array = conversion(tensor.shape, shape_to, stored.reshape(-1), tensor.sub_format)
    except ValueError as error:  # the plug-ins' PluginError
        raise DumpFormatError(f"{path}: {tensor.role.value}:{tensor.index}: {error}") from None
    shape = "x".join(map(str, array.shape))
    name = names.name(path.name, f".{tensor.role.value}.{tensor.index}.{shape}.npy")
    with replacing(options.out_dir / name) as temporary:
        with open(temporary, "wb") as out:
            np.save(out, np.ascontiguousarray(array))
    return options.out_dir / name


def msnpy_stem(file_name: str, op_name: str) -> str:
    """The stem of an msnpy file (``-t msnpy``, for MindSpore): the dump's name with its op-name
    part (the second of a 5-part offline name) replaced by the last ``/`` part of the op name the
    dump holds; any other name as it is.

    >>> msnpy_stem("Conv2D.conv1_Conv2D.3.2.1700000000000000", "net/conv1/Conv2D")
    'Conv2D.Conv2D.3.2.1700000000000000'
    """
    parts = file_name.split(".")
    if len(parts) == 5 and op_name:
        parts[1] = op_name.split("/")[-1]
        return ".".join(parts)
    return file_name


def _write_pt(out_dir: Path, name: str, view: core_files.TensorView, widen: bool) -> Path:
    """One tensor as a PyTorch ``.pt`` file (``torch.save`` of the array in the view's shape)."""
    import torch  # only -t pt needs it; commands/convert.py checks it is installed first

    array = view_to_numpy(view)
    if widen:
        array = array.astype(np.float32)
    with replacing(out_dir / name) as temporary:
        torch.save(torch.from_numpy(np.ascontiguousarray(array)), str(temporary))
    return out_dir / name


def _write_opdebug_json(path: Path, tensor: DumpTensor, out_dir: Path, names: NameMapper) -> Path:
    """The record an Opdebug dump holds in output 0, decoded, as ``{file}.output.0.json``."""
    record = decode_opdebug(tensor.stored_bytes(), path)
    tensor.check_intact()  # the mapped bytes are void if the file shrank meanwhile
    return write_text(out_dir / names.name(path.name, ".output.0.json"), json.dumps(record_json(record, path), indent=2) + "\n")


def _write_raw(out_dir: Path, name: str, tensor: DumpTensor) -> Path:
    with replacing(out_dir / name) as temporary:
        with open(temporary, "wb") as out:
            out.write(tensor.stored_bytes().data)  # straight from the mapped file
        tensor.check_intact()  # those bytes are void if the file shrank meanwhile
    return out_dir / name


def _write_view(out_dir: Path, name: str, view: core_files.TensorView, prefix: bytes, widen: bool) -> Path:
    with replacing(out_dir / name) as temporary:
        view.write_file(str(temporary), prefix, float32=widen)
    return out_dir / name


def prepare_output(out_dir: Path) -> None:
    """Creates `out_dir` and checks a file can be made in it; raises OSError when not."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".opdiff-probe-"):
        pass


def write_failed_list(out_dir: Path, failed: Sequence[FileResult]) -> None:
    """convert_failed_file_list.txt, written whole or not at all."""
    write_text(out_dir / CONVERT_FAILED_LIST, "".join(f"{r.path}\n" for r in failed))


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
