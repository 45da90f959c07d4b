"""Types of the names opdiff.producers exports lazily (__init__.py)."""

from opdiff.producers.caffe.builder import CaffeLayerError as CaffeLayerError
from opdiff.producers.caffe.dump import CaffeModel as CaffeModel
from opdiff.producers.caffe.dump import dump_caffe as dump_caffe
from opdiff.producers.caffe.dump import load_caffe as load_caffe
from opdiff.producers.caffe.reader import CaffeFileError as CaffeFileError
from opdiff.producers.onnx.device_dump import DeviceLayout as DeviceLayout
from opdiff.producers.onnx.dump import DumpOptions as DumpOptions
from opdiff.producers.onnx.dump import DumpResult as DumpResult
from opdiff.producers.onnx.dump import OutputKind as OutputKind
from opdiff.producers.onnx.dump import Precision as Precision
from opdiff.producers.onnx.dump import dump_onnx as dump_onnx
from opdiff.producers.onnx.runner import Optimization as Optimization
from opdiff.producers.onnx.support import MissingOnnxError as MissingOnnxError
from opdiff.producers.onnx.support import onnx_available as onnx_available
from opdiff.producers.onnx.support import require_onnx as require_onnx
from opdiff.producers.tf.dump import TfDumpOptions as TfDumpOptions
from opdiff.producers.tf.dump import TfDumpResult as TfDumpResult
from opdiff.producers.tf.dump import dump_tf as dump_tf
from opdiff.producers.tf.support import MissingTensorFlowError as MissingTensorFlowError
from opdiff.producers.tf.support import require_tensorflow as require_tensorflow
from opdiff.producers.tf.train_dump import TfTrainOptions as TfTrainOptions
from opdiff.producers.tf.train_dump import dump_tf_train as dump_tf_train
