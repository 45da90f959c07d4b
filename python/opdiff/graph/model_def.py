"""Fusion provenance of a decoded ModelDef (MODEL_DEF partition) as FusionMap ops."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from google.protobuf.message import DecodeError

from opdiff.graph import provenance as pv
from opdiff.graph.attr_compression import AttrDictionary, KeyDecoder
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.proto import ge_ir_pb2 as ge

_OP_KEYS = frozenset({pv.ORIGINAL_OP_NAMES, pv.L1_FUSION_SUB_GRAPH_NO, pv.IS_MULTIOP})
_DESC_KEYS = frozenset({pv.ORIGIN_NAME, pv.ORIGIN_OUTPUT_INDEX, pv.ORIGIN_FORMAT, pv.GE_ORIGIN_FORMAT, pv.ORIGIN_SHAPE})


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
    attrs, enumerated = _attrs(op_def.attr, decoder, _OP_KEYS) if decoder.active else (op_def.attr, _NO_ENUMERATION)
    names = attrs.get(pv.ORIGINAL_OP_NAMES)
    l1 = attrs.get(pv.L1_FUSION_SUB_GRAPH_NO)
    multiop = attrs.get(pv.IS_MULTIOP)
    descs = op_def.output_desc
    return pv.make_op(
        op_def.name,
        op_def.type,
        id_=op_def.id,
        inputs=op_def.input,
        original_names=None if names is None else (_strings(names, pv.ORIGINAL_OP_NAMES, enumerated) or [""]),
        output_descs=[_output_desc(desc, k, decoder) for k, desc in enumerate(descs)] if descs else (),
        l1_fusion_sub_graph_no="" if l1 is None else _string(l1, pv.L1_FUSION_SUB_GRAPH_NO, enumerated),
        is_multiop=False if multiop is None else multiop.b,
        graph=graph,
    )


def _output_desc(desc: ge.TensorDescriptor, position: int, decoder: KeyDecoder) -> OutputDesc:
    attrs, enumerated = _attrs(desc.attr, decoder, _DESC_KEYS) if decoder.active else (desc.attr, _NO_ENUMERATION)
    get = attrs.get
    name, index, fmt, shape = get(pv.ORIGIN_NAME), get(pv.ORIGIN_OUTPUT_INDEX), get(pv.ORIGIN_FORMAT), get(pv.ORIGIN_SHAPE)
    origin_format = "" if fmt is None else _string(fmt, pv.ORIGIN_FORMAT, enumerated)
    if not origin_format:
        ge_format = get(pv.GE_ORIGIN_FORMAT)
        origin_format = "" if ge_format is None else _string(ge_format, pv.GE_ORIGIN_FORMAT, enumerated)
    dtype = desc.dtype
    return OutputDesc(
        "" if name is None else _string(name, pv.ORIGIN_NAME, enumerated),
        position if index is None else index.i,
        origin_format,
        None if shape is None else tuple(shape.list.i),
        (_DTYPE_NAMES.get(dtype) or f"DT_{dtype}") if dtype else "",
    )


_DTYPE_NAMES: Mapping[int, str] = {number: name for name, number in ge.DataType.items()}
_NO_ENUMERATION: Mapping[str, Tuple[str, ...]] = {}


def _attrs(attr_map: Any, decoder: KeyDecoder, wanted: frozenset) -> Tuple[Mapping[str, ge.AttrDef], Mapping[str, Tuple[str, ...]]]:
    """The wanted attributes of a compressed `attr_map` by plain name, and the value dictionaries of
    enumerated ones. (Uncompressed maps are used as they are: the protobuf map answers .get().)"""
    found: Dict[str, ge.AttrDef] = {}
    enumerated: Dict[str, Tuple[str, ...]] = {}
    decoded = decoder.decoded
    for key in attr_map:  # keys only: fetching every value would cost far more than the lookups
        name, values = decoded.get(key) or decoder.decode(key)
        if name in wanted:
            found[name] = attr_map[key]
            if values is not None:
                enumerated[name] = values
    return found, enumerated


def _string(value: ge.AttrDef, name: str, enumerated: Mapping[str, Tuple[str, ...]]) -> str:
    values = enumerated.get(name) if enumerated else None
    if values is not None and value.WhichOneof("value") == "i":
        return _enumerated(values, value.i)
    return value.s.decode("utf-8", "replace")


def _strings(value: ge.AttrDef, name: str, enumerated: Mapping[str, Tuple[str, ...]]) -> List[str]:
    values = enumerated.get(name) if enumerated else None
    listed = value.list
    if values is not None and not listed.s and listed.i:
        return [_enumerated(values, i) for i in listed.i]
    return [s.decode("utf-8", "replace") for s in listed.s]


def _enumerated(values: Tuple[str, ...], index: int) -> str:
    if not 0 <= index < len(values):
        raise ValueError(f"enumerated string value {index} points past attr_value_enum ({len(values)} values)")
    return values[index]
