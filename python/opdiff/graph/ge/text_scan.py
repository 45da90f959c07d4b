"""A streaming pre-pass over GE graph dumps in protobuf text format (ge_proto_*.txt, ge_onnx_*.pbtxt).

This is not a parser of the text format (protobuf's `text_format` parses). It only finds string
literals, `#` comments and message braces, in chunks of the file, so that it can:

* cut huge strings: the value of a field named in `CUT_FIELDS` (tensor `data`, kernel binaries
  `bt`, ONNX `raw_data`) and any string literal longer than `STRING_LIMIT` bytes becomes `""`. GE's
  own JSON writer leaves those fields out too. Why: protobuf's Python text parser needs about 100
  bytes of memory per byte of such a string, and a real dump holds a 268 MB one on one line;
* hand the rest to protobuf in segments: each field of the top-level message, and the inside of
  each top-level `graph { }` block in batches of whole fields (ops or nodes) of about
  `BATCH_BYTES`, so that no more than one batch of text is held at a time.

A cut string keeps its line, so the line of every segment in the file is known and protobuf's
errors can name the file's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import BinaryIO, Iterator, List, Optional, Tuple

from opdiff.graph.errors import GraphFormatError

CUT_FIELDS = frozenset({b"data", b"bt", b"raw_data"})
STRING_LIMIT = 64 * 1024  # no name, original name or command line comes near this
BATCH_BYTES = 1 << 20
CHUNK_BYTES = 8 << 20
MAX_DEPTH = 64  # real dumps nest about 8 deep; protobuf's own binary parser stops at 100
CONTAINER = b"graph"

_EVENT = re.compile(rb"[{}<>\"'#]")
_IDENTIFIER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = frozenset(b"0123456789")
_COLON = ord(":")
_BACKSLASH = 0x5C
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Segment:
    """Text for protobuf: fields of the top-level message (`container` None) or of the inside of the
    `container`-th top-level `graph` block; `line` is the file line its first byte is on."""

    container: Optional[int]
    line: int
    text: bytes


@dataclass
class CutStrings:
    """What the pre-pass cut: how many string literals, and their bytes as written in the file."""

    count: int = 0
    bytes: int = 0
    fields: List[str] = field(default_factory=list)  # the distinct field names cut, in first-seen order


class TextScanner:
    """One pass over `stream`; `segments()` yields the Segments in file order."""

    def __init__(self, stream: BinaryIO, source: str, *, chunk_bytes: int = CHUNK_BYTES) -> None:
        self._stream = stream
        self._source = source
        self._chunk_bytes = chunk_bytes
        self.cut = CutStrings()
        self._pending: List[bytes] = []
        self._pending_size = 0
        self._line = 1
        self._segment_line = 1
        self._container: Optional[int] = None
        self._containers = 0
        self._open_lines: List[int] = []  # the line of each open brace
        self._quote = 0  # the quote byte of the string literal being read, 0 outside one
        self._string: List[bytes] = []
        self._string_size = 0
        self._string_line = 0
        self._string_field = b""
        self._cutting = False
        self._escaped = False  # the next byte is escaped (a backslash ended the last chunk)
        self._comment = False
        self._last_name = b""

    def segments(self) -> Iterator[Segment]:
        first = True
        while True:
            buf = self._stream.read(self._chunk_bytes)
            if not buf:
                break
            if first:
                first = False
                buf = self._without_bom(buf)
            yield from self._scan(buf)
        if self._quote:
            raise self._error(self._string_line, "the file ends inside a string literal")
        if self._open_lines:
            raise self._error(self._line, f"the file ends inside a message ({len(self._open_lines)} open; "
                                          f"the innermost opened at line {self._open_lines[-1]})")
        if self._pending_size:
            yield self._flush()

    def _scan(self, buf: bytes) -> Iterator[Segment]:
        pos, end = 0, len(buf)
        while pos < end:
            if self._quote:
                pos = self._string_body(buf, pos)
                continue
            if self._comment:
                newline = buf.find(b"\n", pos)
                stop = end if newline < 0 else newline
                self._keep(buf[pos:stop])
                self._comment = newline < 0
                pos = stop
                continue
            match = _EVENT.search(buf, pos)
            if match is None:
                self._keep(buf[pos:])
                return
            at = match.start()
            self._keep(buf[pos:at])
            char = buf[at]
            pos = at + 1
            if char in b"\"'":
                self._open_string(char)
            elif char == ord("#"):
                self._comment = True
                pos = at
            elif char in b"{<":
                yield from self._open_message(buf[at : at + 1])
            else:
                yield from self._close_message(buf[at : at + 1])

    def _without_bom(self, buf: bytes) -> bytes:
        while len(buf) < len(_BOM) and _BOM.startswith(buf):  # a BOM split by a tiny chunk size
            more = self._stream.read(self._chunk_bytes)
            if not more:
                break
            buf += more
        return buf[len(_BOM) :] if buf.startswith(_BOM) else buf

    # --- messages --------------------------------------------------------------------------------

    def _open_message(self, brace: bytes) -> Iterator[Segment]:
        if len(self._open_lines) >= MAX_DEPTH:
            raise self._error(self._line, f"messages nest deeper than {MAX_DEPTH} levels")
        name, taken = self._name_before() if not self._open_lines else (b"", 0)
        if name == CONTAINER:
            self._drop_tail(taken)  # `graph {` itself is not text for the top-level message
            if self._pending_size:
                yield self._flush()
            self._container = self._containers
            self._containers += 1
            self._segment_line = self._line
        else:
            self._keep(brace)
        self._open_lines.append(self._line)

    def _close_message(self, brace: bytes) -> Iterator[Segment]:
        if not self._open_lines:
            raise self._error(self._line, f"{brace.decode()!r} closes no open message")
        self._open_lines.pop()
        depth = len(self._open_lines)
        if depth == 0 and self._container is not None:
            yield self._flush()  # even when empty: the graph block exists
            self._container = None
            return
        self._keep(brace)
        if depth == 1 and self._container is not None and self._pending_size >= BATCH_BYTES:
            yield self._flush()

    # --- strings ---------------------------------------------------------------------------------

    def _open_string(self, quote: int) -> None:
        name, _ = self._name_before()
        if name:
            self._last_name = name
        self._quote = quote
        self._string_line = self._line
        self._string_field = self._last_name  # adjacent literals ("a" "b") continue the same field
        self._cutting = self._string_field in CUT_FIELDS
        self._string = [] if self._cutting else [bytes((quote,))]
        self._string_size = 0

    def _string_body(self, buf: bytes, pos: int) -> int:
        """Reads the literal's bytes from `pos`; returns where scanning goes on."""
        end = len(buf)
        start = pos
        if self._escaped:
            start += 1
            self._escaped = False
        quote = bytes((self._quote,))
        closed = -1
        search = start
        while True:
            found = buf.find(quote, search)
            if found < 0:
                break
            run = found
            while run > start and buf[run - 1] == _BACKSLASH:
                run -= 1
            if (found - run) % 2 == 0:
                closed = found
                break
            search = found + 1
        stop = end if closed < 0 else closed
        if buf.find(b"\n", pos, stop) >= 0:
            raise self._error(self._string_line, "a string literal is not closed on its line")
        if closed < 0:
            run = end
            while run > start and buf[run - 1] == _BACKSLASH:
                run -= 1
            self._escaped = (end - run) % 2 == 1
        self._add_to_string(buf[pos:stop])
        if closed < 0:
            return end
        self._close_string()
        return closed + 1

    def _add_to_string(self, piece: bytes) -> None:
        self._string_size += len(piece)
        if self._cutting:
            return
        self._string.append(piece)
        if self._string_size > STRING_LIMIT:
            self._cutting = True
            self._string = []

    def _close_string(self) -> None:
        if self._cutting:
            self.cut.count += 1
            self.cut.bytes += self._string_size
            name = self._string_field.decode("ascii")
            if name not in self.cut.fields:
                self.cut.fields.append(name)
            self._keep(b'""')
        else:
            self._string.append(bytes((self._quote,)))
            self._keep(b"".join(self._string))
        self._quote = 0
        self._string = []

    # --- pending text ----------------------------------------------------------------------------

    def _keep(self, piece: bytes) -> None:
        if piece:
            self._pending.append(piece)
            self._pending_size += len(piece)
            self._line += piece.count(b"\n")

    def _flush(self) -> Segment:
        segment = Segment(self._container, self._segment_line, b"".join(self._pending))
        self._pending = []
        self._pending_size = 0
        self._segment_line = self._line
        return segment

    def _tail(self, size: int = 128) -> bytes:
        if self._pending and len(self._pending[-1]) >= size:
            return self._pending[-1][-size:]
        pieces: List[bytes] = []
        have = 0
        for piece in reversed(self._pending):
            pieces.append(piece[-(size - have) :])
            have += len(pieces[-1])
            if have >= size:
                break
        return b"".join(reversed(pieces))

    def _name_before(self) -> Tuple[bytes, int]:
        """The field name that the pending text ends with (`name`, `name:`, `name: ` ...) and how
        many trailing bytes it takes up; (b"", 0) when it ends otherwise. Walked backwards by hand:
        a regex anchored at the end still tries every start position (a quarter of the read time)."""
        tail = self._tail()
        end = len(tail.rstrip())
        if end and tail[end - 1] == _COLON:
            end = len(tail[: end - 1].rstrip())
        start = end
        while start > 0 and tail[start - 1] in _IDENTIFIER:
            start -= 1
        if start == end or tail[start] in _DIGITS:
            return b"", 0
        return tail[start:end], len(tail) - start

    def _drop_tail(self, count: int) -> None:
        while count:
            last = self._pending.pop()
            taken = min(count, len(last))
            if taken < len(last):
                self._pending.append(last[:-taken])
            self._pending_size -= taken
            count -= taken

    def _error(self, line: int, problem: str) -> GraphFormatError:
        return GraphFormatError(self._source, f"line {line}: {problem}")
