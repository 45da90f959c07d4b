"""Running ONNX models with ONNX Runtime on the CPU and keeping every intermediate tensor.

Graph optimisation is off unless asked for: ONNX Runtime's fusions remove the intermediate tensors
a golden run exists to provide. An optimised ("fusion on") run is two steps: a session at the asked
level writes its optimised graph (``SessionOptions.optimized_model_filepath``), and that graph is
then run as it is, with every node output exposed.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import AbstractSet, Callable, Dict, List, Mapping, Optional, Set, Tuple

import numpy as np

from opdiff.producers.onnx.model_prep import exposed_copy
from opdiff.producers.onnx.support import OnnxModel, OrtOptimizationLevel, OrtSession, OrtSessionOptions


class Optimization(str, Enum):
    """ONNX Runtime graph optimisation levels (``off`` keeps every original op)."""

    OFF = "off"
    BASIC = "basic"
    EXTENDED = "extended"
    ALL = "all"

    def ort_level(self) -> OrtOptimizationLevel:
        import onnxruntime as ort

        return {
            Optimization.OFF: ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
            Optimization.BASIC: ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
            Optimization.EXTENDED: ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
            Optimization.ALL: ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
        }[self]


@dataclass
class TensorRun:
    """Every node output of one run by tensor name (model inputs included), in node order, the
    seconds the session took to build and run, and each tensor's type as the session gives it
    (``"tensor(float)"``, ``"seq(tensor(float))"``: what :func:`tensor_types` reads, at no cost here)."""

    tensors: Dict[str, np.ndarray]
    order: List[str]
    session_seconds: float
    run_seconds: float
    types: Dict[str, str] = field(default_factory=dict)


def session_options(level: Optimization, *, threads: int = 0, optimized_path: Optional[Path] = None,
                    memory_arena: bool = True) -> OrtSessionOptions:
    """SessionOptions at `level`, quiet (errors only), `threads` intra-op threads (0 = ORT's default);
    without `memory_arena`, ONNX Runtime's CPU arena is off (for many short sessions, below)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    # Each session's arena grows to its run's peak in chunks that the process keeps once freed: a
    # session per evaluation (precision) then grew the peak by a third on densenet121, for no speed.
    options.enable_cpu_mem_arena = memory_arena
    options.graph_optimization_level = level.ort_level()
    options.log_severity_level = 3  # warnings such as "removing unused initializer" are noise here
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    if optimized_path is not None:
        options.optimized_model_filepath = os.fspath(optimized_path)
    return options


def optimize_model(model: OnnxModel, level: Optimization, *, threads: int = 0) -> OnnxModel:
    """The graph ONNX Runtime runs for `model` at `level` (a ModelProto), read back from the file the
    session writes (fused nodes such as ``FusedConv`` live in the ``com.microsoft`` domain).
    """
    import onnx
    import onnxruntime as ort

    with tempfile.TemporaryDirectory(prefix="opdiff-ort-") as folder:
        target = Path(folder) / "optimized.onnx"
        ort.InferenceSession(model.SerializeToString(), session_options(level, threads=threads, optimized_path=target),
                             providers=["CPUExecutionProvider"])
        optimized = onnx.load(os.fspath(target))
    weights = {init.name for init in model.graph.initializer}
    _drop_orphan_inputs(optimized, {value.name for value in model.graph.input if value.name not in weights})
    return optimized


def _drop_orphan_inputs(model: OnnxModel, fed_inputs: Set[str]) -> None:
    """Remove graph inputs that are not among `fed_inputs` (the original's inputs without an
    initializer) and that no node reads: onnxruntime 1.17 drops an unused initializer of an IR-3
    graph (resnet50's ``OC2_DUMMY_1``) but keeps its graph input, and a session then asks to be fed it."""
    graph = model.graph
    read = {tensor for node in graph.node for tensor in node.input} | {value.name for value in graph.output}
    kept = [value for value in graph.input if value.name in fed_inputs or value.name in read]
    if len(kept) < len(graph.input):
        del graph.input[:]
        graph.input.extend(kept)


def tensor_types(model: OnnxModel) -> Dict[str, str]:
    """The element type ONNX Runtime gives every input and node output of `model` (``"tensor(float)"``
    etc.), read from a session over the exposed copy; works for ops onnx's shape inference does not
    know (ONNX Runtime's fused ops)."""
    import onnxruntime as ort

    exposed, _ = exposed_copy(hollow_copy(model))
    session = ort.InferenceSession(exposed.SerializeToString(), session_options(Optimization.OFF), providers=["CPUExecutionProvider"])
    return _session_types(session)


def _session_types(session: OrtSession) -> Dict[str, str]:
    """Each input's and output's type as an ONNX Runtime session gives it (``"tensor(float)"``)."""
    return {value.name: value.type for value in list(session.get_inputs()) + list(session.get_outputs())}


def hollow_copy(model: OnnxModel, *, keep_bytes: int = 4096) -> OnnxModel:
    """A copy of `model` whose initializers larger than `keep_bytes` became typed graph inputs:
    the same graph for type inference, without copying hundreds of MB of weights (small ones,
    such as Reshape's shape tensors, stay: shapes may depend on their values)."""
    hollow = type(model)()  # the model's own class: no need to import onnx whole
    graph = model.graph
    big = [init for init in graph.initializer if len(init.raw_data) > keep_bytes or len(init.float_data) * 4 > keep_bytes]
    big_names = {init.name for init in big}
    # Field by field: copying the whole model first would copy the weights it exists to avoid.
    hollow.ir_version = model.ir_version
    hollow.opset_import.extend(model.opset_import)
    hollow.functions.extend(model.functions)
    hollow.graph.name = graph.name
    hollow.graph.node.extend(graph.node)
    hollow.graph.input.extend(graph.input)
    hollow.graph.output.extend(graph.output)
    hollow.graph.value_info.extend(graph.value_info)
    hollow.graph.initializer.extend(init for init in graph.initializer if init.name not in big_names)
    listed = {value.name for value in hollow.graph.input}
    for init in big:
        if init.name not in listed:  # as onnx.helper.make_tensor_value_info(name, type, dims) makes it
            value = hollow.graph.input.add()
            value.name = init.name
            tensor_type = value.type.tensor_type
            tensor_type.elem_type = init.data_type
            tensor_type.shape.SetInParent()  # a scalar's shape is present, with no dims
            for dim in init.dims:
                tensor_type.shape.dim.add().dim_value = dim
    return hollow


def run_exposing_all(model: OnnxModel, feeds: Mapping[str, np.ndarray], *, threads: int = 0,
                     rewrite: Optional[Callable[[OnnxModel], None]] = None,
                     only: Optional[AbstractSet[str]] = None) -> TensorRun:
    """Run `model` as it is (no optimisation) and return every node output and the inputs.

    `rewrite`, when given, changes the exposed copy in place before the session is built, keeping
    the names and values of `model`'s tensors (an fp16 model's rounding Casts: see
    :meth:`opdiff.producers.onnx.fp16_model.Fp16Model.round_in_place`). `only`, when given, limits
    the node outputs returned to those it names (the rest are freed as the run goes: a converted
    model's Cast copies would double what it holds).

    >>> import numpy as np
    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    >>> model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    >>> run = run_exposing_all(model, {"x": np.array([-1, 2], np.float32)})
    >>> run.order, run.tensors["r"].tolist()
    (['r', 'y'], [0.0, 2.0])
    """
    import onnxruntime as ort

    exposed, names = exposed_copy(model)
    if rewrite is not None:
        rewrite(exposed)
    if only is not None:
        wanted = [output for output in exposed.graph.output if output.name in only]
        del exposed.graph.output[:]
        exposed.graph.output.extend(wanted)
        names = [name for name in names if name in only]
    started = time.perf_counter()
    session = ort.InferenceSession(exposed.SerializeToString(), session_options(Optimization.OFF, threads=threads),
                                   providers=["CPUExecutionProvider"])
    built = time.perf_counter()
    wanted = [output.name for output in session.get_outputs()]
    values = session.run(wanted, dict(feeds))
    finished = time.perf_counter()
    tensors: Dict[str, np.ndarray] = {name: np.asarray(value) for name, value in feeds.items()}
    tensors.update({name: np.asarray(value) for name, value in zip(wanted, values)})
    return TensorRun(tensors, names, built - started, finished - built, _session_types(session))


def ort_inserted_casts(model: OnnxModel, written: Path) -> Tuple[List[str], List[str]]:
    """The Casts ONNX Runtime's CPU session adds to `model` (with optimisation off: its
    InsertCastTransformer runs even then), and the Casts of `model` it removes, read from the
    graph the session writes to `written` after its transformers. Both empty: the session runs
    `model`'s precision as written.

    >>> import tempfile
    >>> from onnx import helper, TensorProto
    >>> g = helper.make_graph([helper.make_node("Add", ["x", "x"], ["y"], name="add")], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [2])])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     added, removed = ort_inserted_casts(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=7), Path(folder) / "m.onnx")
    >>> len(added) > 0, removed  # no fp16 Add on the CPU: it runs in float32 between Casts of its own
    (True, [])
    """
    import onnx
    import onnxruntime as ort

    ort.InferenceSession(model.SerializeToString(), session_options(Optimization.OFF, optimized_path=written),
                         providers=["CPUExecutionProvider"])
    ran = onnx.load(os.fspath(written))
    own = {node.name for node in model.graph.node if node.op_type == "Cast"}
    kept = {node.name for node in ran.graph.node if node.op_type == "Cast"}
    return sorted(kept - own), sorted(own - kept)
