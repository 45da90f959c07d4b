"""Check that a build of the core runs on any x86-64 CPU: only the per-ISA kernel files use AVX.

    python tools/check_baseline_isa.py BUILD_DIR    # e.g. build/cp311-cp311-linux_x86_64

A wheel is installed on whatever CPU the user has; the kernels for AVX2 and AVX-512 are compiled with
their own flags and picked at run time from CPUID. That is safe only if

1. no other object file holds an instruction beyond baseline x86-64 (SSE2): a VEX/EVEX-encoded
   instruction (mnemonic ``v...``), a ymm/zmm/mask register, BMI/BMI2/F16C/FMA, or SSE3-SSE4.2/popcnt
   (a compiler given ``-march=native`` or ``-mavx`` in CXXFLAGS would put them anywhere); and
2. the kernel objects export no code: an inline function or template they instantiate as a weak
   (COMDAT) symbol could be picked by the linker for every caller, so AVX code would run
   outside the dispatch. Only their kernel tables (data) may be visible.

Reads the objects with objdump and readelf (binutils). Exit 0 when both hold, 1 with every finding
otherwise, 2 when there is nothing to check.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import List

KERNEL_OBJECT = re.compile(r"kernel_avx[0-9a-z]*\.cpp\.o$")
# Beyond baseline x86-64 (SSE2) and not starting with "v" (those are all VEX/EVEX but verr/verw).
# Not tzcnt: GCC emits `rep bsf` (which objdump shows as tzcnt) for nonzero inputs on purpose, since a
# CPU without BMI1 runs it as bsf with the same result.
EXTENSION_MNEMONICS = frozenset(
    ["andn", "bextr", "blsi", "blsmsk", "blsr", "bzhi", "mulx", "pdep", "pext", "rorx", "sarx", "shlx", "shrx", "lzcnt", "popcnt", "crc32", "movbe", "addsubps", "addsubpd", "haddps", "haddpd", "hsubps", "hsubpd", "lddqu", "movddup", "movshdup", "movsldup", "pabsb", "pabsw", "pabsd", "palignr", "phaddw", "phaddd", "phaddsw", "phsubw", "phsubd", "phsubsw", "pmaddubsw", "pmulhrsw", "pshufb", "psignb", "psignw", "psignd", "blendpd", "blendps", "blendvpd", "blendvps", "dppd", "dpps", "extractps", "insertps", "movntdqa", "mpsadbw", "packusdw", "pblendvb", "pblendw", "pcmpeqq", "pextrb", "pextrd", "pextrq", "phminposuw", "pinsrb", "pinsrd", "pinsrq", "pmaxsb", "pmaxsd", "pmaxud", "pmaxuw", "pminsb", "pminsd", "pminud", "pminuw", "pmovsxbw", "pmovsxbd", "pmovsxbq", "pmovsxwd", "pmovsxwq", "pmovsxdq", "pmovzxbw", "pmovzxbd", "pmovzxbq", "pmovzxwd", "pmovzxwq", "pmovzxdq", "pmuldq", "pmulld", "ptest", "roundps", "roundpd", "roundss", "roundsd", "pcmpestri", "pcmpestrm", "pcmpistri", "pcmpistrm", "pcmpgtq"]
)
WIDE_REGISTER = re.compile(r"%(?:[yz]mm\d+|k[0-7]\b)")
INSTRUCTION = re.compile(r"^\s*([0-9a-f]+):\s+(?:(?:rex\S*|lock|rep\S*|notrack|bnd|data16|cs|ds)\s+)*([a-z][a-z0-9]*)(.*)$")


def extended_instructions(obj: Path) -> List[str]:
    """The instructions of `obj` beyond baseline x86-64, as 'function: instruction' lines."""
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", "-C", str(obj)], check=True, capture_output=True, text=True
    ).stdout
    function = "?"
    found = []
    for line in listing.splitlines():
        if line.endswith(">:"):
            function = line[line.index("<") + 1 : -2]
            continue
        match = INSTRUCTION.match(line)
        if match is None:
            continue
        mnemonic, operands = match.group(2), match.group(3)
        vex = mnemonic.startswith("v") and mnemonic not in ("verr", "verw")
        if vex or mnemonic in EXTENSION_MNEMONICS or WIDE_REGISTER.search(operands):
            found.append(f"{function}: {mnemonic}{operands.rstrip()}")
    return found


def exported_code(obj: Path) -> List[str]:
    """Functions of `obj` another object could bind to (global, weak or unique FUNC/IFUNC symbols).

    Data is fine (the kernel tables; under ASan also inline constants and exception-personality
    references): only code would let AVX instructions run outside the dispatch.
    """
    table = subprocess.run(["readelf", "-W", "--syms", str(obj)], check=True, capture_output=True, text=True).stdout
    exported = []
    for line in table.splitlines():
        fields = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(fields) >= 8 and fields[3] in ("FUNC", "IFUNC") and fields[4] != "LOCAL" and fields[6] != "UND":
            exported.append(fields[7])
    if not exported:
        return []
    return subprocess.run(["c++filt"], input="\n".join(exported), check=True, capture_output=True, text=True).stdout.split("\n")


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir", type=Path, help="a CMake build folder of the project (holds CMakeFiles/)")
    args = parser.parse_args(argv)
    objects = sorted(args.build_dir.rglob("*.cpp.o"))
    if not objects:
        print(f"{args.build_dir}: no object files (*.cpp.o) here; build first", file=sys.stderr)
        return 2
    kernels = [obj for obj in objects if KERNEL_OBJECT.search(obj.name)]
    base = [obj for obj in objects if obj not in kernels]
    problems = []
    for obj in base:
        found = extended_instructions(obj)
        if found:
            problems.append(f"{obj.name}: {len(found)} instruction(s) beyond x86-64 baseline, e.g. {found[:3]}")
    for obj in kernels:
        exported = exported_code(obj)
        if exported:
            problems.append(f"{obj.name}: exports code another object could bind to: {exported[:5]}")
    for problem in problems:
        print(f"check_baseline_isa: {problem}", file=sys.stderr)
    print(
        f"check_baseline_isa: {len(base)} base object(s) baseline x86-64 only; {len(kernels)} kernel object(s) "
        f"({', '.join(obj.name for obj in kernels) or 'none'}) export no code"
        if not problems
        else f"check_baseline_isa: {len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
