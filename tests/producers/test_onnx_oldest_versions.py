"""dump-onnx under the oldest onnx and onnxruntime that pyproject admits (onnx 1.15, onnxruntime
1.17), in an environment tools/onnx_env.py builds (pip, about 40 s and 150 MB the first time, then
reused): squeezenet and resnet50 in their IR-3 form, fp16, fusion off and on, each compared here
with the golden run that environment wrote."""

import os
import subprocess
import sys

import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import opdiff  # noqa: E402
from opdiff.producers.onnx.light_models import light_model_names  # noqa: E402
from tests.support import paths  # noqa: E402
from tests.support.ir_forms import IrForm, light_model_in_form  # noqa: E402

pytestmark = [pytest.mark.onnx, pytest.mark.oldest_onnx]
TOOL = paths.ROOT / "tools" / "onnx_env.py"
MODELS = [name for name in ("squeezenet", "resnet50") if name in light_model_names()]


def child_environment():
    # PYTHONPATH would put this interpreter's packages (the newest onnx) before the child's own
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def oldest_python():
    if not TOOL.is_file():
        pytest.skip(f"{TOOL} is not in this copy of the project")
    built = subprocess.run([sys.executable, str(TOOL), "oldest"], capture_output=True, text=True, timeout=900, env=child_environment())
    if built.returncode != 0:
        pytest.skip(f"the oldest onnx/onnxruntime environment could not be built: {built.stderr.strip()[-500:]}")
    python = built.stdout.strip().splitlines()[-1]
    versions = subprocess.check_output([python, "-c", "import onnx, onnxruntime; print(onnx.__version__, onnxruntime.__version__)"],
                                       text=True, env=child_environment())
    assert versions.split() == ["1.15.0", "1.17.0"]
    return python


def dump(python, *args):
    done = subprocess.run([python, "-m", "opdiff", "dump-onnx", *args], capture_output=True, text=True, timeout=600, env=child_environment())
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("fusion", ["off", "on"])
def test_fp16_ir3_form_under_the_oldest_onnxruntime(oldest_python, tmp_path, name, fusion):
    path = tmp_path / f"{name}.onnx"
    onnx.save(light_model_in_form(name, IrForm.IR3), str(path))
    dump(oldest_python, str(path), "--random-inputs", "0", "-o", str(tmp_path / "golden"))
    dump(oldest_python, str(path), "--random-inputs", "0", "--dtype", "fp16", "--fusion", fusion, "-o", str(tmp_path / "fp16"))
    report = opdiff.compare(tmp_path / "fp16" / "dump", tmp_path / "golden" / "golden", fusion_rule=tmp_path / "fp16" / "fusion_rule.json")
    outputs = [row for row in report.rows if ":output:" in row.tensor_index]
    assert len(outputs) > 30 and all(row.compared for row in outputs)
    assert min(row.metrics.cosine_similarity for row in outputs) > 0.999
