"""Applying a keep file with dump-onnx, as a user would, and reading the run's dumps back: the
check behind every "the set found passes, and removing any one op fails" of the precision tests."""

import numpy as np

import opdiff
from opdiff.cli import main
from opdiff.conventions.dump_names import escape_op_name
from opdiff.dumps.discovery import index_folder
from opdiff.precision.target import Target


def output_of(run, op_name):
    """Output 0 of op `op_name` in the device dump dump-onnx wrote into folder `run`."""
    index = index_folder(run / "dump")
    return opdiff.read_dump(index.newest(escape_op_name(op_name)).path).outputs[0].to_numpy()


def passes_with(tmp_path, model, feeds, path, inputs, keep_file, extra=()):
    """dump-onnx --dtype fp16 --keep-fp32-file `keep_file` (and `extra` flags): do the model
    outputs' dumps pass the default target against the float32 run?"""
    out = tmp_path / f"run_{keep_file.stem}"
    assert main(["dump-onnx", str(path), *inputs, "--dtype", "fp16", *extra, "--keep-fp32-file", str(keep_file),
                 "-o", str(out)]) == 0
    index = index_folder(out / "dump")
    fused = opdiff.read_graph(out / "fusion_rule.json")
    outputs = {}
    for value in model.graph.output:
        writer = next(node.name for node in model.graph.node if value.name in node.output)
        op = next(op for op in fused.ops if op.output_descs and op.output_descs[0].origin_name == writer and op.type != "Cast")
        outputs[value.name] = opdiff.read_dump(index.newest(escape_op_name(op.name)).path).outputs[0].to_numpy()
    golden = dict(zip([v.name for v in model.graph.output], fp32_outputs(model, feeds)))
    return all(check.passed for check in Target().check(outputs, golden))


def fp32_outputs(model, feeds):
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return [np.asarray(value) for value in session.run(None, feeds)]
