"""Ascend dump files: read (through the C++ core), write (with protobuf), lay out, compare.

>>> import numpy as np, opdiff, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "MatMul.mm.1.1.1700000000000000")
>>> x = np.arange(20 * 40, dtype=np.float32).reshape(20, 40)
>>> _ = opdiff.write_dump(path, "mm", outputs=[Tensor(x, layout="FRACTAL_NZ", dtype="float16")])
>>> t = opdiff.read_dump(path).outputs[0]
>>> t.shape, t.to_numpy().shape
((3, 2, 16, 16), (20, 40))

The names are imported from their modules on first use (PEP 562): reading dumps for a comparison
then loads neither the writer nor numpy. Type checkers read them from ``__init__.pyi``.
"""

from opdiff._lazy_exports import lazy_exports

_EXPORTS = {
    "tensor_metrics": "opdiff.dumps.compare",
    "tensor_stats": "opdiff.dumps.compare",
    "LAYOUTS": "opdiff.dumps.formats",
    "data_type_name": "opdiff.dumps.formats",
    "format_name": "opdiff.dumps.formats",
    "format_number": "opdiff.dumps.formats",
    "DumpFile": "opdiff.dumps.reader",
    "DumpFormatError": "opdiff.dumps.reader",
    "DumpTensor": "opdiff.dumps.reader",
    "Role": "opdiff.dumps.reader",
    "read_dump": "opdiff.dumps.reader",
    "DumpForm": "opdiff.dumps.writer",
    "RawBlock": "opdiff.dumps.writer",
    "Tensor": "opdiff.dumps.writer",
    "save_npy": "opdiff.dumps.writer",
    "write_dump": "opdiff.dumps.writer",
}

# The public names are the table's keys (__init__.pyi lists them again for type checkers;
# tests/package/test_public_api.py keeps the two equal).
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
