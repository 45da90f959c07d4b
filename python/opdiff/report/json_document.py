"""What every JSON report shares, whatever its result family: numbers as JSON holds them, the
envelope (schema, version, time, scenario, folders, completeness), a row's identity, and writing
the document whole with the results' mode."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Optional, Protocol, Union

from opdiff.fileio.atomic import RESULT_MODE, write_text
from opdiff.results.protocol import Result


class RowIdentity(Protocol):
    """The fields that place a row of either family: where it is and what it compares."""

    @property
    def index(self) -> int: ...

    @property
    def op_sequence(self) -> Optional[int]: ...

    @property
    def op_type(self) -> str: ...

    @property
    def npu_dump(self) -> str: ...

    @property
    def ground_truth(self) -> str: ...

    @property
    def tensor_index(self) -> str: ...


Number = Union[float, int, str, None]
SCHEMA_FOLDER = Path(__file__).parent / "schema"


def load_schema_file(name: str) -> Dict[str, Any]:
    """A JSON Schema of report/schema/ (``report.schema.json``, ``runs-summary.schema.json``, ...)."""
    schema: Dict[str, Any] = json.loads((SCHEMA_FOLDER / name).read_text(encoding="utf-8"))
    return schema


def json_number(value: float) -> Number:
    """A float as JSON can hold it: NaN and infinities as strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def row_identity_json(row: RowIdentity) -> Dict[str, Any]:
    """The leading fields of every row, in the order both families write them."""
    return {
        "index": row.index,
        "op_sequence": row.op_sequence,
        "op_type": row.op_type,
        "npu_dump": row.npu_dump,
        "ground_truth": row.ground_truth,
        "tensor_index": row.tensor_index,
    }


def envelope(schema: str, *, my: str, golden: str, complete: bool, scenario: Optional[str] = None) -> Dict[str, Any]:
    """The leading fields every JSON document of opdiff has (a comparison's report and the summary
    of many runs): schema, version, creation time, the scenario where there is one, the two sides
    and completeness."""
    from opdiff import __version__

    head: Dict[str, Any] = {
        "schema": schema,
        "opdiff_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if scenario is not None:
        head["scenario"] = scenario
    head.update({"my": my, "golden": golden, "complete": complete})
    return head


def report_envelope(report: Result, schema: str) -> Dict[str, Any]:
    """The leading fields of a comparison's JSON report (tensor and statistics alike)."""
    return envelope(schema, my=str(report.my_folder), golden=str(report.golden_folder), complete=report.complete,
                    scenario=report.scenario.value)


def write_json_document(document: Dict[str, Any], path: Path) -> Path:
    """Write `document` compactly (no NaN/Inf: they are strings by then) through a temporary name."""
    # json.dumps, not json.dump: only the one-shot encoder runs in C (5x faster for a big report).
    return write_text(path, json.dumps(document, allow_nan=False, separators=(",", ":")), mode=RESULT_MODE)
