"""What ATC recorded about a model's build: the model-level attributes a user asks about first.

ATC writes them as plain (never compressed) `ModelDef.attr` entries (docs/reference/om-layout.md §2.1, §3.1); an
`atc --mode=1` JSON shows the same entries as its top-level `attr` array, as in the two real JSONs
in tests/data/atc-json: `atc_cmdline`, `soc_version`, `atc_version`, `framework_type`.
Older builds may lack any of them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional

if TYPE_CHECKING:
    from opdiff.graph.proto import ge_ir_pb2 as ge

ATC_CMDLINE = "atc_cmdline"
SOC_VERSION = "soc_version"
ATC_VERSION = "atc_version"
FRAMEWORK_TYPE = "framework_type"
_WANTED = (ATC_CMDLINE, SOC_VERSION, ATC_VERSION, FRAMEWORK_TYPE)
_SOC_FLAG = re.compile(r"^--soc_version=(.+)$")


@dataclass(frozen=True)
class ModelFacts:
    """The build facts of one model; None where the model does not record it.

    `soc_version` falls back to the `--soc_version=` flag of the command line when the model has no
    `soc_version` attribute (`soc_from_cmdline` says so): the flag is what ATC compiled for.

    >>> facts = model_facts({"atc_cmdline": "atc.bin --model=m.onnx --soc_version=Ascend310P3"})
    >>> facts.soc_version, facts.soc_from_cmdline
    ('Ascend310P3', True)
    """

    atc_cmdline: Optional[str] = None
    soc_version: Optional[str] = None
    soc_from_cmdline: bool = False
    atc_version: Optional[str] = None
    framework_type: Optional[str] = None


def model_facts(strings: Mapping[str, str]) -> ModelFacts:
    """ModelFacts from the model's string attributes (name -> value).

    >>> model_facts({"soc_version": "Ascend310", "atc_cmdline": "atc --soc_version=Ascend910"}).soc_version
    'Ascend310'
    """
    cmdline = strings.get(ATC_CMDLINE) or None
    soc = strings.get(SOC_VERSION) or None
    from_cmdline = False
    if soc is None and cmdline is not None:
        soc = soc_of_cmdline(cmdline)
        from_cmdline = soc is not None
    return ModelFacts(cmdline, soc, from_cmdline, strings.get(ATC_VERSION) or None, strings.get(FRAMEWORK_TYPE) or None)


def soc_of_cmdline(cmdline: str) -> Optional[str]:
    """The value of the last `--soc_version=` flag in an ATC command line, or None.

    >>> soc_of_cmdline("atc --framework=5 --soc_version=Ascend910B --output=m")
    'Ascend910B'
    """
    try:
        words = shlex.split(cmdline)
    except ValueError:  # an unbalanced quote: plain words are good enough to find the flag
        words = cmdline.split()
    found = [match.group(1) for match in map(_SOC_FLAG.match, words) if match]
    return found[-1] if found else None


def string_attrs_of_model_def(model_def: ge.ModelDef) -> Mapping[str, str]:
    """The wanted string attributes of a ModelDef (bytes decoded as UTF-8, bad bytes replaced).

    >>> from opdiff.graph.proto import ge_ir_pb2 as ge
    >>> model = ge.ModelDef()
    >>> model.attr["atc_cmdline"].s = b"atc --soc_version=Ascend310"
    >>> model.attr["stream_num"].i = 2
    >>> dict(string_attrs_of_model_def(model))
    {'atc_cmdline': 'atc --soc_version=Ascend310'}
    """
    found: Dict[str, str] = {}
    for key in _WANTED:
        if key in model_def.attr and model_def.attr[key].WhichOneof("value") == "s":
            found[key] = model_def.attr[key].s.decode("utf-8", "replace")
    return found


def string_attrs_of_json(doc: Any) -> Mapping[str, str]:
    """The wanted string attributes of an atc JSON document's top-level `attr` array (others ignored).

    >>> dict(string_attrs_of_json({"attr": [{"key": "soc_version", "value": {"s": "Ascend310"}}, {"key": "x"}]}))
    {'soc_version': 'Ascend310'}
    """
    attrs = doc.get("attr") if isinstance(doc, dict) else None
    found: Dict[str, str] = {}
    for entry in attrs if isinstance(attrs, list) else ():
        if isinstance(entry, dict) and entry.get("key") in _WANTED and isinstance(entry.get("value"), dict):
            value = entry["value"].get("s")
            if isinstance(value, str):
                found[entry["key"]] = value
    return found
