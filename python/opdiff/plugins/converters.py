"""Custom format converters (``DIR/format_convert/convert_{SRC}_to_{DST}.py``) with the reference's
contract: ``convert(shape_from, shape_to, array)`` (and a fourth argument, ``group``, for a
grouped FRACTAL_Z, i.e. when the tensor's group count is 2 or more) gets the tensor's stored
elements flat and returns the array in format DST. Where a folder offers one for a conversion,
it is used instead of opdiff's own decoder of that layout (docs/plugins.md).
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence

import numpy as np

from opdiff.plugins.algorithms import load_script
from opdiff.plugins.compat import reference_names, stand_ins
from opdiff.plugins.folder import ConverterFunction, PluginError, Plugins

# A converter ready to call: (shape_from, shape_to, flat stored array, group) -> the converted array
Conversion = Callable[[Sequence[int], Sequence[int], np.ndarray, int], np.ndarray]


class ConverterSet:
    """The converters of a plug-in folder, loaded once.

    >>> import numpy as np
    >>> flip = lambda shape_from, shape_to, array: array.reshape(shape_from)[::-1]
    >>> converters = ConverterSet(Plugins.of(converters={"ND_to_NCHW": flip}))
    >>> converters.find("ND", "NCHW")([3], [3], np.arange(3.0), 1)
    array([2., 1., 0.])
    >>> converters.find("ND", "NHWC") is None
    True
    """

    def __init__(self, plugins: Plugins) -> None:
        self.modules = stand_ins()
        self.functions: Dict[str, ConverterFunction] = {
            script.name: load_script(script, "convert", (3, 4), self.modules) for script in plugins.converters}

    def find(self, source: str, target: str) -> Optional[Conversion]:
        """The conversion from format `source` to `target` (names as NCHW, FRACTAL_Z), if offered."""
        name = f"{source}_to_{target}"
        function = self.functions.get(name)
        if function is None:
            return None

        def conversion(shape_from: Sequence[int], shape_to: Sequence[int], array: np.ndarray, group: int) -> np.ndarray:
            return self._call(name, function, shape_from, shape_to, array, group)
        return conversion

    def _call(self, name: str, function: ConverterFunction, shape_from: Sequence[int], shape_to: Sequence[int],
              array: np.ndarray, group: int) -> np.ndarray:
        """PluginError in the reference's words when the converter raises or returns no ndarray."""
        arguments = [list(shape_from), list(shape_to), array] + ([group] if group >= 2 else [])
        try:
            with reference_names(self.modules):
                result = function(*arguments)
        except Exception as error:
            raise PluginError(f"Failed to execute 'convert' in 'convert_{name}'. {error}") from error
        if not isinstance(result, np.ndarray):
            raise PluginError(f"The return value of 'convert' in 'convert_{name}' is not numpy.ndarray. Please check the return value.")
        return result
