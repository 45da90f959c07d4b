"""Finding dump files: the device directory layout and an index of tensors by op, from the file
names (composed and parsed by opdiff.conventions.dump_names). No tensor bytes are read here.

Files named only by digits are resolved through ``mapping.csv`` in the same folder
(``hashed_name,original_name``). A statistics dump is the dump file's name plus ``.csv``
(opdiff.dumps.statistics reads it).
"""

from __future__ import annotations

import csv
import json
import os
import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

from opdiff.conventions.dump_names import (
    GoldenName,
    NpuDumpName,
    is_golden_name,
    is_npu_dump_name,
    parse_golden_name,
    parse_npu_dump_name,
)
from opdiff.conventions.quant_names import is_quantized_name
from opdiff.fileio.atomic import TEMPORARY_SUFFIX

PathLike = Union[str, "os.PathLike[str]"]

_HASHED_NAME = re.compile(r"^[0-9]+(?:\.npy)?$")
# Files opdiff itself writes into a dump folder (the name mapping, opdiff convert's list of files it
# could not read): never dumps, so discovery and convert pass over them.
CONVERT_FAILED_LIST = "convert_failed_file_list.txt"
# A golden folder exported from a tfdbg root (dumps/tfdbg/golden.py) notes its source and, once
# complete, the golden keys it has no file for, with why (so their rows can say it).
TFDBG_SOURCE_FILE = "tfdbg_source.json"
TFDBG_UNREADABLE_FILE = "tfdbg_unreadable.json"
NOT_DUMPS = ("mapping.csv", CONVERT_FAILED_LIST, TFDBG_SOURCE_FILE, TFDBG_UNREADABLE_FILE)
STATISTICS_SUFFIX = ".csv"  # a statistics dump is named "{dump file name}.csv" (docs/reference/device-files.md §2.1)


class FileKind(str, Enum):
    NPU = "npu dump"
    GOLDEN = "golden .npy"
    STATISTICS = "statistics dump"  # per-op statistics CSVs (docs/reference/device-files.md §2.1), maybe beside full dumps

    @property
    def is_npu(self) -> bool:
        """Dumps written by a device (full or statistics), as opposed to golden .npy files."""
        return self is not FileKind.GOLDEN


def read_name_mapping(folder: Path) -> Dict[str, str]:
    """``mapping.csv`` of a folder: hashed file name -> original name (empty when absent)."""
    mapping_file = folder / "mapping.csv"
    if not mapping_file.is_file():
        return {}
    with open(mapping_file, newline="", encoding="utf-8", errors="replace") as handle:
        return {row[0].strip(): row[1].strip() for row in csv.reader(handle) if len(row) >= 2}


def timestamp_sort_key(timestamp: int) -> int:
    """The reference sorts by timestamps of exactly 16 digits; others sort first (key 0)."""
    return timestamp if len(str(timestamp)) == 16 else 0


AnyName = Union[NpuDumpName, GoldenName]


@dataclass
class DumpIndex:
    """The dump files of one folder, by op key, each list oldest first.

    ``skipped`` lists files whose names are neither NPU dumps nor golden files, with the reason;
    ``unreadable``, golden keys whose tensor could not be exported from a tfdbg root, with why.
    """

    folder: Path
    kind: Optional[FileKind]
    files: Dict[str, List[AnyName]] = field(default_factory=dict)
    skipped: List[Tuple[Path, str]] = field(default_factory=list)
    unreadable: Dict[str, str] = field(default_factory=dict)

    def newest(self, key: str) -> Optional[AnyName]:
        """The file the reference compares for an op: the newest (last timestamp)."""
        found = self.files.get(key)
        return found[-1] if found else None

    def keys_in_time_order(self) -> List[str]:
        """Op keys ordered by the timestamp of their newest file (the NPU-vs-NPU row order)."""
        return sorted(self.files, key=lambda k: timestamp_sort_key(self.files[k][-1].timestamp))

    def occurrences(self) -> int:
        """How many times the most often dumped op was dumped (FFTS+ slices of one run count once)."""
        return max((1 if is_sliced(versions) else len(versions) for versions in self.files.values()), default=0)

    def occurrence(self, k: int, *, newest_when_missing: bool = False) -> DumpIndex:
        """The index of the k-th run of every op (oldest first), for ``--all``: ops dumped fewer
        times are left out, or keep their newest file with `newest_when_missing` (a golden side
        dumped once serves every run). The slices of an FFTS+ op stay together as one run."""
        files: Dict[str, List[AnyName]] = {}
        for key, versions in self.files.items():
            if is_sliced(versions):
                if k == 0 or newest_when_missing:
                    files[key] = versions
            elif k < len(versions):
                files[key] = [versions[k]]
            elif newest_when_missing:
                files[key] = [versions[-1]]
        return DumpIndex(self.folder, self.kind, files, self.skipped, self.unreadable)

    @property
    def is_quant(self) -> bool:
        """A quantized model's dump: some op name carries a quant marker (§2.1)."""
        return any(is_quantized_name(key) for key in self.files)

    @property
    def count(self) -> int:
        return sum(len(files) for files in self.files.values())

    @property
    def statistics_count(self) -> int:
        """How many of the indexed files are statistics CSVs (the rest are full dumps or .npy)."""
        return sum(1 for versions in self.files.values() for name in versions if name.path.endswith(STATISTICS_SUFFIX))


def index_folder(folder: PathLike, *, with_fusion_rule: bool = True, slices_apart: bool = False) -> DumpIndex:
    """Index one flat folder of NPU dumps or golden .npy files (names only, no bytes read).
    `slices_apart` (``-ffts``): FFTS+ manual-mode slices are ops of their own (parse_npu_dump_name).

    Statistics CSVs (``{dump file name}.csv``) are indexed as NPU dumps of their op; the folder's
    kind is then STATISTICS. Where an op execution has both files, the full dump is kept.

    A folder mixing the two kinds is an error (ValueError naming the folder), as in the reference.
    """
    folder = Path(folder)
    mapping = read_name_mapping(folder)
    npu: Dict[str, List[AnyName]] = {}
    golden: Dict[str, List[AnyName]] = {}
    skipped: List[Tuple[str, str]] = []
    statistics: List[NpuDumpName] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if not entry.is_file() or entry.name in NOT_DUMPS or entry.name.endswith(TEMPORARY_SUFFIX):
                continue
            path = entry.path
            hashed = _HASHED_NAME.match(entry.name) is not None
            real_name = mapping.get(entry.name) if hashed else None
            if hashed and real_name is None:
                skipped.append((path, "digits-only name without a mapping.csv entry"))
                continue
            name: Optional[AnyName]
            # The name to parse is given, so the parsers need not split it off the path again.
            if entry.name.endswith(STATISTICS_SUFFIX):
                name = parse_npu_dump_name(path, with_fusion_rule=with_fusion_rule, real_name=entry.name[: -len(STATISTICS_SUFFIX)],
                                           slices_apart=slices_apart)
                if name is not None and not name.is_opdebug_record:
                    statistics.append(name)
                    continue
                skipped.append((path, "a .csv whose name is not {dump file name}.csv of a statistics dump"))
                continue
            if (real_name or entry.name).endswith(".npy"):
                name = parse_golden_name(path, real_name=real_name or entry.name)
                if name is not None:
                    golden.setdefault(name.key, []).append(name)
                    continue
            else:
                name = parse_npu_dump_name(path, with_fusion_rule=with_fusion_rule, real_name=real_name or entry.name,
                                           slices_apart=slices_apart)
                if name is not None and name.is_opdebug_record:
                    skipped.append((path, "an Opdebug overflow record, not an op's tensors (opdiff overflow reads it)"))
                    continue
                if name is not None:
                    npu.setdefault(name.key, []).append(name)
                    continue
            skipped.append((path, "name is neither an NPU dump nor a golden {op}.{index}.{timestamp}.npy"))
    if (npu or statistics) and golden:
        raise ValueError(f"{folder}: holds both NPU dump files and golden .npy files; give one kind per folder")
    has_statistics = _add_statistics(npu, statistics, skipped)
    files = npu or golden
    kind = FileKind.STATISTICS if has_statistics else FileKind.NPU if npu else FileKind.GOLDEN if golden else None
    for versions in files.values():
        versions.sort(key=_version_order)
    unreadable = read_tfdbg_unreadable(folder)
    skipped += [(source, why) for source, why in unreadable.values()]
    # Sorted as strings, then made Paths: sorting thousands of Paths compares them part by part.
    reasons = {key: f"{source}: {why}" for key, (source, why) in unreadable.items() if not key.startswith("?")}
    return DumpIndex(folder, kind, files, [(Path(path), reason) for path, reason in sorted(skipped)], reasons)


def read_tfdbg_unreadable(folder: Path) -> Dict[str, Tuple[str, str]]:
    """The golden keys an export from a tfdbg root has no file for, with the tensor's source and
    why ("?n" keys: sources that named no tensor); empty for any other folder."""
    try:
        found = json.loads((folder / TFDBG_UNREADABLE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {str(key): (str(value.get("source", "")), str(value.get("why", "")))
            for key, value in found.items() if isinstance(value, dict)}


def _add_statistics(npu: Dict[str, List[AnyName]], statistics: Sequence[NpuDumpName],
                    skipped: List[Tuple[str, str]]) -> bool:
    """Index the statistics CSVs with the full dumps, per op execution: where one execution has
    both (``X`` and ``X.csv``), the full dump wins and the CSV is skipped, saying so. Whether any
    statistics file was indexed."""
    full = {name.path for versions in npu.values() for name in versions}
    added = False
    for name in statistics:
        if name.path[: -len(STATISTICS_SUFFIX)] in full:
            skipped.append((name.path, "statistics of an op execution that also has a full dump: the full dump is compared"))
            continue
        npu.setdefault(name.key, []).append(name)
        added = True
    return added


def is_sliced(versions: Sequence[AnyName]) -> bool:
    """Whether an op's files are the FFTS+ slices of one run rather than several runs."""
    newest = versions[-1] if versions else None
    return isinstance(newest, NpuDumpName) and (newest.is_ffts_auto or newest.manual_slice is not None)


def _version_order(name: AnyName) -> Tuple[int, int, int]:
    # Timestamp, then FFTS+ thread id / manual slice number (§2.6).
    if isinstance(name, NpuDumpName):
        slice_number = name.thread_id if name.is_ffts_auto else (name.manual_slice or 0)
        return (timestamp_sort_key(name.timestamp), name.timestamp, slice_number or 0)
    return (timestamp_sort_key(name.timestamp), name.timestamp, 0)


@dataclass(frozen=True)
class DumpLeaf:
    """A folder that holds dump files, with its place in the device layout
    ``{time}/{device}/{model}/{model_id}/{step}/`` when it follows it (the step as a number)."""

    folder: Path
    step: Optional[int]

    @property
    def model_key(self) -> Path:
        """The folder above the step: leaves of one model differ only in their step."""
        return self.folder.parent if self.step is not None else self.folder


def find_leaves(root: PathLike, *, max_depth: int = 6) -> List[DumpLeaf]:
    """Every folder under ``root`` (itself included) that directly holds dump or golden files."""
    root = Path(root)
    leaves: List[DumpLeaf] = []
    base_depth = len(root.parts)
    for folder, subfolders, names in os.walk(root):
        path = Path(folder)
        if len(path.parts) - base_depth >= max_depth:
            subfolders[:] = []
        if any(_looks_like_dump(name) for name in names):
            leaves.append(DumpLeaf(path, int(path.name) if path.name.isdigit() and path != root else None))
        subfolders.sort()
    return leaves


def _looks_like_dump(name: str) -> bool:
    if name.endswith(STATISTICS_SUFFIX):
        return is_npu_dump_name(name[: -len(STATISTICS_SUFFIX)])
    return is_npu_dump_name(name) or is_golden_name(name) or _HASHED_NAME.match(name) is not None


def choose_leaf(root: PathLike, leaves: Sequence[DumpLeaf], step: Optional[int] = None) -> DumpLeaf:
    """The leaf to compare under ``root``: the only one, or the largest (or given) step of the only
    model; `step` is ignored where no leaf has a step. ValueError, listing the candidates, when that
    is ambiguous."""
    if not leaves:
        raise ValueError(f"{root}: no dump files found (looked {len(Path(str(root)).parts)} levels deep and below)")
    # A side without step folders (a flat golden folder, say) has one run: --step chooses among the
    # steps of the side that has them.
    stepped = any(leaf.step is not None for leaf in leaves)
    candidates = [leaf for leaf in leaves if step is None or not stepped or leaf.step == step]
    if not candidates:
        steps = sorted({leaf.step for leaf in leaves if leaf.step is not None})
        raise ValueError(f"{root}: no step {step}; steps found: {steps}")
    models = {leaf.model_key for leaf in candidates}
    if len(models) > 1:
        listed = ", ".join(str(m) for m in sorted(models))
        raise ValueError(f"{root}: dumps of several models ({listed}); point at one of them")
    return max(candidates, key=lambda leaf: -1 if leaf.step is None else leaf.step)

