"""A QDQ-quantized copy of a float model (int8 weights and activations, QuantizeLinear /
DequantizeLinear pairs around each quantized op), made with ONNX Runtime's static quantization:
the quantized scenario without a quantization toolkit.

The compute nodes keep their names and output tensors, so a run of the quantized model maps to the
float model's golden tensors; a DequantizeLinear output stands for the tensor it dequantizes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence

import numpy as np

from opdiff.producers.onnx.model_prep import prepare_model
from opdiff.producers.onnx.support import OnnxModel

# The compute ops an Ascend quantized model runs in int8 (AMCT quantizes the layers with weights and
# the average pools); everything else, Softmax among them, stays in float there. ONNX Runtime would
# quantize more by default: a Softmax output in int8 on [0, 1] loses every probability under 1/255,
# an accuracy loss no NPU run of the model has.
QUANTIZED_OP_TYPES: List[str] = ["Conv", "ConvTranspose", "Gemm", "MatMul", "AveragePool"]
# Every op type ONNX Runtime's QDQ quantizer handles (its own default).
EVERY_OP_TYPE: List[str] = []


class _Feeds:
    """ONNX Runtime's CalibrationDataReader protocol over a list of feed dicts."""

    def __init__(self, batches: Sequence[Mapping[str, np.ndarray]]):
        self._batches: Iterator[Mapping[str, np.ndarray]] = iter(batches)

    def get_next(self) -> Optional[Dict[str, np.ndarray]]:
        batch = next(self._batches, None)
        return None if batch is None else dict(batch)

    def rewind(self) -> None:  # called by some ONNX Runtime versions; one pass is all it needs here
        pass


def quantize_qdq(model: OnnxModel, calibration: Sequence[Mapping[str, np.ndarray]], *, per_channel: bool = False,
                 op_types: Optional[List[str]] = None, skip: Sequence[str] = ()) -> OnnxModel:
    """The QDQ int8 copy of `model` (a ModelProto), calibrated (min/max) on `calibration` feeds;
    `op_types` are the ops quantized (default :data:`QUANTIZED_OP_TYPES`; :data:`EVERY_OP_TYPE` for
    ONNX Runtime's own choice); `skip` names nodes (as :func:`prepare_model` names them) left in
    float, as AMCT's skip_layers leaves layers unquantized.

    The model is first given dump-safe node names (:func:`prepare_model`, which leaves a prepared
    model unchanged), so that the quantized nodes carry the names the float model's golden run uses.

    >>> from opdiff.producers.onnx.light_models import load_light_model  # doctest: +SKIP
    """
    import onnx
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static

    with tempfile.TemporaryDirectory(prefix="opdiff-qdq-") as folder:
        source = Path(folder) / "float.onnx"
        target = Path(folder) / "qdq.onnx"
        source.write_bytes(prepare_model(model).model.SerializeToString())
        quantize_static(
            os.fspath(source),
            os.fspath(target),
            _Feeds(calibration),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QInt8,
            weight_type=QuantType.QInt8,
            per_channel=per_channel,
            calibrate_method=CalibrationMethod.MinMax,
            op_types_to_quantize=QUANTIZED_OP_TYPES if op_types is None else (op_types or None),
            # Otherwise a Relu after a Conv is dropped (the QuantizeLinear's range clips) and the
            # Conv writes the Relu's tensor name with pre-Relu values: a wrong name lineage.
            extra_options={"QDQKeepRemovableActivations": True},
            nodes_to_exclude=list(skip),
        )
        return onnx.load(os.fspath(target))
