"""gc_paused: the collector is off inside the block and what the block built is not left for the
next young collection to scan (run in a fresh process: the CLI's gc.freeze() in other tests changes
what the helper may do)."""

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import gc
    from opdiff.graph.gc_pause import gc_paused

    with gc_paused():
        assert not gc.isenabled()
        built = [[k] for k in range(200_000)]
    assert gc.isenabled()
    oldest = {id(obj) for obj in gc.get_objects(generation=2)}
    print(sum(id(obj) in oldest for obj in built), gc.get_freeze_count(), len(built))
    """
)


def test_objects_built_in_the_block_skip_the_young_generation():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    in_oldest, frozen, built = map(int, result.stdout.split())
    assert built == 200_000
    assert in_oldest == built  # moved there without a scan, not left for young collections to scan
    assert frozen == 0  # and not left frozen
