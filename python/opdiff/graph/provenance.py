"""Rules shared by the .om and JSON readers for turning one op's attributes into an `Op`.

Both readers extract the same raw facts (docs/reference/reference-tool.md §3.2-3.3); this module applies the
defaults, so that a model and its atc JSON give equal ops.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence, Tuple

from opdiff.graph.fusion_map import InputRef, Op, OutputDesc, new_input_ref, new_op, new_output_desc

# FFTS+ manual-mode slices carry `_lxslice<N>` in their names; the fusion rule names the unsliced op.
_LXSLICE = re.compile(r"_lxslice\d+")

ORIGINAL_OP_NAMES = "_datadump_original_op_names"
L1_FUSION_SUB_GRAPH_NO = "_L1_fusion_sub_graph_no"
IS_MULTIOP = "_datadump_is_multiop"
ORIGIN_NAME = "_datadump_origin_name"
ORIGIN_OUTPUT_INDEX = "_datadump_origin_output_index"
ORIGIN_FORMAT = "_datadump_origin_format"
GE_ORIGIN_FORMAT = "origin_format"
ORIGIN_SHAPE = "origin_shape"


def strip_lxslice(name: str) -> str:
    """`name` without FFTS+ slice suffixes.

    >>> strip_lxslice("conv_lxslice3")
    'conv'
    """
    return _LXSLICE.sub("", name) if "_lxslice" in name else name


def parse_input(text: str) -> Optional[InputRef]:
    """`"producer:index"` as an InputRef; None for `""` and control edges (`:-1`).

    >>> parse_input("onnx::Gather_1:0"), parse_input("x:-1")
    (InputRef(producer='onnx::Gather_1', index=0), None)
    """
    if text == "":
        return None
    producer, sep, index = text.rpartition(":")
    if not sep or not producer:
        raise ValueError(f"input {text!r} is not 'producer:index'")
    try:
        value = int(index)
    except ValueError:
        raise ValueError(f"input {text!r} has a non-integer output index") from None
    if value < 0:
        return None
    return InputRef(strip_lxslice(producer), value)


def parse_inputs(texts: Iterable[str]) -> Tuple[InputRef, ...]:
    """The data inputs among `texts`, in order (what `parse_input` keeps).

    >>> parse_inputs(["a:0", "", "b:-1", "c:2"])
    (InputRef(producer='a', index=0), InputRef(producer='c', index=2))
    """
    refs = []
    for text in texts:
        producer, _, index = text.rpartition(":")
        if index.isdigit() and producer and index.isascii() and "_lxslice" not in producer:
            refs.append(new_input_ref((producer, int(index))))  # the common form, parsed inline for speed
        elif text and not text.endswith(":-1"):  # "" and control edges are dropped
            ref = parse_input(text)  # everything else, including the errors
            if ref is not None:
                refs.append(ref)
    return tuple(refs)


def make_op(
    name: str,
    type_: str,
    *,
    id_: int = 0,
    inputs: Iterable[str] = (),
    original_names: Optional[Sequence[str]] = None,
    output_descs: Sequence[OutputDesc] = (),
    l1_fusion_sub_graph_no: str = "",
    is_multiop: bool = False,
    graph: str = "",
) -> Op:
    """An Op with msaccucmp's defaults applied.

    `original_names` None means the attribute is missing: the names become `[name]`, empty origin
    names are filled with `name`, and an op without output descs gets one synthetic desc.
    An empty list (the attribute present without values) means one empty name.

    >>> make_op("relu", "Relu").output_descs
    (OutputDesc(origin_name='relu', origin_output_index=None, origin_format='', origin_shape=None, dtype='', ge_origin_format=''),)
    """
    if "_lxslice" in name:
        name = strip_lxslice(name)
    descs: Tuple[OutputDesc, ...] = tuple(output_descs)
    if original_names is None:
        names: Tuple[str, ...] = (name,)
        descs = tuple(_with_origin_name(desc, name) for desc in descs) or (OutputDesc(name, None),)
    else:
        names = tuple(original_names) or ("",)
    return new_op(name, type_, id_, parse_inputs(inputs), names, descs, l1_fusion_sub_graph_no, is_multiop, graph)


def _with_origin_name(desc: OutputDesc, name: str) -> OutputDesc:
    if desc.origin_name:
        return desc
    return new_output_desc(name, desc.origin_output_index, desc.origin_format, desc.origin_shape, desc.dtype, desc.ge_origin_format)
