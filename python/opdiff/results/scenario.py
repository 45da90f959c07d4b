"""Which comparison a report holds: what the two sides are and how they are matched."""

from __future__ import annotations

from enum import Enum


class Scenario(str, Enum):
    """What the two sides are and how they are matched."""

    NPU_VS_GOLDEN = "npu vs golden (fusion rule)"
    NPU_VS_NPU = "npu vs npu (op names)"
    FUSION_ON_VS_OFF = "npu fusion on vs off (two fusion rules)"

    @property
    def both_npu(self) -> bool:
        """Both sides are device runs, each with its own roundings: the verdicts' NPU-vs-NPU rows."""
        return self in (Scenario.NPU_VS_NPU, Scenario.FUSION_ON_VS_OFF)
