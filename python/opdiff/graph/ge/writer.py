"""Writing GE graph dumps (DUMP_GE_GRAPH): both text forms of a ModelDef, as test data of your own
graph (build the ModelDef with graph/model_def_builder.py) and for the tests and benchmarks.

* `ge_proto_text`: protobuf text of the ModelDef, as `ge_proto_{N}_{stage}.txt` holds it;
* `ge_onnx_text`: protobuf text of the ONNX ModelProto GE fills from the same graph
  (`ge_onnx_{N}_graph_{K}_{stage}.pbtxt`), written by GE's rules (docs/reference/device-files.md §3): "ge:" types,
  every desc field flattened into `{input|output}_desc_{field}:K` attributes, desc attributes as
  `..._desc_attr_{key}:K`, attributes sorted by name, bools as INT, empty lists left out, string
  attributes only when `with_strings` (DUMP_GE_GRAPH=1), sub-graphs as "subgraph" nodes.

Written from the ModelDef field by field, independently of the reader (graph/ge/onnx_form.py).

>>> import tempfile
>>> from opdiff.graph.model_def_builder import simple_model_def
>>> from opdiff.graph.read import read_graph
>>> paths = write_ge_graph_dumps(tempfile.mkdtemp(), simple_model_def(), stages=("Build",))
>>> [path.name for path in paths]
['ge_proto_00000000_Build.txt', 'ge_onnx_00000000_graph_1_Build.pbtxt']
>>> [read_graph(path).op("conv1/Conv2D_relu_fused").original_names for path in paths]
[('conv1/Conv2D', 'conv1/Relu'), ('conv1/Conv2D', 'conv1/Relu')]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, List, Sequence, Union

from google.protobuf import text_format

from opdiff.fileio.atomic import write_text
from opdiff.graph.proto import ge_ir_pb2 as ge
from opdiff.graph.proto import ge_onnx_pb2 as gx

PathLike = Union[str, "os.PathLike[str]"]
STAGES = ("Build", "AfterInsertEventNodes", "FeGraphFusionAfter", "afterUBMatch")
_A = gx.AttributeProto
_LIST = ge.AttrDef.ListValue
# TensorDescriptor members GE writes under their own names (after dtype, shape and layout).
_OUTPUT_FIELDS = ("size", "weight_size", "device_type", "real_dim_cnt")
_INPUT_FIELDS = ("size", "weight_size", "reuse_input", "output_tensor", "device_type", "input_tensor", "real_dim_cnt",
                 "data_offset", "cmps_size", "cmps_tab", "cmps_tab_offset")
_MEMBER_ATTRS = ("origin_shape", "origin_format", "origin_data_type")  # desc members, not desc attributes


def ge_proto_text(model: ge.ModelDef) -> str:
    """The ge_proto form: the ModelDef in protobuf text format.

    >>> from opdiff.graph.model_def_builder import model_def, op_def
    >>> print(ge_proto_text(model_def("m", [("g", [op_def("x", "Data")])])), end="")
    name: "m"
    version: 2
    custom_version: "1.11.z.0"
    graph {
      name: "g"
      op {
        name: "x"
        type: "Data"
      }
    }
    """
    return text_format.MessageToString(model)


def ge_onnx_text(model: ge.ModelDef, *, with_strings: bool = True) -> str:
    """The ge_onnx form of `model` in protobuf text format.

    >>> from opdiff.graph.model_def_builder import model_def, op_def
    >>> 'op_type: "ge:Relu"' in ge_onnx_text(model_def("m", [("g", [op_def("relu", "Relu")])]))
    True
    """
    return text_format.MessageToString(onnx_model_of(model, with_strings=with_strings))


def onnx_model_of(model: ge.ModelDef, *, with_strings: bool = True) -> gx.ModelProto:
    """The ONNX ModelProto GE writes of `model`: its first graph, then one "subgraph" node per other graph."""
    onnx_model = gx.ModelProto(ir_version=6, producer_name="GE", model_version=model.version)
    graphs = list(model.graph)
    if not graphs:
        return onnx_model
    root = _graph(graphs[0], with_strings)
    for sub in graphs[1:]:
        node = root.node.add(name=sub.name, op_type="subgraph")
        node.attribute.add(name="graph", type=_A.GRAPH, g=_graph(sub, with_strings))
    onnx_model.graph.CopyFrom(root)
    return onnx_model


def _graph(graph: ge.GraphDef, with_strings: bool) -> gx.GraphProto:
    proto = gx.GraphProto(name=graph.name)
    for op in graph.op:
        if op.type == "Data":
            proto.input.add(name=op.name)
        proto.node.append(_node(op, with_strings))
    return proto


def _node(op: ge.OpDef, with_strings: bool) -> gx.NodeProto:
    attrs: List[gx.AttributeProto] = [_A(name="id", type=_A.INT, i=op.id), _A(name="stream_id", type=_A.INT, i=op.stream_id)]
    for name in ("input_name", "src_name", "dst_name"):
        values = list(getattr(op, name))
        if values:
            attrs.append(_A(name=name, type=_A.STRINGS, strings=[v.encode() for v in values]))
    for name in ("src_index", "dst_index", "input_i", "output_i", "workspace", "workspace_bytes"):
        values = list(getattr(op, name))
        if values:
            attrs.append(_A(name=name, type=_A.INTS, ints=values))
    for key, value in op.attr.items():
        attrs.extend(_attr_protos(key, value, with_strings))
    attrs.extend(_descs(op.input_desc, "input_desc", _INPUT_FIELDS, with_strings))
    attrs.extend(_descs(op.output_desc, "output_desc", _OUTPUT_FIELDS, with_strings))
    node = gx.NodeProto(name=op.name, op_type="ge:" + op.type, input=list(op.input))
    node.attribute.extend(sorted(attrs, key=lambda attr: attr.name))
    return node


def _descs(descs: Iterable[ge.TensorDescriptor], kind: str, fields: Sequence[str], with_strings: bool) -> List[gx.AttributeProto]:
    descs = list(descs)
    attrs = [_A(name=f"{kind}_nums", type=_A.INT, i=len(descs))]
    for k, desc in enumerate(descs):
        member = {key: desc.attr[key] if key in desc.attr else ge.AttrDef() for key in _MEMBER_ATTRS}
        attrs += [
            _A(name=f"{kind}_dtype:{k}", type=_A.STRING, s=ge.DataType.Name(desc.dtype).encode()),
            _A(name=f"{kind}_origin_dtype:{k}", type=_A.STRING, s=member["origin_data_type"].s or b"DT_UNDEFINED"),
            _A(name=f"{kind}_shape:{k}", type=_A.INTS, ints=list(desc.shape.dim)),
            _A(name=f"{kind}_origin_shape:{k}", type=_A.INTS, ints=list(member["origin_shape"].list.i)),
            _A(name=f"{kind}_layout:{k}", type=_A.STRING, s=desc.layout.encode()),
            _A(name=f"{kind}_origin_layout:{k}", type=_A.STRING, s=member["origin_format"].s),
        ]
        for name in fields:
            value = getattr(desc, name)
            attrs.append(_A(name=f"{kind}_{name}:{k}", type=_A.STRING, s=value.encode()) if isinstance(value, str)
                         else _A(name=f"{kind}_{name}:{k}", type=_A.INT, i=int(value)))
        for key, value in desc.attr.items():
            if key not in _MEMBER_ATTRS:
                attrs.extend(_attr_protos(key, value, with_strings, prefix=f"{kind}_attr_", suffix=f":{k}"))
    return attrs


def _attr_protos(key: str, value: ge.AttrDef, with_strings: bool, prefix: str = "", suffix: str = "") -> List[gx.AttributeProto]:
    name = prefix + key + suffix
    kind = value.WhichOneof("value")
    if kind == "i":
        return [_A(name=name, type=_A.INT, i=value.i)]
    if kind == "b":
        return [_A(name=name, type=_A.INT, i=int(value.b))]
    if kind == "f":
        return [_A(name=name, type=_A.FLOAT, f=value.f)]
    if kind == "s":
        return [_A(name=name, type=_A.STRING, s=value.s)] if with_strings else []
    if kind == "list_list_int":
        return [_A(name=f"{name}_{j}", type=_A.INTS, ints=list(inner.list_i))
                for j, inner in enumerate(value.list_list_int.list_list_i) if inner.list_i]
    if kind == "list":
        return _list_protos(name, value.list, with_strings)
    return []  # tensors, graphs, named attrs: not what these tests need


def _list_protos(name: str, listed: ge.AttrDef.ListValue, with_strings: bool) -> List[gx.AttributeProto]:
    if listed.val_type == _LIST.VT_LIST_STRING and listed.s and with_strings:
        return [_A(name=name, type=_A.STRINGS, strings=list(listed.s))]
    if listed.val_type == _LIST.VT_LIST_INT and listed.i:
        return [_A(name=name, type=_A.INTS, ints=list(listed.i))]
    if listed.val_type == _LIST.VT_LIST_FLOAT and listed.f:
        return [_A(name=name, type=_A.FLOATS, floats=list(listed.f))]
    if listed.val_type == _LIST.VT_LIST_BOOL and listed.b:
        return [_A(name=name, type=_A.INTS, ints=[int(b) for b in listed.b])]
    return []


def write_ge_graph_dumps(folder: PathLike, model: ge.ModelDef, *, stages: Sequence[str] = STAGES, first_number: int = 0,
                         graph_id: int = 1, with_strings: bool = True) -> List[Path]:
    """Both forms of `model` at each of `stages` into `folder`, named as GE names them (8-digit dump
    numbers from `first_number`); returns the paths written."""
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    written: List[Path] = []
    proto_text, onnx_text = ge_proto_text(model), ge_onnx_text(model, with_strings=with_strings)
    for number, stage in enumerate(stages, start=first_number):
        written.append(write_text(target / f"ge_proto_{number:08d}_{stage}.txt", proto_text))
        written.append(write_text(target / f"ge_onnx_{number:08d}_graph_{graph_id}_{stage}.pbtxt", onnx_text))
    return written
