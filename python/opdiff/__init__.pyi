"""Type information for the lazily exported public API (``__init__.py``)."""

from opdiff.api import (
    ALGORITHMS as ALGORITHMS,
    CORE_DTYPES as CORE_DTYPES,
    DumpFile as DumpFile,
    DumpFormatError as DumpFormatError,
    Metrics as Metrics,
    Note as Note,
    RawTensor as RawTensor,
    Report as Report,
    RunsRequest as RunsRequest,
    RunsSummary as RunsSummary,
    SideStats as SideStats,
    compare as compare,
    compare_runs as compare_runs,
    metrics as metrics,
    read_dump as read_dump,
    read_graph as read_graph,
    simd_info as simd_info,
    write_dump as write_dump,
)

__version__: str
__all__: list[str]
