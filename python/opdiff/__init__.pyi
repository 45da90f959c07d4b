"""Type information for the lazily exported public API (``__init__.py``)."""

from opdiff.api import (
    ALGORITHMS as ALGORITHMS,
)
from opdiff.api import (
    CORE_DTYPES as CORE_DTYPES,
)
from opdiff.api import (
    DumpFile as DumpFile,
)
from opdiff.api import (
    DumpFormatError as DumpFormatError,
)
from opdiff.api import (
    Metrics as Metrics,
)
from opdiff.api import (
    Note as Note,
)
from opdiff.api import (
    RawTensor as RawTensor,
)
from opdiff.api import (
    Report as Report,
)
from opdiff.api import (
    RunsRequest as RunsRequest,
)
from opdiff.api import (
    RunsSummary as RunsSummary,
)
from opdiff.api import (
    SideStats as SideStats,
)
from opdiff.api import (
    compare as compare,
)
from opdiff.api import (
    compare_runs as compare_runs,
)
from opdiff.api import (
    metrics as metrics,
)
from opdiff.api import (
    read_dump as read_dump,
)
from opdiff.api import (
    read_graph as read_graph,
)
from opdiff.api import (
    simd_info as simd_info,
)
from opdiff.api import (
    write_dump as write_dump,
)

__version__: str
__all__: list[str]
