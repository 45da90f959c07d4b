"""The module Model Explorer imports for the extension ``opdiff.viewer``: its adapter."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

from model_explorer import Adapter, AdapterMetadata, ModelExplorerGraphs

from opdiff.viewer import ADAPTER_ID
from opdiff.viewer.graph import read_model_explorer_graph


class OpdiffAdapter(Adapter):  # type: ignore[misc]  # model_explorer has no type information
    """Ascend offline models as Model Explorer graphs: .om files, atc --mode=1 JSON fusion rules and GE
    graph dumps (told apart by content, as opdiff.read_graph does)."""

    metadata = AdapterMetadata(
        id=ADAPTER_ID,
        name="opdiff: Ascend .om, atc JSON, GE graph dump",
        description="NPU ops of an Ascend offline model (.om), its atc --mode=1 JSON or a GE graph dump, "
                    "one node per op, with the framework ops each one replaced.",
        source_repo="",
        fileExts=["om", "json", "txt", "pbtxt"],
    )

    def __init__(self) -> None:
        super().__init__()

    def convert(self, model_path: str, settings: Dict[str, Any]) -> ModelExplorerGraphs:
        """The model at `model_path` as one graph (the settings are not used)."""
        return {"graphs": [read_model_explorer_graph(Path(model_path))]}
