"""Running custom algorithms on one tensor pair, with the reference tool's contract (docs/plugins.md).

A script's ``compare(my_output_dump_data, ground_truth_dump_data, args)`` gets both sides flat, cast
to float32 (two bool sides stay bool), cut to ``-max`` elements, and ``args`` (an
``AlgorithmParameter``: ``my_output_dump_file``, ``ground_truth_dump_file``, ``shape_type`` and that
algorithm's ``-a`` options, as strings). It returns ``(value_text, message)``. When it raises, or
returns anything else, the value is ``NaN`` and the message is the reference's
``Failed to execute 'compare' in 'Name'. ...``; the comparison goes on.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Sequence, Tuple

import numpy as np

from opdiff.plugins.compat import AlgorithmParameter, reference_names, shape_type, stand_ins
from opdiff.plugins.folder import AlgorithmFunction, PluginError, Plugins, PluginScript

NOT_COMPUTED = "NaN"
# The reference's own two metrics that take bool sides; a custom one never does.
_BOOL_ALGORITHMS = ("CosineSimilarity", "RelativeEuclideanDistance")


def load_script(script: PluginScript, function_name: str, argument_counts: Sequence[int],
                modules: Mapping[str, types.ModuleType]) -> Any:
    """The function `function_name` of `script`, run as a module of its own with the reference's
    import names present; PluginError (naming the file) when it fails to load or lacks the function."""
    if script.function is not None:
        return script.function
    module = types.ModuleType(f"opdiff_plugin_{script.name}")
    module.__file__ = script.path
    try:
        with reference_names(modules):
            exec(compile(script.source, script.path, "exec"), module.__dict__)  # a plug-in is code the user runs
    except Exception as error:
        raise PluginError(f"{script.path}: fails to load: {type(error).__name__}: {error}") from error
    function = module.__dict__.get(function_name)
    if not callable(function):
        raise PluginError(f"{script.path}: has no function {function_name!r}")
    code = getattr(function, "__code__", None)
    if code is not None and code.co_argcount not in argument_counts:
        raise PluginError(f"{script.path}: {function_name} takes {code.co_argcount} arguments, not "
                          + " or ".join(map(str, argument_counts)))
    return function


@dataclass(frozen=True)
class PairFiles:
    """What ``args`` tells a plug-in about the pair: the two dump files and my tensor's shape."""

    my_path: str
    golden_path: str
    shape: Tuple[int, ...]


class AlgorithmRunner:
    """The selected custom algorithms of one comparison, loaded once, run pair by pair.

    >>> import numpy as np
    >>> runner = AlgorithmRunner(Plugins.of(algorithms={"Peak": lambda my, golden, args: (f"{my.max():.6f}", "")}), ("Peak",))
    >>> runner.run(np.arange(3.0), np.arange(3.0), PairFiles("my", "golden", (3,)))
    ((('Peak', '2.000000'),), ())
    """

    def __init__(self, plugins: Plugins, names: Sequence[str], options: Mapping[str, Mapping[str, str]] = {}) -> None:
        self.modules = stand_ins()
        self.functions: Dict[str, AlgorithmFunction] = {
            name: load_script(plugins.algorithm(name), "compare", (3,), self.modules) for name in names}
        self.options = {name: dict(options.get(name, {})) for name in names}

    def run(self, my: np.ndarray, golden: np.ndarray, files: PairFiles,
            max_elements: int = 0) -> Tuple[Tuple[Tuple[str, str], ...], Tuple[str, ...]]:
        """((name, value text) per algorithm, the messages for CompareFailReason) of one pair."""
        is_bool = my.dtype == np.bool_ and golden.dtype == np.bool_
        if max_elements:
            my, golden = my[:max_elements], golden[:max_elements]
        if not is_bool:
            my, golden = my.astype(np.float32, copy=False), golden.astype(np.float32, copy=False)
        base = {"my_output_dump_file": files.my_path, "ground_truth_dump_file": files.golden_path,
                "shape_type": shape_type(files.shape)}
        values: List[Tuple[str, str]] = []
        messages: List[str] = []
        with reference_names(self.modules), np.errstate(divide="ignore", invalid="ignore"):
            for name, function in self.functions.items():
                if is_bool and name not in _BOOL_ALGORITHMS:
                    value, message = NOT_COMPUTED, f"Algorithm {name} does not support Boolean types."
                else:
                    # the options first: the pair's own entries win, as in the reference
                    args = AlgorithmParameter.of({**self.options[name], **base})
                    value, message = call_compare(name, function, my, golden, args)
                values.append((name, value))
                if message:
                    messages.append(message)
        return tuple(values), tuple(messages)


def call_compare(name: str, function: AlgorithmFunction, my: np.ndarray, golden: np.ndarray, args: AlgorithmParameter) -> Tuple[str, str]:
    """One plug-in call with the reference's handling of what goes wrong: anything raised, a result
    that is not a pair, a value or message that is not text, each give ``NaN`` and its message."""
    try:
        value, message = function(my, golden, args)
        if not isinstance(value, str) or not isinstance(message, str):
            # The reference raises its error carrying the function's name, and prints that name.
            raise _NotText("compare")
    except Exception as error:  # a plug-in's failure is that tensor's, never the run's
        return NOT_COMPUTED, f"Failed to execute 'compare' in '{name}'. {error}"
    return value, message


class _NotText(Exception):
    """A plug-in's value or message that is not a string."""
