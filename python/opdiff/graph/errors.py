"""The one exception the graph readers raise for input they cannot use."""

from __future__ import annotations

import os
from typing import Union


class GraphFormatError(ValueError):
    """A model file (.om or atc JSON) that opdiff cannot read; names the file and what is wrong.

    >>> str(GraphFormatError("model.om", "wrong magic"))
    'model.om: wrong magic'
    """

    def __init__(self, path: Union[str, os.PathLike[str]], problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
