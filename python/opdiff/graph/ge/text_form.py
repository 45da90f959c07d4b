"""Telling the two text forms of GE graph dumps apart by their first bytes (no protobuf needed)."""

from __future__ import annotations

import re
from enum import Enum
from typing import Optional

# The first field of a text-format file (after blank and comment lines).
_FIRST_FIELD = re.compile(rb"\A(?:\xef\xbb\xbf)?(?:\s|#[^\n]*\n)*([A-Za-z_][A-Za-z0-9_]*)\s*[:{<]")
# Field names only the ONNX form has, at the start of a line as protobuf's printer writes them.
_ONNX_FIELD = re.compile(rb"^\s*(?:ir_version|producer_name|producer_version|model_version|opset_import|op_type)\s*:|^\s*node\s*\{",
                         re.MULTILINE)


class TextForm(Enum):
    """Which schema a GE graph dump's text follows."""

    GE_PROTO = "ge_proto"
    GE_ONNX = "ge_onnx"


def text_form_of(head: bytes) -> Optional[TextForm]:
    """The form of a file whose first bytes are `head`, or None when it does not start as protobuf text.

    >>> text_form_of(b'graph {\\n  name: "g"\\n  op {\\n'), text_form_of(b'ir_version: 6\\nproducer_name: "GE"\\n')
    (<TextForm.GE_PROTO: 'ge_proto'>, <TextForm.GE_ONNX: 'ge_onnx'>)
    >>> text_form_of(b'{"graph": []}') is None
    True
    """
    if _FIRST_FIELD.match(head) is None:
        return None
    return TextForm.GE_ONNX if _ONNX_FIELD.search(head) else TextForm.GE_PROTO
