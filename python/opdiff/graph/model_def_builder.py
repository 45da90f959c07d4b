"""Building ge.proto.ModelDef messages (the MODEL_DEF of an .om, the graph of a GE dump): ops with
fusion provenance, or a whole FusionMap. The .om and GE graph writers (graph/om/writer.py,
graph/ge/writer.py) store what is built here; the attribute keys are those the readers look for
(graph/provenance.py).

>>> from opdiff.graph.model_def import fusion_map_of_model_def
>>> model = model_def("m", [("g", [op_def("x", "Data"), op_def("conv1relu1", "Conv2D", id_=1, inputs=["x:0"],
...     original_names=["conv1", "relu1"], output_descs=[output_desc("relu1", 0, origin_shape=[1, 16, 8, 8])])])])
>>> fusion_map_of_model_def(model, "m.om").op("conv1relu1").output_descs[0].origin_name
'relu1'
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from opdiff.graph import provenance as pv
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc
from opdiff.graph.proto import ge_ir_pb2 as ge

_LIST_STRING = ge.AttrDef.ListValue.VT_LIST_STRING
_LIST_INT = ge.AttrDef.ListValue.VT_LIST_INT


def dtype_number(name: str) -> int:
    """The ge.proto.DataType number of `name` ("" is DT_UNDEFINED; "DT_<n>" is n).

    >>> dtype_number("DT_FLOAT16"), dtype_number(""), dtype_number("DT_99")
    (2, 0, 99)
    """
    if not name:
        return 0
    if name in ge.DataType.keys():  # noqa: SIM118 - an EnumTypeWrapper has no __contains__
        return ge.DataType.Value(name)
    return int(name[3:])


def output_desc(
    origin_name: Optional[str] = None,
    origin_output_index: Optional[int] = None,
    *,
    origin_format: Optional[str] = None,
    ge_origin_format: Optional[str] = None,
    origin_shape: Optional[Sequence[int]] = None,
    dtype: str = "DT_FLOAT16",
    layout: str = "NC1HWC0",
) -> ge.TensorDescriptor:
    """A TensorDescriptor carrying the given provenance attributes (None = attribute absent)."""
    desc = ge.TensorDescriptor(dtype=dtype_number(dtype), layout=layout)  # type: ignore[arg-type]  # protoc's .pyi wants a DataType; an open (proto3) enum takes any int
    if origin_name is not None:
        desc.attr[pv.ORIGIN_NAME].s = origin_name.encode()
    if origin_output_index is not None:
        desc.attr[pv.ORIGIN_OUTPUT_INDEX].i = origin_output_index
    if origin_format is not None:
        desc.attr[pv.ORIGIN_FORMAT].s = origin_format.encode()
    if ge_origin_format is not None:
        desc.attr[pv.GE_ORIGIN_FORMAT].s = ge_origin_format.encode()
    if origin_shape is not None:
        shape = desc.attr[pv.ORIGIN_SHAPE].list
        shape.val_type = _LIST_INT
        shape.i.extend(origin_shape)
    return desc


def op_def(
    name: str,
    type_: str,
    *,
    inputs: Iterable[str] = (),
    original_names: Optional[Sequence[str]] = None,
    output_descs: Iterable[ge.TensorDescriptor] = (),
    id_: int = 0,
    l1_fusion_sub_graph_no: Optional[str] = None,
    is_multiop: Optional[bool] = None,
    extra_attrs: Iterable[Tuple[str, str]] = (),
) -> ge.OpDef:
    """An OpDef with fusion provenance attributes (None = attribute absent) and string extras."""
    op = ge.OpDef(name=name, type=type_, id=id_, input=list(inputs))
    if original_names is not None:
        names = op.attr[pv.ORIGINAL_OP_NAMES].list
        names.val_type = _LIST_STRING
        names.s.extend(n.encode() for n in original_names)
    if l1_fusion_sub_graph_no is not None:
        op.attr[pv.L1_FUSION_SUB_GRAPH_NO].s = l1_fusion_sub_graph_no.encode()
    if is_multiop is not None:
        op.attr[pv.IS_MULTIOP].b = is_multiop
    for key, value in extra_attrs:
        op.attr[key].s = value.encode()
    op.output_desc.extend(output_descs)
    return op


def model_def(name: str, graphs: Iterable[Tuple[str, Iterable[ge.OpDef]]]) -> ge.ModelDef:
    """A ModelDef holding `graphs` (name, ops) in order."""
    model = ge.ModelDef(name=name, version=2, custom_version="1.11.z.0")
    for graph_name, ops in graphs:
        graph = model.graph.add(name=graph_name)
        graph.op.extend(ops)
    return model


def simple_model_def() -> ge.ModelDef:
    """The minimal example of docs/reference/reference-tool.md §3.7: an input and a Conv2D+Relu fused op."""
    x = op_def(
        "x", "Data", original_names=["x"],
        output_descs=[output_desc("x", 0, origin_format="NCHW", origin_shape=[1, 3, 8, 8])],
    )
    conv = op_def(
        "conv1/Conv2D_relu_fused", "Conv2D", id_=1, inputs=["x:0", "x:-1"],
        original_names=["conv1/Conv2D", "conv1/Relu"],
        output_descs=[output_desc("conv1/Relu", 0, origin_format="NCHW", origin_shape=[1, 16, 8, 8])],
    )
    return model_def("ge_default", [("ge_default_1", [x, conv])])


def model_def_from_fusion_map(fusion_map: FusionMap) -> ge.ModelDef:
    """A ModelDef whose FusionMap equals `fusion_map` (ops written with their resolved provenance)."""
    by_graph: Dict[str, List[ge.OpDef]] = {graph: [] for graph in fusion_map.graphs}
    for op in fusion_map.ops:
        by_graph.setdefault(op.graph, []).append(_op_def_of(op))
    return model_def(fusion_map.name, by_graph.items())


def _op_def_of(op: Op) -> ge.OpDef:
    # The synthetic desc of an op without names attribute or descs: write neither, as it came.
    synthetic = op.output_descs == (OutputDesc(op.name, None),) and op.original_names == (op.name,)
    return op_def(
        op.name,
        op.type,
        inputs=[str(ref) for ref in op.inputs],
        original_names=None if synthetic else list(op.original_names),
        id_=op.id,
        l1_fusion_sub_graph_no=op.l1_fusion_sub_graph_no or None,
        is_multiop=op.is_multiop or None,
        output_descs=[
            output_desc(
                d.origin_name or None,
                d.origin_output_index,
                origin_format=d.origin_format or None,
                origin_shape=d.origin_shape,
                dtype=d.dtype,
            )
            for d in (() if synthetic else op.output_descs)
        ],
    )
