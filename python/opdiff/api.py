"""The public API of opdiff, imported at once: every name ``import opdiff`` offers (listed once, in
the lazy-export table of ``opdiff/__init__.py``), each loaded now rather than on first use.

>>> import numpy as np
>>> from opdiff import api
>>> api.metrics(np.ones(4, np.float16), np.ones(4, np.float32)).cosine_similarity
1.0
"""

from __future__ import annotations

import opdiff
from opdiff import *  # noqa: F403  (each name of opdiff.__all__, imported from its module)

# opdiff.__all__ but the version, read at run time: the stub lists each name once, as an import, and
# no __all__, so that type checkers see every name this star import brings.
__all__ = [name for name in vars(opdiff)["__all__"] if name != "__version__"]
