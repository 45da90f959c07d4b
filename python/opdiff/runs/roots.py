"""The folders a worker serves: its working folder by default, or those ``OPDIFF_ROOTS`` names
(separated by ``os.pathsep``). A path that resolves outside them (symbolic links followed) is refused,
so that a typo in ``-m``/``-g`` cannot make a worker read elsewhere on its host."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional, Tuple

ROOTS_VARIABLE = "OPDIFF_ROOTS"


@dataclass(frozen=True)
class Roots:
    folders: Tuple[str, ...]

    @classmethod
    def of_process(cls, environ: Mapping[str, str] = os.environ) -> Roots:
        """This process's roots: ``OPDIFF_ROOTS``, else the working folder."""
        listed = [part for part in environ.get(ROOTS_VARIABLE, "").split(os.pathsep) if part.strip()]
        return cls(tuple(os.path.realpath(part) for part in listed) or (os.path.realpath(os.getcwd()),))

    def refusal(self, path: str) -> Optional[str]:
        """Why `path` may not be served here (None when it lies under a root)."""
        real = os.path.realpath(path)
        if any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.folders):
            return None
        return f"{path}: outside the folders this worker serves ({os.pathsep.join(self.folders)}; {ROOTS_VARIABLE} widens them)"
