"""Packaging facts that must hold for every install: one version, and (x86-64) a core whose
non-kernel code runs on any x86-64 CPU (tools/check_baseline_isa.py on the build that made it)."""

from __future__ import annotations

import platform
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Optional

import pytest

import opdiff
from opdiff import _core
from tests.support import paths

ROOT = paths.ROOT


def test_version_has_one_source() -> None:
    assert opdiff.__version__ == metadata.version("opdiff")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.MULTILINE)
    assert not re.search(r"^version = ", pyproject, re.MULTILINE), "the version lives in python/opdiff/__init__.py"


def build_folder_of_loaded_core() -> Optional[Path]:
    """The CMake build folder under build/ that produced the imported _core, if it is still there."""
    module = Path(_core.__file__)
    candidates = [path.parent for path in (ROOT / "build").glob(f"*/{module.name}") if (path.parent / "CMakeFiles").is_dir()]
    same = [folder for folder in candidates if (folder / module.name).read_bytes() == module.read_bytes()]
    return max(same, key=lambda folder: (folder / module.name).stat().st_mtime, default=None)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the AVX kernels exist on x86-64 only")
def test_only_kernel_objects_use_avx() -> None:
    if shutil.which("objdump") is None or shutil.which("readelf") is None:
        pytest.skip("needs binutils (objdump, readelf)")
    folder = build_folder_of_loaded_core()
    if folder is None:
        pytest.skip("the build folder of the installed core is not under build/ (an installed wheel)")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "check_baseline_isa.py"), str(folder)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kernel object(s) (kernel_avx2.cpp.o, kernel_avx512.cpp.o) export no code" in result.stdout
