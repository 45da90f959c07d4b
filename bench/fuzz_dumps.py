"""Fuzz the dump and .npy readers: mutate valid files and read every tensor of each mutant.

Every outcome must be either a successful read or opdiff.DumpFormatError; anything else (another
exception, a crash, a hang) is a finding. Runs for --seconds (default 150) and prints a summary.

    python bench/fuzz_dumps.py --seconds 150 --seed 1

tests/reliability/test_dump_fuzz.py reuses the seeds, mutators and `exercise` from here with hypothesis.
"""

from __future__ import annotations

import argparse
import faulthandler
import random
import struct
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List

import ml_dtypes
import numpy as np

import opdiff
from opdiff.dumps import DumpForm, Tensor, save_npy, tensor_stats

INTERESTING_U64 = (0, 1, 7, 8, 255, 2**31 - 1, 2**32, 2**63, 2**64 - 1)


def make_seeds(folder: Path) -> List[Path]:
    """A small corpus covering every file form and the main layouts and dtypes."""
    rng = np.random.default_rng(0)
    x4 = rng.normal(size=(2, 19, 3, 2)).astype(np.float32)
    seeds = [
        opdiff.write_dump(folder / "Conv.c.1.1.1700000000000000", "c", inputs=[Tensor(x4, layout="NC1HWC0", dtype="float16")],
                          outputs=[Tensor(x4[:, :4], layout="NHWC", dtype="bfloat16")], buffers=[b"\x01\x02"], workspaces=[b"ws"]),
        opdiff.write_dump(folder / "W.w.1.1.1700000000000001", "w",
                          outputs=[Tensor(rng.integers(-8, 8, size=(8, 3, 2, 2)), layout="FRACTAL_Z", dtype="int8", groups=4),
                                   Tensor(rng.integers(-8, 8, size=(18, 5, 1, 1)), layout="FRACTAL_Z", dtype="int4")]),
        opdiff.write_dump(folder / "M.m.1.1.1700000000000002", "m",
                          outputs=[Tensor(rng.normal(size=(2, 20, 37)), layout="FRACTAL_NZ", dtype="float16"),
                                   Tensor(rng.integers(0, 256, size=(3, 5), dtype=np.uint8), dtype="hifloat8"),
                                   Tensor(rng.normal(size=(2, 5, 2, 2, 3)), layout="NDC1HWC0", dtype="float8_e4m3fn")]),
        opdiff.write_dump(folder / "V.v.1.1.1700000000000003", "v", form=DumpForm.V1,
                          inputs=[Tensor(x4, layout="C1HWNCoC0", dtype="float16")], outputs=[np.arange(5, dtype=np.complex64)]),
        opdiff.write_dump(folder / "N.n.1.1.1700000000000004", "n", form=DumpForm.NANO,
                          inputs=[Tensor(x4, layout="FRACTAL_Z", dtype="float16")], outputs=[Tensor(x4, layout="HWCN")]),
        opdiff.write_dump(folder / "Z.z.1.1.1700000000000005", "z",
                          outputs=[Tensor(rng.normal(size=(17, 19, 2, 1, 2)), layout="FRACTAL_Z_3D", dtype="float32")]),
    ]
    np.save(folder / "a.0.1700000000000006.npy", x4)
    np.save(folder / "f.0.1700000000000007.npy", np.asfortranarray(rng.integers(0, 9, size=(3, 4, 5))))
    save_npy(folder / "b.0.1700000000000008.npy", x4.astype(ml_dtypes.bfloat16))
    seeds += sorted(folder.glob("*.npy"))
    return seeds


def _flip_bit(data: bytearray, rng: random.Random) -> None:
    if data:
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)


def _set_byte(data: bytearray, rng: random.Random) -> None:
    if data:
        data[rng.randrange(len(data))] = rng.choice((0, 1, 0x7F, 0x80, 0xFF, rng.randrange(256)))


def _set_u64(data: bytearray, rng: random.Random) -> None:
    if len(data) >= 8:
        i = rng.randrange(len(data) - 7)
        value = rng.choice(INTERESTING_U64 + (len(data), len(data) - 8, rng.randrange(2**64)))
        data[i : i + 8] = struct.pack("<Q", value)


def _truncate(data: bytearray, rng: random.Random) -> None:
    del data[rng.randrange(len(data) + 1) :]


def _append(data: bytearray, rng: random.Random) -> None:
    data.extend(rng.randbytes(rng.randrange(1, 64)))


def _insert(data: bytearray, rng: random.Random) -> None:
    i = rng.randrange(len(data) + 1)
    data[i:i] = rng.randbytes(rng.randrange(1, 16))


def _delete(data: bytearray, rng: random.Random) -> None:
    if data:
        i = rng.randrange(len(data))
        del data[i : i + rng.randrange(1, 16)]


def _splice_varint(data: bytearray, rng: random.Random) -> None:
    # Overlong and maximal varints stress the protobuf decoder's limits.
    if data:
        i = rng.randrange(len(data))
        data[i : i + 1] = rng.choice((b"\xff" * 10 + b"\x01", b"\x80" * 11, b"\xff\xff\xff\xff\x0f"))


MUTATORS: List[Callable[[bytearray, random.Random], None]] = [
    _flip_bit, _set_byte, _set_u64, _truncate, _append, _insert, _delete, _splice_varint,
]  # fmt: skip


def mutate(seed: bytes, rng: random.Random) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.randrange(1, 5)):
        rng.choice(MUTATORS)(data, rng)
    return bytes(data)


def exercise(path: Path) -> str:
    """Read everything a user could ask of `path`; returns "ok" or "rejected" (DumpFormatError).
    Any other exception propagates: that is a finding."""
    try:
        dump = opdiff.read_dump(path)
        for tensor in dump.tensors:
            tensor.to_numpy(logical=False)
            tensor.to_numpy()
            tensor_stats(tensor, threads=1)
    except opdiff.DumpFormatError:
        return "rejected"
    return "ok"


@dataclass
class Summary:
    runs: int = 0
    outcomes: Dict[str, int] = field(default_factory=lambda: {"ok": 0, "rejected": 0})


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=150.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hang-seconds", type=float, default=20.0, help="abort with a traceback if one case takes longer")
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.table import Table

    rng = random.Random(args.seed)
    summary = Summary()
    faulthandler.enable()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        seeds = [p.read_bytes() for p in make_seeds(folder)]
        target = folder / "Mutant.mutant.1.1.1700000000000099"
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            data = mutate(rng.choice(seeds), rng)
            target.write_bytes(data)
            faulthandler.dump_traceback_later(args.hang_seconds, exit=True)
            try:
                outcome = exercise(target)
            except Exception:
                (Path.cwd() / "fuzz_finding.bin").write_bytes(data)
                faulthandler.cancel_dump_traceback_later()
                raise
            faulthandler.cancel_dump_traceback_later()
            summary.runs += 1
            summary.outcomes[outcome] += 1
    table = Table(title=f"fuzz_dumps: {args.seconds:.0f} s, seed {args.seed}")
    table.add_column("mutants", justify="right")
    table.add_column("read fine", justify="right")
    table.add_column("DumpFormatError", justify="right")
    table.add_column("other errors / crashes / hangs", justify="right")
    table.add_row(str(summary.runs), str(summary.outcomes["ok"]), str(summary.outcomes["rejected"]), "0")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
