"""Custom format converters (-c DIR/format_convert/convert_{SRC}_to_{DST}.py) in compare and convert:
one named like a built-in conversion replaces it; one that fails is its tensor's reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opdiff
from opdiff.dumps import Tensor
from tests.support.plugin_folders import write_converter
from tests.support.side_by_side_cases import Case, fusion_case


@pytest.fixture(scope="module")
def case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return fusion_case(tmp_path_factory.mktemp("converters") / "case")


def _cosines(case: Case, plugins: Path | None) -> dict[str, str]:
    report = opdiff.compare(case.my, case.golden, fusion_rule=case.rule, plugins=plugins)
    return {row.tensor_index: (f"{row.metrics.cosine_similarity:.6f}" if row.metrics else ",".join(row.reasons)) for row in report.rows}


def test_a_converter_replaces_the_builtin_conversion(case: Case, tmp_path: Path) -> None:
    builtin = _cosines(case, None)
    same = _cosines(case, write_converter(tmp_path / "same", "NC1HWC0_to_NCHW").parent.parent)
    flipped = _cosines(case, write_converter(tmp_path / "flipped", "flipped").parent.parent)
    assert same == builtin
    changed = [key for key in builtin if flipped[key] != builtin[key]]
    assert changed and all(float(flipped[key]) == pytest.approx(-float(builtin[key]), abs=2e-6) for key in changed)


def test_a_failing_converter_is_the_tensors_reason(case: Case, tmp_path: Path) -> None:
    failing = _cosines(case, write_converter(tmp_path / "failing", "failing").parent.parent)
    reasons = [text for text in failing.values() if "convert_NC1HWC0_to_NCHW" in text]
    assert reasons and all("Failed to execute 'convert' in 'convert_NC1HWC0_to_NCHW'. no layout today" in text for text in reasons)


def test_convert_uses_the_folders_converter(tmp_path: Path) -> None:
    dump = tmp_path / "in" / "Conv2D.conv1.3.2.1700000000000000"
    dump.parent.mkdir()
    logical = np.random.default_rng(0).standard_normal((1, 20, 2, 2)).astype(np.float16)
    opdiff.write_dump(dump, "conv1", outputs=[Tensor(logical, layout="NC1HWC0")])
    folder = write_converter(tmp_path / "plugins", "flipped").parent.parent

    def convert(out: str, *flags: str) -> np.ndarray:
        done = subprocess.run([sys.executable, "-m", "opdiff", "convert", "-d", str(dump), "-out", str(tmp_path / out),
                               "-f", "NCHW", *flags], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return np.load(tmp_path / out / f"{dump.name}.output.0.1x20x2x2.npy")

    assert np.array_equal(convert("builtin"), logical)
    assert np.array_equal(convert("custom", "-c", str(folder)), -logical)
