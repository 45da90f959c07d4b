"""A tfdbg run's tensors as golden ``.npy`` files, named as the reference and ``dump-tf`` name them
(``{op}.{output}.{µs}.npy``, ``/`` in op names as ``_``; conventions.dump_names.golden_file_name).

One tensor is decoded and written at a time, so memory stays at about one tensor whatever the
run's size. A tensor that cannot be read (damaged, or no numbers: strings, resources, variants) is
no file: it is reported with its source and why, keyed as its golden file would be."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Set, Tuple

import numpy as np

from opdiff.conventions.dump_names import escape_op_name, golden_file_name
from opdiff.dumps.tfdbg.model import Run
from opdiff.dumps.tfdbg.roots import read_tensor
from opdiff.dumps.tfdbg.tensors import TensorDamaged, TensorSkipped
from opdiff.fileio.atomic import replacing


@dataclass
class Export:
    """What an export wrote, and the golden keys (``{escaped op}.{slot}``) it could not, each with
    its source (a file, or ``{stream}@{offset}``) and why."""

    written: List[Path] = field(default_factory=list)
    unreadable: Dict[str, Tuple[str, str]] = field(default_factory=dict)
    damaged: Set[str] = field(default_factory=set)  # the keys of `unreadable` that hold numbers, damaged

    @property
    def problems(self) -> List[Tuple[str, str]]:
        return [(source, why) for source, why in sorted(self.unreadable.values())]


def export_run(run: Run, out: Path) -> Export:
    """Write every tensor of `run` under `out` (created), one at a time."""
    out.mkdir(parents=True, exist_ok=True)
    done = Export()
    for ref in run.tensors:
        key = f"{escape_op_name(ref.op_name)}.{ref.output_slot}"
        try:
            array = read_tensor(ref)
        except TensorSkipped as error:
            done.unreadable[key] = (ref.label, str(error))
            continue
        except (TensorDamaged, OSError) as error:
            why = (error.strerror or str(error)) if isinstance(error, OSError) else str(error)
            done.unreadable[key] = (ref.label, why)
            done.damaged.add(key)
            continue
        target = out / golden_file_name(ref.op_name, ref.output_slot, ref.timestamp)
        with replacing(target) as temporary:
            with open(temporary, "wb") as handle:
                np.save(handle, array, allow_pickle=False)
        done.unreadable.pop(key, None)  # a later dump of the same tensor that reads wins
        done.damaged.discard(key)
        done.written.append(target)
    return done
