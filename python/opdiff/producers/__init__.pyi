"""Types of the names opdiff.producers exports lazily (__init__.py)."""

from opdiff.producers.device_dump import DeviceLayout as DeviceLayout
from opdiff.producers.onnx_dump import DumpOptions as DumpOptions
from opdiff.producers.onnx_dump import DumpResult as DumpResult
from opdiff.producers.onnx_dump import OutputKind as OutputKind
from opdiff.producers.onnx_dump import Precision as Precision
from opdiff.producers.onnx_dump import dump_onnx as dump_onnx
from opdiff.producers.onnx_runner import Optimization as Optimization
from opdiff.producers.onnx_support import MissingOnnxError as MissingOnnxError
from opdiff.producers.onnx_support import onnx_available as onnx_available
from opdiff.producers.onnx_support import require_onnx as require_onnx
from opdiff.producers.tf_dump import TfDumpOptions as TfDumpOptions
from opdiff.producers.tf_dump import TfDumpResult as TfDumpResult
from opdiff.producers.tf_dump import dump_tf as dump_tf
from opdiff.producers.tf_support import MissingTensorFlowError as MissingTensorFlowError
from opdiff.producers.tf_support import require_tensorflow as require_tensorflow
