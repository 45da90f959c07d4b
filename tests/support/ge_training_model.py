"""A small training-style ModelDef, for the GE graph dump tests, the benchmark and the fuzz seeds."""

from __future__ import annotations

from typing import Sequence

from opdiff.graph.model_def_builder import model_def, op_def, output_desc
from opdiff.graph.proto import ge_ir_pb2 as ge

_LIST = ge.AttrDef.ListValue


def _desc(origin: str, index: int, shape: Sequence[int], *, dtype: str = "DT_FLOAT16", layout: str = "NC1HWC0") -> ge.TensorDescriptor:
    desc = output_desc(origin, index, origin_format="NCHW", ge_origin_format="NCHW", origin_shape=shape, dtype=dtype, layout=layout)
    desc.shape.dim.extend(shape)
    desc.device_type = "NPU"
    return desc


def training_model_def(graph_name: str = "ge_default_20230713074122_1") -> ge.ModelDef:
    """A small training-style graph: a root graph whose PartitionedCall runs a sub-graph of fused ops.

    Every output desc carries GE's origin_shape and origin_format, as real dumps do; the ops hold
    model attributes, a bool, an int list and a kernel binary (`bt`), so both forms have some of each.
    """
    x = op_def("x", "Data", original_names=["x"], output_descs=[_desc("x", 0, [1, 3, 8, 8], dtype="DT_FLOAT", layout="NCHW")])
    call = op_def("PartitionedCall_sub_0", "PartitionedCall", id_=1, inputs=["x:0"], original_names=["PartitionedCall_sub_0"],
                  output_descs=[_desc("PartitionedCall_sub_0", 0, [1, 16, 8, 8])])
    call.subgraph_name.append(f"{graph_name}_sub")
    out = op_def("NetOutput", "NetOutput", id_=2, inputs=["PartitionedCall_sub_0:0", "x:-1"], original_names=["NetOutput"])
    conv = op_def("conv1relu1", "Conv2D", id_=3, inputs=["arg_x:0", "conv1_w:0"], original_names=["conv1", "relu1"],
                  output_descs=[_desc("relu1", 0, [1, 16, 8, 8])])
    conv.attr["pass_name"].list.val_type = _LIST.VT_LIST_STRING
    conv.attr["pass_name"].list.s.append(b"TbeConvReluFusionPass")
    conv.attr["strides"].list.val_type = _LIST.VT_LIST_INT
    conv.attr["strides"].list.i.extend([1, 1, 1, 1])
    conv.attr["_kernelname"].s = b"te_conv2d_relu_0"
    conv.attr["tbe_kernel_bin"].bt = bytes(range(256)) * 4
    weight = op_def("conv1_w", "Const", id_=4, original_names=["conv1_w"], output_descs=[_desc("conv1_w", 0, [16, 3, 3, 3])])
    weight.attr["value"].t.desc.dtype = ge.DT_FLOAT16
    weight.attr["value"].t.data = bytes(range(64)) * 8
    split = op_def("gelu_split_1", "Mul", id_=5, inputs=["conv1relu1:0"], original_names=["gelu"], is_multiop=True,
                   output_descs=[_desc("gelu", 0, [1, 16, 8, 8])])
    split2 = op_def("gelu_split_2", "Tanh", id_=6, inputs=["gelu_split_1:0"], original_names=["gelu"], is_multiop=True,
                    output_descs=[_desc("gelu", 1, [1, 16, 8, 8])])
    l1 = op_def("l1_add", "Add", id_=7, inputs=["gelu_split_2:0", "gelu_split_1:0"], original_names=["add1"],
                l1_fusion_sub_graph_no="5", output_descs=[_desc("add1", 0, [1, 16, 8, 8])])
    arg = op_def("arg_x", "Data", id_=8, original_names=["arg_x"], output_descs=[_desc("arg_x", 0, [1, 3, 8, 8], dtype="DT_FLOAT")])
    sub_out = op_def("sub_out", "NetOutput", id_=9, inputs=["l1_add:0"], original_names=["sub_out"])
    model = model_def("", [(graph_name, [x, call, out]), (f"{graph_name}_sub", [arg, weight, conv, split, split2, l1, sub_out])])
    model.attr["stream_num"].i = 2
    model.attr["memory_size"].i = 1 << 20
    return model
