"""Regenerate the committed protobuf modules from their .proto sources.

Run from anywhere: ``python tools/gen_protos.py`` (needs ``pip install grpcio-tools``).
``--check`` regenerates into a temporary folder and exits 1 when a committed file differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (folder holding the .proto, .proto file name); the _pb2.py goes next to the package, one level up.
PROTOS = ((ROOT / "python" / "opdiff" / "dumps" / "proto", "dump_data.proto"),)


def generate(proto_dir: Path, name: str, out_dir: Path) -> Path:
    """Run protoc on one file; returns the generated module path."""
    from grpc_tools import protoc

    code = protoc.main(["grpc_tools.protoc", f"-I{proto_dir}", f"--python_out={out_dir}", str(proto_dir / name)])
    if code != 0:
        raise RuntimeError(f"protoc failed on {proto_dir / name} (exit {code})")
    return out_dir / name.replace(".proto", "_pb2.py")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether the committed files are current")
    args = parser.parse_args(argv)
    stale = []
    for proto_dir, name in PROTOS:
        committed = proto_dir.parent / name.replace(".proto", "_pb2.py")
        with tempfile.TemporaryDirectory() as tmp:
            fresh = generate(proto_dir, name, Path(tmp)).read_bytes()
        if args.check:
            if not committed.exists() or committed.read_bytes() != fresh:
                stale.append(committed)
        else:
            committed.write_bytes(fresh)
            print(f"wrote {committed.relative_to(ROOT)}")
    for path in stale:
        print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
