"""Type information for the lazily exported public API (__init__.py)."""

from opdiff.dumps.reader import DumpFile as DumpFile
from opdiff.dumps.reader import DumpFormatError as DumpFormatError
from opdiff.dumps.reader import read_dump as read_dump
from opdiff.dumps.writer import write_dump as write_dump
from opdiff.engine.comparison import compare as compare
from opdiff.engine.options import CompareOptions as CompareOptions
from opdiff.graph.read import read_graph as read_graph
from opdiff.numerics.core import simd_info as simd_info
from opdiff.numerics.core_adapter import metrics as metrics
from opdiff.numerics.dtypes import CORE_DTYPES as CORE_DTYPES
from opdiff.numerics.dtypes import RawTensor as RawTensor
from opdiff.numerics.schema import ALGORITHMS as ALGORITHMS
from opdiff.numerics.values import Metrics as Metrics
from opdiff.numerics.values import Note as Note
from opdiff.numerics.values import SideStats as SideStats
from opdiff.results.runs_summary import RunsSummary as RunsSummary
from opdiff.results.tensor_report import Report as Report
from opdiff.runs.job import RunsRequest as RunsRequest
from opdiff.runs.job import compare_runs as compare_runs

__version__: str
