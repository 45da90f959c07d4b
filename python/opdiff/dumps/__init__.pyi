"""Types of the names opdiff.dumps exports lazily (__init__.py)."""

from opdiff.dumps.compare import tensor_metrics as tensor_metrics
from opdiff.dumps.compare import tensor_stats as tensor_stats
from opdiff.dumps.formats import LAYOUTS as LAYOUTS
from opdiff.dumps.formats import data_type_name as data_type_name
from opdiff.dumps.formats import format_name as format_name
from opdiff.dumps.formats import format_number as format_number
from opdiff.dumps.reader import DumpFile as DumpFile
from opdiff.dumps.reader import DumpFormatError as DumpFormatError
from opdiff.dumps.reader import DumpTensor as DumpTensor
from opdiff.dumps.reader import Role as Role
from opdiff.dumps.reader import read_dump as read_dump
from opdiff.dumps.writer import DumpForm as DumpForm
from opdiff.dumps.writer import RawBlock as RawBlock
from opdiff.dumps.writer import Tensor as Tensor
from opdiff.dumps.writer import save_npy as save_npy
from opdiff.dumps.writer import write_dump as write_dump
