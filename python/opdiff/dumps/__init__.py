"""Ascend dump files: read (through the C++ core), write (with protobuf), lay out, compare.

>>> import numpy as np, opdiff, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "MatMul.mm.1.1.1700000000000000")
>>> x = np.arange(20 * 40, dtype=np.float32).reshape(20, 40)
>>> _ = opdiff.write_dump(path, "mm", outputs=[Tensor(x, layout="FRACTAL_NZ", dtype="float16")])
>>> t = opdiff.read_dump(path).outputs[0]
>>> t.shape, t.to_numpy().shape
((3, 2, 16, 16), (20, 40))
"""

from opdiff.dumps.compare import tensor_metrics, tensor_stats
from opdiff.dumps.formats import LAYOUTS, data_type_name, format_name, format_number
from opdiff.dumps.reader import DumpFile, DumpFormatError, DumpTensor, Role, read_dump
from opdiff.dumps.writer import DumpForm, RawBlock, Tensor, save_npy, write_dump

__all__ = [
    "LAYOUTS",
    "DumpFile",
    "DumpForm",
    "DumpFormatError",
    "DumpTensor",
    "RawBlock",
    "Role",
    "Tensor",
    "data_type_name",
    "format_name",
    "format_number",
    "read_dump",
    "save_npy",
    "tensor_metrics",
    "tensor_stats",
    "write_dump",
]
