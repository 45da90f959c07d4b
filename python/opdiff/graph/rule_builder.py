"""Building a fusion rule op by op: the FusionMap an `atc --mode=1` JSON
(docs/reference/reference-tool.md §3.2) with these ops reads as, for test data of your own models.

Each `RuleOp` is an NPU op with the framework ops it replaced (`originals`) and, per output, the
framework tensor it comes from (`RuleOutput`). `fusion_rule` applies the readers' defaults
(graph/provenance.py) to them, as reading the JSON would; `write_atc_json` (graph/json_export.py,
the one writer of that JSON) writes the rule, `write_fusion_map_om` (graph/om/writer.py) the .om.

>>> import os, tempfile
>>> from opdiff.graph.json_export import write_atc_json
>>> from opdiff.graph.read import read_graph
>>> fm = fusion_rule([RuleOp("x", "Data", 0, [], ["x"], [RuleOutput("x", 0, [1, 3, 8, 8], fmt="NCHW")]),
...                   RuleOp("conv1relu1", "Conv2D", 1, ["x:0"], ["conv1", "relu1"], [RuleOutput("relu1", 0, [1, 16, 8, 8])])])
>>> [(g.op_names, g.relation.value) for g in fm.groups]
[(('x',), 'OneToOne'), (('conv1relu1',), 'MultiToOne')]
>>> with tempfile.TemporaryDirectory() as folder:
...     read_graph(write_atc_json(fm, os.path.join(folder, "rule.json"))) == fm
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc
from opdiff.graph.grouping import build_fusion_map
from opdiff.graph.provenance import make_op


@dataclass(frozen=True)
class RuleOutput:
    """One output desc: the framework tensor it comes from, and its logical format and shape.

    >>> RuleOutput("relu1", 0, [1, 16], ge_fmt="NCHW").desc(0)
    OutputDesc(origin_name='relu1', origin_output_index=0, origin_format='ND', origin_shape=(1, 16), dtype='DT_FLOAT16', ge_origin_format='NCHW')
    """

    origin: str  # "" = none (inner node of a split op); its position then stands for the index
    index: int
    shape: Sequence[int]
    fmt: str = "ND"  # `_datadump_origin_format`
    dtype: str = "DT_FLOAT16"
    ge_fmt: Optional[str] = None  # GE's own `origin_format` attribute, when written

    def desc(self, position: int) -> OutputDesc:
        """The desc as a reader gives it at output `position`: the format falls back on GE's, which
        is kept only where it differs."""
        ge_fmt = self.ge_fmt or ""
        origin_format = self.fmt or ge_fmt
        return OutputDesc(self.origin, self.index if self.origin else position, origin_format, tuple(self.shape), self.dtype,
                          "" if ge_fmt == origin_format else ge_fmt)


@dataclass(frozen=True)
class RuleOp:
    """One NPU op: `inputs` as "producer:index", `originals` the framework ops it replaced (None:
    no `_datadump_original_op_names` attribute, the op then stands for itself)."""

    name: str
    type: str
    id: int
    inputs: Sequence[str] = ()
    originals: Optional[Sequence[str]] = None
    outputs: Sequence[RuleOutput] = field(default_factory=list)
    multiop: bool = False

    def op(self, graph: str = "") -> Op:
        """The Op a reader makes of this op in `graph`.

        >>> RuleOp("conv", "Conv2D", 3).op().original_names
        ('conv',)
        """
        return make_op(self.name, self.type, id_=self.id, inputs=self.inputs, original_names=self.originals,
                       output_descs=[output.desc(k) for k, output in enumerate(self.outputs)], is_multiop=self.multiop,
                       graph=graph)


def fusion_rule(ops: Sequence[RuleOp], graph: str = "ge_default_1", name: str = "") -> FusionMap:
    """The FusionMap of a rule whose one graph, `graph`, holds `ops` in order (ops grouped as the
    readers group them).

    >>> fm = fusion_rule([RuleOp("gelu_1", "Mul", 1, [], ["gelu"], [RuleOutput("", 0, [8])], multiop=True),
    ...                   RuleOp("gelu_2", "Tanh", 2, ["gelu_1:0"], ["gelu"], [RuleOutput("gelu", 0, [8])], multiop=True)])
    >>> [(g.op_names, g.relation.value) for g in fm.groups], fm.op("gelu_1").graph
    ([(('gelu_1', 'gelu_2'), 'OneToMulti')], 'ge_default_1')
    """
    return build_fusion_map(name, [(graph, [op.op(graph) for op in ops])])
