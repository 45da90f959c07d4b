"""Fusion provenance of a decoded ModelDef (MODEL_DEF partition) as FusionMap ops."""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence, Tuple, Union

from google.protobuf.message import DecodeError

from opdiff.graph import provenance as pv
from opdiff.graph.attr_compression import AttrDictionary, KeyDecoder
from opdiff.graph.compressed_attrs import CompressedAttrReader
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc, new_output_desc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.proto import ge_ir_pb2 as ge

_OP_KEYS = frozenset({pv.ORIGINAL_OP_NAMES, pv.L1_FUSION_SUB_GRAPH_NO, pv.IS_MULTIOP})
_DESC_KEYS = frozenset({pv.ORIGIN_NAME, pv.ORIGIN_OUTPUT_INDEX, pv.ORIGIN_FORMAT, pv.GE_ORIGIN_FORMAT, pv.ORIGIN_SHAPE})
_Readers = Tuple[CompressedAttrReader, CompressedAttrReader]  # for op attributes, for output desc attributes


def parse_model_def(payload: Union[bytes, memoryview], path: str, where: str = "MODEL_DEF") -> ge.ModelDef:
    """`payload` parsed as ge.proto.ModelDef; broken bytes raise GraphFormatError."""
    model_def = ge.ModelDef()
    try:
        model_def.ParseFromString(payload)  # type: ignore[arg-type]  # the C++ runtime takes any buffer; a copy of a large MODEL_DEF would double its memory
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
    readers = (CompressedAttrReader(decoder, _OP_KEYS), CompressedAttrReader(decoder, _DESC_KEYS)) if decoder.active else None
    graphs: List[Tuple[str, List[Op]]] = []
    for graph in model_def.graph:
        graph_name = graph.name
        ops: List[Op] = []
        for op_def in graph.op[:]:  # a slice: iterating a repeated field directly is several times slower
            try:
                ops.append(_op(op_def, readers, graph_name))
            except (ValueError, TypeError, IndexError) as error:
                raise GraphFormatError(path, f"graph {graph_name!r} op {op_def.name!r}: {error}") from None
        graphs.append((graph_name, ops))
    return build_fusion_map(model_def.name, graphs, warnings=warnings, source=path)


# The hot loop below reads upb messages the cheapest way the protobuf package offers: `key in map`
# then `map[key]` (map.get() costs about twice as much, most keys are absent) and repeated fields
# sliced to a list before use. A model has 50,000 ops; these choices halve the time spent here.


def _op(op_def: ge.OpDef, readers: Optional[_Readers], graph: str) -> Op:
    # Uncompressed maps are used as they are; `readers` is None then.
    attrs: Mapping[str, ge.AttrDef]
    if readers is None:
        attrs, enumerated = op_def.attr, _NO_ENUMERATION
    else:
        attrs, enumerated = readers[0].read(op_def.attr)
    names = attrs.get(_NAMES)
    descs = op_def.output_desc[:]
    return pv.make_op(
        op_def.name,
        op_def.type,
        id_=op_def.id,
        inputs=op_def.input[:],
        original_names=None if names is None else (_strings(names, _NAMES, enumerated) or [""]),
        output_descs=[_output_desc(desc, k, readers) for k, desc in enumerate(descs)] if descs else (),
        l1_fusion_sub_graph_no=_string(attrs[_L1], _L1, enumerated) if _L1 in attrs else "",
        is_multiop=attrs[_MULTIOP].b if _MULTIOP in attrs else False,
        graph=graph,
    )


def _output_desc(desc: ge.TensorDescriptor, position: int, readers: Optional[_Readers]) -> OutputDesc:
    attrs: Mapping[str, ge.AttrDef]
    if readers is None:
        attrs, enumerated = desc.attr, _NO_ENUMERATION
    else:
        attrs, enumerated = readers[1].read(desc.attr)
    ge_origin_format = _string(attrs[_GE_FORMAT], _GE_FORMAT, enumerated) if _GE_FORMAT in attrs else ""
    origin_format = (_string(attrs[_FORMAT], _FORMAT, enumerated) if _FORMAT in attrs else "") or ge_origin_format
    dtype = desc.dtype
    return new_output_desc(
        _string(attrs[_NAME], _NAME, enumerated) if _NAME in attrs else "",
        attrs[_INDEX].i if _INDEX in attrs else position,
        origin_format,
        tuple(attrs[_SHAPE].list.i[:]) if _SHAPE in attrs else None,
        (_DTYPE_NAMES.get(dtype) or f"DT_{dtype}") if dtype else "",
        "" if ge_origin_format == origin_format else ge_origin_format,
    )


_NAMES, _L1, _MULTIOP = pv.ORIGINAL_OP_NAMES, pv.L1_FUSION_SUB_GRAPH_NO, pv.IS_MULTIOP
_NAME, _INDEX, _FORMAT, _GE_FORMAT, _SHAPE = pv.ORIGIN_NAME, pv.ORIGIN_OUTPUT_INDEX, pv.ORIGIN_FORMAT, pv.GE_ORIGIN_FORMAT, pv.ORIGIN_SHAPE
_DTYPE_NAMES: Mapping[int, str] = {number: name for name, number in ge.DataType.items()}
_NO_ENUMERATION: Mapping[str, Tuple[str, ...]] = {}


def _string(value: ge.AttrDef, name: str, enumerated: Mapping[str, Tuple[str, ...]]) -> str:
    if enumerated:
        values = enumerated.get(name)
        if values is not None and value.WhichOneof("value") == "i":
            return _enumerated(values, value.i)
    return value.s.decode("utf-8", "replace")


def _strings(value: ge.AttrDef, name: str, enumerated: Mapping[str, Tuple[str, ...]]) -> List[str]:
    listed = value.list
    if enumerated:
        values = enumerated.get(name)
        if values is not None and not listed.s and listed.i:
            indices = listed.i[:]
            if min(indices) >= 0 and max(indices) < len(values):
                return [values[i] for i in indices]
            return [_enumerated(values, i) for i in indices]  # raises for the first index out of range
    return [s.decode("utf-8", "replace") for s in listed.s[:]]


def _enumerated(values: Tuple[str, ...], index: int) -> str:
    if not 0 <= index < len(values):
        raise ValueError(f"enumerated string value {index} points past attr_value_enum ({len(values)} values)")
    return values[index]
