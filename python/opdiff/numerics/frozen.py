"""Frozen dataclass instances built from a dict, for hot loops.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``, about a
microsecond a field; the comparison engine builds three such objects per tensor pair and the graph
readers 50,000 ops per model. Giving the instance its field dict at once costs a fraction of that.
Callers pass every field (no defaults are applied) and test that the result equals the constructor's.
"""

from typing import Any, Dict, Type, TypeVar

_T = TypeVar("_T")


def build_frozen(cls: Type[_T], fields: Dict[str, Any]) -> _T:
    """An instance of the frozen dataclass `cls` whose fields are `fields` (every one of them; the
    dict becomes the instance's and must not be used elsewhere).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class P:
    ...     x: int
    ...     y: int
    >>> build_frozen(P, {"x": 1, "y": 2}) == P(1, 2)
    True
    """
    instance = object.__new__(cls)
    object.__setattr__(instance, "__dict__", fields)
    return instance
