"""Fusion provenance of a decoded ModelDef (MODEL_DEF partition) as FusionMap ops."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from google.protobuf.message import DecodeError

from opdiff.graph import provenance as pv
from opdiff.graph.attr_compression import AttrDictionary, KeyDecoder
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.proto import ge_ir_pb2 as ge

_OP_KEYS = frozenset({pv.ORIGINAL_OP_NAMES, pv.L1_FUSION_SUB_GRAPH_NO, pv.IS_MULTIOP})
_DESC_KEYS = frozenset({pv.ORIGIN_NAME, pv.ORIGIN_OUTPUT_INDEX, pv.ORIGIN_FORMAT, pv.GE_ORIGIN_FORMAT, pv.ORIGIN_SHAPE})
# A decoded attribute: the AttrDef and, when its string values were enumerated, the value dictionary.
_Attr = Tuple[ge.AttrDef, Optional[Tuple[str, ...]]]


def parse_model_def(payload: bytes, path: str, where: str = "MODEL_DEF") -> ge.ModelDef:
    """`payload` parsed as ge.proto.ModelDef; broken bytes raise GraphFormatError."""
    model_def = ge.ModelDef()
    try:
        model_def.ParseFromString(payload)
    except DecodeError as error:
        raise GraphFormatError(path, f"{where} is not a valid ge.proto.ModelDef protobuf ({error})") from None
    return model_def


def fusion_map_of_model_def(
    model_def: ge.ModelDef,
    path: str,
    *,
    own: Optional[AttrDictionary] = None,
    root: Optional[AttrDictionary] = None,
    warnings: Sequence[str] = (),
) -> FusionMap:
    """The FusionMap of every graph in `model_def`, decompressing attributes with `own` then `root`."""
    decoder = KeyDecoder(own, root)
    graphs: List[Tuple[str, List[Op]]] = []
    for graph in model_def.graph:
        ops: List[Op] = []
        for op_def in graph.op:
            try:
                ops.append(_op(op_def, decoder, graph.name))
            except (ValueError, TypeError, IndexError) as error:
                raise GraphFormatError(path, f"graph {graph.name!r} op {op_def.name!r}: {error}") from None
        graphs.append((graph.name, ops))
    return build_fusion_map(model_def.name, graphs, warnings=warnings, source=path)


def _op(op_def: ge.OpDef, decoder: KeyDecoder, graph: str) -> Op:
    attrs = _wanted(op_def.attr, decoder, _OP_KEYS)
    names = attrs.get(pv.ORIGINAL_OP_NAMES)
    return pv.make_op(
        op_def.name,
        op_def.type,
        id_=op_def.id,
        inputs=op_def.input,
        original_names=None if names is None else (_strings(names) or [""]),
        output_descs=[_output_desc(desc, k, decoder) for k, desc in enumerate(op_def.output_desc)],
        l1_fusion_sub_graph_no=_string(attrs.get(pv.L1_FUSION_SUB_GRAPH_NO)),
        is_multiop=bool(attrs[pv.IS_MULTIOP][0].b) if pv.IS_MULTIOP in attrs else False,
        graph=graph,
    )


def _output_desc(desc: ge.TensorDescriptor, position: int, decoder: KeyDecoder) -> OutputDesc:
    attrs = _wanted(desc.attr, decoder, _DESC_KEYS)
    index = attrs.get(pv.ORIGIN_OUTPUT_INDEX)
    shape = attrs.get(pv.ORIGIN_SHAPE)
    return OutputDesc(
        origin_name=_string(attrs.get(pv.ORIGIN_NAME)),
        origin_output_index=position if index is None else int(index[0].i),
        origin_format=_string(attrs.get(pv.ORIGIN_FORMAT)) or _string(attrs.get(pv.GE_ORIGIN_FORMAT)),
        origin_shape=None if shape is None else tuple(int(d) for d in shape[0].list.i),
        dtype=ge.DataType.Name(desc.dtype) if desc.dtype and desc.dtype in ge.DataType.values() else (f"DT_{desc.dtype}" if desc.dtype else ""),
    )


def _wanted(attr_map: "object", decoder: KeyDecoder, wanted: frozenset) -> Dict[str, _Attr]:
    found: Dict[str, _Attr] = {}
    if not decoder.active:
        for name in wanted:
            if name in attr_map:  # type: ignore[operator]
                found[name] = (attr_map[name], None)  # type: ignore[index]
        return found
    for key, value in attr_map.items():  # type: ignore[attr-defined]
        name, dictionary, position = decoder.resolve(key)
        if name in wanted:
            values = dictionary.values if dictionary is not None and dictionary.flags_value(position) else None
            found[name] = (value, values)
    return found


def _string(attr: Optional[_Attr]) -> str:
    if attr is None:
        return ""
    value, enumerated = attr
    if enumerated is not None and value.WhichOneof("value") == "i":
        return _enumerated(enumerated, value.i)
    return value.s.decode("utf-8", "replace")


def _strings(attr: _Attr) -> List[str]:
    value, enumerated = attr
    if enumerated is not None and not value.list.s and value.list.i:
        return [_enumerated(enumerated, i) for i in value.list.i]
    return [s.decode("utf-8", "replace") for s in value.list.s]


def _enumerated(values: Tuple[str, ...], index: int) -> str:
    if not 0 <= index < len(values):
        raise ValueError(f"enumerated string value {index} points past attr_value_enum ({len(values)} values)")
    return values[index]
