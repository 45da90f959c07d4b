"""Quantized (QDQ int8) copies of ONNX models, for the quantized scenario."""
