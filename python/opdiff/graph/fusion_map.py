"""FusionMap: which framework ops every NPU op of an offline model came from (docs/reference/reference-tool.md §3.3).

Built by the .om and atc JSON readers alike; the compare engine matches dump files through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property, partial
from typing import Dict, Mapping, NamedTuple, Optional, Tuple

from opdiff.graph.execution_order import topological_order
from opdiff.numerics.frozen import build_frozen


class Relation(Enum):
    """How the NPU ops of one fusion group relate to framework ops (the CSV's relation names)."""

    ONE_TO_ONE = "OneToOne"
    MULTI_TO_ONE = "MultiToOne"
    ONE_TO_MULTI = "OneToMulti"
    MULTI_TO_MULTI = "MultiToMulti"
    L1_FUSION = "L1Fusion"


class InputRef(NamedTuple):
    """A data input of an op: output `index` of op `producer` (control edges are never kept).

    A named tuple rather than a dataclass: models have hundreds of thousands of edges.

    >>> str(InputRef("conv1", 0))
    'conv1:0'
    """

    producer: str
    index: int  # type: ignore[assignment]  # the field shadows tuple.index, as NamedTuple allows

    def __str__(self) -> str:
        return f"{self.producer}:{self.index}"


@dataclass(frozen=True)
class OutputDesc:
    """Where one NPU output came from in the framework graph.

    `origin_output_index` is None only for the synthetic desc of an op that had neither
    original-name attribute nor output descs; consumers then use the NPU output position.
    `origin_shape` is None when the model did not record it (an empty tuple is a scalar).
    """

    origin_name: str
    origin_output_index: Optional[int]
    origin_format: str = ""
    origin_shape: Optional[Tuple[int, ...]] = None
    dtype: str = ""
    # GE's own `origin_format` attribute (the framework layout of the tensor) where it differs from
    # `origin_format`, which prefers `_datadump_origin_format` as the reference does: that can say
    # ND or RESERVED where this says NHWC, and decoding a blocked layout falls back on it.
    ge_origin_format: str = ""


@dataclass(frozen=True)
class Op:
    """One NPU op of the offline model, with its fusion provenance.

    >>> Op("conv1", "Conv2D", original_names=("conv1",)).is_data
    False
    """

    name: str
    type: str
    id: int = 0
    inputs: Tuple[InputRef, ...] = ()
    original_names: Tuple[str, ...] = ()
    output_descs: Tuple[OutputDesc, ...] = ()
    l1_fusion_sub_graph_no: str = ""
    is_multiop: bool = False
    graph: str = ""

    @property
    def is_data(self) -> bool:
        """True for model inputs (the advisor's input nodes)."""
        return self.type == "Data"


@dataclass(frozen=True)
class FusionGroup:
    """A "fusion op": NPU ops sharing one group key; `index` is the CSV's Index column."""

    key: str
    index: int
    op_names: Tuple[str, ...]
    relation: Relation
    original_names: Tuple[str, ...]  # distinct names over all member ops, first appearance order


@dataclass(frozen=True)
class FusionMap:
    """Ops of an offline model grouped into fusion groups; build one with `build_fusion_map`.

    >>> from opdiff.graph.grouping import build_fusion_map
    >>> from opdiff.graph.provenance import make_op
    >>> fm = build_fusion_map("demo", [("g", [make_op("x", "Data"), make_op("y", "Relu", inputs=["x:0"])])])
    >>> [g.relation.value for g in fm.groups], fm.producer(InputRef("x", 0)).type
    (['OneToOne', 'OneToOne'], 'Data')
    """

    name: str
    graphs: Tuple[str, ...]
    ops: Tuple[Op, ...]
    groups: Tuple[FusionGroup, ...]
    warnings: Tuple[str, ...] = field(default=(), compare=False)
    source: str = field(default="", compare=False)

    @cached_property
    def _ops_by_name(self) -> Dict[str, Op]:
        by_name: Dict[str, Op] = {}
        for op in self.ops:
            by_name.setdefault(op.name, op)  # duplicate names: the first one wins, as a lookup must pick one
        return by_name

    @cached_property
    def _group_by_op(self) -> Dict[str, FusionGroup]:
        by_op: Dict[str, FusionGroup] = {}
        for group in self.groups:
            for name in group.op_names:
                by_op.setdefault(name, group)  # like op(): a duplicated name means its first op
        return by_op

    def op(self, name: str) -> Op:
        """The op called `name`; KeyError if there is none."""
        return self._ops_by_name[name]

    def get(self, name: str) -> Optional[Op]:
        """The op called `name`, or None."""
        return self._ops_by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._ops_by_name

    def __len__(self) -> int:
        return len(self.ops)

    def producer(self, ref: InputRef) -> Optional[Op]:
        """The op producing input `ref`, or None when the graph does not contain it."""
        return self._ops_by_name.get(ref.producer)

    def producers(self, op_name: str) -> Tuple[Optional[Op], ...]:
        """Producers of each data input of `op_name`, in input order (None where unknown)."""
        return tuple(self.producer(ref) for ref in self.op(op_name).inputs)

    def group_of(self, op_name: str) -> FusionGroup:
        """The fusion group holding op `op_name`."""
        return self._group_by_op[op_name]

    @property
    def data_ops(self) -> Tuple[Op, ...]:
        """Model inputs (ops of type Data), in op order."""
        return tuple(op for op in self.ops if op.is_data)

    @property
    def output_refs(self) -> Tuple[InputRef, ...]:
        """Model outputs: the data inputs of the NetOutput ops."""
        return tuple(ref for op in self.ops if op.type == "NetOutput" for ref in op.inputs)

    @cached_property
    def execution_order(self) -> Tuple[str, ...]:
        """Op names in topological order from the inputs; op list order breaks ties."""
        return topological_order(self.ops)

    @cached_property
    def relation_counts(self) -> Mapping[Relation, int]:
        """Number of fusion groups per relation (every relation present, zero where unused)."""
        counts = dict.fromkeys(Relation, 0)
        for group in self.groups:
            counts[group.relation] += 1
        return counts


# Constructors for the readers' hot loops (50,000 ops, descs and groups per model): see opdiff.numerics.frozen.


def new_op(
    name: str,
    type_: str,
    id_: int,
    inputs: Tuple[InputRef, ...],
    original_names: Tuple[str, ...],
    output_descs: Tuple[OutputDesc, ...],
    l1_fusion_sub_graph_no: str,
    is_multiop: bool,
    graph: str,
) -> Op:
    """`Op(...)` with every field given, built faster.

    >>> new_op("a", "Relu", 1, (), ("a",), (), "", False, "g") == Op("a", "Relu", 1, (), ("a",), (), "", False, "g")
    True
    """
    return build_frozen(Op, {
        "name": name, "type": type_, "id": id_, "inputs": inputs, "original_names": original_names,
        "output_descs": output_descs, "l1_fusion_sub_graph_no": l1_fusion_sub_graph_no, "is_multiop": is_multiop,
        "graph": graph,
    })


def new_output_desc(
    origin_name: str, origin_output_index: Optional[int], origin_format: str, origin_shape: Optional[Tuple[int, ...]], dtype: str,
    ge_origin_format: str = "",
) -> OutputDesc:
    """`OutputDesc(...)` with every field given, built faster.

    >>> new_output_desc("x", 0, "NCHW", (1, 3), "DT_FLOAT") == OutputDesc("x", 0, "NCHW", (1, 3), "DT_FLOAT")
    True
    """
    return build_frozen(OutputDesc, {
        "origin_name": origin_name, "origin_output_index": origin_output_index, "origin_format": origin_format,
        "origin_shape": origin_shape, "dtype": dtype, "ge_origin_format": ge_origin_format,
    })


def new_fusion_group(key: str, index: int, op_names: Tuple[str, ...], relation: Relation, original_names: Tuple[str, ...]) -> FusionGroup:
    """`FusionGroup(...)` built faster.

    >>> new_fusion_group("k", 0, ("a",), Relation.ONE_TO_ONE, ("k",)) == FusionGroup("k", 0, ("a",), Relation.ONE_TO_ONE, ("k",))
    True
    """
    return build_frozen(FusionGroup, {"key": key, "index": index, "op_names": op_names, "relation": relation, "original_names": original_names})


# InputRef(producer, index) without the named tuple's Python-level __new__.
new_input_ref = partial(tuple.__new__, InputRef)
