"""`read_graph`: one entry point for .om files, OM2 packages, atc JSON and GE graph dumps (ge_proto
text, ge_onnx text), told apart by content.

`read_graph_file` also keeps what `opdiff graph` shows beside the FusionMap: the kind, the model's
build facts and, for an .om, the decoded file (header, partitions).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Optional, Union

from opdiff.graph.atc_json import fusion_map_from_json, load_atc_json, read_atc_json
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap
from opdiff.graph.gc_pause import gc_paused
from opdiff.graph.ge.text_form import TextForm, text_form_of
from opdiff.graph.om.header import ZIP_MAGIC

if TYPE_CHECKING:
    from opdiff.graph.model_facts import ModelFacts
    from opdiff.graph.om.reader import OmModel

PathLike = Union[str, "os.PathLike[str]"]
_OM_MAGIC = b"IMOD"
_JSON_STARTS = (b"{", b"\xef\xbb\xbf{")  # an atc JSON is one object, maybe after a UTF-8 BOM
_HEAD_BYTES = 64 * 1024  # enough to see the first ONNX-only field name of a ge_onnx dump


class GraphKind(Enum):
    """What a model file holds, by its first bytes."""

    OM = ".om offline model"
    OM2 = "OM2 package"
    ATC_JSON = "atc --mode=1 JSON"
    GE_PROTO = "GE graph dump (ge_proto text)"
    GE_ONNX = "GE graph dump (ge_onnx text)"


_TEXT_KINDS = {TextForm.GE_PROTO: GraphKind.GE_PROTO, TextForm.GE_ONNX: GraphKind.GE_ONNX}
_TEXT_FORMS = {kind: form for form, kind in _TEXT_KINDS.items()}


def detect_graph_kind(path: PathLike) -> GraphKind:
    """The kind of the model file at `path`, from its content (the extension is ignored).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "model.om")
    ...     with open(path, "w") as f:
    ...         _ = f.write('  {"graph": []}')
    ...     detect_graph_kind(path).name
    'ATC_JSON'
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            head = handle.read(_HEAD_BYTES)
    except OSError as error:
        raise GraphFormatError(source, f"cannot open: {error.strerror or error}") from None
    if head.startswith(_OM_MAGIC):
        return GraphKind.OM
    if head.startswith(ZIP_MAGIC):
        return GraphKind.OM2
    if head.lstrip().startswith(_JSON_STARTS):
        return GraphKind.ATC_JSON
    if not head:
        raise GraphFormatError(source, "empty file")
    form = text_form_of(head)
    if form is not None:
        return _TEXT_KINDS[form]
    raise GraphFormatError(source, "neither an .om model (magic 'IMOD'), an OM2 package (zip), atc JSON "
                                   "nor a GE graph dump (protobuf text)")


def read_graph(path: PathLike) -> FusionMap:
    """The FusionMap of an offline model (.om, OM2 package, `atc --mode=1` JSON) or a GE graph dump.

    The kind is decided by the file's first bytes, so a misnamed file still reads.

    >>> import os, tempfile
    >>> from opdiff.graph.model_def_builder import simple_model_def
    >>> from opdiff.graph.om.writer import MODEL_DEF, write_om
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_om(os.path.join(folder, "model.bin"), [[(MODEL_DEF, simple_model_def().SerializeToString())]])
    ...     read_graph(path).group_of("conv1/Conv2D_relu_fused").original_names
    ('conv1/Conv2D', 'conv1/Relu')
    """
    source = os.fspath(path)
    kind = detect_graph_kind(source)
    with gc_paused():
        if kind is GraphKind.OM:
            # The .om readers, and protobuf with them, load for an .om only: atc JSON starts without.
            from opdiff.graph.om.reader import read_om_fusion_map

            return read_om_fusion_map(source)
        if kind is GraphKind.OM2:
            from opdiff.graph.om.om2_package import read_om2  # zipfile and lzma, for a package only

            return read_om2(source)
        if kind in _TEXT_FORMS:
            from opdiff.graph.ge.text import fusion_map_of_text_dump, read_text_dump  # protobuf, as for an .om

            return fusion_map_of_text_dump(read_text_dump(source, _TEXT_FORMS[kind]), source)
        return read_atc_json(source)


@dataclass(frozen=True)
class GraphFile:
    """A model file read whole: its kind, FusionMap, build facts and (an .om only) the decoded file."""

    kind: GraphKind
    fusion_map: FusionMap
    facts: ModelFacts
    om: Optional[OmModel] = None


def read_graph_file(path: PathLike) -> GraphFile:
    """Like `read_graph`, keeping the kind, the build facts and the decoded .om beside the FusionMap.

    >>> import os, tempfile
    >>> from opdiff.graph.model_def_builder import simple_model_def
    >>> from opdiff.graph.om.writer import OmVariant, atc_partitions, write_om
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     parts = atc_partitions(simple_model_def().SerializeToString(), OmVariant.V1_0)
    ...     graph = read_graph_file(write_om(os.path.join(folder, "old.om"), [parts], variant=OmVariant.V1_0))
    >>> graph.om.header.version_name, graph.om.header.model_num, len(graph.fusion_map.ops)
    ('1.0', None, 2)
    """
    # The build facts and the OM2 reader serve `opdiff graph`: a comparison (read_graph) loads neither.
    from opdiff.graph.model_facts import model_facts, string_attrs_of_json, string_attrs_of_model_def
    from opdiff.graph.om.om2_package import load_om2_json

    source = os.fspath(path)
    kind = detect_graph_kind(source)
    with gc_paused():
        if kind is GraphKind.OM:
            from opdiff.graph.om.reader import read_om

            om = read_om(source)
            return GraphFile(kind, om.fusion_map, om.facts, om)
        if kind in _TEXT_FORMS:
            from opdiff.graph.ge.text import fusion_map_of_text_dump, read_text_dump

            dump = read_text_dump(source, _TEXT_FORMS[kind])
            facts = model_facts(string_attrs_of_model_def(dump.model_def))
            return GraphFile(kind, fusion_map_of_text_dump(dump, source), facts)
        doc, name = load_om2_json(source) if kind is GraphKind.OM2 else (load_atc_json(source), source)
        return GraphFile(kind, fusion_map_from_json(doc, name), model_facts(string_attrs_of_json(doc)))
