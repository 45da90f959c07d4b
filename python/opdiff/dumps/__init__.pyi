"""Types of the names opdiff.dumps exports lazily (__init__.py)."""

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
