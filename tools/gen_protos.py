"""Regenerate every project `*_pb2.py` and its type stub `*_pb2.pyi` from its `.proto` (needs
`pip install grpcio-tools`; mypy reads the stubs, with types-protobuf for the runtime library).

    python tools/gen_protos.py            # in place
    python tools/gen_protos.py --out DIR  # into DIR/<same relative path>, for checking currency
    python tools/gen_protos.py --check    # exit 1 when a committed file differs from a fresh one
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
# Protos are compiled relative to python/, so each registers as "opdiff/..." in the descriptor pool
# and cannot clash with another copy of the same schema loaded by a different package.
IMPORT_ROOT = Path("python")
# (the .proto, the folder its *_pb2.py lives in), relative to the project root.
PROTOS: Tuple[Tuple[Path, Path], ...] = (
    (Path("python/opdiff/dumps/proto/dump_data.proto"), Path("python/opdiff/dumps")),
    (Path("python/opdiff/graph/proto/ge_ir.proto"), Path("python/opdiff/graph/proto")),
    (Path("python/opdiff/graph/proto/ge_onnx.proto"), Path("python/opdiff/graph/proto")),
    (Path("python/opdiff/dumps/tfdbg/proto/tfdbg.proto"), Path("python/opdiff/dumps/tfdbg")),
    (Path("python/opdiff/producers/caffe/proto/caffe.proto"), Path("python/opdiff/producers/caffe/proto")),
)


def project_protos() -> List[Tuple[Path, Path]]:
    """Every (.proto, output folder) pair, relative to the project root."""
    return list(PROTOS)


GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi")


def generate(proto: Path, out_dir: Path, root: Path = ROOT) -> List[Path]:
    """Compile `proto` (relative to `root`) into `out_dir`; returns the written *_pb2.py and *_pb2.pyi."""
    from grpc_tools import protoc

    out_dir.mkdir(parents=True, exist_ok=True)
    targets = [out_dir / f"{proto.stem}{suffix}" for suffix in GENERATED_SUFFIXES]
    # protoc writes in place; write into a scratch folder first so a failure leaves no half file.
    with tempfile.TemporaryDirectory(dir=out_dir) as scratch:
        relative = proto.relative_to(IMPORT_ROOT)
        args = ["protoc", f"-I{root / IMPORT_ROOT}", f"--python_out={scratch}", f"--pyi_out={scratch}", str(relative)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {proto}")
        for target in targets:
            os.replace(Path(scratch) / relative.parent / target.name, target)
    return targets


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write under this folder instead of in place")
    parser.add_argument("--check", action="store_true", help="only report whether the committed files are current")
    args = parser.parse_args(argv)
    stale = []
    for proto, folder in project_protos():
        if args.check:
            with tempfile.TemporaryDirectory() as tmp:
                for fresh in generate(proto, Path(tmp)):
                    committed = ROOT / folder / fresh.name
                    if not committed.exists() or committed.read_bytes() != fresh.read_bytes():
                        stale.append(committed)
        else:
            out_dir = (args.out / folder) if args.out else ROOT / folder
            for written in generate(proto, out_dir):
                print(f"wrote {written}")
    for path in stale:
        print(f"stale: {path.relative_to(ROOT)} (run tools/gen_protos.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
