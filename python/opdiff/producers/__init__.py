"""Golden and device-style data from real frameworks (ONNX Runtime), without an NPU.

Needs the optional extra: ``pip install "opdiff[onnx]"``.

>>> from opdiff.producers import DumpOptions, Precision
>>> DumpOptions(fusion=True, precision=Precision.FP16).resolved_kind().value
'device'
"""

from opdiff.producers.device_dump import DeviceLayout
from opdiff.producers.onnx_dump import DumpOptions, DumpResult, OutputKind, Precision, dump_onnx
from opdiff.producers.onnx_runner import Optimization
from opdiff.producers.onnx_support import MissingOnnxError, onnx_available, require_onnx

__all__ = [
    "DeviceLayout",
    "DumpOptions",
    "DumpResult",
    "MissingOnnxError",
    "Optimization",
    "OutputKind",
    "Precision",
    "dump_onnx",
    "onnx_available",
    "require_onnx",
]
