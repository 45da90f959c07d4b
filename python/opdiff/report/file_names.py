"""The names of the files opdiff writes under -out, in one place: the timestamp they carry and each
one's name, as the reference names them. Files written beside the result CSV (HTML, JSON, xlsx)
take its name with their own suffix."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

TIMESTAMP_FORMAT = "%Y%m%d%H%M%S"
ADVISOR_SUMMARY = "advisor_summary.txt"


def timestamp(now: Optional[datetime] = None) -> str:
    """``YYYYmmddHHMMSS`` in local time, the stamp in every output file name.

    >>> timestamp(datetime(2026, 1, 2, 3, 4, 5))
    '20260102030405'
    """
    return (now or datetime.now()).strftime(TIMESTAMP_FORMAT)


def result_file_name(now: Optional[datetime] = None) -> str:
    """``result_<YYYYmmddHHMMSS>.csv``, the result of one comparison."""
    return f"result_{timestamp(now)}.csv"


def mapping_file_name(now: Optional[datetime] = None) -> str:
    """``mapping_<YYYYmmddHHMMSS>.csv``, which files each tensor is compared with (compare -map)."""
    return f"mapping_{timestamp(now)}.csv"


def overflow_summary_file_name(now: Optional[datetime] = None) -> str:
    """``overflow_summary_<YYYYmmddHHMMSS>.txt``, the ops that overflowed."""
    return f"overflow_summary_{timestamp(now)}.txt"


def file_result_file_name(now: Optional[datetime] = None) -> str:
    """``file_result_<YYYYmmddHHMMSS>.txt``, the metrics of two .npy files (file-compare)."""
    return f"file_result_{timestamp(now)}.txt"


def run_result_file_name(label: str, stamp: str) -> str:
    """``{device}_{model}_{step}_result_{stamp}.csv``, one run of a many-run comparison, as the
    reference's batch mode names it (`label` is the run's ``{device}_{model}_{step}``)."""
    return f"{label}_result_{stamp}.csv"


def run_mapping_file_name(label: str, stamp: str) -> str:
    """``{run}_mapping_{stamp}.csv``: ``-map`` of one run of a many-run comparison."""
    return f"{label}_mapping_{stamp}.csv"


def run_advisor_summary_name(label: str) -> str:
    """``{run}_advisor_summary.txt``: ``-advisor`` of one run of a many-run comparison."""
    return f"{label}_{ADVISOR_SUMMARY}"


def runs_summary_file_name(stamp: str) -> str:
    """``summary_{stamp}.json``, across the runs of a many-run comparison."""
    return f"summary_{stamp}.json"


def isolation_file_name(now: Optional[datetime] = None) -> str:
    """``isolation_<YYYYmmddHHMMSS>.csv``: each op's own error (``opdiff compare --isolate``)."""
    return f"isolation_{timestamp(now)}.csv"
