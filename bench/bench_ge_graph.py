"""Benchmark: reading a ~300 MB GE graph dump as a fusion rule (target: at most 3 minutes and 3 GB).

    python bench/bench_ge_graph.py [--megabytes 300] [--ops 10000] [--form onnx|proto|both]

The dump is shaped as the real ge_onnx Build dump of an NCF training run (docs/reference/device-files.md §3): one
line of weights of about 268 MB (a Const's tensor, written as one C-escaped string), lines of
8-17 MB for the rest, and `--ops` ops written by the project's writer (testing/ge_graph_dumps.py),
each with its tensor descs and fusion provenance. The ge_proto form holds the same blobs as tensor
`data` and kernel `bt`. Each read runs in a child process (`opdiff.read_graph`), timed, with its
peak RSS from wait4.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO, List, Tuple

TARGET_SECONDS = 180.0
TARGET_RSS_MB = 3000.0
BIG_LINE = 268 * 10**6
_ESCAPE_BLOCK = 64 * 1024  # raw bytes escaped once, then repeated


def escaped_block(seed: int = 0) -> bytes:
    """C-escaped random bytes, as protobuf's printer writes a bytes field."""
    from google.protobuf import text_encoding

    raw = random.Random(seed).randbytes(_ESCAPE_BLOCK)
    return text_encoding.CEscape(raw, as_utf8=False).encode("ascii")


def blob_sizes(total: int, structure: int) -> List[int]:
    """One line of about 268 MB (or what is left), then lines of 8-17 MB up to `total`."""
    left = max(total - structure, 0)
    sizes = [min(BIG_LINE, left)]
    left -= sizes[0]
    rng = random.Random(1)
    while left > 0:
        size = min(rng.randint(8, 17) * 10**6, left)
        sizes.append(size)
        left -= size
    return [s for s in sizes if s > 0]


def write_blob(out: BinaryIO, size: int, block: bytes) -> None:
    for _ in range(max(size // len(block), 1)):
        out.write(block)


def build_model(ops: int):  # -> ge.ModelDef
    from opdiff.graph.model_def_builder import model_def, op_def, output_desc
    from opdiff.graph.proto import ge_ir_pb2 as ge

    defs = [op_def("input", "Data", original_names=["input"],
                   output_descs=[output_desc("input", 0, origin_format="NCHW", ge_origin_format="NCHW", origin_shape=[1, 3, 224, 224])])]
    for k in range(1, ops):
        names = [f"layer{k}/conv", f"layer{k}/bn", f"layer{k}/relu"][: 1 + (k % 3)] if k % 4 == 0 else [f"layer{k}/op"]
        op = op_def(f"op_{k}", ("Conv2D", "Relu", "Add", "TransData")[k % 4], id_=k, inputs=[f"{defs[-1].name}:0", f"{defs[-1].name}:-1"],
                    original_names=names,
                    output_descs=[output_desc(names[-1], 0, origin_format="NCHW", ge_origin_format="NCHW", origin_shape=[1, 64, 56, 56])])
        op.input_desc.add(dtype=ge.DT_FLOAT16, layout="NC1HWC0").shape.dim.extend([1, 4, 56, 56, 16])
        op.output_desc[0].shape.dim.extend([1, 4, 56, 56, 16])
        for j in range(8):
            op.attr[f"_unrelated_{j}"].i = j
        defs.append(op)
    defs.append(op_def("output", "NetOutput", id_=ops, inputs=[f"{defs[-1].name}:0"], original_names=["output"]))
    return model_def("", [("ge_default_20230713074122_1", defs)])


def generate(path: Path, form: str, megabytes: float, ops: int) -> Tuple[int, int]:
    """Writes the dump; returns (bytes, blob lines)."""
    from opdiff.graph.ge.writer import ge_onnx_text, ge_proto_text

    model = build_model(ops)
    text = (ge_onnx_text(model) if form == "onnx" else ge_proto_text(model)).encode()
    close = text.rindex(b"}")  # the end of the (first) graph block: the blobs go inside it
    if form == "proto":
        close = text.index(b"\n}\n") + 1
    block = escaped_block()
    sizes = blob_sizes(int(megabytes * 10**6), len(text))
    with open(path, "wb") as out:
        out.write(text[:close])
        for k, size in enumerate(sizes):
            if form == "onnx":
                out.write(f'  node {{\n    name: "const_{k}"\n    op_type: "ge:Const"\n    attribute {{\n      name: "value_data"\n'
                          f'      s: "'.encode())
                write_blob(out, size, block)
                out.write(b'"\n      type: STRING\n    }\n  }\n')
            else:
                field = "data" if k % 2 == 0 else "bt"
                value = "t {\n          data" if field == "data" else "bt"
                out.write(f'  op {{\n    name: "const_{k}"\n    type: "Const"\n    attr {{\n      key: "value"\n      value {{\n        {value}: "'.encode())
                write_blob(out, size, block)
                out.write(b'"\n' + (b"        }\n" if field == "data" else b"") + b"      }\n    }\n  }\n")
        out.write(text[close:])
    return path.stat().st_size, len(sizes)


def timed_read(path: Path) -> Tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, what the child printed) of one read_graph in a child
    process. CPU seconds say more than wall seconds on a shared machine."""
    code = "import sys, opdiff; fm = opdiff.read_graph(sys.argv[1]); print(len(fm.ops), len(fm.groups))"
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    output = process.stdout.read().strip()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"reading {path} failed")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output  # ru_maxrss is in KiB on Linux


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=300.0)
    parser.add_argument("--ops", type=int, default=10000)
    parser.add_argument("--form", choices=("onnx", "proto", "both"), default="both")
    parser.add_argument("--generate-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    forms = ("onnx", "proto") if args.form == "both" else (args.form,)
    if args.generate_into:
        for form in forms:
            size, lines = generate(args.generate_into / f"{form}.txt", form, args.megabytes, args.ops)
            print(form, size, lines)
        return 0
    from rich.console import Console
    from rich.table import Table

    root = Path(tempfile.mkdtemp(prefix="opdiff-bench-ge-", dir="/tmp"))
    try:
        # Generated in a child, so that this parent stays small (a forked child's RSS counts its pages).
        started = time.perf_counter()
        generated = subprocess.run([sys.executable, __file__, "--megabytes", str(args.megabytes), "--ops", str(args.ops),
                                    "--form", args.form, "--generate-into", str(root)], capture_output=True, text=True, check=True)
        made = {line.split()[0]: (int(line.split()[1]), int(line.split()[2])) for line in generated.stdout.splitlines()}
        table = Table(title=f"read_graph on GE graph dumps: {args.ops:,} ops plus weight lines "
                            f"(generated in {time.perf_counter() - started:.0f} s; {os.cpu_count()} CPUs)")
        for column in ("form", "file", "blob lines", "ops, groups", "seconds", "CPU s", "MB/s", "peak RSS (MB)", "target"):
            table.add_column(column, justify="left" if column in ("form", "target") else "right", no_wrap=column == "form")
        for form in forms:
            size, lines = made[form]
            seconds, cpu, rss, output = timed_read(root / f"{form}.txt")
            met = seconds <= TARGET_SECONDS and rss <= TARGET_RSS_MB
            table.add_row(f"ge_{form}", f"{size / 1e6:,.0f} MB", str(lines), output.replace(" ", ", "), f"{seconds:.1f}", f"{cpu:.1f}",
                          f"{size / 1e6 / seconds:,.0f}", f"{rss:,.0f}", "met" if met else "MISSED (3 min, 3 GB)")
        Console(width=max(Console().width, 120)).print(table)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
