"""Plug-in folders (``-c DIR``) for the tests and the cross-check: opdiff's own test plug-ins, written
here, and the reference tool's ten metric scripts under other names, copied at run time from an
installed mindstudio-probe (never kept in the repository: they are its code, not ours)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Dict, Optional, Sequence

# Where the reference may be installed (the bench's venv, the session's); the first that has it wins.
REFERENCE_VENVS = (Path("/work/venv-ref"), Path("/tmp/ref"))
REFERENCE_PREFIX = "Ref"

# The project's own plug-ins: a metric written against the reference's import names, one that
# echoes what it is given, and the three ways of going wrong the reference handles.
OWN_SCRIPTS: Dict[str, str] = {
    "OwnPeak": '''
        import numpy as np

        from algorithm_manager.algorithm_parameter import AlgorithmParameter
        from cmp_utils import utils, utils_type
        from cmp_utils.constant.const_manager import ConstManager


        def compare(my_output_dump_data, ground_truth_dump_data, args: AlgorithmParameter):
            if my_output_dump_data.size == 0:
                return ConstManager.NAN, "empty"
            scale = float(getattr(args, "scale", "1"))
            peak = np.max(np.abs(my_output_dump_data - ground_truth_dump_data)) * scale
            note = "scalar" if args.shape_type == utils_type.ShapeType.Scalar else ""
            return utils.format_value(peak), note
    ''',
    "OwnEcho": '''
        def compare(my_output_dump_data, ground_truth_dump_data, args):
            return "%s|%s|%d" % (my_output_dump_data.dtype, args.shape_type.name, my_output_dump_data.size), ""
    ''',
    "Boom": '''
        def compare(my_output_dump_data, ground_truth_dump_data, args):
            raise RuntimeError("boom")
    ''',
    "Nothing": '''
        def compare(my_output_dump_data, ground_truth_dump_data, args):
            return None
    ''',
    "NotText": '''
        def compare(my_output_dump_data, ground_truth_dump_data, args):
            return 1.5, ""
    ''',
}

# Format converters of the project's own (DIR/format_convert/): NC1HWC0 to NCHW as the layout defines
# it, and one that replaces it with a sign flip (a converter named like a built-in one wins), or fails.
CONVERTERS: Dict[str, str] = {
    "NC1HWC0_to_NCHW": '''
        def convert(shape_from, shape_to, array):
            n, c1, h, w, c0 = shape_from
            blocks = array.reshape(n, c1, h, w, c0).transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)
            return blocks[:, :shape_to[1]]
    ''',
    "flipped": '''
        def convert(shape_from, shape_to, array):
            n, c1, h, w, c0 = shape_from
            blocks = array.reshape(n, c1, h, w, c0).transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)
            return -blocks[:, :shape_to[1]]
    ''',
    "failing": '''
        def convert(shape_from, shape_to, array):
            raise ValueError("no layout today")
    ''',
}

SLEEPY = '''
    import time


    def compare(my_output_dump_data, ground_truth_dump_data, args):
        time.sleep({seconds})
        return "slept", ""
'''


def write_converter(folder: Path, kind: str, name: str = "NC1HWC0_to_NCHW") -> Path:
    """`folder`/format_convert/convert_{name}.py holding converter `kind` of CONVERTERS."""
    path = folder / "format_convert" / f"convert_{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(CONVERTERS[kind]).lstrip(), encoding="utf-8")
    return path


def reference_algorithms() -> Optional[Path]:
    """The installed reference's builtin_algorithm folder, or None when none is installed."""
    for venv in REFERENCE_VENVS:
        found = sorted(venv.glob("lib/python*/site-packages/msprobe/msaccucmp/algorithm_manager/builtin_algorithm"))
        if found and any(found[0].glob("alg_*.py")):
            return found[0]
    return None


def write_script(folder: Path, name: str, source: str) -> Path:
    path = folder / "algorithm" / f"alg_{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    return path


def write_plugin_folder(folder: Path, own: Sequence[str] = tuple(OWN_SCRIPTS), reference: bool = False,
                        sleep_seconds: Optional[float] = None) -> Path:
    """`folder` with the named own plug-ins, optionally ``Sleepy`` (sleeps that long per pair) and the
    reference's ten as ``Ref{Name}`` (FileNotFoundError when it is not installed)."""
    (folder / "algorithm").mkdir(parents=True, exist_ok=True)
    for name in own:
        write_script(folder, name, OWN_SCRIPTS[name])
    if sleep_seconds is not None:
        write_script(folder, "Sleepy", SLEEPY.format(seconds=sleep_seconds))
    if reference:
        source = reference_algorithms()
        if source is None:
            raise FileNotFoundError("mindstudio-probe is not installed in " + " or ".join(map(str, REFERENCE_VENVS)))
        for script in sorted(source.glob("alg_*.py")):
            shutil.copyfile(script, folder / "algorithm" / f"alg_{REFERENCE_PREFIX}{script.name[4:]}")
    return folder


def reference_names(folder: Path) -> Sequence[str]:
    """The ``Ref{Name}`` plug-ins of `folder`, by name."""
    return sorted(path.stem[4:] for path in (folder / "algorithm").glob(f"alg_{REFERENCE_PREFIX}*.py"))
