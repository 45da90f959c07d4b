"""dump-tf's fp16 run written as a device writes it: one Ascend dump file per op that ran (what the op
read and wrote: fp16 for an op computed in fp16, see :mod:`.fp16`) and the fusion rule, atc JSON
shaped, that maps each op's outputs to the golden run's files.

Files are named ``{op_type}.{escaped op}.{task}.{stream}.{timestamp}``: task = the op's position in
the GraphDef (1-based), stream 0, timestamps one microsecond apart in graph order, as dump-onnx
writes them. Placeholders and Consts have no dump file (a device dumps neither): the rule holds a
``Data`` op per Placeholder (its output the golden file of the input) and a ``Const`` op per Const.
Every other op is its own op in the rule, its original name its own, output ``k`` of the dump the
``k``-th output the run fetched; an op none of whose outputs were fetched has neither file nor op.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

import numpy as np

from opdiff.conventions.dump_names import device_file_name
from opdiff.dumps.writer import Tensor, write_dump
from opdiff.graph import FusionMap, OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op
from opdiff.producers.file_names import FolderNames
from opdiff.producers.rule_dtypes import dtype_name
from opdiff.producers.tf.fp16 import Fp16Graph
from opdiff.producers.tf.graph import imported_graph
from opdiff.producers.tf.support import TfGraph, TfGraphDef

DUMP_FOLDER = "dump"
FUSION_RULE = "fusion_rule.json"
STREAM_ID = 0
NO_DUMP_TYPES = ("Placeholder", "Const")


@dataclass(frozen=True)
class WrittenTensors:
    """What a run's tensor writer wrote: the folder, its file count, notes, the kind of files
    (``golden`` .npy or ``device`` dumps) and the fusion rule beside device dumps."""

    folder: Path
    files: int
    notes: List[str] = field(default_factory=list)
    kind: str = "golden"
    fusion_rule: Optional[Path] = None


@dataclass(frozen=True)
class DeviceDumps:
    """Writes an fp16 run's tensors (fetched from `fp16`'s graph, ``op:k``) as device dumps of the
    model's own graph `graph_def`, with the fusion rule named `name`."""

    graph_def: TfGraphDef
    fp16: Fp16Graph
    name: str

    def __call__(self, out: Path, tensors: Mapping[str, np.ndarray], timestamp: int) -> WrittenTensors:
        from opdiff.graph import write_atc_json

        graph = imported_graph(self.graph_def)
        slots = {op.name: [k for k in range(len(op.outputs)) if f"{op.name}:{k}" in tensors] for op in graph.get_operations()}
        files, notes = self._write_dumps(out / DUMP_FOLDER, graph, tensors, slots, timestamp)
        rule = write_atc_json(self._fusion_rule(graph, tensors, slots), out / FUSION_RULE)
        return WrittenTensors(out / DUMP_FOLDER, files, notes, "device", rule)

    def _write_dumps(self, folder: Path, graph: TfGraph, tensors: Mapping[str, np.ndarray], slots: Mapping[str, List[int]],
                     timestamp: int) -> Tuple[int, List[str]]:
        folder.mkdir(parents=True, exist_ok=True)
        names = FolderNames(folder, timestamp)
        files, notes = 0, []
        for position, op in enumerate(graph.get_operations()):
            if op.type in NO_DUMP_TYPES or not slots[op.name]:
                continue
            outputs = [Tensor(self.fp16.written(f"{op.name}:{k}", tensors[f"{op.name}:{k}"]), origin_name=op.name)
                       for k in slots[op.name]]
            read = [t.name for t in op.inputs]
            # an input that was not fetched (a handle): no inputs at all, rather than shifted slots
            inputs = [self.fp16.read(op.name, t, tensors[t]) for t in read] if all(t in tensors for t in read) else []
            stamp = timestamp + position
            target = names.path_for(device_file_name(op.type, op.name, position + 1, STREAM_ID, stamp))
            try:
                write_dump(target, op.name, inputs=inputs, outputs=outputs, dump_time=stamp)
            except (ValueError, KeyError) as error:  # a type the dump format lacks (string, variant)
                notes.append(f"op {op.name} ({op.type}) not dumped: {error}")
                continue
            files += 1
        names.write_mapping()
        return files, notes

    def _fusion_rule(self, graph: TfGraph, tensors: Mapping[str, np.ndarray], slots: Mapping[str, List[int]]) -> FusionMap:
        refs: Dict[str, str] = {}
        for op_name, fetched in slots.items():
            refs.update({f"{op_name}:{k}": f"{op_name}:{slot}" for slot, k in enumerate(fetched)})
        ops = []
        for op in graph.get_operations():
            fetched = slots[op.name]
            if not fetched:
                continue
            values = [self.fp16.written(f"{op.name}:{k}", tensors[f"{op.name}:{k}"]) for k in fetched]
            if op.type in NO_DUMP_TYPES:  # no dump file; its golden file (dump-tf writes one) is each reader's input
                rule_type = "Data" if op.type == "Placeholder" else "Const"
                ops.append(make_op(op.name, rule_type, original_names=[op.name], output_descs=[_desc(op.name, 0, values[0])]))
            else:
                inputs = [refs.get(t.name, t.name) for t in op.inputs]
                ops.append(make_op(op.name, op.type, id_=len(ops), inputs=inputs, original_names=[op.name],
                                   output_descs=[_desc(op.name, k, v) for k, v in zip(fetched, values)]))
        return build_fusion_map(self.name, [(self.name, ops)], source=self.name)


def _desc(origin: str, index: int, array: np.ndarray) -> OutputDesc:
    """An output desc: TensorFlow's 4-D tensors are channels-last (NHWC)."""
    layout = "NHWC" if array.ndim == 4 else "ND"
    return OutputDesc(origin, index, layout, tuple(int(d) for d in array.shape), dtype_name(array))
