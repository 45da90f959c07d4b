"""The ModelDef that GE's ONNX-form graph dump carries (ge_onnx_*.pbtxt; docs/reference/device-files.md §3).

GE writes each op as an ONNX node: `op_type` is "ge:" + the GE type, inputs are GE's "producer:index"
(control edges ":-1"), and every OpDef field and attribute becomes a node attribute:

* `id`, `stream_id`, `input_name`, `src_name`, ... under their OpDef field names;
* each tensor desc flattened: `input_desc_nums`, `output_desc_{field}:K` (dtype, shape, layout,
  origin_shape, origin_layout, ...), its attributes as `output_desc_attr_{key}:K` and a list of
  int lists as `..._{key}:K_J`;
* the op's own attributes under their names; bools as INT.
* Sub-graphs are nodes of op_type "subgraph" holding the sub-graph in a `graph` attribute.

What the form loses is lost here too: string attributes (the fusion provenance among them) unless
the dump was made with DUMP_GE_GRAPH=1, empty lists, `has_out_attr`, `subgraph_name`, tensor
attributes' values (their flattened `{key}_desc_*` parts stay plain attributes).
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Tuple

from opdiff.graph import provenance as pv
from opdiff.graph.proto import ge_ir_pb2 as ge
from opdiff.graph.proto import ge_onnx_pb2 as gx

SUBGRAPH_TYPE = "subgraph"
TYPE_PREFIX = "ge:"
DESC_KINDS = ("input_desc", "output_desc")
MAX_DESCS = 1 << 16  # an op with more tensor descs than this is damaged text, not a real op
_A = gx.AttributeProto
_LIST = ge.AttrDef.ListValue
_OP_SCALARS = frozenset({"id", "stream_id"})
_OP_STRING_LISTS = frozenset({"input_name", "src_name", "dst_name"})
_OP_INT_LISTS = frozenset({"src_index", "dst_index", "input_i", "output_i", "workspace", "workspace_bytes"})
# GE writes a bool attribute as INT; the fusion-map readers read this one as `b`.
_BOOL_ATTRS = frozenset({pv.IS_MULTIOP})
_DESC_FIELDS = ge.TensorDescriptor.DESCRIPTOR.fields_by_name
_DTYPES: Dict[str, int] = dict(ge.DataType.items())
_F = ge.TensorDescriptor.DESCRIPTOR.fields_by_name["name"]
_STRING, _BOOL, _INTEGERS = _F.TYPE_STRING, _F.TYPE_BOOL, frozenset({_F.TYPE_INT64, _F.TYPE_INT32, _F.TYPE_UINT32, _F.TYPE_UINT64})


def model_def_of_onnx(model: gx.ModelProto) -> ge.ModelDef:
    """The ModelDef of an ONNX-form dump: the root graph, then each sub-graph node's graph in order.

    The ModelDef is left unnamed: `producer_name` names the producer ("GE"), and the ge_proto form of
    the same dump has no model name either. ValueError for a node the form cannot hold.

    >>> node = gx.NodeProto(name="relu", op_type="ge:Relu", input=["x:0"])
    >>> node.attribute.add(name="id", type=gx.AttributeProto.INT, i=3)
    name: "id"
    i: 3
    type: INT
    <BLANKLINE>
    >>> model = model_def_of_onnx(gx.ModelProto(graph=gx.GraphProto(name="g", node=[node])))
    >>> op = model.graph[0].op[0]
    >>> op.name, op.type, op.id, list(op.input)
    ('relu', 'Relu', 3, ['x:0'])
    """
    model_def = ge.ModelDef(version=model.model_version)
    pending: List[gx.GraphProto] = [model.graph]
    while pending:
        graph_proto = pending.pop(0)
        graph = model_def.graph.add(name=graph_proto.name)
        for node in graph_proto.node[:]:
            if node.op_type == SUBGRAPH_TYPE:
                pending.extend(attr.g for attr in node.attribute if attr.name == "graph" and attr.HasField("g"))
            else:
                graph.op.append(op_def_of_node(node))
    return model_def


def has_original_names(model: gx.ModelProto) -> bool:
    """Whether any node (sub-graphs included) carries `_datadump_original_op_names`."""
    pending = [model.graph]
    while pending:
        graph = pending.pop()
        for node in graph.node:
            for attr in node.attribute:
                if attr.name == pv.ORIGINAL_OP_NAMES:
                    return True
                if attr.type == _A.GRAPH:
                    pending.append(attr.g)
    return False


def op_def_of_node(node: gx.NodeProto) -> ge.OpDef:
    """The OpDef a GE node stands for."""
    type_ = node.op_type[len(TYPE_PREFIX) :] if node.op_type.startswith(TYPE_PREFIX) else node.op_type
    op = ge.OpDef(name=node.name, type=type_, input=node.input[:])
    attrs = node.attribute[:]
    descs = {kind: _new_descs(op, kind, attrs) for kind in DESC_KINDS}
    for attr in attrs:
        name = attr.name
        kind = name.split("_desc_", 1)[0] + "_desc" if "_desc_" in name else ""
        if kind in descs:
            if not name.endswith("_nums"):
                _set_desc_field(descs[kind], name[len(kind) + 1 :], attr, node.name)
        elif name in _OP_SCALARS:
            setattr(op, name, attr.i)
        elif name in _OP_STRING_LISTS:
            getattr(op, name).extend(s.decode("utf-8", "replace") for s in attr.strings)
        elif name in _OP_INT_LISTS:
            getattr(op, name).extend(attr.ints)
        elif name == "is_input_const":
            op.is_input_const.extend(bool(i) for i in attr.ints)
        elif _storable(attr):
            _set_attr(op.attr[name], attr, name)
    return op


def _new_descs(op: ge.OpDef, kind: str, attrs: List[gx.AttributeProto]) -> List[ge.TensorDescriptor]:
    count = next((attr.i for attr in attrs if attr.name == f"{kind}_nums"), 0)
    if not 0 <= count <= MAX_DESCS:
        raise ValueError(f"op {op.name!r}: {kind}_nums is {count}")
    field = getattr(op, kind)
    return [field.add() for _ in range(count)]


def _set_desc_field(descs: List[ge.TensorDescriptor], rest: str, attr: gx.AttributeProto, node: str) -> None:
    """`rest` is "{field}:K", "attr_{key}:K" or "attr_{key}:K_J" (a list of int lists)."""
    field, _, index_text = rest.rpartition(":")
    index, inner = _desc_index(index_text)
    if index is None or not field or index >= len(descs):
        raise ValueError(f"op {node!r}: attribute {attr.name!r} names no tensor desc of the {len(descs)} it has")
    desc = descs[index]
    if field.startswith("attr_"):
        key = field[len("attr_") :]
        if inner is not None:
            _set_list_list_int(desc.attr[key], inner, attr)
        elif _storable(attr):
            _set_attr(desc.attr[key], attr, key)
        return
    text = attr.s.decode("utf-8", "replace")
    if field == "dtype":
        desc.dtype = _DTYPES.get(text, 0)  # type: ignore[assignment]  # an open (proto3) enum takes any int
    elif field == "shape":
        desc.shape.dim.extend(attr.ints)
    elif field == "origin_shape":
        _set_ints(desc.attr[pv.ORIGIN_SHAPE], attr.ints)
    elif field == "origin_layout":
        desc.attr[pv.GE_ORIGIN_FORMAT].s = attr.s
    elif field == "origin_dtype":
        desc.attr["origin_data_type"].s = attr.s
    elif field in _DESC_FIELDS:
        kind = _DESC_FIELDS[field].type
        if kind == _STRING:
            setattr(desc, field, text)
        elif kind == _BOOL:
            setattr(desc, field, bool(attr.i))
        elif kind in _INTEGERS:
            setattr(desc, field, attr.i)


def _desc_index(text: str) -> Tuple[int | None, int | None]:
    outer, _, inner = text.partition("_")
    if not outer.isdigit() or not outer.isascii() or (inner and not (inner.isdigit() and inner.isascii())):
        return None, None
    return int(outer), (int(inner) if inner else None)


def _set_list_list_int(value: ge.AttrDef, position: int, attr: gx.AttributeProto) -> None:
    if position >= MAX_DESCS:
        raise ValueError(f"attribute {attr.name!r}: list position {position}")
    lists = value.list_list_int.list_list_i
    while len(lists) <= position:
        lists.add()
    lists[position].list_i.extend(attr.ints)


_STORABLE = frozenset({_A.INT, _A.FLOAT, _A.STRING, _A.INTS, _A.FLOATS, _A.STRINGS})


def _storable(attr: gx.AttributeProto) -> bool:
    return attr.type in _STORABLE


def _set_attr(value: ge.AttrDef, attr: gx.AttributeProto, key: str) -> None:
    kind = attr.type
    if kind == _A.INT:
        if key in _BOOL_ATTRS:
            value.b = bool(attr.i)
        else:
            value.i = attr.i
    elif kind == _A.FLOAT:
        value.f = attr.f
    elif kind == _A.STRING:
        value.s = attr.s
    elif kind == _A.INTS:
        _set_ints(value, attr.ints)
    elif kind == _A.FLOATS:
        value.list.f.extend(attr.floats)
        value.list.val_type = _LIST.VT_LIST_FLOAT
    else:
        value.list.s.extend(attr.strings)
        value.list.val_type = _LIST.VT_LIST_STRING


def _set_ints(value: ge.AttrDef, ints: Iterable[int]) -> None:
    value.list.i.extend(ints)
    value.list.val_type = _LIST.VT_LIST_INT
