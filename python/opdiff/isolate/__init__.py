"""Each op's own error: every NPU op re-run alone on the device's own inputs, through its source
model: an ONNX model's subgraph in ONNX Runtime, or a frozen TensorFlow graph in a Session
(``opdiff compare --isolate MODEL``; docs/isolating-an-op.md).

Above producers (it runs ONNX Runtime and TensorFlow through them) and beside the advisor, which
reads the local errors from the result rows (``CompareRow.local``), never from here."""
