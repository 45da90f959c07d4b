"""Every command of README.md and docs/**/*.md runs, in page order, and exits as the page says.

Each page runs in an empty folder of its own: it makes every input itself, as a reader following it
does (`opdiff demo --dir demo` writes the demo's dumps, its fusion rule and its `model.om`;
`opdiff dump-onnx ...`), so a command that needs a file no earlier block made fails the page. The
conventions for doc writers are in docs/README.md and tests/support/doc_blocks.py.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from tests.support.doc_blocks import (
    NOT_RUN_LANGUAGES,
    PYTHON_LANGUAGES,
    ROOT,
    SHELL_LANGUAGES,
    Command,
    commands_of,
    doc_pages,
    page_name,
    read_blocks,
)
from tests.support.tf_required import tensorflow_or_skip

# Blocks that are not run, by (page, language, first line). Adding one is a deliberate act: a
# forgotten ```bash that became ```device by accident would otherwise silently stop being tested.
NOT_RUN_BLOCKS = {
    ("docs/plugins.md", "python", "# fragment: the shape of a plug-in script (DIR/algorithm/alg_PeakError.py)"),
    ("docs/plugins.md", "python", "# fragment: the imports of a script written for the reference"),
    ("docs/benchmarks.md", "device", "python bench/crosscheck_reference_compare.py   # result CSVs row by row, every difference explained"),
    ("docs/benchmarks.md", "slow", "python bench/bench_metrics.py --quick          # throughput of the metric kernels"),
    ("docs/benchmarks.md", "device", "python bench/bench_metrics.py --quick   # on the aarch64 host: GB/s per path (neon, scalar), 1 and 2 threads"),
    ("docs/producing-dumps.md", "device", "export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest"),
    ("docs/many-runs.md", "device", "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 365 -subj /CN=opdiff-cluster-ca"),
    ("docs/many-runs.md", "device", "dask scheduler --protocol tls --host 0.0.0.0 --port 8786 --tls-ca-file ca.pem --tls-cert node.pem --tls-key node.key"),
    ("docs/many-runs.md", "device", "opdiff compare -m 20260101120000 -g golden -f resnet50.om --scheduler tls://scheduler-host:8786 --tls-ca-file ca.pem --tls-cert client.pem --tls-key client.key -out results/"),
    ("docs/many-runs.md", "python", "# fragment: needs a running cluster at tls://scheduler-host:8786 and the certificates above"),
    ("docs/producing-dumps.md", "python", "# fragment: op_outputs (op name -> list of output arrays) comes from your framework run"),
    ("docs/producing-dumps.md", "device", "atc --mode=1 --om=model.om --json=model.json   # the fusion rule as JSON (opdiff reads the .om directly too)"),
    ("docs/isolating-an-op.md", "device", "opdiff compare -m $DUMP/20261129103000/0/net/1/0 -g net_golden/golden -f net.om --isolate net_golden/model.pb -out results/ -advisor"),
    ("docs/scenario-npu-vs-golden.md", "device", "opdiff compare -m $DUMP/20261129103000/0/resnet50/1/0 -g golden/ -f resnet50.om -out results/ -advisor"),
    ("docs/scenario-npu-vs-golden.md", "device", "opdiff graph graphs/ge_proto_00000123_Build.txt --limit 0"),
    ("docs/scenario-npu-vs-npu.md", "device", "opdiff compare -m new/20261129103000/0/resnet50/1/0 -g old/20261120091500/0/resnet50/1/0 -out results/ -advisor"),
    ("docs/scenario-fusion.md", "device", "opdiff compare -m on/ -g off/ -f resnet50.om -cf resnet50_nofusion.om -out results/"),
    ("docs/scenario-quantized.md", "device", "opdiff compare -m quant_dump/ -g golden/ -f resnet50_quant.om -q quant_fusion_rule.json -out results/ -advisor"),
    ("docs/migrating-from-msaccucmp.md", "device", "python msaccucmp.py compare -m dump/ -g golden/ -f model.json -out results/ -advisor"),
    ("docs/model-explorer.md", "slow", "opdiff view results/ --no-browser   # serves until Ctrl+C; open the URL it prints"),
    ("docs/model-explorer.md", "slow", "model-explorer --extensions=opdiff.viewer   # then open a .om, atc JSON or GE graph dump in its page"),
    ("docs/cli.md", "slow", "opdiff view results/ --no-browser   # serves until Ctrl+C"),
    ("docs/producing-caffe-goldens.md", "slow", "python bench/bench_dump_caffe.py --repeat 3"),
    ("docs/what-to-change.md", "device", "opdiff precision model.pb --input x=x.npy -out on_device --build 'atc --model=model.pb --framework=3 --soc_version=Ascend310P3 --precision_mode=force_fp16 --keep_dtype={keep_dtype} --output=$(dirname {om})/model && mv $(dirname {om})/model.om {om}' --run 'run_with_dump.sh {om} {dump}'"),
    ("docs/what-to-change.md", "device", "opdiff precision model.onnx --input x=x.npy -out on_device --build 'atc --model=model.onnx --framework=5 --soc_version=Ascend310P3 --precision_mode=force_fp16 --keep_dtype={keep_dtype} --output=$(dirname {om})/model && mv $(dirname {om})/model.om {om}' --run 'run_with_dump.sh {om} {dump}'"),
    ("docs/reliability.md", "slow", "for t in header dump npy om layout; do python bench/fuzz/run.py $t --seconds 600 --corpus corpus-$t; done"),
    ("docs/scenario-tf-training.md", "python", "# fragment: needs the Ascend TF adapter (npu_bridge), on an NPU host"),
    ("docs/scenario-tf-training.md", "python", "# fragment: the session config of a tf.compat.v1 training script on an NPU host"),
    ("docs/scenario-tf-training.md", "device", "export DUMP_GE_GRAPH=2        # the graphs without their weight data (1 keeps everything)"),
    ("docs/scenario-tf-training.md", "device", "opdiff compare -m $DUMP/20261129103000/0/ge_default_20261129103000_1/1/5 -g tfdbg_v1 -f graphs/ge_proto_00000123_Build.txt -out results/ -advisor"),
    ("docs/reliability.md", "slow", "pip install -Cbuild-dir=build/asan -Ccmake.define.OPDIFF_SANITIZE=ON \".[test]\"   # or SKBUILD_CMAKE_DEFINE=OPDIFF_SANITIZE=ON"),
}

# A page mentioning one of these needs the optional module; without it the page is skipped.
OPTIONAL_MODULES = {"dump-onnx": "onnxruntime", "dump-caffe": "onnxruntime", "xlsx": "xlsxwriter"}

PAGE_TIMEOUT_S = 240
README_TEST_COMMAND = 'pip install ".[test]" && python -m pytest tests'


def runnable(command: Command) -> Optional[str]:
    """What the suite runs of a command: `pip install X && rest` runs `rest` only (the suite does
    not re-install itself, and never runs itself: README's test command is checked against .ci/run)."""
    if not re.match(r"pip3? install\b", command.text):
        return command.text
    _, _, rest = command.text.partition("&&")
    rest = rest.strip()
    if not rest or "pytest" in rest:
        return None
    return rest


def page_steps(path: Path, logs: Path, only_needing: str = "") -> List[Tuple[Command, Optional[str]]]:
    """Every command of the page in order, with what bash runs for it (None: not run: also the
    blocks that need a module this Python lacks). A Python block becomes one step running the
    block's text, saved as a script beside the logs. `only_needing`: the blocks that need that
    module, alone."""
    steps: List[Tuple[Command, Optional[str]]] = []
    for block in read_blocks(path):
        if only_needing and block.needs != only_needing:
            continue
        missing = bool(block.needs) and importlib.util.find_spec(block.needs) is None
        if block.language in SHELL_LANGUAGES:
            steps.extend((command, None if missing else runnable(command)) for command in commands_of(block))
        elif block.language in PYTHON_LANGUAGES and not block.is_fragment:
            script = logs / f"block_{block.line}.py"
            script.write_text("\n".join(block.body) + "\n", encoding="utf-8")
            steps.append((Command(block.page, block.line, f"```python block at line {block.line}", 0), None if missing else f"python '{script}'"))
    return steps


def run_page_in_empty_folder(path: Path, tmp_path: Path, only_needing: str = "") -> List[str]:
    """`run_page` in a new, empty folder under `tmp_path`: nothing but what the page's own blocks make."""
    folder = tmp_path / "work"
    folder.mkdir()
    return run_page(path, folder, only_needing)


def run_page(path: Path, folder: Path, only_needing: str = "") -> List[str]:
    """Run the commands of one page in `folder` (one bash process, so `cd` and variables carry
    over, as for a reader typing them); returns one message per command whose exit code differs
    from the page's expectation."""
    logs = folder / ".doc-logs"
    logs.mkdir()
    steps = page_steps(path, logs, only_needing)
    script = [f"{{ {text}\n}} >'{logs}/{number}.out' 2>&1 </dev/null\necho $? >'{logs}/{number}.rc'\n"
              for number, (_, text) in enumerate(steps) if text is not None]
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "COLUMNS": "100"}
    env.pop("OPDIFF_SIMD", None)
    subprocess.run(["bash", "-c", "".join(script)], cwd=folder, env=env, timeout=PAGE_TIMEOUT_S,
                   stdin=subprocess.DEVNULL, capture_output=True, check=False)
    failures = []
    for number, (command, text) in enumerate(steps):
        if text is None:
            continue
        rc_file, out_file = logs / f"{number}.rc", logs / f"{number}.out"
        where = f"{command.page}:{command.line}: {command.text}"
        if not rc_file.exists():
            failures.append(f"{where}\n  never finished (an earlier command ended the shell)")
            continue
        code = int(rc_file.read_text().strip())
        if code != command.expected_exit:
            output = out_file.read_text(errors="replace")[-3000:] if out_file.exists() else ""
            failures.append(f"{where}\n  exit {code}, the page expects {command.expected_exit}\n{output}")
    return failures


@pytest.mark.parametrize("path", doc_pages(), ids=page_name)
def test_page_commands_run(path: Path, tmp_path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for token, module in OPTIONAL_MODULES.items():
        if token in text and importlib.util.find_spec(module) is None:
            pytest.skip(f"{page_name(path)} uses {token}, which needs {module} (pip install \".[test]\")")
    failures = run_page_in_empty_folder(path, tmp_path)
    assert not failures, "\n\n".join(failures)


TENSORFLOW_PAGES = [path for path in doc_pages() if any(block.needs == "tensorflow" for block in read_blocks(path))]


@pytest.mark.tf
@pytest.mark.parametrize("path", TENSORFLOW_PAGES, ids=page_name)
def test_the_blocks_that_need_tensorflow_run(path: Path, tmp_path: Path) -> None:
    """Where tensorflow imports (.ci/run: the venv tools/tf_env.py builds), a page's `# needs: tensorflow`
    blocks run on their own, in page order, in an empty folder: such a section makes its own inputs."""
    tensorflow_or_skip()
    failures = run_page_in_empty_folder(path, tmp_path, only_needing="tensorflow")
    assert not failures, "\n\n".join(failures)


def test_a_block_runs_only_where_the_module_it_needs_imports(tmp_path: Path) -> None:
    page = tmp_path / "needs.md"
    page.write_text("```bash\n# needs: opdiff_no_such_module\nfalse\n```\n\n```bash\n# needs: json\nfalse\n```\n\n```bash\ntrue\n```\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    assert [(c.text, text) for c, text in page_steps(page, logs)] == [("false", None), ("false", "false"), ("true", "true")]
    assert [(c.text, text) for c, text in page_steps(page, logs, only_needing="json")] == [("false", "false")]
    folder = tmp_path / "work"
    folder.mkdir()
    (failure,) = run_page(page, folder)
    assert "needs.md:8: false" in failure


def test_blocks_that_are_not_run_are_the_listed_ones() -> None:
    found = {(block.page, block.language, block.first_line) for path in doc_pages() for block in read_blocks(path)
             if block.language in NOT_RUN_LANGUAGES or block.is_fragment}
    assert found - NOT_RUN_BLOCKS == set(), "not-run blocks missing from NOT_RUN_BLOCKS (or changed)"
    assert NOT_RUN_BLOCKS - found == set(), "NOT_RUN_BLOCKS lists blocks the pages no longer have"


def test_every_fence_names_its_language() -> None:
    unnamed = [f"{block.page}:{block.line}" for path in doc_pages() for block in read_blocks(path) if not block.language]
    assert not unnamed, f"fences without a language (use ```text for output): {unnamed}"


def test_ci_runs_the_readme_test_command() -> None:
    readme = [command.text for block in read_blocks(ROOT / "README.md") if block.language in SHELL_LANGUAGES
              for command in commands_of(block)]
    assert README_TEST_COMMAND in readme
    assert readme[:2] == ['pip install . && opdiff demo', README_TEST_COMMAND], "README's set-up commands come first"
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert README_TEST_COMMAND in ci_lines


def test_extras_named_in_pip_commands_exist() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    extras = set(re.findall(r"^([A-Za-z0-9_-]+)\s*=", section, re.MULTILINE))
    for path in doc_pages():
        for name in re.findall(r"pip3? install [^\n`]*?(?:opdiff|\.)\[([A-Za-z0-9_,-]+)\]", path.read_text()):
            assert set(name.split(",")) <= extras, f"{page_name(path)} installs unknown extras [{name}]"


def test_a_command_needing_a_file_the_page_did_not_make_fails_it(tmp_path: Path) -> None:
    """A page runs where nothing was put for it: the .om it reads must come from its own blocks. The
    page test's own runner, on a page that names the demo's model.om before, and after, making it."""
    page = tmp_path / "page.md"
    page.write_text("```bash\nopdiff graph demo/model.om\nopdiff demo --dir demo\nopdiff graph demo/model.om --limit 1\n```\n")
    (failure,) = run_page_in_empty_folder(page, tmp_path)
    assert "page.md:2: opdiff graph demo/model.om\n  exit 2, the page expects 0" in failure and "cannot open" in failure


def test_a_broken_command_fails_the_page(tmp_path: Path) -> None:
    """The check can fail: a command that exits non-zero without `# exit N`, and one whose
    expected code is wrong, are both reported; a correctly annotated failure is not."""
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\n"
        "opdiff compare -m nowhere -g nowhere             # exit 2\n"
        "opdiff compare -m nowhere -g nowhere\n"
        "opdiff info \\\n  nowhere.npy                      # exit 0\n"
        "```\n"
    )
    folder = tmp_path / "work"
    folder.mkdir()
    failures = run_page(page, folder)
    assert len(failures) == 2
    assert "exit 2, the page expects 0" in failures[0] and ":3: opdiff compare" in failures[0]
    assert "opdiff info nowhere.npy" in failures[1]


def test_python_blocks_run_and_fragments_do_not(tmp_path: Path) -> None:
    page = tmp_path / "python.md"
    page.write_text("```python\n# fragment: x comes from elsewhere\nprint(x)\n```\n\n"
                    "```python\nimport opdiff\nraise SystemExit(opdiff.metrics([1.0], [1.0]).cosine_similarity == 1.0)\n```\n")
    folder = tmp_path / "work"
    folder.mkdir()
    (failure,) = run_page(page, folder)
    assert "python.md:6: ```python block at line 6" in failure and "exit 1, the page expects 0" in failure


def test_console_blocks_run_the_prompt_lines_only(tmp_path: Path) -> None:
    page = tmp_path / "console.md"
    page.write_text("```console\n$ opdiff simd \\\n    --help\nusage: opdiff simd [-h]\n$ opdiff nope   # exit 2\n```\n")
    (block,) = read_blocks(page)
    assert [(c.text, c.expected_exit) for c in commands_of(block)] == [("opdiff simd --help", 0), ("opdiff nope", 2)]
    folder = tmp_path / "work"
    folder.mkdir()
    assert run_page(page, folder) == []
