"""`dump_onnx`: one run of an ONNX model written as golden .npy files or as device dump files with
their fusion rule. The CLI `opdiff dump-onnx` is a thin layer over it.

Output folder layout::

    DIR/golden/                 golden run: {escaped op}.{output index}.{timestamp}.npy (+ mapping.csv)
    DIR/dump/                   device run: {op_type}.{escaped node}.{task}.{stream}.{timestamp}
    DIR/fusion_rule.json        device run: atc --mode=1 shaped fusion rule (opdiff.read_graph reads it)
    DIR/model.onnx              the graph that ran (prepared names; optimised and/or fp16 for device runs)
    DIR/inputs/{input}.npy      the input values, for --input in another run
    DIR/manifest.json           what ran, with which options, timings and notes
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Set, Tuple, Union

import numpy as np

from opdiff.conventions.mixlist import MixLists
from opdiff.fileio.atomic import write_bytes
from opdiff.graph import FusionMap
from opdiff.producers.file_names import file_safe_name, timestamp_now
from opdiff.producers.golden_writer import TensorOrigin, write_golden
from opdiff.producers.onnx.device_dump import DeviceLayout, write_device_dumps
from opdiff.producers.onnx.fault_injection import scale_weights
from opdiff.producers.onnx.fp16_model import convert_to_fp16
from opdiff.producers.onnx.fusion_rule import build_fusion_rule
from opdiff.producers.onnx.lineage import Lineage, recover_lineage, tensor_origins
from opdiff.producers.onnx.mixed_precision import fp32_under_mix
from opdiff.producers.onnx.model_prep import PreparedModel, prepare_model
from opdiff.producers.onnx.runner import Optimization, optimize_model, run_exposing_all, tensor_types
from opdiff.producers.onnx.support import OnnxModel, require_onnx
from opdiff.producers.run_record import save_inputs, write_manifest

PathLike = Union[str, "os.PathLike[str]"]
GOLDEN_FOLDER = "golden"
DUMP_FOLDER = "dump"
FUSION_RULE = "fusion_rule.json"


class Precision(str, Enum):
    FP32 = "fp32"
    FP16 = "fp16"


class OutputKind(str, Enum):
    """Golden .npy files, or device dump files with a fusion rule (auto: golden only for an
    unoptimised fp32 run)."""

    AUTO = "auto"
    GOLDEN = "golden"
    DEVICE = "device"


@dataclass(frozen=True)
class DumpOptions:
    """How to run and what to write.

    ``fusion`` runs the graph ONNX Runtime optimises at ``optimization`` (default extended: its
    fusions keep tensor names; ``all`` adds NCHWc layout ops whose tensors have new names).
    """

    fusion: bool = False
    optimization: Optimization = Optimization.EXTENDED
    precision: Precision = Precision.FP32
    kind: OutputKind = OutputKind.AUTO
    layout: DeviceLayout = DeviceLayout.ND
    threads: int = 0
    keep_fp32: Tuple[str, ...] = ()  # op types kept in fp32 by an fp16 run
    keep_fp32_nodes: Tuple[str, ...] = ()  # op names (the model's own, or as prepared) kept in fp32 by an fp16 run
    faults: Tuple[Tuple[str, float], ...] = ()  # (node, scale) each: see fault_injection.scale_weights
    mixlists: Optional[MixLists] = None  # an fp16 run under ATC's mixed precision: see mixed_precision.py

    def resolved_kind(self) -> OutputKind:
        if self.kind is not OutputKind.AUTO:
            return self.kind
        return OutputKind.GOLDEN if not self.fusion and self.precision is Precision.FP32 else OutputKind.DEVICE


@dataclass
class DumpResult:
    """What a dump wrote, and how long each step took (seconds)."""

    folder: Path
    kind: OutputKind
    tensor_folder: Path
    files: int
    fusion_rule: Optional[Path]
    model_path: Path
    timestamp: int
    ops: int
    mapped_share: Optional[float] = None
    seconds: Dict[str, float] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)


def dump_onnx(
    model: Union[PathLike, OnnxModel],
    folder: PathLike,
    feeds: Mapping[str, np.ndarray],
    options: DumpOptions = DumpOptions(),
    *,
    name: str = "",
    reference: Optional[OnnxModel] = None,
) -> DumpResult:
    """Run `model` (a path or a ModelProto) with `feeds` and write its tensors under `folder`.

    A device run's fusion rule maps to the golden run of `reference` (default: `model` itself);
    give the float model when `model` is its quantized copy (see :func:`quantize_qdq`).

    >>> import numpy as np, tempfile
    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    >>> model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    >>> with tempfile.TemporaryDirectory() as out:
    ...     result = dump_onnx(model, out, {"x": np.array([-1, 1], np.float32)})
    ...     sorted(p.name.split(".")[0] for p in result.tensor_folder.iterdir())
    ['relu', 'x']
    """
    onnx, _ = require_onnx()
    started = time.perf_counter()
    seconds: Dict[str, float] = {}
    if not isinstance(model, onnx.ModelProto):
        name = name or Path(os.fspath(model)).stem
        model = onnx.load(os.fspath(model))
    name = file_safe_name(name or model.graph.name or "model")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    prepared = prepare_model(model)
    notes = [f"node {r.old or '(unnamed)'} renamed {r.new}" for r in prepared.renames]
    golden_side = prepared if reference is None else prepare_model(reference)
    origins = tensor_origins(golden_side.model, golden_side.input_names)
    kind = options.resolved_kind()

    inputs_of_rewritten = prepared.input_names
    options = _resolve_kept_names(options, prepared)
    rewritten, rounding = _device_model(prepared.model, options, notes, seconds)
    seconds["prepare"] = time.perf_counter() - started - seconds.get("optimize", 0.0)

    run = run_exposing_all(rewritten, feeds, threads=options.threads, rewrite=rounding)
    seconds["session"], seconds["run"] = run.session_seconds, run.run_seconds
    timestamp = timestamp_now()
    t = time.perf_counter()
    fusion_rule: Optional[Path] = None
    mapped: Optional[float] = None
    if kind is OutputKind.GOLDEN:
        tensor_folder = out / GOLDEN_FOLDER
        own_origins = origins if rewritten is golden_side.model else tensor_origins(rewritten, inputs_of_rewritten)
        files, write_notes = write_golden(tensor_folder, run.tensors, own_origins, timestamp)
        count = len(files)
    else:
        tensor_folder = out / DUMP_FOLDER
        lineage = recover_lineage(golden_side.model, origins, rewritten, inputs_of_rewritten)
        mapped = lineage.mapped_share
        device_files, write_notes = write_device_dumps(tensor_folder, rewritten, run.tensors, lineage, timestamp, options.layout)
        count = len(device_files)
        fusion_rule = _write_fusion_rule(out / FUSION_RULE, name, rewritten, inputs_of_rewritten, lineage, origins, run.tensors, notes)
    seconds["write"] = time.perf_counter() - t
    notes += write_notes
    model_path = _save_model(rewritten, out / "model.onnx")
    save_inputs(out / "inputs", feeds)
    result = DumpResult(out, kind, tensor_folder, count, fusion_rule, model_path, timestamp, len(rewritten.graph.node), mapped, seconds, notes)
    _write_manifest(out / "manifest.json", result, options, name)
    return result


def _resolve_kept_names(options: DumpOptions, prepared: PreparedModel) -> DumpOptions:
    """`options` with its kept op names as the prepared model names them (a name the preparation
    changed may be given either way); ValueError naming the first name no node has."""
    if not options.keep_fp32_nodes:
        return options
    present = {node.name for node in prepared.model.graph.node}
    renamed = {rename.old: rename.new for rename in prepared.renames if rename.old}
    resolved: List[str] = []
    for name in options.keep_fp32_nodes:
        if name not in present and name not in renamed:
            raise ValueError(f"no op named {name!r} in the model to keep in fp32")
        resolved.append(name if name in present else renamed[name])
    return replace(options, keep_fp32_nodes=tuple(resolved))


def _device_model(model: OnnxModel, options: DumpOptions, notes: List[str],
                  seconds: Dict[str, float]) -> Tuple[OnnxModel, Optional[Callable[[OnnxModel], None]]]:
    """The model as the device run computes it: the faults injected, fused (ONNX Runtime's
    optimiser), then converted to fp16, as `options` ask; adds what it did to `notes`. With it,
    for an fp16 model, the rewrite that makes ONNX Runtime round every op's output to fp16 (its CPU
    provider would run chains of fp16 ops in float32: see :mod:`.fp16_rounding`)."""
    for node, scale in options.faults:
        model = scale_weights(model, node, scale)
        notes.append(f"fault injected: node {node} weights x{scale:g} (a quarter of the output channels)")
    if options.fusion:
        t = time.perf_counter()
        model = prepare_model(optimize_model(model, options.optimization, threads=options.threads)).model
        seconds["optimize"] = time.perf_counter() - t
    if options.precision is not Precision.FP16:
        return model, None
    # After optimising: the optimiser would fuse the rounding Casts away; converting the fused graph
    # keeps fp16 at every op, as a device runs the fused graph.
    types = tensor_types(model)
    keep_nodes: Set[str] = set(options.keep_fp32_nodes)
    if options.mixlists is not None:
        keep_nodes = fp32_under_mix(model, options.mixlists, types, kept=keep_nodes, kept_types=set(options.keep_fp32))
    converted = convert_to_fp16(model, options.keep_fp32, types, keep_nodes=keep_nodes)
    if options.mixlists is None:
        notes += [f"node {n} kept in fp32" for n in converted.kept_fp32]
    else:  # a mixed model keeps many ops in fp32: one note, the list is in the model it saves
        notes.append(f"mixed precision: {len(converted.kept_fp32)} of {len(model.graph.node)} nodes run in fp32 "
                     "(the black list, the kept ops and the gray ops following them)")
    present = {node.name for node in model.graph.node}
    notes += [f"op {n} of the keep list is no node of the fused graph (ONNX Runtime fused it into another): not kept"
              for n in options.keep_fp32_nodes if n not in present]
    return converted.model, converted.round_in_place


def _write_fusion_rule(path: Path, name: str, model: OnnxModel, inputs: Mapping[str, str], lineage: Lineage,
                       origins: Mapping[str, TensorOrigin], tensors: Mapping[str, np.ndarray], notes: List[str]) -> Path:
    """The device run's fusion rule as atc JSON; adds the quant-filter and lineage notes to `notes`."""
    from opdiff.graph import write_atc_json

    fusion_map = build_fusion_rule(name, model, inputs, lineage, origins, tensors)
    notes += quant_filter_notes(fusion_map)
    if lineage.unassigned:
        notes.append(f"{len(lineage.unassigned)} original nodes vanished without a surviving consumer: {', '.join(lineage.unassigned[:10])}")
    return write_atc_json(fusion_map, path)


def quant_filter_notes(fusion_map: FusionMap) -> List[str]:
    """A note naming the ops of a rule that the reference's quant filter would skip: an ONNX graph's
    names should never look like Ascend quant layers (see fusion_rule.const_op_name)."""
    from opdiff.graph import quant_filter

    skipped = sorted(quant_filter(fusion_map).skipped_ops)
    if not skipped:
        return []
    return [f"the quant filter reads {len(skipped)} op(s) of the fusion rule as inside an Ascend quant/dequant pair "
            f"and will not compare them: {', '.join(skipped[:10])}"]


def _save_model(model: OnnxModel, target: Path) -> Path:
    return write_bytes(target, model.SerializeToString())


def _write_manifest(target: Path, result: DumpResult, options: DumpOptions, name: str) -> None:
    write_manifest(target, model=name, kind=result.kind.value, tensors=result.tensor_folder, files=result.files,
                   fusion_rule=result.fusion_rule, timestamp=result.timestamp, ops=result.ops, mapped_share=result.mapped_share,
                   options={k: (v.value if isinstance(v, Enum) else v) for k, v in asdict(options).items()},
                   seconds=result.seconds, notes=result.notes)
