"""Preparing an ONNX model for dumping: node names every file name can carry, and a copy that
exposes every intermediate tensor as a graph output.

Golden and device files are named after nodes, so every run of one model (golden, fusion on, fp16)
starts from the same prepared copy: unnamed nodes get ``{op_type}_{position}``, characters a dump
file name cannot hold become ``_``, and names that would collide once escaped get a ``_{n}`` suffix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Set, Tuple

from opdiff.conventions.dump_names import escape_op_name
from opdiff.producers.file_names import file_safe_name
from opdiff.producers.onnx.support import OnnxGraph, OnnxModel


@dataclass(frozen=True)
class Rename:
    """A node whose name was changed (``old`` empty for an unnamed node)."""

    old: str
    new: str


@dataclass
class PreparedModel:
    """A model copy with dump-safe node names, and the renames done (for the run's notes)."""

    model: OnnxModel
    renames: List[Rename] = field(default_factory=list)
    input_names: Dict[str, str] = field(default_factory=dict)  # graph input -> its golden op name


def prepare_model(model: OnnxModel) -> PreparedModel:
    """A copy of `model` whose node names are unique, file-safe and distinct once escaped.

    Graph inputs keep their names; their golden op name is the file-safe input name, and nodes are
    renamed away from those so that an input and a node never share a golden file.

    >>> import onnx
    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["y"], ["z"], name="x")],
    ...     "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    >>> [n.name for n in prepare_model(helper.make_model(g)).model.graph.node]
    ['Relu_0', 'x_1']
    """
    copy = type(model)()
    copy.CopyFrom(model)
    names, input_names = prepared_names(model.graph)
    renames: List[Rename] = []
    for node, name in zip(copy.graph.node, names):
        if name != node.name:
            renames.append(Rename(node.name, name))
            node.name = name
    return PreparedModel(copy, renames, input_names)


def prepared_names(graph: OnnxGraph) -> Tuple[List[str], Dict[str, str]]:
    """The node names :func:`prepare_model` gives `graph`'s nodes, in graph order, and the golden
    op name of each graph input (its file-safe name), without copying the graph."""
    initializers = {init.name for init in graph.initializer}
    input_names = {vi.name: file_safe_name(vi.name) for vi in graph.input if vi.name not in initializers}
    taken: Set[str] = {escape_op_name(name) for name in input_names.values()}
    names: List[str] = []
    for position, node in enumerate(graph.node):
        wanted = file_safe_name(node.name) if node.name else f"{node.op_type}_{position}"
        name = _unique(wanted, taken)
        taken.add(escape_op_name(name))
        names.append(name)
    return names, input_names


def _unique(wanted: str, taken: Set[str]) -> str:
    if escape_op_name(wanted) not in taken:
        return wanted
    suffix = 1
    while escape_op_name(f"{wanted}_{suffix}") in taken:
        suffix += 1
    return f"{wanted}_{suffix}"


def exposed_copy(model: OnnxModel) -> Tuple[OnnxModel, List[str]]:
    """A copy of `model` with every node output added as a graph output, and those tensor names
    in node order (graph outputs included once).

    Outputs are added without a type: ONNX Runtime infers it, and shape inference on models with
    custom-domain (fused) ops would not.
    """
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    graph = copy.graph
    present = {vi.name for vi in graph.output}
    names: List[str] = []
    seen: Set[str] = set()
    for node in graph.node:
        for output in node.output:
            if not output or output in seen:
                continue
            seen.add(output)
            names.append(output)
            if output not in present:
                graph.output.append(onnx.ValueInfoProto(name=output))
    return copy, names
