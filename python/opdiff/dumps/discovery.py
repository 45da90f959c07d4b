"""Finding dump files: file-name parsing (docs/reference/reference-tool.md §2), the device directory layout,
and an index of tensors by op. No tensor bytes are read here.

NPU dump files are named ``{op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}`` (5 fields) or, for
FFTS+ tasks, with ``.{task_type}.{context_id}.{thread_id}.{device_id}`` appended (9 fields). Golden
files are ``{op_name}.{output_index}.{timestamp}.npy``. Files named only by digits are resolved
through ``mapping.csv`` in the same folder (``hashed_name,original_name``). A statistics dump is
the dump file's name plus ``.csv`` (opdiff.dumps.statistics reads it).
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

from opdiff.conventions.quant_names import is_quantized_name
from opdiff.fileio.atomic import TEMPORARY_SUFFIX

PathLike = Union[str, "os.PathLike[str]"]

_NPU_NAME = re.compile(
    r"^(?P<op_type>[A-Za-z0-9_-]+)\.(?P<op_name>[A-Za-z0-9_-]+)\.(?P<task>[0-9]+)(?:\.(?P<stream>[0-9]+))?"
    r"\.(?P<timestamp>[0-9]{1,255})"
    r"(?:\.(?P<task_type>[0-9]+)\.(?P<context>[0-9]+)\.(?P<thread>[0-9]+)\.(?P<device>[0-9]+))?$"
)
_GOLDEN_NAME = re.compile(r"^(?P<op_name>[.A-Za-z0-9_-]+)\.(?P<index>[0-9]+)\.(?P<timestamp>[0-9]{1,255})\.npy$")
_HASHED_NAME = re.compile(r"^[0-9]+(?:\.npy)?$")
# The op type and name of the device's Opdebug record dumps (Opdebug.Node_OpDebug.{task}.{stream}.{ts}).
OPDEBUG_OP_TYPE = "Opdebug"
OPDEBUG_OP_NAME = "Node_OpDebug"
_LXSLICE_ANY = re.compile(r"_lxslice[0-9]+")
_LXSLICE_TAIL = re.compile(r"_lxslice[0-9]+$")
_SGT_GRAPH = re.compile(r"^.*sgt_graph_[0-9]+_")

TASK_TYPES = {0: "AICORE", 1: "AICPU", 2: "DEBUG", 3: "HCCL", 4: "FFTSPLUS"}
# Files opdiff itself writes into a dump folder (the name mapping, opdiff convert's list of files it
# could not read): never dumps, so discovery and convert pass over them.
CONVERT_FAILED_LIST = "convert_failed_file_list.txt"
NOT_DUMPS = ("mapping.csv", CONVERT_FAILED_LIST)
STATISTICS_SUFFIX = ".csv"  # a statistics dump is named "{dump file name}.csv" (docs/reference/device-files.md §2.1)


class FileKind(str, Enum):
    NPU = "npu dump"
    GOLDEN = "golden .npy"
    STATISTICS = "statistics dump"  # per-op statistics CSVs (docs/reference/device-files.md §2.1), maybe beside full dumps

    @property
    def is_npu(self) -> bool:
        """Dumps written by a device (full or statistics), as opposed to golden .npy files."""
        return self is not FileKind.GOLDEN


@dataclass(frozen=True)
class NpuDumpName:
    """The fields of an NPU dump file name. ``op_name`` is as the device wrote it (escaped: '.', '/',
    '\\' and ' ' became '_'); ``key`` is the op name after FFTS+ slice post-processing. ``path`` is
    a plain string (building 100k Path objects would dominate indexing)."""

    path: str
    op_type: str
    op_name: str
    key: str
    task_id: int
    stream_id: Optional[int]
    timestamp: int
    task_type: Optional[int] = None
    context_id: Optional[int] = None
    thread_id: Optional[int] = None
    device_id: Optional[int] = None

    @property
    def is_opdebug_record(self) -> bool:
        """An ``Opdebug.Node_OpDebug.*`` file: the device's overflow records, not an op's tensors
        (read by opdiff.dumps.opdebug)."""
        return self.op_type == OPDEBUG_OP_TYPE and self.op_name == OPDEBUG_OP_NAME

    @property
    def is_ffts_auto(self) -> bool:
        """An FFTS+ automatic-mode slice (one file per thread)."""
        return self.task_type == 4 and "_lxslice" not in self.op_name

    @property
    def manual_slice(self) -> Optional[int]:
        """The slice number of an FFTS+ manual-mode file (``_lxslice<N>`` at the end of the name)."""
        match = _LXSLICE_TAIL.search(self.op_name)
        return int(match.group(0)[len("_lxslice") :]) if match else None


@dataclass(frozen=True)
class GoldenName:
    """The fields of a golden ``.npy`` file name; ``key`` is ``"{op_name}.{output_index}"``."""

    path: str
    op_name: str
    output_index: int
    timestamp: int

    @property
    def key(self) -> str:
        return f"{self.op_name}.{self.output_index}"


def escape_op_name(name: str) -> str:
    """An op name as it appears in file names (the device and golden writers replace these)."""
    return re.sub(r"[./\\ ]", "_", name)


def slice_key(op_name: str, with_fusion_rule: bool) -> Optional[str]:
    """The op a (possibly sliced) file belongs to, per §2.1; None when the name cannot be resolved.

    >>> slice_key("conv1_lxslice0", with_fusion_rule=False)
    'conv1'
    >>> slice_key("sgt_graph_0_conv1_lxslice3", with_fusion_rule=False)
    'conv1'
    >>> slice_key("a_lxslice1_b_lxslice2", with_fusion_rule=True)
    'a_b'
    """
    if "_lxslice" not in op_name and "sgt_graph_" not in op_name:
        return op_name  # the common case: nothing to strip (saves two regex passes per file)
    if with_fusion_rule and "_lxslice" in op_name:
        op_name = _LXSLICE_ANY.sub("", op_name)
    else:
        op_name = _SGT_GRAPH.sub("", _LXSLICE_TAIL.sub("", op_name))
    return None if "_lxslice" in op_name else op_name


def parse_npu_dump_name(path: PathLike, *, with_fusion_rule: bool = True, real_name: Optional[str] = None) -> Optional[NpuDumpName]:
    """The fields of an NPU dump file name, or None when the name is not one.

    >>> n = parse_npu_dump_name("Conv2D.conv1_Conv2D.5.1.1700000000000001")
    >>> n.op_type, n.op_name, n.task_id, n.stream_id, n.timestamp
    ('Conv2D', 'conv1_Conv2D', 5, 1, 1700000000000001)
    """
    path = os.fspath(path)
    match = _NPU_NAME.match(real_name or os.path.basename(path))
    if not match:
        return None
    fields = match.groupdict()
    task_type = None if fields["task_type"] is None else int(fields["task_type"])
    if task_type is not None and task_type not in TASK_TYPES:
        return None
    key = slice_key(fields["op_name"], with_fusion_rule)
    if key is None:
        return None

    def number(name: str) -> Optional[int]:
        return None if fields[name] is None else int(fields[name])

    return NpuDumpName(
        path=path,
        op_type=fields["op_type"],
        op_name=fields["op_name"],
        key=key,
        task_id=int(fields["task"]),
        stream_id=number("stream"),
        timestamp=int(fields["timestamp"]),
        task_type=task_type,
        context_id=number("context"),
        thread_id=number("thread"),
        device_id=number("device"),
    )


def parse_golden_name(path: PathLike, *, real_name: Optional[str] = None) -> Optional[GoldenName]:
    """The fields of a golden .npy file name, or None.

    >>> g = parse_golden_name("conv1_Relu.0.1700000000000001.npy")
    >>> g.key, g.timestamp
    ('conv1_Relu.0', 1700000000000001)
    """
    path = os.fspath(path)
    match = _GOLDEN_NAME.match(real_name or os.path.basename(path))
    if not match:
        return None
    return GoldenName(path, match["op_name"], int(match["index"]), int(match["timestamp"]))


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

    ``skipped`` lists files whose names are neither NPU dumps nor golden files, with the reason.
    """

    folder: Path
    kind: Optional[FileKind]
    files: Dict[str, List[AnyName]] = field(default_factory=dict)
    skipped: List[Tuple[Path, str]] = field(default_factory=list)

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
        return DumpIndex(self.folder, self.kind, files, self.skipped)

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


def index_folder(folder: PathLike, *, with_fusion_rule: bool = True) -> DumpIndex:
    """Index one flat folder of NPU dumps or golden .npy files (names only, no bytes read).

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
                name = parse_npu_dump_name(path, with_fusion_rule=with_fusion_rule, real_name=entry.name[: -len(STATISTICS_SUFFIX)])
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
                name = parse_npu_dump_name(path, with_fusion_rule=with_fusion_rule, real_name=real_name or entry.name)
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
    # Sorted as strings, then made Paths: sorting thousands of Paths compares them part by part.
    return DumpIndex(folder, kind, files, [(Path(path), reason) for path, reason in sorted(skipped)])


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
        return bool(_NPU_NAME.match(name[: -len(STATISTICS_SUFFIX)]))
    return bool(_NPU_NAME.match(name) or _GOLDEN_NAME.match(name) or _HASHED_NAME.match(name))


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

