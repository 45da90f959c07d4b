"""
opdiff native core
"""
from __future__ import annotations

import collections.abc
import enum
import typing

import numpy
import numpy.typing
import typing_extensions

__all__: list[str] = ['AS_STORED', 'CHUNK_ELEMENTS', 'DEFAULT_ATOL', 'DEFAULT_RTOL', 'DumpFormatError', 'FileOpening', 'MetricsResult', 'OpenedFile', 'PairBatch', 'PairOutcome', 'PairRequest', 'PairStatus', 'ReadAhead', 'SideStats', 'StatisticsLine', 'TensorEntry', 'TensorFile', 'TensorFileCache', 'TensorRole', 'TensorView', 'ascend_dtype_name', 'ascend_dtype_table', 'ascend_format_name', 'ascend_format_number', 'ascend_format_table', 'ascend_from_dtype', 'compare_views', 'compute_metrics', 'decode_dump_header', 'decode_to_float64', 'default_target_format', 'default_threads', 'dtype_bits', 'dtype_from_ascend', 'dtype_names', 'open_tensor_file', 'read_statistics_files', 'reconcile_layout', 'reference_converts', 'simd_info', 'stored_bytes']
class SideStats:
    """
    Statistics of one side: min/max skip NaN, mean/std propagate NaN and Inf.
    """
    @property
    def max(self) -> float:
        ...
    @property
    def mean(self) -> float:
        ...
    @property
    def min(self) -> float:
        ...
    @property
    def nan(self) -> int:
        ...
    @property
    def neg_inf(self) -> int:
        ...
    @property
    def pos_inf(self) -> int:
        ...
    @property
    def std(self) -> float:
        ...
class MetricsResult:
    """
    Every metric of one pair as the core computed it (opdiff.metrics.Metrics is built from it).
    """
    @staticmethod
    def from_fields(fields: tuple) -> MetricsResult:
        """
        The MetricsResult of a fields() tuple.
        """
    def fields(self) -> tuple:
        """
        Every field in one tuple (one call instead of thirty attribute reads): count, x and y as tuples of SideStats' fields, the scalar fields in opdiff.numerics.schema.VALUE_FIELDS' order, note_bits.
        """
    def reference_cells(self) -> tuple:
        """
        The reference CSV's text of the ten reference metrics, in -alg order (cpp/include/opdiff/reference_text.hpp).
        """
    def reference_text(self) -> str:
        """
        The ten cells joined as a CSV line holds them (a cell with a comma quoted).
        """
    @property
    def accumulated_relative_error(self) -> float:
        ...
    @property
    def allclose_fraction(self) -> float:
        ...
    @property
    def cosine_similarity(self) -> float:
        ...
    @property
    def count(self) -> int:
        ...
    @property
    def kullback_leibler_divergence(self) -> float:
        ...
    @property
    def max_absolute_error(self) -> float:
        ...
    @property
    def max_absolute_error_index(self) -> int:
        ...
    @property
    def max_relative_error(self) -> float:
        ...
    @property
    def max_relative_error_index(self) -> int:
        ...
    @property
    def mean_absolute_error(self) -> float:
        ...
    @property
    def mean_relative_error(self) -> float:
        ...
    @property
    def norm_ratio_error(self) -> float:
        ...
    @property
    def note_bits(self) -> int:
        """
        MetricNote bits (cpp/include/opdiff/metrics.hpp), bit 0 first.
        """
    @property
    def relative_euclidean_distance(self) -> float:
        ...
    @property
    def root_mean_square_error(self) -> float:
        ...
    @property
    def sqnr_db(self) -> float:
        ...
    @property
    def x(self) -> SideStats:
        ...
    @property
    def y(self) -> SideStats:
        ...
class DumpFormatError(ValueError):
    pass
class TensorRole(enum.Enum):
    """
    Which list of a dump a tensor is in.
    """
    input = 0
    output = 1
    buffer = 2
    workspace = 3
class TensorFile:
    """
    An opened dump or .npy file (its bytes held in memory: read whole, or mapped when large).
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
        """
        The tensors in file order (inputs, outputs, buffers, workspaces).
        """
    @property
    def truncated(self) -> bool:
        """
        Whether the file shrank on disk since it was opened (bytes read since then are void).
        """
    @property
    def version(self) -> str:
        ...
class TensorEntry:
    """
    One tensor of an opened file: its header facts as stored.
    """
    @property
    def address(self) -> int:
        ...
    @property
    def data_type(self) -> int:
        """
        Ascend number.
        """
    @property
    def dtype(self) -> str | None:
        """
        The core element type, None when opdiff cannot decode it.
        """
    @property
    def element_count(self) -> int:
        ...
    @property
    def format(self) -> int:
        """
        Ascend number.
        """
    @property
    def fortran_order(self) -> bool:
        ...
    @property
    def index(self) -> int:
        """
        Position within its role.
        """
    @property
    def kind(self) -> int:
        ...
    @property
    def offset(self) -> int:
        ...
    @property
    def origin_format(self) -> int | None:
        """
        original_op.format (Ascend number) of an output whose dump has an original_op, else None.
        """
    @property
    def origin_name(self) -> str:
        ...
    @property
    def original_shape(self) -> tuple:
        ...
    @property
    def role(self) -> TensorRole:
        ...
    @property
    def shape(self) -> tuple:
        ...
    @property
    def size(self) -> int:
        ...
    @property
    def sub_format(self) -> int:
        ...
class TensorView:
    """
    One tensor laid out in a logical format; an ElementSource for the core.
    """
    def __init__(self, file: TensorFile, role: str, index: typing.SupportsInt | typing.SupportsIndex, as_stored: bool = False, format: typing.Any | None = None, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None) -> None:
        ...
    def read_into(self, out: typing_extensions.Buffer | numpy.typing.NDArray[typing.Any]) -> None:
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
    def __init__(self, capacity: typing.SupportsInt | typing.SupportsIndex = 256, budget_bytes: typing.SupportsInt | typing.SupportsIndex = 16777216) -> None:
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
class PairStatus(enum.Enum):
    """
    How a pair came out.
    """
    compared = 0
    golden_unreadable = 1
    my_type_unsupported = 2
    golden_type_unsupported = 3
    counts_differ = 4
    order_differs = 5
    failed = 6
class PairRequest:
    """
    One tensor of an open file against its partner in another file.
    """
    def __init__(self, mine: TensorFile, role: TensorRole, index: typing.SupportsInt | typing.SupportsIndex, golden_path: str, golden_role: TensorRole, golden_index: typing.SupportsInt | typing.SupportsIndex, target_format: typing.SupportsInt | typing.SupportsIndex | None = None, max_elements: typing.SupportsInt | typing.SupportsIndex = 0, target_shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None) -> None:
        """
        target_format: lay my tensor out in this Ascend format with the golden's shape (None: each side in its own logical layout); max_elements > 0: compare only the first that many elements; target_shape: my tensor's own logical shape in target_format (its original shape), compared with a golden of another shape by element count where the element order allows (else order_differs).
        """
    @property
    def golden_index(self) -> int:
        ...
    @property
    def golden_path(self) -> str:
        ...
    @property
    def golden_role(self) -> TensorRole:
        ...
    @property
    def index(self) -> int:
        ...
    @property
    def max_elements(self) -> int:
        ...
    @property
    def mine(self) -> TensorFile:
        ...
    @property
    def role(self) -> TensorRole:
        ...
    @property
    def target_format(self) -> int | None:
        ...
    @property
    def target_shape(self) -> list[int] | None:
        ...
class PairOutcome:
    """
    What became of one PairRequest.
    """
    def row_facts(self) -> tuple:
        """
        (compared, golden_dtype, golden_data_type, golden_address, my_shape, golden_shape, metrics.fields() or None, reference_text or None): what a row needs, in one call.
        """
    @property
    def golden_address(self) -> int:
        ...
    @property
    def golden_data_type(self) -> int:
        """
        The partner's Ascend data type number.
        """
    @property
    def golden_dtype(self) -> str | None:
        """
        The partner's core element type, None when it cannot be decoded.
        """
    @property
    def golden_shape(self) -> tuple:
        ...
    @property
    def message(self) -> str:
        ...
    @property
    def metrics(self) -> MetricsResult | None:
        """
        Every metric when compared, else None.
        """
    @property
    def my_shape(self) -> tuple:
        ...
    @property
    def reference_text(self) -> str | None:
        """
        When compared, the reference CSV's text of the ten reference metrics (-alg order, joined as a CSV line holds them), written by the thread that compared the pair; else None.
        """
    @property
    def status(self) -> PairStatus:
        ...
class PairBatch:
    """
    Pairs compared in the background on the core's pool, started when made; wait() works on them too and returns one PairOutcome per request, in order.
    """
    def __init__(self, requests: collections.abc.Sequence[PairRequest], cache: TensorFileCache, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, kl: bool = True, threads: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Partner files come from `cache`; at most `threads` pairs at once (0 = every core).
        """
    def __len__(self) -> int:
        ...
    def cancel(self) -> None:
        """
        Start no more pairs and wait for those running.
        """
    def wait(self) -> list:
        """
        The outcomes, once every pair is done; Ctrl-C cancels the batch and raises KeyboardInterrupt.
        """
class OpenedFile:
    """
    One path of a FileOpening: the open file, or why it could not be opened.
    """
    @property
    def error(self) -> str:
        """
        What DumpFormatError would say, when `file` is None.
        """
    @property
    def file(self) -> TensorFile:
        """
        The open file, None when it could not be opened.
        """
class FileOpening:
    """
    Files opened in the background on the core's pool, started when made; wait() works on them too and returns one OpenedFile per path, in order.
    """
    def __init__(self, paths: collections.abc.Sequence[str]) -> None:
        ...
    def __len__(self) -> int:
        ...
    def cancel(self) -> None:
        """
        Open no more files and wait for those being opened.
        """
    def wait(self) -> list:
        """
        The opened files, once every one is done; Ctrl-C cancels the opening and raises KeyboardInterrupt.
        """
class ReadAhead:
    """
    Reads the large files a comparison will map next into the page cache, on a thread of its own, at most window_bytes past the position advance() names (read_ahead.hpp). Pages already cached are not read again; files it cannot read are passed over.
    """
    def __init__(self, paths: collections.abc.Sequence[str], stops: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], window_bytes: typing.SupportsInt | typing.SupportsIndex = 268435456) -> None:
        """
        paths in the order the comparison reaches them; stops[k]: the index of position k's first path.
        """
    def advance(self, position: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        The comparison has reached position `position`.
        """
    def settle(self) -> None:
        """
        Wait until everything the window allows now is read (for tests).
        """
    def stop(self) -> None:
        """
        Stop after the read in flight and wait for the thread.
        """
    @property
    def bytes_read(self) -> int:
        """
        Bytes read from the disk into the page cache.
        """
    @property
    def bytes_resident(self) -> int:
        """
        Bytes found in the page cache already.
        """
    @property
    def files_passed_over(self) -> int:
        """
        Paths not read: small, repeated, unreadable or with a page cache this process cannot see.
        """
    @property
    def stepped_aside(self) -> bool:
        """
        Whether it stopped early: a whole window ahead of the comparison, with pages it read from the disk.
        """
class StatisticsLine:
    """
    One tensor's line of a statistics CSV in the regular form.
    """
    def fields(self) -> dict:
        """
        Every field in a new dict, keyed by TensorStatistics' field names.
        """
    @property
    def count(self) -> int:
        ...
    @property
    def data_size(self) -> int:
        ...
    @property
    def data_type(self) -> str:
        """
        The DT_* name as written.
        """
    @property
    def format(self) -> str:
        ...
    @property
    def index(self) -> int:
        ...
    @property
    def max(self) -> float:
        ...
    @property
    def mean(self) -> float:
        ...
    @property
    def min(self) -> float:
        ...
    @property
    def nan(self) -> int:
        ...
    @property
    def neg_inf(self) -> int:
        ...
    @property
    def pos_inf(self) -> int:
        ...
    @property
    def role(self) -> str:
        ...
    @property
    def shape(self) -> tuple:
        """
        Stored dims; () for "-".
        """
def ascend_dtype_name(arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def ascend_dtype_table() -> dict[int, str]:
    """
    Every DT_* number and its name (dump_data.proto's OutputDataType).
    """
def ascend_format_name(arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def ascend_format_number(arg0: str) -> int | None:
    ...
def ascend_format_table() -> dict[int, str]:
    """
    Every FORMAT_* number and its name without the prefix (dump_data.proto's OutputFormat).
    """
def ascend_from_dtype(arg0: str) -> int:
    ...
def compare_views(x: TensorView, y: TensorView, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, kl: bool = True, scalar_shape: bool = False, threads: typing.SupportsInt | typing.SupportsIndex = 0, max_elements: typing.SupportsInt | typing.SupportsIndex = 0) -> MetricsResult:
    """
    Every metric of x (my) against y (golden), reading both through their layouts; as compute_metrics.
    max_elements > 0 compares only the first that many logical elements of each side.
    """
def compute_metrics(x: typing_extensions.Buffer | numpy.typing.NDArray[typing.Any], x_dtype: str, x_count: typing.SupportsInt | typing.SupportsIndex, y: typing_extensions.Buffer | numpy.typing.NDArray[typing.Any], y_dtype: str, y_count: typing.SupportsInt | typing.SupportsIndex, rtol: typing.SupportsFloat | typing.SupportsIndex = 0.001, atol: typing.SupportsFloat | typing.SupportsIndex = 1e-05, kl: bool = True, scalar_shape: bool = False, threads: typing.SupportsInt | typing.SupportsIndex = 0, simd: str | None = None) -> MetricsResult:
    """
    Compare two raw buffers element by element; returns every metric.
    """
def decode_dump_header(message: bytes) -> dict:
    """
    Decode a serialised DumpData with the core's wire decoder (for tests and tools).
    """
def decode_to_float64(data: typing_extensions.Buffer | numpy.typing.NDArray[typing.Any], dtype: str, count: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Decode raw elements (complex: their components) to a float64 array with the core's decoding table.
    """
def default_target_format(stored_format: typing.SupportsInt | typing.SupportsIndex, stored_rank: typing.SupportsInt | typing.SupportsIndex) -> int:
    ...
def default_threads() -> int:
    ...
def dtype_bits(name: str) -> int:
    """
    Storage bits of one element of a core dtype (4 for int4; a complex element's both parts).
    """
def dtype_from_ascend(arg0: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    ...
def dtype_names() -> list[str]:
    """
    Every element type the core decodes, by name, in the core's dtype table order.
    """
def open_tensor_file(path: str) -> TensorFile:
    """
    Open and validate a dump (v2, v1, nano) or .npy file; raises DumpFormatError.
    """
def read_statistics_files(paths: collections.abc.Sequence[str], threads: typing.SupportsInt | typing.SupportsIndex = 0) -> list[list[StatisticsLine] | None]:
    """
    Read and parse statistics CSVs in the device's regular form, on `threads` threads (0 = all), the GIL
    released. One entry per path: its StatisticsLines in file order, or None where the file cannot be read
    or has an irregular line (opdiff.dumps.statistics then reads it and says why).
    """
def reconcile_layout(format: typing.SupportsInt | typing.SupportsIndex, mine: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], golden: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tuple[int, list[int]] | None:
    """
    (format, shape) my tensor is laid out in against a golden of shape `golden`, given its own logical format and shape: the golden's shape when equal, mine when one reshape apart, NCHW/NHWC flipped to the golden's when one is the other's permutation; None when the element orders may differ.
    """
def reference_converts(stored_format: typing.SupportsInt | typing.SupportsIndex, target_format: typing.SupportsInt | typing.SupportsIndex) -> bool:
    ...
def simd_info() -> dict:
    ...
def stored_bytes(file: TensorFile, role: str, index: typing.SupportsInt | typing.SupportsIndex) -> typing.Any:
    """
    The stored bytes of one tensor as a read-only uint8 array over the file's bytes (no copy).
    """
AS_STORED: int = -1
CHUNK_ELEMENTS: int = 65536
DEFAULT_ATOL: float = 1e-05
DEFAULT_RTOL: float = 0.001
