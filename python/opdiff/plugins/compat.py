"""The reference tool's import names, as opdiff's own small stand-ins, for the plug-in scripts users
wrote for it (and its own metric scripts, which user scripts are often copied from).

Such a script begins with imports of the reference's internals::

    from algorithm_manager.algorithm_parameter import AlgorithmParameter
    from cmp_utils import utils, utils_type, log
    from cmp_utils.constant.const_manager import ConstManager

:func:`reference_names` puts modules of those names into ``sys.modules`` while a plug-in loads or
runs, and takes them out again afterwards (restoring whatever was there), so nothing of them
lasts in the interpreter. They hold only what the scripts use: ``utils.format_value`` (six
decimals), ``utils_type.ShapeType`` (Scalar, Vector, Matrix, Tensor), ``log.print_*_log`` (one line
on stderr), ``ConstManager``'s NAN, FLOAT_EPSILON and MINIMUM_VALUE, and ``AlgorithmParameter``
(attributes set from a dict, ``get()``).

>>> with reference_names():
...     from cmp_utils import utils
...     utils.format_value(0.5)
'0.500000'
>>> import sys; "cmp_utils" in sys.modules
False
"""

from __future__ import annotations

import contextlib
import sys
import types
from enum import Enum
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence

import numpy as np


class ShapeType(Enum):
    """The reference's shape kinds (``cmp_utils.utils_type.ShapeType``); its scripts test for Scalar."""

    Scalar = 0
    Vector = 1
    Matrix = 2
    Tensor = 3


def shape_type(shape: Sequence[int]) -> ShapeType:
    """The reference's rule: Scalar when every dimension is 1 (or there is none), else Tensor.

    >>> shape_type([1, 1]), shape_type([]), shape_type([2, 3])
    (<ShapeType.Scalar: 0>, <ShapeType.Scalar: 0>, <ShapeType.Tensor: 3>)
    """
    return ShapeType.Scalar if sum(shape) == len(shape) else ShapeType.Tensor


def format_value(value: float) -> str:
    """A value with six decimals, as the reference's CSV prints it."""
    return f"{value:.6f}"


class AlgorithmParameter:
    """The ``args`` a plug-in's ``compare`` gets: its attributes are the entries of one dict (the dump
    file paths, the shape type, the ``-a`` options of that algorithm, as strings).

    >>> args = AlgorithmParameter.of({"shape_type": ShapeType.Tensor, "bins": "10"})
    >>> args.bins, args.get()["shape_type"]
    ('10', <ShapeType.Tensor: 3>)
    """

    @classmethod
    def of(cls, entries: Mapping[str, Any]) -> AlgorithmParameter:
        made = cls()
        made.__dict__.update(entries)
        return made

    def get(self) -> Dict[str, Any]:
        return self.__dict__

    def get_dict(self) -> Dict[str, Any]:
        return self.__dict__


class ConstManager:
    """The constants of the reference that its metric scripts read."""

    NAN = "NaN"
    FLOAT_EPSILON = float(np.finfo(float).eps)
    MINIMUM_VALUE = 0.001


def _print_log(level: str) -> Any:
    def print_log(message: str) -> None:
        print(f"[{level}] {message}", file=sys.stderr)

    return print_log


def _module(name: str, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType(name, "opdiff's stand-in for the reference tool's module of this name (opdiff.plugins.compat)")
    module.__dict__.update(attributes)
    return module


def _stand_ins() -> Dict[str, types.ModuleType]:
    """Fresh modules of the reference's names, each a package where a script imports from below it."""
    log = _module("cmp_utils.log", print_info_log=_print_log("INFO"), print_warn_log=_print_log("WARNING"),
                  print_error_log=_print_log("ERROR"))
    utils = _module("cmp_utils.utils", format_value=format_value, get_shape_type=shape_type)
    utils_type = _module("cmp_utils.utils_type", ShapeType=ShapeType)
    const_manager = _module("cmp_utils.constant.const_manager", ConstManager=ConstManager)
    constant = _module("cmp_utils.constant", const_manager=const_manager, __path__=[])
    cmp_utils = _module("cmp_utils", log=log, utils=utils, utils_type=utils_type, constant=constant, __path__=[])
    parameter = _module("algorithm_manager.algorithm_parameter", AlgorithmParameter=AlgorithmParameter)
    manager = _module("algorithm_manager", algorithm_parameter=parameter, __path__=[])
    modules = (log, utils, utils_type, const_manager, constant, cmp_utils, parameter, manager)
    return {module.__name__: module for module in modules}


def stand_ins() -> Dict[str, types.ModuleType]:
    """A fresh set of the stand-in modules by name, for :func:`reference_names` to install (made once
    per comparison, so that a plug-in's module-level state lasts from call to call)."""
    return _stand_ins()


@contextlib.contextmanager
def reference_names(modules: Optional[Mapping[str, types.ModuleType]] = None) -> Iterator[None]:
    """The reference's module names importable inside the block (`modules`, default a fresh set);
    afterwards ``sys.modules`` holds what it held before (an entry of the same name from elsewhere
    comes back)."""
    saved: Dict[str, Optional[types.ModuleType]] = {}
    for name, module in (modules if modules is not None else _stand_ins()).items():
        saved[name] = sys.modules.get(name)
        sys.modules[name] = module
    try:
        yield
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
