"""The optional ONNX dependencies: one place that imports them and says what to install when missing."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

if TYPE_CHECKING:
    import numpy as np

# The ONNX objects that cross this package's functions. onnx is an optional extra, imported inside
# functions only, so these are Any: the check then reads the same with or without onnx (and with any
# supported version of it) installed, and onnxruntime ships no type information at all.
OnnxModel = Any  # onnx.ModelProto
OnnxGraph = Any  # onnx.GraphProto
OnnxNode = Any  # onnx.NodeProto
OnnxTensor = Any  # onnx.TensorProto (an initializer, or a node's tensor attribute)
OrtSessionOptions = Any  # onnxruntime.SessionOptions
OrtSession = Any  # onnxruntime.InferenceSession
OrtOptimizationLevel = Any  # onnxruntime.GraphOptimizationLevel

INSTALL_HINT = 'pip install "opdiff[onnx]"  (onnx>=1.15 and onnxruntime>=1.17)'


class MissingOnnxError(ImportError):
    """onnx or onnxruntime is not installed; the message says how to install them."""


def require_onnx() -> Tuple[ModuleType, ModuleType]:
    """``(onnx, onnxruntime)``, or MissingOnnxError naming what is missing.

    >>> onnx, ort = require_onnx()  # doctest: +SKIP
    """
    return _require(lambda: importlib.import_module("onnx"))


def require_onnx_protos() -> Tuple[ModuleType, ModuleType]:
    """``(onnx's protobuf module, onnxruntime)``: what reading, cutting and running an ONNX model
    takes, without importing onnx whole (see :func:`onnx_protos`); MissingOnnxError naming what is
    missing."""
    return _require(onnx_protos)


def _require(load_onnx: Callable[[], ModuleType]) -> Tuple[ModuleType, ModuleType]:
    found: List[ModuleType] = []
    missing = []
    for name, load in (("onnx", load_onnx), ("onnxruntime", lambda: importlib.import_module("onnxruntime"))):
        try:
            found.append(load())
        except ImportError:
            missing.append(name)
    if missing:
        raise MissingOnnxError(f"{' and '.join(missing)} not installed; install with: {INSTALL_HINT}")
    return found[0], found[1]


def onnx_protos() -> ModuleType:
    """onnx's generated protobuf module (ModelProto, NodeProto, TensorProto, ...: the very classes
    ``onnx.ModelProto`` and the others are); ImportError without onnx.

    When onnx is not imported yet, this module and onnx's C++ extension are loaded alone, without
    onnx's package ``__init__``: that imports all of onnx (helper, numpy_helper, the reference
    evaluator), and through them ml_dtypes, whose import alone takes 0.6 s (ml_dtypes 0.7.0), for
    what needs only the classes. A later ``import onnx`` finds both modules loaded and uses them
    (``from onnx import onnx_ml_pb2`` then works; only the package attribute is not set).
    """
    ml = _onnx_module("onnx_cpp2py_export").ONNX_ML  # which schema onnx was built with, as onnx.onnx_pb picks it
    return _onnx_module("onnx_ml_pb2" if ml else "onnx_pb2")


def infer_shapes(model: OnnxModel) -> OnnxModel:
    """``onnx.shape_inference.infer_shapes(model)`` (its defaults: no type check, not strict, no
    data propagation), through the C++ inference it wraps, so that onnx need not be imported whole."""
    inference = _onnx_module("onnx_cpp2py_export").shape_inference
    return type(model).FromString(inference.infer_shapes(model.SerializeToString(), False, False, False))


# ONNX element types numpy holds natively: TensorProto.DataType number -> numpy type name.
_NATIVE_DTYPES: Dict[int, str] = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
                                  9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 14: "complex64",
                                  15: "complex128"}


def own_numpy_dtype(elem_type: int) -> Optional[np.dtype]:
    """numpy's own dtype for an ONNX element type, as ``onnx.helper.tensor_dtype_to_np_dtype``
    gives it; None for the types numpy has none of its own for (bfloat16, float8, int4: ml_dtypes'
    types) and for strings."""
    import numpy as np

    name = _NATIVE_DTYPES.get(elem_type)
    return None if name is None else np.dtype(name)


def numpy_dtype_of(elem_type: int) -> np.dtype:
    """The numpy dtype of an ONNX element type, as ``onnx.helper.tensor_dtype_to_np_dtype`` gives
    it; onnx is imported whole only for a type numpy has none of its own for."""
    import numpy as np

    own = own_numpy_dtype(elem_type)
    if own is not None:
        return own
    onnx, _ = require_onnx()
    found: np.dtype = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(elem_type))
    return found


def _onnx_module(name: str) -> ModuleType:
    """The module ``onnx.<name>``, imported without onnx's package ``__init__`` while onnx is not
    imported (nor marked missing: None in sys.modules); ImportError without onnx."""
    full = f"onnx.{name}"
    loaded = sys.modules.get(full)
    if loaded is not None:
        return loaded
    package = None if "onnx" in sys.modules else importlib.util.find_spec("onnx")
    part = None
    if package is not None and package.submodule_search_locations:
        part = importlib.machinery.PathFinder.find_spec(full, list(package.submodule_search_locations))
    if part is None or part.loader is None:  # onnx imported, or missing, or laid out otherwise: the plain import
        return importlib.import_module(full)
    module = importlib.util.module_from_spec(part)
    sys.modules[full] = module
    try:
        part.loader.exec_module(module)
    except BaseException:
        del sys.modules[full]
        raise
    return module


def onnx_available() -> bool:
    """True when both onnx and onnxruntime import."""
    try:
        require_onnx()
    except MissingOnnxError:
        return False
    return True
