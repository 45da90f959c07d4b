"""Golden and device-style data from real frameworks (ONNX Runtime, TensorFlow), without an NPU.

Needs the optional extra: ``pip install "opdiff[onnx]"`` (dump_onnx) or ``"opdiff[tf]"`` (dump_tf).

>>> from opdiff.producers import DumpOptions, Precision
>>> DumpOptions(fusion=True, precision=Precision.FP16).resolved_kind().value
'device'
"""

from opdiff.producers.device_dump import DeviceLayout
from opdiff.producers.onnx_dump import DumpOptions, DumpResult, OutputKind, Precision, dump_onnx
from opdiff.producers.onnx_runner import Optimization
from opdiff.producers.onnx_support import MissingOnnxError, onnx_available, require_onnx
from opdiff.producers.tf_dump import TfDumpOptions, TfDumpResult, dump_tf
from opdiff.producers.tf_support import MissingTensorFlowError, require_tensorflow

__all__ = [
    "DeviceLayout",
    "DumpOptions",
    "DumpResult",
    "MissingOnnxError",
    "MissingTensorFlowError",
    "Optimization",
    "OutputKind",
    "Precision",
    "TfDumpOptions",
    "TfDumpResult",
    "dump_onnx",
    "dump_tf",
    "onnx_available",
    "require_onnx",
    "require_tensorflow",
]
