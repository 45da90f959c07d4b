"""Evaluations on a device: a build command and a run command per candidate set, like Polygraphy's
``--check``, with placeholders opdiff fills in:

* ``{keep_dtype}``: the candidate's keep_dtype.cfg, written by opdiff;
* ``{om}``: the model file the build writes (an .om, or its fusion rule as atc JSON);
* ``{dump}``: the empty folder the run dumps into.

Each step gets a folder of its own under ``DIR/device/step_NNNN``. The model outputs' dumps are
found in ``{dump}`` as compare finds them, through the rule read from ``{om}``, and checked against
the golden. A command that exits non-zero, or runs past its timeout, stops the search
(:class:`CommandFailed`: exit 2 with its output and the step's number).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Mapping, Optional, Tuple

import numpy as np

from opdiff.conventions.keep_dtype import keep_list
from opdiff.graph import FusionMap
from opdiff.precision import DEFAULT_COMMAND_TIMEOUT_S
from opdiff.precision.evaluate import Evaluation
from opdiff.precision.target import Target

DEVICE_FOLDER = "device"
MODEL_FILE = "model.om"  # {om}
DUMP_FOLDER = "dump"  # {dump}


class CommandFailed(Exception):
    """A build or run command exited non-zero, or ran past its timeout."""

    def __init__(self, step: int, which: str, command: str, detail: str, output: str):
        super().__init__(f"step {step}: the {which} command {detail}: {command}\n{output}")
        self.step, self.which, self.output = step, which, output


@dataclass(frozen=True)
class DeviceCommands:
    """The ``--build`` and ``--run`` templates and their timeout (seconds)."""

    build: str
    run: str
    timeout: float = DEFAULT_COMMAND_TIMEOUT_S


@dataclass
class DeviceEvaluator:
    """Evaluates kept sets with `commands`, one step folder each under `folder`; `outputs` maps
    each model output to the op that writes it (its name in the source model), `keep_types` the
    ``OpType::`` lines every candidate file carries."""

    commands: DeviceCommands
    folder: Path
    target: Target
    golden: Mapping[str, np.ndarray]
    outputs: Mapping[str, Tuple[str, int]]  # model output -> (writer op, output index)
    keep_types: Tuple[str, ...] = ()
    keep_names: Tuple[str, ...] = ()
    steps: int = field(default=0)

    def evaluate(self, kept: FrozenSet[str]) -> Evaluation:
        started = time.perf_counter()
        self.steps += 1
        step = step_folder(self.folder, self.steps)
        if step.exists():  # a step a killed search left half done: its dumps would mix with the new ones
            shutil.rmtree(step)
        dump = step / DUMP_FOLDER
        dump.mkdir(parents=True)
        keep_file = step / "keep_dtype.cfg"
        names = sorted(kept | set(self.keep_names))
        keep_file.write_text(keep_list(names, self.keep_types).text(), encoding="utf-8")
        places = {"keep_dtype": keep_file, "om": step / MODEL_FILE, "dump": dump}
        for which, template in (("build", self.commands.build), ("run", self.commands.run)):
            _run_command(self.steps, which, fill(template, places), self.commands.timeout, step)
        found = read_outputs(dump, places["om"], self.outputs)
        return Evaluation(kept, tuple(self.target.check(found, self.golden)), time.perf_counter() - started)


def step_folder(folder: Path, step: int) -> Path:
    """The folder of device step `step` (1-based) of a search writing into `folder`."""
    return folder / DEVICE_FOLDER / f"step_{step:04d}"


def fill(template: str, places: Mapping[str, Path]) -> str:
    """`template` with each ``{name}`` replaced by the shell-quoted path of `places`.

    >>> fill("atc --keep_dtype={keep_dtype}", {"keep_dtype": Path("a b/k.cfg")})
    "atc --keep_dtype='a b/k.cfg'"
    """
    text = template
    for name, path in places.items():
        text = text.replace("{" + name + "}", shlex.quote(os.fspath(path)))
    return text


def _run_command(step: int, which: str, command: str, timeout: float, folder: Path) -> None:
    log = folder / f"{which}.log"
    try:
        done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=timeout, cwd=os.getcwd())
    except subprocess.TimeoutExpired as expired:
        output = _text(expired.stdout) + _text(expired.stderr)
        log.write_text(output, encoding="utf-8")
        raise CommandFailed(step, which, command, f"ran past {timeout:g} s", output) from None
    output = done.stdout + done.stderr
    log.write_text(output, encoding="utf-8")
    if done.returncode != 0:
        raise CommandFailed(step, which, command, f"exited {done.returncode}", output)


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""


def read_outputs(dump: Path, rule: Path, outputs: Mapping[str, Tuple[str, int]]) -> Dict[str, np.ndarray]:
    """Each model output's tensor from the device dumps under `dump`, found through the rule
    `rule` (an .om or atc JSON): the op whose output stands for the writer's output; ValueError
    when one is missing."""
    found, missing = read_tensors(dump, rule, {output: (writer, position, f"model output {output}")
                                               for output, (writer, position) in outputs.items()})
    if missing:
        raise ValueError(missing[0])
    return found


def read_tensors(dump: Path, rule: Path, wanted: Mapping[str, Tuple[str, int, str]]) -> Tuple[Dict[str, np.ndarray], List[str]]:
    """The tensors `wanted` names (key -> (source op, output index, what it is, for the messages))
    from the device dumps under `dump`, found through `rule`; and why each one missing is."""
    from opdiff.conventions.dump_names import escape_op_name
    from opdiff.dumps.discovery import index_folder
    from opdiff.dumps.reader import read_dump
    from opdiff.graph import read_graph

    fusion_map = read_graph(rule)
    folder = _dump_folder(dump)
    index = index_folder(folder)
    found: Dict[str, np.ndarray] = {}
    missing: List[str] = []
    for key, (writer, position, what) in wanted.items():
        device = _device_op(fusion_map, writer, position)
        if device is None:
            missing.append(f"the rule has no op standing for {writer}:{position}")
            continue
        op_name, slot = device
        latest = index.newest(escape_op_name(op_name))
        if latest is None:
            missing.append(f"no dump of {op_name} ({what}) in {folder}")
            continue
        found[key] = read_dump(latest.path).outputs[slot].to_numpy()
    return found, missing


def _device_op(fusion_map: FusionMap, writer: str, position: int) -> Optional[Tuple[str, int]]:
    """The device op, and its output slot, that stands for output `position` of source op `writer`
    (a compute op before a Cast that passes the value on); None when no op does."""
    matches: List[Tuple[int, str, int]] = []
    for op in fusion_map.ops:
        for slot, desc in enumerate(op.output_descs):
            if desc.origin_name == writer and desc.origin_output_index == position:
                matches.append((1 if op.type == "Cast" else 0, op.name, slot))
    if not matches:
        return None
    _, name, slot = min(matches)
    return name, slot


def _dump_folder(dump: Path) -> Path:
    """The folder under `dump` (itself included) that holds the dump files: the one with most files."""
    best: Optional[Tuple[int, str]] = None
    for root, _, files in os.walk(dump):
        count = sum(1 for name in files if not name.endswith((".json", ".npy", ".csv", ".onnx", ".pb")))
        if count and (best is None or count > best[0]):
            best = (count, root)
    if best is None:
        raise ValueError(f"the run wrote no dump file under {dump}")
    return Path(best[1])
