"""Which comparison a report holds: what the two sides are and how they are matched."""

from __future__ import annotations

from enum import Enum


class Scenario(str, Enum):
    """What the two sides are and how they are matched."""

    NPU_VS_GOLDEN = "npu vs golden (fusion rule)"
    NPU_VS_NPU = "npu vs npu (op names)"
    FUSION_ON_VS_OFF = "npu fusion on vs off (two fusion rules)"
