"""`opdiff dump-onnx` without the onnx extra: a clear message and exit code 2 (runs with or without onnx)."""

import sys

import pytest

from opdiff.cli import main


@pytest.mark.cli_output
def test_missing_onnx_exits_2_with_the_install_hint(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "onnx", None)  # None in sys.modules makes `import onnx` fail
    assert main(["dump-onnx", "model.onnx", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not installed" in err and "onnx" in err and 'pip install "opdiff[onnx]"' in err


def test_missing_onnxruntime_is_named(monkeypatch):
    import pytest

    from opdiff.producers import MissingOnnxError, require_onnx

    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(MissingOnnxError, match="onnxruntime not installed"):
        require_onnx()
