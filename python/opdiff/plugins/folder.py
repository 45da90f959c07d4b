"""A plug-in folder (``-c DIR``) read into memory: which algorithms and format converters it offers,
with each script's text, so that the folder travels with a comparison's options (to a cluster's
workers, in the task) and is read from disk once.

The layout is the reference tool's:

- ``DIR/algorithm/alg_{Name}.py``: a metric; ``-alg Name`` selects it (``Name``: letters, digits, _);
- ``DIR/format_convert/convert_{SRC}_to_{DST}.py``: a layout conversion from format SRC to DST.

Other files in those folders are left alone, as the reference leaves them (it warns). A folder that
is missing, not a folder, or holds neither subfolder is a :class:`PluginError`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

ALGORITHM_FOLDER = "algorithm"
CONVERTER_FOLDER = "format_convert"
_ALGORITHM_NAME = re.compile(r"^alg_([A-Za-z0-9_]+)\.py$")
_CONVERTER_NAME = re.compile(r"^convert_([A-Za-z0-9_]{1,128})_to_([A-Za-z0-9_]{1,128})\.py$")

# compare(my_output_dump_data, ground_truth_dump_data, args) -> (value_text, message)
AlgorithmFunction = Callable[[Any, Any, Any], Any]
# convert(shape_from, shape_to, array[, group]) -> ndarray
ConverterFunction = Callable[..., Any]


class PluginError(ValueError):
    """A plug-in folder or script that cannot be used (one line, naming the file)."""


@dataclass(frozen=True)
class PluginScript:
    """One script of a plug-in folder: the name it offers, where it was read, its text; or, from
    Python, a function instead of a text (``function``; ``source`` empty)."""

    name: str  # the algorithm's name, or "SRC_to_DST" for a converter
    path: str
    source: bytes = b""
    function: Optional[Callable[..., Any]] = field(default=None, compare=False)


@dataclass(frozen=True)
class Plugins:
    """The plug-ins of one comparison: custom algorithms and format converters.

    From a folder (``-c DIR``, ``compare(..., plugins=DIR)``) or from Python functions:

    >>> import numpy as np
    >>> def peak(my, golden, args):
    ...     return f"{float(np.max(np.abs(my - golden))):.6f}", ""
    >>> plugins = Plugins.of(algorithms={"Peak": peak})
    >>> plugins.algorithm_names
    ('Peak',)
    """

    folder: str = ""
    algorithms: Tuple[PluginScript, ...] = ()
    converters: Tuple[PluginScript, ...] = ()

    @property
    def algorithm_names(self) -> Tuple[str, ...]:
        return tuple(script.name for script in self.algorithms)

    def algorithm(self, name: str) -> PluginScript:
        for script in self.algorithms:
            if script.name == name:
                return script
        raise PluginError(f"{self.folder or 'plugins'}: no algorithm {name!r} (it offers {', '.join(self.algorithm_names) or 'none'})")

    def converter(self, source: str, target: str) -> Optional[PluginScript]:
        """The converter from format `source` to `target`, if the plug-ins offer one."""
        wanted = f"{source}_to_{target}"
        return next((script for script in self.converters if script.name == wanted), None)

    @classmethod
    def of(cls, algorithms: Optional[Mapping[str, AlgorithmFunction]] = None,
           converters: Optional[Mapping[str, ConverterFunction]] = None) -> Plugins:
        """Plug-ins from Python functions: ``algorithms`` by name, ``converters`` by "SRC_to_DST";
        each with the folder scripts' contract (docs/plugins.md). They run in this process only: a
        cluster's workers get folders, not functions."""
        def scripts(functions: Optional[Mapping[str, Callable[..., Any]]]) -> Tuple[PluginScript, ...]:
            return tuple(PluginScript(name, getattr(function, "__qualname__", name), function=function)
                         for name, function in (functions or {}).items())
        return cls("", scripts(algorithms), scripts(converters))


def _scripts(folder: Path, pattern: re.Pattern[str], name_of: Callable[[re.Match[str]], str]) -> Tuple[PluginScript, ...]:
    if not folder.is_dir():
        return ()
    found = []
    for path in sorted(folder.iterdir()):
        match = pattern.match(path.name)
        if match is None or not path.is_file():
            continue
        try:
            source = path.read_bytes()
            compile(source, str(path), "exec")
        except OSError as error:
            raise PluginError(f"{path}: cannot be read ({error.strerror or error})") from error
        except (SyntaxError, ValueError) as error:
            raise PluginError(f"{path}: not valid Python ({error})") from error
        found.append(PluginScript(name_of(match), str(path), source))
    return tuple(found)


def read_plugins(folder: Union[str, os.PathLike[str]]) -> Plugins:
    """The plug-ins of `folder`; PluginError (one line) when it is missing, not a folder, holds
    neither ``algorithm/`` nor ``format_convert/``, or a script there cannot be read or compiled."""
    root = Path(folder)
    if not root.exists():
        raise PluginError(f"{root}: no such plug-in folder (-c)")
    if not root.is_dir():
        raise PluginError(f"{root}: -c wants a folder holding algorithm/ or format_convert/, not a file")
    if not (root / ALGORITHM_FOLDER).is_dir() and not (root / CONVERTER_FOLDER).is_dir():
        raise PluginError(f"{root}: a plug-in folder holds algorithm/alg_{{Name}}.py or format_convert/convert_{{SRC}}_to_{{DST}}.py; "
                          "it has neither subfolder")
    algorithms = _scripts(root / ALGORITHM_FOLDER, _ALGORITHM_NAME, lambda match: match.group(1))
    converters = _scripts(root / CONVERTER_FOLDER, _CONVERTER_NAME, lambda match: f"{match.group(1)}_to_{match.group(2)}")
    return Plugins(str(root), algorithms, converters)


def parse_algorithm_options(text: str) -> Dict[str, Dict[str, str]]:
    """``-a``: ``"Name:param=value,param2=value;Name2:param=value"`` as {Name: {param: value}}; the
    values stay strings, as the reference hands them over. ValueError for a malformed part.

    >>> parse_algorithm_options("Peak:bins=10, scale=2;Other:x=1")
    {'Peak': {'bins': '10', 'scale': '2'}, 'Other': {'x': '1'}}
    """
    options: Dict[str, Dict[str, str]] = {}
    for part in filter(None, text.split(";")):
        name, colon, params = part.partition(":")
        if not colon or not name.strip() or ":" in params:
            raise ValueError(f"-a: {part!r} is not 'Name:param=value,param2=value'")
        entries = options.setdefault(name.strip(), {})
        for item in filter(str.strip, params.split(",")):
            key, equals, value = item.partition("=")
            if not equals or not key.strip() or not value.strip() or "=" in value:
                raise ValueError(f"-a: {item.strip()!r} in {part!r} is not 'param=value'")
            entries[key.strip()] = value.strip()
    return options
