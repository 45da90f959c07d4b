"""Regenerate every project `*_pb2.py` from its `.proto` (needs `pip install grpcio-tools`).

    python tools/gen_protos.py            # in place, next to each .proto
    python tools/gen_protos.py --out DIR  # into DIR/<same relative path>, for checking currency
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
# Protos are compiled relative to python/, so each registers as "opdiff/..." in the descriptor pool
# and cannot clash with another copy of the same schema loaded by a different package.
IMPORT_ROOT = Path("python")
PROTO_DIRS = (Path("python/opdiff/graph/proto"),)


def project_protos(root: Path = ROOT) -> List[Path]:
    """Every .proto under the project's proto folders, relative to `root`."""
    return sorted(path.relative_to(root) for folder in PROTO_DIRS for path in (root / folder).glob("*.proto"))


def generate(proto: Path, out_dir: Path, root: Path = ROOT) -> Path:
    """Compile `proto` (relative to `root`) into `out_dir`; returns the written *_pb2.py."""
    from grpc_tools import protoc

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{proto.stem}_pb2.py"
    # protoc writes in place; write into a scratch folder first so a failure leaves no half file.
    with tempfile.TemporaryDirectory(dir=out_dir) as scratch:
        relative = proto.relative_to(IMPORT_ROOT)
        args = ["protoc", f"-I{root / IMPORT_ROOT}", f"--python_out={scratch}", str(relative)]
        if protoc.main(args) != 0:
            raise RuntimeError(f"protoc failed on {proto}")
        os.replace(Path(scratch) / relative.parent / target.name, target)
    return target


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write under this folder instead of in place")
    args = parser.parse_args(argv)
    from rich.console import Console

    console = Console()
    for proto in project_protos():
        out_dir = (args.out / proto.parent) if args.out else ROOT / proto.parent
        console.print(f"wrote {generate(proto, out_dir)}", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
