"""llvm-mca estimates of the aarch64 metric loops: the NEON block loop (fp16 vs fp32) against the
portable scalar path's two loops, compiled with the flags the package uses.

    python tools/mca_aarch64.py [--build build/aarch64/cmake] [--cpus tsv110,neoverse-n1]

The flags come from the compile_commands.json of the cross build tools/test_aarch64.sh makes (run it
first); each source is recompiled with them to assembly (-S). The loops are found in the assembly:
* NEON: the innermost loop of Neon::block_sums<LoadF16, LoadF32> (kernel_neon.cpp, kept out of line
  for this), one 8-element step an iteration (two float32x4 divisions, one FCVTL from .4h);
* scalar: what the portable path does per element of that pair: the fp16 and fp32 decode loops
  into float64 staging (decode.cpp; the compiler vectorises them) and the innermost loops of
  finite_moments and finite_differences (accumulator.cpp), one element an iteration each.
llvm-mca simulates many iterations (loop-carried dependencies included) and reports total cycles;
cycles per element = total cycles / iterations / elements per iteration. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
# GCC writes conditional branches without the dot (bcc, bne); LLVM with it (b.lo, b.ne).
BRANCH = re.compile(r"^\s*(b\.?(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)|b|cbz|cbnz|tbz|tbnz)\s+(?:[^,]+,\s*)*(\.L\w+)\s*$")
LABEL = re.compile(r"^(\.L\w+):")
FUNCTION = re.compile(r"^([A-Za-z_][\w.$]*):")


@dataclass(frozen=True)
class Loop:
    function: str
    body: List[str]  # instructions only


def assembly(build: Path, source: str, out_dir: Path) -> str:
    """The source compiled to assembly with the cross build's own command line."""
    commands = json.loads((build / "compile_commands.json").read_text())
    entry = next(c for c in commands if c["file"].endswith(source))
    argv = shlex.split(entry["command"])
    cleaned: List[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-c", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-MD", "-MMD") or arg == entry["file"]:
            continue
        cleaned.append(arg)
    out = out_dir / (Path(source).stem + ".s")
    subprocess.run(cleaned + ["-S", entry["file"], "-o", str(out)], check=True, cwd=entry["directory"])
    return out.read_text()


def innermost_loops(text: str) -> List[Loop]:
    """Every backward branch's body (label to branch) that holds no other loop."""
    function = ""
    lines: List[str] = []
    labels: Dict[str, int] = {}
    spans = []
    for raw in text.splitlines():
        line = raw.split("//")[0].rstrip()
        if not line.strip():
            continue
        if m := FUNCTION.match(line):
            function = m.group(1)
        if m := LABEL.match(line):
            labels[m.group(1)] = len(lines)
        lines.append(line)
        if (m := BRANCH.match(line)) and m.group(2) in labels:
            spans.append((labels[m.group(2)], len(lines) - 1, function))
    loops = []
    for start, end, name in spans:
        if any(s > start and e <= end and (s, e) != (start, end) for s, e, _ in spans if start <= s):
            continue
        body = [line.strip() for line in lines[start:end + 1] if line.startswith("\t") and not line.strip().startswith(".")]
        loops.append(Loop(name, body))
    return loops


def count(loop: Loop, pattern: str) -> int:
    return sum(1 for line in loop.body if re.search(pattern, line))


def demangle(name: str) -> str:
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name


def run_mca(body: Sequence[str], cpu: str, iterations: int) -> str:
    """llvm-mca's report on `body` repeated `iterations` times."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "loop.s"
        source.write_text("\n".join(body) + "\n")
        return subprocess.run(["llvm-mca", "-mtriple=aarch64-linux-gnu", f"-mcpu={cpu}", f"-iterations={iterations}", str(source)],
                              capture_output=True, text=True, check=True).stdout


def cycles_per_iteration(body: Sequence[str], cpu: str, iterations: int = 400) -> float:
    report = run_mca(body, cpu, iterations)
    found = re.search(r"Total Cycles:\s+(\d+)", report)
    if found is None:
        sys.exit(f"llvm-mca -mcpu={cpu} printed no total cycles:\n{report}")
    return int(found.group(1)) / iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=ROOT / "build" / "aarch64" / "cmake")
    parser.add_argument("--cpus", default="tsv110,neoverse-n1")
    args = parser.parse_args()
    if not (args.build / "compile_commands.json").is_file():
        sys.exit(f"no {args.build}/compile_commands.json: run tools/test_aarch64.sh first")
    with tempfile.TemporaryDirectory() as tmp:
        neon_text = assembly(args.build, "cpp/src/kernels/kernel_neon.cpp", Path(tmp))
        scalar_text = assembly(args.build, "cpp/src/accumulator.cpp", Path(tmp))
        decode_text = assembly(args.build, "cpp/src/decode.cpp", Path(tmp))
    neon = [loop for loop in innermost_loops(neon_text) if "block_sums" in loop.function
            and "LoadF16ENS0_7LoadF32" in loop.function and count(loop, r"^fcvtl\s+v\d+\.4s, v\d+\.4h") == 1]
    if len(neon) != 1:
        sys.exit(f"expected one NEON fp16-vs-fp32 block loop, found {len(neon)}")
    if count(neon[0], r"^fdiv\s+v\d+\.4s") != 2:
        sys.exit("the NEON loop is not one 8-element step (two float32x4 divisions)")

    # The scalar path per element: decode x (fp16) and y (fp32) into float64 staging (vectorised by
    # the compiler: elements per iteration from its FCVTL/FCVTL2 to .2d), then the two loops.
    rows: List[Tuple[str, Loop, int]] = []
    decode_loops = [loop for loop in innermost_loops(decode_text) if "decodeIdE" in loop.function]
    widen = r"^fcvtl2?\s+v\d+\.2d"
    f16 = [loop for loop in decode_loops if count(loop, widen) and count(loop, r"^fmul") and count(loop, r"^scvtf")]
    f32 = [loop for loop in decode_loops if count(loop, widen) and not count(loop, r"^(fmul|scvtf|shll|ucvtf)")]
    if len(f16) != 1 or len(f32) != 1:
        sys.exit(f"expected one fp16 and one fp32 decode loop, found {len(f16)} and {len(f32)}")
    rows.append(("scalar: decode fp16 -> float64 (`decode.cpp`)", f16[0], 2 * count(f16[0], widen)))
    rows.append(("scalar: decode fp32 -> float64", f32[0], 2 * count(f32[0], widen)))
    for name in ("finite_moments", "finite_differences"):
        # (out-of-line blocks that jump back into a loop make spans of their own; they load nothing)
        found = [loop for loop in innermost_loops(scalar_text) if name in loop.function and count(loop, r"^ldr\s+d\d+") == 2]
        if len(found) != 1:
            sys.exit(f"expected one {name} loop reading two doubles an iteration, found {len(found)}")
        rows.append((f"scalar: `{name}` (`accumulator.cpp`)", found[0], 1))

    cpus = args.cpus.split(",")
    print(f"NEON loop: {len(neon[0].body)} instructions in {demangle(neon[0].function)}")
    for cpu in cpus:
        print(f"-mcpu={cpu}: {scheduling_model(cpu, neon[0].body)}")
    print()
    print(f"| loop (aarch64, GCC {compiler_version(args.build)}) | elements / iteration | "
          + " | ".join(f"{cpu} cycles / element" for cpu in cpus) + " |")
    print("| --- | --- |" + " --- |" * len(cpus))
    scalar_cpe = dict.fromkeys(cpus, 0.0)
    for title, loop, elements in rows:
        cpe = {cpu: cycles_per_iteration(loop.body, cpu) / elements for cpu in cpus}
        for cpu in cpus:
            scalar_cpe[cpu] += cpe[cpu]
        print(f"| {title} | {elements} | " + " | ".join(f"{cpe[cpu]:.2f}" for cpu in cpus) + " |")
    neon_cpe = {cpu: cycles_per_iteration(neon[0].body, cpu) / 8 for cpu in cpus}
    print("| **scalar path, fp16 vs fp32** | | " + " | ".join(f"**{scalar_cpe[cpu]:.2f}**" for cpu in cpus) + " |")
    print("| **NEON `block_sums<LoadF16, LoadF32>`** | 8 | " + " | ".join(f"**{neon_cpe[cpu]:.2f}**" for cpu in cpus) + " |")
    print("| NEON speed-up over scalar | | " + " | ".join(f"{scalar_cpe[cpu] / neon_cpe[cpu]:.1f}x" for cpu in cpus) + " |")


def scheduling_model(cpu: str, body: Sequence[str]) -> str:
    """Which model llvm-mca uses for `cpu`: its own, or (same estimates on this loop, resource for
    resource) the Cortex-A57 model, which LLVM 14-16 give Neoverse N1."""
    def report(name: str) -> str:
        out = run_mca(body, name, 50)
        return out[out.index("Iterations"):]

    if cpu != "cortex-a57" and report(cpu) == report("cortex-a57"):
        return "no scheduling model of its own in this LLVM: Cortex-A57's"
    return "its own scheduling model"


def compiler_version(build: Path) -> str:
    commands = json.loads((build / "compile_commands.json").read_text())
    compiler = shlex.split(commands[0]["command"])[0]
    return subprocess.run([compiler, "-dumpfullversion"], capture_output=True, text=True).stdout.strip() or "?"


if __name__ == "__main__":
    main()
