"""A device-style run of a Caffe net, as ATC would compile it: Convolution fused with the in-place
BatchNorm, Scale and ReLU that follow it into one NPU op, every other layer an op of its own; the
dumps (fp16, the project's dump writer) and the atc JSON fusion rule (graph/rule_builder.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name
from opdiff.dumps import Tensor, write_dump
from opdiff.graph import write_atc_json
from opdiff.graph.rule_builder import RuleOp, RuleOutput, fusion_rule
from tests.support.caffe_models import NetWriter

FUSED_INTO_CONV = ("BatchNorm", "Scale", "ReLU")
TIMESTAMP = 1700000000000000


@dataclass(frozen=True)
class NpuOp:
    """One NPU op: its name and type, the layers it replaced and the layer whose tops it outputs."""

    name: str
    type: str
    layers: Tuple[str, ...]
    bottoms: Tuple[str, ...]
    tops: Tuple[str, ...]


def npu_ops(writer: NetWriter) -> List[NpuOp]:
    """The net's layers grouped as ATC fuses them (a Convolution and its in-place followers)."""
    ops: List[NpuOp] = []
    for layer in writer.net.layer:
        if layer.type == "Input":
            continue
        last = ops[-1] if ops else None
        if (last is not None and last.type == "Convolution" and layer.type in FUSED_INTO_CONV
                and list(layer.bottom) == list(layer.top) == list(last.tops)):
            ops[-1] = NpuOp(last.name, last.type, (*last.layers, layer.name), last.bottoms, last.tops)
            continue
        ops.append(NpuOp(layer.name, layer.type, (layer.name,), tuple(layer.bottom), tuple(layer.top)))
    return ops


def write_device_run(folder: Path, writer: NetWriter, tensors: Mapping[Tuple[str, int], np.ndarray]) -> Tuple[Path, Path]:
    """Write `tensors` ((layer, top) -> value) as the device dumps of `writer`'s NPU ops and its fusion
    rule; returns (the dump folder, the rule)."""
    dump = folder / "dump"
    dump.mkdir(parents=True, exist_ok=True)
    producer: Dict[str, str] = {}  # blob -> "npu op:index" that last wrote it
    written: Dict[str, Tuple[str, int]] = {}  # blob -> (layer, top) of its value so far
    rule_ops = []
    inputs = [layer for layer in writer.net.layer if layer.type == "Input"]
    for position, layer in enumerate(inputs):
        shape = tuple(writer.net.layer[position].input_param.shape[0].dim)
        rule_ops.append(RuleOp(layer.name, "Data", position, [], [layer.name], [RuleOutput(layer.name, 0, shape, fmt="NCHW")]))
        producer[layer.top[0]] = f"{layer.name}:0"
        written[layer.top[0]] = (layer.name, 0)
    for task, op in enumerate(npu_ops(writer), start=len(inputs)):
        outputs = [tensors[(op.layers[-1], k)] for k in range(len(op.tops))]
        feeds = [tensors[written[blob]] for blob in op.bottoms]
        write_dump(dump / device_file_name(op.type, op.name, task, 0, TIMESTAMP), op.name,
                   inputs=[Tensor(v, dtype="float16") for v in feeds], outputs=[Tensor(v, dtype="float16") for v in outputs])
        rule_ops.append(RuleOp(op.name, op.type, task, [producer[b] for b in op.bottoms], list(op.layers),
                               [RuleOutput(op.layers[-1], k, v.shape, fmt="NCHW") for k, v in enumerate(outputs)]))
        for k, blob in enumerate(op.tops):
            producer[blob] = f"{op.name}:{k}"
            written[blob] = (op.layers[-1], k)
    rule = write_atc_json(fusion_rule(rule_ops, name=writer.name), folder / "fusion_rule.json")
    return dump, rule


def scaled_channels(weights: Sequence[np.ndarray], scale: float) -> List[np.ndarray]:
    """A convolution's blobs with a quarter of its output channels times `scale`: a known culprit."""
    weight = weights[0].copy()
    weight[: max(1, weight.shape[0] // 4)] *= scale
    return [weight, *weights[1:]]


@dataclass(frozen=True)
class CaffeChain:
    """A golden run of a small ResNet (dump-caffe) and a device run of it with one faulty convolution."""

    prototxt: Path  # the net, with its correct weights in the .caffemodel beside it
    golden: Path  # dump-caffe's golden folder
    dump: Path  # the device run's dumps
    rule: Path  # its fusion rule
    faulty: str  # the faulty convolution


def write_faulty_chain(folder: Path, faulty: str = "res3a_branch2b", scale: float = 3.0) -> CaffeChain:
    """Write the golden run, then the device run whose layer `faulty` has a quarter of its output
    channels times `scale` (ATC's fusion, fp16 dumps; the same seeded input)."""
    from opdiff.dumps.discovery import index_folder
    from opdiff.producers.caffe.dump import dump_caffe, load_caffe
    from tests.support.caffe_models import ResNetShape, resnet_net

    shape = ResNetShape(blocks=(1, 2), width=8, size=32, classes=10)
    feeds = {"data": np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)}
    runs = {}
    for kind in ("golden", "faulty"):
        writer = resnet_net(shape)
        if kind == "faulty":
            writer.blobs[faulty] = scaled_channels(writer.blobs[faulty], scale)
        prototxt, caffemodel = writer.write(folder / kind / "model")
        result = dump_caffe(load_caffe(prototxt, caffemodel), folder / kind / "out", feeds)
        runs[kind] = (writer, prototxt, result.tensor_folder)
    writer, _, faulty_golden = runs["faulty"]
    index = index_folder(faulty_golden)
    tensors = {(layer.name, k): np.load(index.newest(f"{layer.name}.{k}").path) for layer in writer.net.layer for k in range(len(layer.top))}
    dump, rule = write_device_run(folder / "device", writer, tensors)
    return CaffeChain(runs["golden"][1], runs["golden"][2], dump, rule, faulty)
