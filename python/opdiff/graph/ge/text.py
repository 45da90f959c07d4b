"""GE graph dumps (DUMP_GE_GRAPH) in protobuf text format, read with protobuf's own `text_format`.

Two forms (docs/reference/device-files.md §3): `ge_proto_*.txt`, the text of GE's ModelDef (`proto/ge_ir.proto`), and
`ge_onnx_*.pbtxt`, the text of the ONNX ModelProto GE fills from the same graph (`proto/ge_onnx.proto`,
turned into a ModelDef by `onnx_form.model_def_of_onnx`). `text_scan` cuts huge strings first and
hands the text over in segments; unknown field names are skipped, as the binary reader skips unknown
fields (newer GE versions add fields).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterator, List, Union

from google.protobuf import text_format
from google.protobuf.message import Message

from opdiff.graph.attr_compression import dictionary_of
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap
from opdiff.graph.ge.onnx_form import has_original_names, model_def_of_onnx
from opdiff.graph.ge.text_form import TextForm
from opdiff.graph.ge.text_scan import CONTAINER, CUT_FIELDS, STRING_LIMIT, CutStrings, Segment, TextScanner
from opdiff.graph.model_def import fusion_map_of_model_def
from opdiff.graph.proto import ge_ir_pb2 as ge
from opdiff.graph.proto import ge_onnx_pb2 as gx

PathLike = Union[str, "os.PathLike[str]"]
_LOCATION = re.compile(r"^\d+:\d+ : ")
_MESSAGE_LIMIT = 300  # protobuf quotes the offending line: keep an error on one readable line


@dataclass(frozen=True)
class TextDump:
    """A graph dump read: its ModelDef (for ge_onnx, the one its ONNX form carries) and what was cut."""

    form: TextForm
    model_def: ge.ModelDef
    cut: CutStrings
    onnx_names: bool = True  # ge_onnx only: some op carries _datadump_original_op_names


def read_text_dump(path: PathLike, form: TextForm) -> TextDump:
    """The ModelDef of the graph dump at `path`, written in `form`; GraphFormatError names the line."""
    source = os.fspath(path)
    if form is TextForm.GE_PROTO:
        model_def = ge.ModelDef()
        cut = parse_text(source, model_def)
        return TextDump(form, model_def, cut)
    onnx_model = gx.ModelProto()
    cut = parse_text(source, onnx_model)
    try:
        converted = model_def_of_onnx(onnx_model)
    except ValueError as error:
        raise GraphFormatError(source, f"ONNX form: {error}") from None
    return TextDump(form, converted, cut, has_original_names(onnx_model))


def fusion_map_of_text_dump(dump: TextDump, source: str) -> FusionMap:
    """The FusionMap of a graph dump read, with notes on what the reader cut and, for a ge_onnx dump
    without fusion provenance, why its ops map by their own names."""
    notes: List[str] = []
    if dump.cut.count:
        notes.append(f"{source}: {dump.cut.count} string value(s) cut before parsing ({dump.cut.bytes:,} bytes as written; "
                     f"fields {', '.join(dump.cut.fields)}): the values of {', '.join(sorted(f.decode() for f in CUT_FIELDS))} "
                     f"and any string over {STRING_LIMIT // 1024} KiB, which fusion provenance never needs")
    if dump.form is TextForm.GE_ONNX and not dump.onnx_names:
        notes.append(f"{source}: no op carries _datadump_original_op_names (GE writes string attributes into its ONNX "
                     "form only when the dump is made with DUMP_GE_GRAPH=1): every op maps by its own name, as the "
                     "reference maps an op without the attribute")
    model_def = dump.model_def
    return fusion_map_of_model_def(model_def, source, own=dictionary_of(model_def), warnings=notes)


def parse_text(source: str, message: Message) -> CutStrings:
    """Merge the text file `source` into `message` segment by segment (huge strings cut)."""
    containers: List[Message] = []
    try:
        with open(source, "rb") as stream:
            scanner = TextScanner(stream, source)
            for segment in scanner.segments():
                if segment.container is None:
                    target = message
                else:
                    while len(containers) <= segment.container:
                        containers.append(_new_container(message, source, segment.line))
                    target = containers[segment.container]
                _merge(segment, target, source)
    except OSError as error:
        raise GraphFormatError(source, f"cannot read: {error.strerror or error}") from None
    return scanner.cut


def _new_container(message: Message, source: str, line: int) -> Message:
    field = message.DESCRIPTOR.fields_by_name.get(CONTAINER.decode())
    if field is None:  # pragma: no cover - both schemas have a `graph` field
        raise GraphFormatError(source, f"line {line}: {message.DESCRIPTOR.full_name} has no graph field")
    holder = getattr(message, field.name)
    return holder.add() if field.is_repeated else holder  # type: ignore[no-any-return]


def _merge(segment: Segment, target: Message, source: str) -> None:
    try:
        text = segment.text.decode("utf-8")
    except UnicodeDecodeError as error:
        line = segment.line + segment.text.count(b"\n", 0, error.start)
        raise GraphFormatError(source, f"line {line}: not UTF-8 text") from None
    lines = _CountedLines(text.split("\n"))
    try:
        text_format.MergeLines(lines, target, allow_unknown_field=True)
    except text_format.ParseError as error:
        # Errors met while skipping an unknown field carry no location: the tokenizer's line then
        # is the last one it took (it takes lines one at a time, as it needs them).
        line = segment.line + (error.GetLine() or lines.taken or 1) - 1
        problem = _LOCATION.sub("", str(error))
        if len(problem) > _MESSAGE_LIMIT:
            problem = problem[:_MESSAGE_LIMIT] + "..."
        raise GraphFormatError(source, f"line {line}: {problem}") from None
    except RecursionError:
        raise GraphFormatError(source, f"line {segment.line}: messages nest too deeply") from None


class _CountedLines:
    """The lines of a segment, counting how many the tokenizer has taken."""

    def __init__(self, lines: List[str]) -> None:
        self._lines = lines
        self.taken = 0

    def __iter__(self) -> Iterator[str]:
        for line in self._lines:
            self.taken += 1
            yield line
