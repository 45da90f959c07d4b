"""GPU vs NPU, TensorFlow training, end to end (docs/scenario-tf-training.md): the NPU side is a
device training tree with three graphs per step and GE graph dumps as the rules
(tests.support.tf_training_tree); the golden side is a tfdbg dump root of the same training, v1
(a run folder per session.run, the initialiser's run first) or v2 (one execution per step), written
by the project's tfdbg writer. Every NPU step (0, 5, 10) must meet the tfdbg step of its number:
the steps in between hold other values, so a wrong pairing fails every row."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest

from opdiff.dumps.tfdbg.writer import write_v1_run, write_v2_root
from tests.support.many_runs import opdiff_cli
from tests.support.tf_training_tree import FAULTY, SHIFTED, TrainingTree, step_values, write_training_tree

LAST_STEP = 10


def _tensors(step: int) -> Dict[Tuple[str, int], np.ndarray]:
    """The tfdbg tensors of training step `step`: (op, output slot) -> value."""
    tensors = {}
    for key, value in step_values(step).items():
        name, index = key.rsplit(".", 1)
        tensors[(name, int(index))] = value
    return tensors


def _write_v1(root: Path) -> Path:
    write_v1_run(root, 0, {}, ["init"])  # the variables' initialiser: listed, not a step
    for step in range(LAST_STEP + 1):
        write_v1_run(root, step + 1, _tensors(step), ["GradientDescent"])
    return root


def _write_v2(root: Path) -> Path:
    return write_v2_root(root, [_tensors(step) for step in range(LAST_STEP + 1)])


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> TrainingTree:
    return write_training_tree(tmp_path_factory.mktemp("training"))


def _rows(path: Path) -> List[Dict[str, str]]:
    with path.open(newline="") as stream:
        return list(csv.DictReader(stream))


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_tfdbg_root_is_the_golden_of_a_training_tree(tree: TrainingTree, tmp_path: Path, version: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPDIFF_TFDBG_CACHE", str(tmp_path / "cache"))
    golden = (_write_v1 if version == "v1" else _write_v2)(tmp_path / f"tfdbg_{version}")
    out = tmp_path / "out"
    done = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", str(golden), "-f", "rules", "-advisor",
                      "-out", str(out), "--no-progress")
    assert done.returncode == 0, done.stdout + done.stderr
    results = sorted(out.glob("*_result_*.csv"))
    assert sorted(path.name.split("_result_")[0] for path in results) == sorted(
        f"0_{folder}_{step}" for folder in tree.folders.values() for step in tree.steps)
    expected = {f"{FAULTY}:output:0", "GradientDescent/update_dense_1/kernel/ApplyGradientDescent:input:2"}
    for path in results:
        rows = _rows(path)
        compared = [row for row in rows if row["CosineSimilarity"] not in ("NaN", "")]
        failing = {row["TensorIndex"] for row in compared if float(row["CosineSimilarity"]) < 0.99}
        assert failing == (expected if SHIFTED in path.name else set()), path.name
        graph = next(name for name, folder in tree.folders.items() if folder in path.name)
        matched = {row["NPUDump"] for row in compared}
        assert matched == set(tree.mapped[graph]), path.name  # every forward and backward op the rule maps
    for step in tree.steps:
        (summary,) = out.glob(f"0_{SHIFTED}_{step}_advisor_summary.txt")
        assert "Detection Type: culprit op" in summary.read_text()
        assert FAULTY in summary.read_text()


@pytest.mark.cluster
def test_a_tfdbg_golden_on_a_cluster_worker(tree: TrainingTree, tmp_path: Path) -> None:
    """The worker serves its working folder, which holds the tree and the tfdbg root; its export
    cache lies elsewhere, as the temporary folder does. The run must read the cache's files on the
    strength of the root they were exported from."""
    pytest.importorskip("distributed")
    from tests.support.local_cluster import local_cluster

    host = tmp_path / "host"
    shutil.copytree(tree.root.parent, host)
    _write_v1(host / "tfdbg_v1")
    worker_env = {0: {"OPDIFF_TFDBG_CACHE": str(tmp_path / "worker-cache")}}
    with local_cluster(tmp_path / "cluster", [host], worker_env=worker_env) as cluster:
        done = opdiff_cli(host, "compare", "-m", tree.root.name, "-g", "tfdbg_v1", "-f", "rules", "--scheduler",
                          cluster.address, "-out", str(tmp_path / "out"), "--no-progress")
        assert done.returncode == 0, done.stdout + done.stderr + cluster.log_text()
    results = sorted((tmp_path / "out").glob("*_result_*.csv"))
    assert len(results) == len(tree.folders) * len(tree.steps), done.stdout
    shifted = [path for path in results if SHIFTED in path.name]
    for path in shifted:
        failing = {row["TensorIndex"] for row in _rows(path) if row["CosineSimilarity"] not in ("NaN", "")
                   and float(row["CosineSimilarity"]) < 0.99}
        assert failing == {f"{FAULTY}:output:0", "GradientDescent/update_dense_1/kernel/ApplyGradientDescent:input:2"}
