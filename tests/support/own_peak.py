"""Child processes whose peak memory (ru_maxrss) is their own.

Linux keeps a process's peak RSS across exec, and Python starts children with vfork, so a child's
ru_maxrss starts at the test process's peak: after a test that peaked at gigabytes, libFuzzer's
-rss_limit_mb fires at start, and a child measuring its own growth from ru_maxrss sees none. A
forked shell between the two gives the child a fresh count (the shell's few megabytes).
"""

from __future__ import annotations

from typing import List, Sequence


def with_own_peak(argv: Sequence[str]) -> List[str]:
    """`argv` started through /bin/sh, which forks it (not exec: that would keep the count); the
    exit status is the child's."""
    return ["/bin/sh", "-c", '"$@"; exit $?', "sh", *argv]
