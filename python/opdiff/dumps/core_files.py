"""The dumps side of the core boundary: the one dumps module that imports `opdiff._core`.

The core opens dump files (a small one read whole, a big one mapped), decodes their headers and
tables, lays tensors out (``TensorView``) and reads statistics files on its threads; the dump
readers reach all of it through these names. The other two such adapters are numerics/core.py and
the batch engine (engine/tensor_engine.py); an import-linter contract keeps it so."""

from __future__ import annotations

import opdiff._core as _core

DumpFormatError = _core.DumpFormatError  # a file that is not a dump, or a damaged one
TensorFile = _core.TensorFile  # an open dump file: its header and tensor table
TensorFileCache = _core.TensorFileCache  # recently opened files, shared by the core's threads
TensorRole = _core.TensorRole
TensorView = _core.TensorView  # one tensor of a file in a logical layout, never materialised
open_tensor_file = _core.open_tensor_file
stored_bytes = _core.stored_bytes  # a tensor's bytes as stored
compare_views = _core.compare_views  # every metric of two views in one pass
read_statistics_files = _core.read_statistics_files  # statistics .csv files, in parallel

# The Ascend enums a dump header speaks: data type and format numbers, and their names
ascend_dtype_table = _core.ascend_dtype_table
ascend_format_table = _core.ascend_format_table
ascend_from_dtype = _core.ascend_from_dtype
dtype_bits = _core.dtype_bits
