"""The committed ge_ir_pb2.py is current: regenerating it from ge_ir.proto gives the same schema."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "python/opdiff/graph/proto/ge_ir_pb2.py"


def gencode_version(source):
    return re.search(r"# Protobuf Python Version: (\S+)", source).group(1)


def serialized_schema(source):
    """The FileDescriptorProto embedded in generated code (what the .proto compiled to)."""
    literal = re.search(r"AddSerializedFile\((b'.*?')\)\n", source, re.S).group(1)
    return descriptor_pb2.FileDescriptorProto.FromString(eval(literal))  # a bytes literal written by protoc


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="grpc_tools (pip install grpcio-tools) not importable")
def test_committed_pb2_matches_the_proto(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "tools/gen_protos.py"), "--out", str(tmp_path)], check=True, capture_output=True)
    fresh = (tmp_path / "python/opdiff/graph/proto/ge_ir_pb2.py").read_text()
    committed = COMMITTED.read_text()
    assert serialized_schema(fresh) == serialized_schema(committed), "ge_ir.proto changed: run tools/gen_protos.py"
    if gencode_version(fresh) == gencode_version(committed):
        assert fresh == committed


def test_pyproject_protobuf_floor_covers_the_gencode():
    floor = re.search(r'"protobuf>=([0-9.]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    as_tuple = lambda text: tuple(int(part) for part in text.split("."))  # noqa: E731
    assert as_tuple(floor) >= as_tuple(gencode_version(COMMITTED.read_text()))
