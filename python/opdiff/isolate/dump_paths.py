"""Which NPU dump file the comparison read for each op: the plans of the same comparison."""

from __future__ import annotations

import os
from typing import Dict, Optional, Union

from opdiff.graph import FusionMap
from opdiff.match.planning import plan

PathLike = Union[str, "os.PathLike[str]"]


def dump_paths(my: PathLike, golden: PathLike, fusion_rule: FusionMap, *, quant_fusion_rule: Optional[FusionMap] = None,
               step: Optional[int] = None) -> Dict[str, str]:
    """Op name -> the NPU dump file its rows compare (the newest, as the comparison takes it)."""
    _, plans, _, _ = plan(my, golden, fusion_rule=fusion_rule, quant_fusion_rule=quant_fusion_rule, step=step)
    return {p.op_name: p.my_path for p in plans if p.my_path is not None and p.run == 0}
