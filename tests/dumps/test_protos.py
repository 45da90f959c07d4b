"""Every committed *_pb2.py is current: regenerating it from its .proto gives the same schema (and
the same text when the installed protoc writes the same gencode version)."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from tests.support import paths

ROOT = paths.ROOT
sys.path.insert(0, str(ROOT / "tools"))
from gen_protos import project_protos  # noqa: E402

MODULES = [(proto, ROOT / folder / f"{proto.stem}_pb2.py") for proto, folder in project_protos()]


def gencode_version(source: str) -> str:
    return re.search(r"# Protobuf Python Version: (\S+)", source).group(1)


def serialized_schema(source: str) -> descriptor_pb2.FileDescriptorProto:
    """The FileDescriptorProto embedded in generated code (what the .proto compiled to)."""
    literal = re.search(r"AddSerializedFile\((b'.*?')\)\n", source, re.S).group(1)
    return descriptor_pb2.FileDescriptorProto.FromString(eval(literal))  # a bytes literal written by protoc


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="grpc_tools (pip install grpcio-tools) not importable")
def test_committed_pb2_modules_match_their_protos(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "tools/gen_protos.py"), "--out", str(tmp_path)], check=True, capture_output=True)
    for proto, committed in MODULES:
        fresh = (tmp_path / committed.relative_to(ROOT)).read_text()
        assert serialized_schema(fresh) == serialized_schema(committed.read_text()), f"{proto} changed: run tools/gen_protos.py"
        if gencode_version(fresh) == gencode_version(committed.read_text()):
            assert fresh == committed.read_text()
            # the type stub mypy reads is protoc's too, and must follow the schema
            stub = committed.with_suffix(".pyi")
            assert (tmp_path / stub.relative_to(ROOT)).read_text() == stub.read_text(), f"{stub} is stale: run tools/gen_protos.py"


@pytest.mark.parametrize(("proto", "committed"), MODULES, ids=[str(p.name) for p, _ in MODULES])
def test_pyproject_protobuf_floor_covers_the_gencode(proto: Path, committed: Path) -> None:
    floor = re.search(r'"protobuf>=([0-9.]+)"', (ROOT / "pyproject.toml").read_text()).group(1)

    def as_tuple(text: str) -> tuple:
        return tuple(int(part) for part in text.split("."))

    assert as_tuple(floor) >= as_tuple(gencode_version(committed.read_text()))
