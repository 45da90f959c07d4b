"""
opdiff native core
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
import typing_extensions
__all__: list[str] = ['AS_STORED', 'CHUNK_ELEMENTS', 'DumpFormatError', 'TensorFile', 'TensorFileCache', 'TensorView', 'ascend_dtype_name', 'ascend_format_name', 'ascend_format_number', 'ascend_from_dtype', 'compare_pairs', 'compare_views', 'compute_metrics', 'decode_dump_header', 'decode_to_float64', 'default_target_format', 'default_threads', 'dtype_from_ascend', 'open_tensor_file', 'read_statistics_files', 'reference_converts', 'simd_info', 'stored_bytes']
class DumpFormatError(ValueError):
    pass
class TensorFile:
    """
    An opened dump or .npy file (tensor bytes stay mapped).
    """
    def check_intact(self) -> None:
        """
        Raise DumpFormatError when the file shrank on disk since it was opened; call after reading its bytes.
        """
    @property
    def attrs(self) -> list:
        ...
    @property
    def dump_time(self) -> int:
        ...
    @property
    def file_size(self) -> int:
        """
        Bytes of the file when it was opened.
        """
    @property
    def form(self) -> str:
        ...
    @property
    def op_name(self) -> str:
        ...
    @property
    def path(self) -> str:
        ...
    @property
    def tensors(self) -> list:
        ...
    @property
    def truncated(self) -> bool:
        """
        Whether the file shrank on disk since it was opened (bytes read since then are void).
        """
    @property
    def version(self) -> str:
        ...
class TensorView:
    """
    One tensor laid out in a logical format; an ElementSource for the core.
    """
    def __init__(self, file: TensorFile, role: str, index: typing.SupportsInt | typing.SupportsIndex, as_stored: bool = False, format: typing.Any | None = None, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None) -> None:
        ...
    def read_into(self, out: typing_extensions.Buffer) -> None:
        """
        Copy the logical elements into a writable contiguous buffer of the exact size.
        """
    def read_range(self, start: typing.SupportsInt | typing.SupportsIndex, count: typing.SupportsInt | typing.SupportsIndex) -> bytes:
        """
        Components [start, start + count) as the metric engine reads them, in the source's element type (for tests: any range, chunk edges anywhere).
        """
    def read_siblings(self, first: typing.SupportsInt | typing.SupportsIndex, stride: typing.SupportsInt | typing.SupportsIndex, n: typing.SupportsInt | typing.SupportsIndex, count: typing.SupportsInt | typing.SupportsIndex) -> list:
        """
        Ranges [first + k * stride, ... + count) for k < n read in one pass (ElementSource::run_siblings).
        """
    def write_file(self, path: str, prefix: bytes = b'', float32: bool = False) -> None:
        """
        Write prefix + logical elements to a new file (float32=True widens real types to float32).
        """
    @property
    def count(self) -> int:
        ...
    @property
    def dtype(self) -> str:
        ...
    @property
    def file(self) -> TensorFile:
        ...
    @property
    def format(self) -> int:
        ...
    @property
    def gather_axes(self) -> list:
        """
        The gather's merged axes (tests and benches: which fast path a layout takes).
        """
    @property
    def identity(self) -> bool:
        ...
    @property
    def shape(self) -> list[int]:
        ...
    @property
    def sibling_count(self) -> int:
        ...
    @property
    def sibling_stride(self) -> int:
        ...
    @property
    def stored_dtype(self) -> str:
        ...
    @property
    def tile_axis(self) -> int:
        ...
class TensorFileCache:
    """
    Recently opened files by path (thread-safe; unreadable files remembered with their error). Holds at most budget_bytes of files, never one larger.
    """
    def __init__(self, capacity: typing.SupportsInt | typing.SupportsIndex = 256, budget_bytes: typing.SupportsInt | typing.SupportsIndex = 67108864) -> None:
        ...
    def get(self, path: str) -> TensorFile:
        """
        The open file at path (opened now or earlier); raises its DumpFormatError.
        """
    @property
    def bytes(self) -> int:
        ...
    @property
    def files(self) -> int:
        ...
def ascend_dtype_name(arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def ascend_format_name(arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def ascend_format_number(arg0: str) -> int | None:
    ...
def ascend_from_dtype(arg0: str) -> int:
    ...
def compare_pairs(mine: TensorFile, requests: list, cache: TensorFileCache, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, kl: bool = True, threads: typing.SupportsInt | typing.SupportsIndex = 0) -> list:
    """
    Tensors of one open file against their partners (found through the cache), in one call without the GIL.
    requests: (role, index, golden_path, golden_role, golden_index, target_format or None, max_elements); one dict per request: status (compared, golden_unreadable, my_type_unsupported, golden_type_unsupported, counts_differ, failed), message, golden_dtype, golden_data_type, golden_address, my_shape, golden_shape, metrics (the compute_metrics dict, or None).
    """
def compare_views(x: TensorView, y: TensorView, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, kl: bool = True, scalar_shape: bool = False, threads: typing.SupportsInt | typing.SupportsIndex = 0, max_elements: typing.SupportsInt | typing.SupportsIndex = 0) -> dict:
    """
    Every metric of x (my) against y (golden), reading both through their layouts; same dict as compute_metrics.
    max_elements > 0 compares only the first that many logical elements of each side.
    """
def compute_metrics(x: typing_extensions.Buffer, x_dtype: str, x_count: typing.SupportsInt | typing.SupportsIndex, y: typing_extensions.Buffer, y_dtype: str, y_count: typing.SupportsInt | typing.SupportsIndex, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, kl: bool = True, scalar_shape: bool = False, threads: typing.SupportsInt | typing.SupportsIndex = 0, simd: str | None = None) -> dict:
    """
    Compare two raw buffers element by element; returns a dict of metrics.
    """
def decode_dump_header(message: bytes) -> dict:
    """
    Decode a serialised DumpData with the core's wire decoder (for tests and tools).
    """
def decode_to_float64(data: typing_extensions.Buffer, dtype: str, count: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Decode raw elements (complex: their components) to a float64 array with the core's decoding table.
    """
def default_target_format(stored_format: typing.SupportsInt | typing.SupportsIndex, stored_rank: typing.SupportsInt | typing.SupportsIndex) -> int:
    ...
def default_threads() -> int:
    ...
def dtype_from_ascend(arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def open_tensor_file(path: str) -> TensorFile:
    """
    Open and validate a dump (v2, v1, nano) or .npy file; raises DumpFormatError.
    """
def read_statistics_files(paths: collections.abc.Sequence[str], threads: typing.SupportsInt | typing.SupportsIndex = 0) -> list:
    """
    Read and parse statistics CSVs in the device's regular form, on `threads` threads (0 = all), the GIL
    released. One entry per path: a list of (role, index, data_size, data_type, format, shape, count, max,
    min, mean, nan, neg_inf, pos_inf) tuples, in file order, or None where the file cannot be read or has
    an irregular line (opdiff.dumps.statistics then reads it and says why).
    """
def reference_converts(stored_format: typing.SupportsInt | typing.SupportsIndex, target_format: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def simd_info() -> dict:
    ...
def stored_bytes(file: TensorFile, role: str, index: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    """
    The stored bytes of one tensor as a read-only uint8 array over the mapping.
    """
AS_STORED: int = -1
CHUNK_ELEMENTS: int = 65536
