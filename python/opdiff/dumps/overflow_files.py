"""Finding the files of an overflow analysis: every NPU dump under a folder (recursively, digits-only
names resolved through each folder's mapping.csv), the Opdebug record dumps among them, and the NPU
dump an Opdebug entry names (same task and stream, and context/thread when both sides have them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from opdiff.conventions.dump_names import NpuDumpName, parse_npu_dump_name
from opdiff.dumps.discovery import NOT_DUMPS, read_name_mapping, timestamp_sort_key
from opdiff.dumps.opdebug import Entry

PathLike = Union[str, "os.PathLike[str]"]
MAX_DEPTH = 30  # as the reference's overflow sub-command


def time_order(name: NpuDumpName) -> Tuple[int, int, str]:
    """Timestamp order (16-digit timestamps; others first, as the reference sorts them)."""
    return (timestamp_sort_key(name.timestamp), name.timestamp, name.path)


@dataclass
class FoundDumps:
    """The NPU dumps (Opdebug records apart) and Opdebug record dumps of a tree, each in time order."""

    dumps: List[NpuDumpName] = field(default_factory=list)
    records: List[NpuDumpName] = field(default_factory=list)


def find_dumps(root: PathLike, max_depth: int = MAX_DEPTH) -> FoundDumps:
    """Walk `root` (at most `max_depth` levels below it) for NPU dump files.

    >>> import numpy as np, opdiff, tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); (d / "0").mkdir()
    >>> _ = opdiff.write_dump(d / "0" / "Add.add.3.1.1700000000000002", "add", outputs=[np.ones(2, np.float32)])
    >>> _ = opdiff.write_dump(d / "0" / "Opdebug.Node_OpDebug.9.1.1700000000000003", "Node_OpDebug", outputs=[np.zeros(8, np.uint8)])
    >>> found = find_dumps(d)
    >>> [n.op_name for n in found.dumps], [n.task_id for n in found.records]
    (['add'], [9])
    """
    found = FoundDumps()
    base = len(Path(root).parts)
    for folder, subfolders, names in os.walk(root):
        if len(Path(folder).parts) - base >= max_depth:
            subfolders[:] = []
        subfolders.sort()
        mapping = read_name_mapping(Path(folder)) if "mapping.csv" in names else {}
        for file_name in names:
            if file_name in NOT_DUMPS:
                continue
            parsed = parse_npu_dump_name(os.path.join(folder, file_name), with_fusion_rule=False, real_name=mapping.get(file_name))
            if parsed is not None:
                (found.records if parsed.is_opdebug_record else found.dumps).append(parsed)
    found.dumps.sort(key=time_order)
    found.records.sort(key=time_order)
    return found


class DumpLookup:
    """NPU dumps by (task id, stream id), for finding the op an Opdebug entry names."""

    def __init__(self, dumps: List[NpuDumpName]) -> None:
        self._by_task: Dict[Tuple[int, Optional[int]], List[NpuDumpName]] = {}
        for name in dumps:
            self._by_task.setdefault((name.task_id, name.stream_id), []).append(name)

    def find(self, entry: Entry, record: NpuDumpName) -> Optional[NpuDumpName]:
        """The dump of the op `entry` (from the Opdebug file `record`) reports, or None.

        Candidates have the entry's task id and stream id (a name without a stream id matches any
        stream); where the entry and a 9-field name both carry context and thread ids, they must
        agree. Of those: one in the record's own folder first, then the latest that ran no later
        than the record was written, then the earliest after it.
        """
        candidates = self._by_task.get((entry.task_id, entry.stream_id), []) + self._by_task.get((entry.task_id, None), [])
        candidates = [c for c in candidates if _same_slice(entry, c)]
        if not candidates:
            return None
        folder = os.path.dirname(record.path)
        local = [c for c in candidates if os.path.dirname(c.path) == folder]
        pool = local or candidates
        before = [c for c in pool if time_order(c) <= time_order(record)]
        return max(before, key=time_order) if before else min(pool, key=time_order)


def _same_slice(entry: Entry, name: NpuDumpName) -> bool:
    for ours, theirs in ((entry.context_id, name.context_id), (entry.thread_id, name.thread_id)):
        if ours is not None and theirs is not None and ours != theirs:
            return False
    return True
