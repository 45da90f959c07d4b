"""Golden and device-style data from real frameworks (ONNX Runtime, TensorFlow, Caffe), without an NPU.

Needs the optional extra: ``pip install "opdiff[onnx]"`` (dump_onnx, and dump_caffe: Caffe nets run
through ONNX Runtime) or ``"opdiff[tf]"`` (dump_tf).

>>> from opdiff.producers import DumpOptions, Precision
>>> DumpOptions(fusion=True, precision=Precision.FP16).resolved_kind().value
'device'

The names are imported from their modules on first use (PEP 562), as in the `opdiff` package.
"""

from opdiff._lazy_exports import lazy_exports

_EXPORTS = {
    "CaffeLayerError": "opdiff.producers.caffe.builder",
    "CaffeModel": "opdiff.producers.caffe.dump",
    "dump_caffe": "opdiff.producers.caffe.dump",
    "load_caffe": "opdiff.producers.caffe.dump",
    "CaffeFileError": "opdiff.producers.caffe.reader",
    "DeviceLayout": "opdiff.producers.onnx.device_dump",
    "DumpOptions": "opdiff.producers.onnx.dump",
    "DumpResult": "opdiff.producers.onnx.dump",
    "OutputKind": "opdiff.producers.onnx.dump",
    "Precision": "opdiff.producers.onnx.dump",
    "dump_onnx": "opdiff.producers.onnx.dump",
    "Optimization": "opdiff.producers.onnx.runner",
    "MissingOnnxError": "opdiff.producers.onnx.support",
    "onnx_available": "opdiff.producers.onnx.support",
    "require_onnx": "opdiff.producers.onnx.support",
    "TfDumpOptions": "opdiff.producers.tf.dump",
    "TfDumpResult": "opdiff.producers.tf.dump",
    "dump_tf": "opdiff.producers.tf.dump",
    "TfTrainOptions": "opdiff.producers.tf.train_dump",
    "dump_tf_train": "opdiff.producers.tf.train_dump",
    "MissingTensorFlowError": "opdiff.producers.tf.support",
    "require_tensorflow": "opdiff.producers.tf.support",
}

# The public names are the table's keys (__init__.pyi imports each one for type checkers;
# tests/package/test_public_api.py keeps the two equal).
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
