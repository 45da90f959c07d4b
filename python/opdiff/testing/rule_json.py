"""Building atc --mode=1 fusion-rule JSON (docs/reference/reference-tool.md §3.2) for generated cases."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

JsonObject = Dict[str, object]


def attr_s(key: str, value: str) -> JsonObject:
    return {"key": key, "value": {"s": value}}


def attr_b(key: str, value: bool) -> JsonObject:
    return {"key": key, "value": {"b": value}}


def attr_list_s(key: str, values: Sequence[str]) -> JsonObject:
    return {"key": key, "value": {"list": {"s": list(values), "val_type": 1}}}


@dataclass(frozen=True)
class Output:
    """One output desc: the framework tensor it comes from, and its logical format and shape."""

    origin: str  # "" = none (inner node of a split op)
    index: int
    shape: Sequence[int]
    fmt: str = "ND"
    dtype: str = "DT_FLOAT16"
    ge_fmt: Optional[str] = None  # GE's own origin_format attribute, when written

    def json(self) -> JsonObject:
        attrs = [attr_s("_datadump_origin_format", self.fmt),
                 {"key": "origin_shape", "value": {"list": {"i": list(self.shape), "val_type": 2}}}]
        if self.ge_fmt is not None:
            attrs.append(attr_s("origin_format", self.ge_fmt))
        if self.origin:
            attrs = [attr_s("_datadump_origin_name", self.origin),
                     {"key": "_datadump_origin_output_index", "value": {"i": self.index}}] + attrs
        return {"dtype": self.dtype, "attr": attrs}


@dataclass
class RuleOp:
    name: str
    type: str
    id: int
    inputs: List[str] = field(default_factory=list)
    originals: Optional[Sequence[str]] = None  # None: no _datadump_original_op_names attribute
    outputs: List[Output] = field(default_factory=list)
    multiop: bool = False

    def json(self) -> JsonObject:
        attrs: List[JsonObject] = []
        if self.originals is not None:
            attrs.append(attr_list_s("_datadump_original_op_names", self.originals))
        if self.multiop:
            attrs.append(attr_b("_datadump_is_multiop", True))
        return {"name": self.name, "type": self.type, "id": self.id, "input": self.inputs, "attr": attrs,
                "output_desc": [o.json() for o in self.outputs]}


def rule(ops: Sequence[RuleOp], graph: str = "ge_default_1") -> JsonObject:
    return {"graph": [{"name": graph, "op": [op.json() for op in ops]}]}
