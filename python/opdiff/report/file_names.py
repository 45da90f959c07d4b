"""The names of the files a comparison writes, as the reference names them."""

from __future__ import annotations

from datetime import datetime
from typing import Optional


def result_file_name(now: Optional[datetime] = None) -> str:
    """``result_<YYYYmmddHHMMSS>.csv`` in local time, as the reference names it."""
    return f"result_{(now or datetime.now()).strftime('%Y%m%d%H%M%S')}.csv"


def isolation_file_name(now: Optional[datetime] = None) -> str:
    """``isolation_<YYYYmmddHHMMSS>.csv``: each op's own error (``opdiff compare --isolate``)."""
    return f"isolation_{(now or datetime.now()).strftime('%Y%m%d%H%M%S')}.csv"
