"""The ONNX producer: golden and device-style runs of an ONNX model with ONNX Runtime (opdiff dump-onnx)."""
