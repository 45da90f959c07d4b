"""`opdiff dump-tf` without the tf extra, and its --input-shape parsing: no TensorFlow needed (runs
with or without it)."""

import sys

import pytest

from opdiff.cli import main
from opdiff.producers.input_shape import parse_input_shape


@pytest.mark.cli_output
def test_missing_tensorflow_exits_2_with_the_install_hint(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "tensorflow", None)  # None in sys.modules makes `import tensorflow` fail
    assert main(["dump-tf", "model.pb", "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("opdiff dump-tf: error: tensorflow not installed") and 'pip install "opdiff[tf]"' in err
    assert err.count("\n") == 1


def test_input_shape_is_read_as_atc_writes_it():
    assert parse_input_shape("input_1:1,224,224,3;mask:1,224;") == {"input_1": (1, 224, 224, 3), "mask": (1, 224)}
    assert parse_input_shape("") == {}


@pytest.mark.parametrize(("text", "message"), [
    ("x", "is not NAME:D1,D2,..."),
    (":1,2", "is not NAME:D1,D2,..."),
    ("x:1,a", "dims must be integers"),
    ("x:1~4,3", "dims must be integers"),
    ("x:-1,3", "a dim of -1 needs a size here"),
    ("x:1;x:2", "names 'x' twice"),
])
def test_a_bad_input_shape_is_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_input_shape(text)
