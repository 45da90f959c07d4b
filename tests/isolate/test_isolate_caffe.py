"""`opdiff compare --isolate MODEL.prototxt`: each op of a Caffe net's device run re-run on its own
dumped inputs through dump-caffe's conversion; the faulty convolution alone fails locally, what
follows it inherits; the weights beside the prototxt or from --isolate-weights; exit 2 without them."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.onnx  # ONNX Runtime runs here: not a core-facing test

from opdiff.cli import main  # noqa: E402
from tests.support.caffe_device_run import CaffeChain, write_faulty_chain  # noqa: E402


@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> CaffeChain:
    return write_faulty_chain(tmp_path_factory.mktemp("caffe_isolate"))


def isolation_rows(chain: CaffeChain, out: Path, *isolate: str) -> list[dict[str, str]]:
    code = main(["compare", "-m", str(chain.dump), "-g", str(chain.golden), "-f", str(chain.rule), *isolate, "-out", str(out)])
    assert code == 0
    (table,) = out.glob("isolation_*.csv")
    return list(csv.DictReader(table.open(newline="")))


def test_the_faulty_layer_alone_fails_locally(chain: CaffeChain, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = isolation_rows(chain, tmp_path, "--isolate", str(chain.prototxt))
    capsys.readouterr()
    outputs = [row for row in rows if ":output:" in row["TensorIndex"]]
    failing = {row["NPUDump"] for row in outputs if row["LocalVerdict"] == "fail"}
    assert failing == {chain.faulty}
    isolated = [row for row in outputs if row["LocalVerdict"] in ("pass", "fail")]
    assert len(isolated) >= 0.9 * len(outputs)


def test_weights_from_isolate_weights(chain: CaffeChain, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "net" / "deploy.prototxt"
    elsewhere.parent.mkdir()
    shutil.copy(chain.prototxt, elsewhere)
    code = main(["compare", "-m", str(chain.dump), "-g", str(chain.golden), "-f", str(chain.rule), "--isolate", str(elsewhere),
                 "-out", str(tmp_path / "a")])
    assert code == 2 and "give --isolate-weights FILE" in capsys.readouterr().err
    rows = isolation_rows(chain, tmp_path / "b", "--isolate", str(elsewhere), "--isolate-weights", str(chain.prototxt.with_suffix(".caffemodel")))
    assert {row["NPUDump"] for row in rows if row["LocalVerdict"] == "fail"} == {chain.faulty}
