"""The reference tool, msaccucmp (mindstudio-probe), run as a black box in its own virtual
environment, with the libascend_dump_parser.so stand-in of bench/reference_tool on LD_LIBRARY_PATH
(docs/reference/reference-tool.md §0: without it the reference cannot read any NPU dump)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

BENCH = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = BENCH / "reference_tool" / "build.sh"
DEFAULT_VENV = Path("/work/venv-ref")
LIBRARY = "libascend_dump_parser.so"


@dataclass(frozen=True)
class ReferenceTool:
    python: Path
    script: Path  # msaccucmp.py
    library_dir: Path  # holds libascend_dump_parser.so

    @classmethod
    def locate(cls, venv: Path = DEFAULT_VENV, library_dir: Optional[Path] = None) -> ReferenceTool:
        """Find msaccucmp.py in `venv`; build the stand-in library if `library_dir` lacks it."""
        python = venv / "bin" / "python"
        scripts = sorted(venv.glob("lib/python*/site-packages/msprobe/msaccucmp/msaccucmp.py"))
        if not python.exists() or not scripts:
            raise FileNotFoundError(f"{venv}: no mindstudio-probe here (pip install mindstudio-probe==26.2.0)")
        library_dir = library_dir or BENCH / "reference_tool" / "build"
        if not (library_dir / LIBRARY).exists():
            subprocess.run(["bash", str(BUILD_SCRIPT), str(library_dir)], check=True, stdout=subprocess.DEVNULL)
        return cls(python, scripts[-1], library_dir)

    def environment(self) -> Dict[str, str]:
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(self.library_dir), env.get("LD_LIBRARY_PATH", "")) if p)
        return env

    def compare_command(self, my: Path, golden: Path, out: Path, rule: Optional[Path] = None,
                        extra: Sequence[str] = ()) -> List[str]:
        command = [str(self.python), str(self.script), "compare", "-m", str(my), "-g", str(golden)]
        if rule is not None:
            command += ["-f", str(rule)]
        return command + ["-out", str(out), *extra]


def opdiff_compare_command(my: Path, golden: Path, out: Path, rule: Optional[Path] = None,
                           extra: Sequence[str] = (), python: str = sys.executable) -> List[str]:
    """The same comparison through the `opdiff` CLI, started as a fresh interpreter (start-up counts)."""
    command = [python, "-m", "opdiff", "compare", "-m", str(my), "-g", str(golden)]
    if rule is not None:
        command += ["-f", str(rule)]
    return command + ["-out", str(out), "--no-progress", *extra]


def result_csv(out: Path) -> Optional[Path]:
    """The newest result_<timestamp>.csv in `out` (both tools name it so)."""
    found = sorted(out.glob("result_*.csv"))
    found = [path for path in found if not path.name.endswith((".partial", ".incomplete.csv"))]
    return found[-1] if found else None
