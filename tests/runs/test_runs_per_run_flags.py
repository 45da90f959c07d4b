"""The per-run flags of many runs (-advisor, -r/-s, -map, --report xlsx), locally and on a Dask
cluster on 127.0.0.1: each run's files are named after the run and hold what the same flags give
for that run alone; on a cluster the client writes them all. The summaries validate against their
schema."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Dict

import jsonschema
import pytest

from opdiff.commands.exit_codes import ExitCode
from opdiff.report.runs.json_writer import load_schema
from tests.support.dump_tree import DumpTree, Fault, write_dump_tree
from tests.support.many_runs import by_run, client_folder, host_folders, opdiff_cli, summary_of

FAULT = Fault(device=1, step=1, op="block2/conv1")
SELECT = "1,3,4,7"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> DumpTree:
    return write_dump_tree(tmp_path_factory.mktemp("tree"), devices=(0, 1), steps=(0, 1), fault=FAULT)


def _many(tree: DumpTree, out: Path, *flags: str) -> Dict[str, dict]:
    """The tree compared with `flags` from its parent folder (relative paths); its runs by label."""
    done = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name,
                      "-out", str(out), *flags)
    assert done.returncode == ExitCode.OK, done.stderr + done.stdout
    summary = summary_of(out)
    jsonschema.validate(summary, load_schema())
    return {f"{run['device']}_{run['model']}_{run['step']}": run for run in summary["runs"]}


def _single(tree: DumpTree, device: int, step: int, out: Path, *flags: str) -> Path:
    run = tree.run_folder(device, step).relative_to(tree.root.parent)
    done = opdiff_cli(tree.root.parent, "compare", "-m", str(run), "-g", "golden", "-f", tree.rule.name, "-out", str(out),
                      *flags)
    assert done.returncode == ExitCode.OK, done.stderr + done.stdout
    return out


def _by_name(folder: Path, pattern: str, marker: str) -> Dict[str, bytes]:
    return {path.name.split(marker)[0]: path.read_bytes() for path in folder.glob(pattern)}


def test_advisor_selection_and_xlsx_per_run_match_each_run_alone(tree: DumpTree, tmp_path: Path) -> None:
    # imported here: the aarch64 run collects this module with the core's dependencies only
    openpyxl = pytest.importorskip("openpyxl", reason="openpyxl (test extra) reads the xlsx back")
    out = tmp_path / "many"
    runs = _many(tree, out, "-advisor", "-s", SELECT, "--report", "xlsx")
    assert sorted(runs) == [f"{d}_demo_net_{s}" for d in (0, 1) for s in (0, 1)]
    for label, run in runs.items():
        assert run["files"]["advisor"] == f"{label}_advisor_summary.txt"
        assert run["files"]["xlsx"] == run["csv"][: -len(".csv")] + ".xlsx"
        device, step = int(label.split("_")[0]), int(label.rsplit("_", 1)[1])
        single = _single(tree, device, step, tmp_path / f"single_{label}", "-advisor", "-s", SELECT)
        (single_csv,) = single.glob("result_*.csv")
        assert (out / run["csv"]).read_bytes() == single_csv.read_bytes()  # -s kept the same ops (and the OpSequence column)
        assert (out / run["files"]["advisor"]).read_text() == (single / "advisor_summary.txt").read_text()
        sheet = openpyxl.load_workbook(out / run["files"]["xlsx"], read_only=True)["rows"]
        with open(out / run["csv"], newline="") as handle:
            assert sum(1 for _ in sheet.iter_rows()) == sum(1 for _ in csv.reader(handle))
    assert runs["1_demo_net_1"]["failed"] > 0
    assert (out / "1_demo_net_1_advisor_summary.txt").read_text() != (out / "0_demo_net_0_advisor_summary.txt").read_text()
    assert "OpSequence" in (out / runs["0_demo_net_0"]["csv"]).read_text().splitlines()[0]


def test_range_resolves_against_each_runs_rule_and_map_lists_each_runs_files(tree: DumpTree, tmp_path: Path) -> None:
    ranged = _many(tree, tmp_path / "ranged", "-r", "2,-1,3")
    single = _single(tree, 0, 1, tmp_path / "single_range", "-r", "2,-1,3")
    (single_csv,) = single.glob("result_*.csv")
    assert (tmp_path / "ranged" / ranged["0_demo_net_1"]["csv"]).read_bytes() == single_csv.read_bytes()

    mapped = _many(tree, tmp_path / "mapped", "-map")
    assert {run["status"] for run in mapped.values()} == {"mapped"}
    assert not list((tmp_path / "mapped").glob("*_result_*.csv"))  # -map compares nothing
    for label, run in mapped.items():
        device, step = int(label.split("_")[0]), int(label.rsplit("_", 1)[1])
        alone = _single(tree, device, step, tmp_path / f"map_{label}", "-map")
        (alone_csv,) = alone.glob("mapping_*.csv")
        assert (tmp_path / "mapped" / run["files"]["mapping"]).read_bytes() == alone_csv.read_bytes()


def test_selection_without_a_rule_and_a_bad_range_are_refused_before_any_run(tree: DumpTree, tmp_path: Path) -> None:
    npu_vs_npu = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", str(tree.run_folder(0, 0)), "-s", "1",
                            "-out", str(tmp_path / "a"))
    assert npu_vs_npu.returncode == ExitCode.BAD_INPUT and "-r and -s select fusion-rule ids: they need -f" in npu_vs_npu.stderr
    bad = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "-r", "0,4,1",
                     "-out", str(tmp_path / "b"))
    assert bad.returncode == ExitCode.BAD_INPUT and "-r wants START,END,STEP" in bad.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_summaries_with_runs_not_compared_validate(tree: DumpTree, tmp_path: Path) -> None:
    old = write_dump_tree(tmp_path / "old", devices=(0, 1), steps=(0,), golden=False)
    done = opdiff_cli(tree.root.parent, "compare", "-m", tree.root.name, "-g", str(old.root), "-out", str(tmp_path / "out"))
    assert done.returncode == ExitCode.OK, done.stderr
    summary = summary_of(tmp_path / "out")
    jsonschema.validate(summary, load_schema())
    assert {run["status"] for run in summary["runs"]} == {"compared", "not compared"}


@pytest.mark.cluster
def test_per_run_flags_on_a_cluster_give_the_local_files_written_by_the_client(tree: DumpTree, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    from tests.support.local_cluster import local_cluster

    flags = ("-advisor", "-s", SELECT, "--report", "xlsx")
    local = tmp_path / "local"
    _many(tree, local, *flags)
    _many(tree, tmp_path / "local_map", "-map")
    hosts, client = host_folders(tree, tmp_path), client_folder(tree, tmp_path)
    with local_cluster(tmp_path / "cluster", hosts) as cluster:
        base = ["compare", "-m", tree.root.name, "-g", "golden", "-f", tree.rule.name, "--scheduler", cluster.address]
        done = opdiff_cli(client, *base, "-out", "out", *flags)
        assert done.returncode == ExitCode.OK, done.stderr + done.stdout + cluster.log_text()
        mapped = opdiff_cli(client, *base, "-out", "map", "-map")
        assert mapped.returncode == ExitCode.OK, mapped.stderr + mapped.stdout + cluster.log_text()
    summary = summary_of(client / "out")
    jsonschema.validate(summary, load_schema())
    assert all(run["location"].startswith("tcp://127.0.0.1:") for run in summary["runs"])
    assert by_run(client / "out") == by_run(local)
    advisor = "*_advisor_summary.txt"
    assert _by_name(client / "out", advisor, "_advisor_") == _by_name(local, advisor, "_advisor_") != {}
    assert sorted(_by_name(client / "out", "*.xlsx", "_result_")) == sorted(by_run(local))
    # -map's rows are made where the files are; the paths are the workers' own, relative as given.
    assert _by_name(client / "map", "*_mapping_*.csv", "_mapping_") == _by_name(tmp_path / "local_map", "*_mapping_*.csv", "_mapping_")
    assert {run["status"] for run in summary_of(client / "map")["runs"]} == {"mapped"}
    written = [path.name for host in hosts for path in host.rglob("*")
               if any(part in path.name for part in ("_result_", "_mapping_", "advisor_summary", ".xlsx"))]
    assert written == []  # the workers wrote nothing: only rows travelled back
