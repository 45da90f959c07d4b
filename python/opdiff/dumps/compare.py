"""Metrics of two dumped tensors read through their layouts, never materialised."""

from __future__ import annotations

from typing import Optional, Union

from opdiff.dumps import core_files
from opdiff.dumps.reader import DumpTensor
from opdiff.numerics.core import tolerances
from opdiff.numerics.core_results import is_scalar_shape, metrics_from_core, side_from_core
from opdiff.numerics.values import Metrics, SideStats

ViewLike = Union[DumpTensor, "core_files.TensorView"]


def _view(item: ViewLike) -> core_files.TensorView:
    return item.view() if isinstance(item, DumpTensor) else item


def tensor_metrics(
    my: ViewLike,
    golden: ViewLike,
    *,
    rtol: Optional[float] = None,
    atol: Optional[float] = None,
    kl: bool = True,
    threads: Optional[int] = None,
    max_elements: int = 0,
) -> Metrics:
    """Every metric of ``my`` against ``golden``: dump tensors (read in their default logical
    layout) or core views (``DumpTensor.view(format, shape)``, to pick the golden's layout).
    ``rtol`` and ``atol``: AllClose's tolerances (None: the defaults). ``max_elements`` > 0
    compares only the first that many logical elements (the reference's
    ``-max N``); the element counts must still agree.

    >>> import numpy as np, opdiff, tempfile, os
    >>> from opdiff.dumps import Tensor
    >>> d = tempfile.mkdtemp(); x = np.linspace(-1, 1, 2 * 20 * 3 * 3).reshape(2, 20, 3, 3)
    >>> a = opdiff.write_dump(os.path.join(d, "a"), "a", outputs=[Tensor(x, layout="NC1HWC0", dtype="float16")])
    >>> b = opdiff.write_dump(os.path.join(d, "b"), "b", outputs=[Tensor(x, dtype="float32")])
    >>> m = tensor_metrics(opdiff.read_dump(a).outputs[0], opdiff.read_dump(b).outputs[0])
    >>> m.count, m.cosine_similarity > 0.9999
    (360, True)
    >>> tensor_metrics(opdiff.read_dump(a).outputs[0], opdiff.read_dump(b).outputs[0], max_elements=100).count
    100
    """
    if max_elements < 0:
        raise ValueError(f"max_elements must be 0 (all) or positive, got {max_elements}")
    x, y = _view(my), _view(golden)
    rtol, atol = tolerances(rtol, atol)
    result = core_files.compare_views(x, y, rtol=rtol, atol=atol, kl=kl,
                                 scalar_shape=is_scalar_shape(x.shape), threads=threads or 0,
                                 max_elements=max_elements)
    return metrics_from_core(result)


def tensor_stats(tensor: ViewLike, *, threads: Optional[int] = None) -> SideStats:
    """min/max/mean/std and NaN/Inf counts of one tensor, from the core (one pass per side)."""
    view = _view(tensor)
    return side_from_core(core_files.compare_views(view, view, kl=False, threads=threads or 0).x)
