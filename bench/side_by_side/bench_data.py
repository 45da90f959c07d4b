"""Benchmark data sets, written with opdiff's writers: NPU dumps (fp16, ND or NC1HWC0) against fp32
golden .npy files through a fusion rule, in the shape of docs/reference/reference-tool.md §8: each op's dump
holds one input (the previous op's output, as on a device) and one output; every 10th op is a
2-to-1 fusion. Values are cheap to make (one random base per size, scaled per op): the timing is
what matters, and the noise is still independent of the golden values."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Sequence, Set, Tuple

import numpy as np
from rich.console import Console

from opdiff.dumps import Tensor, write_dump
from opdiff.dumps.writer import save_npy
from opdiff.graph.json_export import write_atc_json
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule

TS = 1700000000000000
C = 16  # channels of NC1HWC0 tensors: one C1 block, so stored and logical element counts agree


@dataclass(frozen=True)
class DataSet:
    name: str
    my: Path
    golden: Path
    rule: Path
    tensors: int  # tensor pairs compared
    dump_bytes: int
    golden_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.dump_bytes + self.golden_bytes


def _logical_shape(elements: int, nc1hwc0: bool) -> Tuple[int, ...]:
    if not nc1hwc0:
        return (elements // 256, 256) if elements % 256 == 0 and elements >= 256 else (elements,)
    hw = elements // C
    h = 1 << (int(np.log2(hw)) // 2)
    return (1, C, h, hw // h)


class _Values:
    """One random base and one noise vector per size; op k scales the base, so files differ."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)
        self._cache: Dict[int, Tuple[np.ndarray, np.ndarray]] = {}

    def pair(self, elements: int, k: int) -> Tuple[np.ndarray, np.ndarray]:
        if elements not in self._cache:
            self._cache = {}  # keep one size at a time: the 256M case is 2 GB
            self._cache[elements] = (self._rng.standard_normal(elements, dtype=np.float32),
                                     (1 + 1e-3 * self._rng.standard_normal(elements, dtype=np.float32)))
        base, noise = self._cache[elements]
        golden = base * np.float32(1 + 0.01 * (k % 97))
        return golden, golden * noise


def write_fusion_set(root: Path, name: str, sizes: Sequence[int], *, nc1hwc0_every: int = 0, seed: int = 0,
                     with_inputs: bool = True) -> DataSet:
    """One op per entry of `sizes` (elements of its output), chained: op k's input is op k-1's
    output. `nc1hwc0_every` = n stores every n-th op's tensors as NC1HWC0 (0: all ND)."""
    my, golden = root / "npu", root / "golden"
    my.mkdir(parents=True, exist_ok=True)
    golden.mkdir(parents=True, exist_ok=True)
    values = _Values(seed)
    ops: List[RuleOp] = []
    dump_bytes = golden_bytes = tensors = 0
    previous: Tuple[str, Tensor, int] = ("", Tensor(np.zeros(0, np.float32)), 0)
    for k, elements in enumerate(sizes):
        nc1hwc0 = bool(nc1hwc0_every) and k % nc1hwc0_every == 0
        shape = _logical_shape(elements, nc1hwc0)
        fmt = "NCHW" if nc1hwc0 else "ND"
        op_name, origin = f"op{k}", f"layer{k}/out"
        originals = [f"layer{k}/pre", origin] if k % 10 == 9 else [origin]
        golden_value, device_value = values.pair(elements, k)
        save_npy(golden / f"{origin.replace('/', '_')}.0.{TS}.npy", golden_value.reshape(shape))
        tensor = Tensor(device_value.reshape(shape), layout="NC1HWC0" if nc1hwc0 else "ND", dtype="float16")
        feeds = previous[0] and with_inputs and previous[2] == elements
        inputs = [previous[1]] if feeds else []
        write_dump(my / f"Op.{op_name}.{k + 1}.1.{TS + k + 1}", op_name, inputs=inputs, outputs=[tensor])
        ops.append(RuleOp(op_name, "Op", k, [f"{previous[0]}:0"] if feeds else [], originals, [RuleOutput(origin, 0, shape, fmt)]))
        dump_bytes += (my / f"Op.{op_name}.{k + 1}.1.{TS + k + 1}").stat().st_size
        golden_bytes += golden_value.nbytes + 128
        tensors += 1 + len(inputs)
        previous = (op_name, tensor, elements)
    write_atc_json(fusion_rule(ops), root / "rule.json")
    return DataSet(name, my, golden, root / "rule.json", tensors, dump_bytes, golden_bytes)


def llm_sizes(count: int, total_bytes: int, seed: int = 0) -> List[int]:
    """`count` tensor sizes, log-uniform from 4K to 32M elements, scaled so that the fp16 dumps plus
    fp32 golden files (6 bytes per element) come to about `total_bytes`."""
    rng = np.random.default_rng(seed)
    raw = np.exp(rng.uniform(np.log(4096), np.log(32 << 20), count))
    scaled = raw * (total_bytes / 6) / raw.sum()
    return [max(256, int(n) // 256 * 256) for n in scaled]


# A benchmark case: its key (--only), its label, and the writer of its data set into a folder.
Case = Tuple[str, str, Callable[[Path], DataSet]]

CASE_A: Case = ("a", "(a) 2,000 ops x 64K", lambda p: write_fusion_set(p, "(a) 2,000 ops x 64K", [1 << 16] * 2000, nc1hwc0_every=2))
CASE_B: Case = ("b", "(b) 20 ops x 16M", lambda p: write_fusion_set(p, "(b) 20 ops x 16M", [1 << 24] * 20, nc1hwc0_every=2))


def llm_case(key: str, gb: float) -> Case:
    """The LLM-like set: 2,000 tensors of log-uniform sizes, `gb` GB in all."""
    label = f"({key}) LLM-like {gb:g} GB"
    return (key, label, lambda p: write_fusion_set(p, f"({key}) LLM-like, 2,000 tensors, {gb:g} GB",
                                                  llm_sizes(2000, int(gb * 1e9)), with_inputs=False))


def each_data_set(cases: Sequence[Case], wanted: Set[str], root: Path, console: Console, *,
                  keep: bool) -> Iterator[Tuple[str, DataSet, Path]]:
    """Write each wanted case's data set under `root`, one at a time, and yield (key, data set, its
    folder); the folder is removed once the caller moves on, unless `keep`."""
    for key, label, make in cases:
        if key not in wanted:
            continue
        folder = root / key
        console.print(f"[bold]{label}[/]: generating in {folder}")
        data = make(folder)
        # The data set was just written: let the kernel write it back first, so that no tool is
        # timed while the disk absorbs a gigabyte of dirty pages.
        os.sync()
        yield key, data, folder
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)  # /tmp is shared: one data set at a time
