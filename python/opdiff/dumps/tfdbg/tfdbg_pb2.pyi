from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DataType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DT_INVALID: _ClassVar[DataType]
    DT_FLOAT: _ClassVar[DataType]
    DT_DOUBLE: _ClassVar[DataType]
    DT_INT32: _ClassVar[DataType]
    DT_UINT8: _ClassVar[DataType]
    DT_INT16: _ClassVar[DataType]
    DT_INT8: _ClassVar[DataType]
    DT_STRING: _ClassVar[DataType]
    DT_COMPLEX64: _ClassVar[DataType]
    DT_INT64: _ClassVar[DataType]
    DT_BOOL: _ClassVar[DataType]
    DT_QINT8: _ClassVar[DataType]
    DT_QUINT8: _ClassVar[DataType]
    DT_QINT32: _ClassVar[DataType]
    DT_BFLOAT16: _ClassVar[DataType]
    DT_QINT16: _ClassVar[DataType]
    DT_QUINT16: _ClassVar[DataType]
    DT_UINT16: _ClassVar[DataType]
    DT_COMPLEX128: _ClassVar[DataType]
    DT_HALF: _ClassVar[DataType]
    DT_RESOURCE: _ClassVar[DataType]
    DT_VARIANT: _ClassVar[DataType]
    DT_UINT32: _ClassVar[DataType]
    DT_UINT64: _ClassVar[DataType]
    DT_FLOAT8_E5M2: _ClassVar[DataType]
    DT_FLOAT8_E4M3FN: _ClassVar[DataType]

class TensorDebugMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNSPECIFIED: _ClassVar[TensorDebugMode]
    NO_TENSOR: _ClassVar[TensorDebugMode]
    CURT_HEALTH: _ClassVar[TensorDebugMode]
    CONCISE_HEALTH: _ClassVar[TensorDebugMode]
    FULL_HEALTH: _ClassVar[TensorDebugMode]
    SHAPE: _ClassVar[TensorDebugMode]
    FULL_NUMERICS: _ClassVar[TensorDebugMode]
    FULL_TENSOR: _ClassVar[TensorDebugMode]
    REDUCE_INF_NAN_THREE_SLOTS: _ClassVar[TensorDebugMode]
DT_INVALID: DataType
DT_FLOAT: DataType
DT_DOUBLE: DataType
DT_INT32: DataType
DT_UINT8: DataType
DT_INT16: DataType
DT_INT8: DataType
DT_STRING: DataType
DT_COMPLEX64: DataType
DT_INT64: DataType
DT_BOOL: DataType
DT_QINT8: DataType
DT_QUINT8: DataType
DT_QINT32: DataType
DT_BFLOAT16: DataType
DT_QINT16: DataType
DT_QUINT16: DataType
DT_UINT16: DataType
DT_COMPLEX128: DataType
DT_HALF: DataType
DT_RESOURCE: DataType
DT_VARIANT: DataType
DT_UINT32: DataType
DT_UINT64: DataType
DT_FLOAT8_E5M2: DataType
DT_FLOAT8_E4M3FN: DataType
UNSPECIFIED: TensorDebugMode
NO_TENSOR: TensorDebugMode
CURT_HEALTH: TensorDebugMode
CONCISE_HEALTH: TensorDebugMode
FULL_HEALTH: TensorDebugMode
SHAPE: TensorDebugMode
FULL_NUMERICS: TensorDebugMode
FULL_TENSOR: TensorDebugMode
REDUCE_INF_NAN_THREE_SLOTS: TensorDebugMode

class TensorShapeProto(_message.Message):
    __slots__ = ("dim", "unknown_rank")
    class Dim(_message.Message):
        __slots__ = ("size", "name")
        SIZE_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        size: int
        name: str
        def __init__(self, size: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
    DIM_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_RANK_FIELD_NUMBER: _ClassVar[int]
    dim: _containers.RepeatedCompositeFieldContainer[TensorShapeProto.Dim]
    unknown_rank: bool
    def __init__(self, dim: _Optional[_Iterable[_Union[TensorShapeProto.Dim, _Mapping]]] = ..., unknown_rank: _Optional[bool] = ...) -> None: ...

class ResourceHandleProto(_message.Message):
    __slots__ = ("device", "container", "name", "hash_code", "maybe_type_name")
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HASH_CODE_FIELD_NUMBER: _ClassVar[int]
    MAYBE_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    device: str
    container: str
    name: str
    hash_code: int
    maybe_type_name: str
    def __init__(self, device: _Optional[str] = ..., container: _Optional[str] = ..., name: _Optional[str] = ..., hash_code: _Optional[int] = ..., maybe_type_name: _Optional[str] = ...) -> None: ...

class VariantTensorDataProto(_message.Message):
    __slots__ = ("type_name", "metadata")
    TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    type_name: str
    metadata: bytes
    def __init__(self, type_name: _Optional[str] = ..., metadata: _Optional[bytes] = ...) -> None: ...

class TensorProto(_message.Message):
    __slots__ = ("dtype", "tensor_shape", "version_number", "tensor_content", "half_val", "float_val", "double_val", "int_val", "string_val", "scomplex_val", "int64_val", "bool_val", "dcomplex_val", "resource_handle_val", "variant_val", "uint32_val", "uint64_val", "float8_val")
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    VERSION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TENSOR_CONTENT_FIELD_NUMBER: _ClassVar[int]
    HALF_VAL_FIELD_NUMBER: _ClassVar[int]
    FLOAT_VAL_FIELD_NUMBER: _ClassVar[int]
    DOUBLE_VAL_FIELD_NUMBER: _ClassVar[int]
    INT_VAL_FIELD_NUMBER: _ClassVar[int]
    STRING_VAL_FIELD_NUMBER: _ClassVar[int]
    SCOMPLEX_VAL_FIELD_NUMBER: _ClassVar[int]
    INT64_VAL_FIELD_NUMBER: _ClassVar[int]
    BOOL_VAL_FIELD_NUMBER: _ClassVar[int]
    DCOMPLEX_VAL_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_HANDLE_VAL_FIELD_NUMBER: _ClassVar[int]
    VARIANT_VAL_FIELD_NUMBER: _ClassVar[int]
    UINT32_VAL_FIELD_NUMBER: _ClassVar[int]
    UINT64_VAL_FIELD_NUMBER: _ClassVar[int]
    FLOAT8_VAL_FIELD_NUMBER: _ClassVar[int]
    dtype: DataType
    tensor_shape: TensorShapeProto
    version_number: int
    tensor_content: bytes
    half_val: _containers.RepeatedScalarFieldContainer[int]
    float_val: _containers.RepeatedScalarFieldContainer[float]
    double_val: _containers.RepeatedScalarFieldContainer[float]
    int_val: _containers.RepeatedScalarFieldContainer[int]
    string_val: _containers.RepeatedScalarFieldContainer[bytes]
    scomplex_val: _containers.RepeatedScalarFieldContainer[float]
    int64_val: _containers.RepeatedScalarFieldContainer[int]
    bool_val: _containers.RepeatedScalarFieldContainer[bool]
    dcomplex_val: _containers.RepeatedScalarFieldContainer[float]
    resource_handle_val: _containers.RepeatedCompositeFieldContainer[ResourceHandleProto]
    variant_val: _containers.RepeatedCompositeFieldContainer[VariantTensorDataProto]
    uint32_val: _containers.RepeatedScalarFieldContainer[int]
    uint64_val: _containers.RepeatedScalarFieldContainer[int]
    float8_val: bytes
    def __init__(self, dtype: _Optional[_Union[DataType, str]] = ..., tensor_shape: _Optional[_Union[TensorShapeProto, _Mapping]] = ..., version_number: _Optional[int] = ..., tensor_content: _Optional[bytes] = ..., half_val: _Optional[_Iterable[int]] = ..., float_val: _Optional[_Iterable[float]] = ..., double_val: _Optional[_Iterable[float]] = ..., int_val: _Optional[_Iterable[int]] = ..., string_val: _Optional[_Iterable[bytes]] = ..., scomplex_val: _Optional[_Iterable[float]] = ..., int64_val: _Optional[_Iterable[int]] = ..., bool_val: _Optional[_Iterable[bool]] = ..., dcomplex_val: _Optional[_Iterable[float]] = ..., resource_handle_val: _Optional[_Iterable[_Union[ResourceHandleProto, _Mapping]]] = ..., variant_val: _Optional[_Iterable[_Union[VariantTensorDataProto, _Mapping]]] = ..., uint32_val: _Optional[_Iterable[int]] = ..., uint64_val: _Optional[_Iterable[int]] = ..., float8_val: _Optional[bytes] = ...) -> None: ...

class SummaryMetadata(_message.Message):
    __slots__ = ("plugin_data", "display_name", "summary_description")
    class PluginData(_message.Message):
        __slots__ = ("plugin_name", "content")
        PLUGIN_NAME_FIELD_NUMBER: _ClassVar[int]
        CONTENT_FIELD_NUMBER: _ClassVar[int]
        plugin_name: str
        content: bytes
        def __init__(self, plugin_name: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...
    PLUGIN_DATA_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    plugin_data: SummaryMetadata.PluginData
    display_name: str
    summary_description: str
    def __init__(self, plugin_data: _Optional[_Union[SummaryMetadata.PluginData, _Mapping]] = ..., display_name: _Optional[str] = ..., summary_description: _Optional[str] = ...) -> None: ...

class Summary(_message.Message):
    __slots__ = ("value",)
    class Value(_message.Message):
        __slots__ = ("node_name", "tag", "metadata", "simple_value", "tensor")
        NODE_NAME_FIELD_NUMBER: _ClassVar[int]
        TAG_FIELD_NUMBER: _ClassVar[int]
        METADATA_FIELD_NUMBER: _ClassVar[int]
        SIMPLE_VALUE_FIELD_NUMBER: _ClassVar[int]
        TENSOR_FIELD_NUMBER: _ClassVar[int]
        node_name: str
        tag: str
        metadata: SummaryMetadata
        simple_value: float
        tensor: TensorProto
        def __init__(self, node_name: _Optional[str] = ..., tag: _Optional[str] = ..., metadata: _Optional[_Union[SummaryMetadata, _Mapping]] = ..., simple_value: _Optional[float] = ..., tensor: _Optional[_Union[TensorProto, _Mapping]] = ...) -> None: ...
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: _containers.RepeatedCompositeFieldContainer[Summary.Value]
    def __init__(self, value: _Optional[_Iterable[_Union[Summary.Value, _Mapping]]] = ...) -> None: ...

class LogMessage(_message.Message):
    __slots__ = ("level", "message")
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    level: int
    message: str
    def __init__(self, level: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("wall_time", "step", "file_version", "graph_def", "summary", "log_message")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    FILE_VERSION_FIELD_NUMBER: _ClassVar[int]
    GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    LOG_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    step: int
    file_version: str
    graph_def: bytes
    summary: Summary
    log_message: LogMessage
    def __init__(self, wall_time: _Optional[float] = ..., step: _Optional[int] = ..., file_version: _Optional[str] = ..., graph_def: _Optional[bytes] = ..., summary: _Optional[_Union[Summary, _Mapping]] = ..., log_message: _Optional[_Union[LogMessage, _Mapping]] = ...) -> None: ...

class DebugMetadata(_message.Message):
    __slots__ = ("tensorflow_version", "file_version", "tfdbg_run_id")
    TENSORFLOW_VERSION_FIELD_NUMBER: _ClassVar[int]
    FILE_VERSION_FIELD_NUMBER: _ClassVar[int]
    TFDBG_RUN_ID_FIELD_NUMBER: _ClassVar[int]
    tensorflow_version: str
    file_version: str
    tfdbg_run_id: str
    def __init__(self, tensorflow_version: _Optional[str] = ..., file_version: _Optional[str] = ..., tfdbg_run_id: _Optional[str] = ...) -> None: ...

class GraphOpCreation(_message.Message):
    __slots__ = ("op_type", "op_name", "graph_name", "graph_id", "device_name", "input_names", "num_outputs", "output_tensor_ids")
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    OP_NAME_FIELD_NUMBER: _ClassVar[int]
    GRAPH_NAME_FIELD_NUMBER: _ClassVar[int]
    GRAPH_ID_FIELD_NUMBER: _ClassVar[int]
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_NAMES_FIELD_NUMBER: _ClassVar[int]
    NUM_OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TENSOR_IDS_FIELD_NUMBER: _ClassVar[int]
    op_type: str
    op_name: str
    graph_name: str
    graph_id: str
    device_name: str
    input_names: _containers.RepeatedScalarFieldContainer[str]
    num_outputs: int
    output_tensor_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, op_type: _Optional[str] = ..., op_name: _Optional[str] = ..., graph_name: _Optional[str] = ..., graph_id: _Optional[str] = ..., device_name: _Optional[str] = ..., input_names: _Optional[_Iterable[str]] = ..., num_outputs: _Optional[int] = ..., output_tensor_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class DebuggedGraph(_message.Message):
    __slots__ = ("graph_id", "graph_name", "instrumented_ops", "outer_context_id")
    GRAPH_ID_FIELD_NUMBER: _ClassVar[int]
    GRAPH_NAME_FIELD_NUMBER: _ClassVar[int]
    INSTRUMENTED_OPS_FIELD_NUMBER: _ClassVar[int]
    OUTER_CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    graph_id: str
    graph_name: str
    instrumented_ops: _containers.RepeatedScalarFieldContainer[str]
    outer_context_id: str
    def __init__(self, graph_id: _Optional[str] = ..., graph_name: _Optional[str] = ..., instrumented_ops: _Optional[_Iterable[str]] = ..., outer_context_id: _Optional[str] = ...) -> None: ...

class DebuggedDevice(_message.Message):
    __slots__ = ("device_name", "device_id")
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICE_ID_FIELD_NUMBER: _ClassVar[int]
    device_name: str
    device_id: int
    def __init__(self, device_name: _Optional[str] = ..., device_id: _Optional[int] = ...) -> None: ...

class Execution(_message.Message):
    __slots__ = ("op_type", "num_outputs", "graph_id", "input_tensor_ids", "output_tensor_ids", "tensor_debug_mode", "tensor_protos", "output_tensor_device_ids")
    OP_TYPE_FIELD_NUMBER: _ClassVar[int]
    NUM_OUTPUTS_FIELD_NUMBER: _ClassVar[int]
    GRAPH_ID_FIELD_NUMBER: _ClassVar[int]
    INPUT_TENSOR_IDS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TENSOR_IDS_FIELD_NUMBER: _ClassVar[int]
    TENSOR_DEBUG_MODE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_PROTOS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TENSOR_DEVICE_IDS_FIELD_NUMBER: _ClassVar[int]
    op_type: str
    num_outputs: int
    graph_id: str
    input_tensor_ids: _containers.RepeatedScalarFieldContainer[int]
    output_tensor_ids: _containers.RepeatedScalarFieldContainer[int]
    tensor_debug_mode: TensorDebugMode
    tensor_protos: _containers.RepeatedCompositeFieldContainer[TensorProto]
    output_tensor_device_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, op_type: _Optional[str] = ..., num_outputs: _Optional[int] = ..., graph_id: _Optional[str] = ..., input_tensor_ids: _Optional[_Iterable[int]] = ..., output_tensor_ids: _Optional[_Iterable[int]] = ..., tensor_debug_mode: _Optional[_Union[TensorDebugMode, str]] = ..., tensor_protos: _Optional[_Iterable[_Union[TensorProto, _Mapping]]] = ..., output_tensor_device_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class GraphExecutionTrace(_message.Message):
    __slots__ = ("tfdbg_context_id", "op_name", "output_slot", "tensor_debug_mode", "tensor_proto", "device_name")
    TFDBG_CONTEXT_ID_FIELD_NUMBER: _ClassVar[int]
    OP_NAME_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_SLOT_FIELD_NUMBER: _ClassVar[int]
    TENSOR_DEBUG_MODE_FIELD_NUMBER: _ClassVar[int]
    TENSOR_PROTO_FIELD_NUMBER: _ClassVar[int]
    DEVICE_NAME_FIELD_NUMBER: _ClassVar[int]
    tfdbg_context_id: str
    op_name: str
    output_slot: int
    tensor_debug_mode: TensorDebugMode
    tensor_proto: TensorProto
    device_name: str
    def __init__(self, tfdbg_context_id: _Optional[str] = ..., op_name: _Optional[str] = ..., output_slot: _Optional[int] = ..., tensor_debug_mode: _Optional[_Union[TensorDebugMode, str]] = ..., tensor_proto: _Optional[_Union[TensorProto, _Mapping]] = ..., device_name: _Optional[str] = ...) -> None: ...

class DebugEvent(_message.Message):
    __slots__ = ("wall_time", "step", "debug_metadata", "graph_op_creation", "debugged_graph", "execution", "graph_execution_trace", "graph_id", "debugged_device")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    DEBUG_METADATA_FIELD_NUMBER: _ClassVar[int]
    GRAPH_OP_CREATION_FIELD_NUMBER: _ClassVar[int]
    DEBUGGED_GRAPH_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_FIELD_NUMBER: _ClassVar[int]
    GRAPH_EXECUTION_TRACE_FIELD_NUMBER: _ClassVar[int]
    GRAPH_ID_FIELD_NUMBER: _ClassVar[int]
    DEBUGGED_DEVICE_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    step: int
    debug_metadata: DebugMetadata
    graph_op_creation: GraphOpCreation
    debugged_graph: DebuggedGraph
    execution: Execution
    graph_execution_trace: GraphExecutionTrace
    graph_id: str
    debugged_device: DebuggedDevice
    def __init__(self, wall_time: _Optional[float] = ..., step: _Optional[int] = ..., debug_metadata: _Optional[_Union[DebugMetadata, _Mapping]] = ..., graph_op_creation: _Optional[_Union[GraphOpCreation, _Mapping]] = ..., debugged_graph: _Optional[_Union[DebuggedGraph, _Mapping]] = ..., execution: _Optional[_Union[Execution, _Mapping]] = ..., graph_execution_trace: _Optional[_Union[GraphExecutionTrace, _Mapping]] = ..., graph_id: _Optional[str] = ..., debugged_device: _Optional[_Union[DebuggedDevice, _Mapping]] = ...) -> None: ...
