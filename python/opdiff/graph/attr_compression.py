"""Attribute name/value compression of offline ATC builds (docs/reference/om-layout.md §2.1).

Compressed keys are "\\0" followed by base-127 digits, least significant first, each stored as digit+1.
A name whose flag in `attrs_use_string_value` is set also has its string values replaced by indices
into `attr_value_enum`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from opdiff.graph.proto import ge_ir_pb2 as ge

COMPRESS_VERSION = "om_compress_version"
NAME_ENUM = "attr_name_enum"
VALUE_ENUM = "attr_value_enum"
USE_STRING_VALUE = "attrs_use_string_value"
_BASE = 127


def is_encoded_key(key: str) -> bool:
    """True for a compressed attribute key."""
    return key.startswith("\0")


def decode_key(key: str) -> int:
    """The dictionary position a compressed key stands for.

    >>> decode_key("\\x00\\x01"), decode_key("\\x00\\x15"), decode_key("\\x00\\x01\\x02")
    (0, 20, 127)
    """
    digits = key[1:]
    if not is_encoded_key(key) or not digits:
        raise ValueError(f"{key!r} is not a compressed attribute key")
    position = 0
    for weight, char in enumerate(digits):
        digit = ord(char) - 1
        if not 0 <= digit < _BASE:
            raise ValueError(f"compressed attribute key {key!r} has a digit outside 1..127")
        position += digit * _BASE**weight
    return position


def encode_key(position: int) -> str:
    """The compressed key of dictionary position `position` (0 encodes as one digit).

    >>> encode_key(20) == "\\x00\\x15"
    True
    """
    if position < 0:
        raise ValueError("dictionary positions are not negative")
    digits = []
    while True:
        position, digit = divmod(position, _BASE)
        digits.append(chr(digit + 1))
        if position == 0:
            return "\0" + "".join(digits)


@dataclass(frozen=True)
class AttrDictionary:
    """The dictionaries one ModelDef carries."""

    names: Tuple[str, ...]
    values: Tuple[str, ...]
    use_string_value: Tuple[bool, ...]

    def flags_value(self, position: int) -> bool:
        """Whether values of the name at `position` are indices into `values`."""
        return position < len(self.use_string_value) and self.use_string_value[position]


def dictionary_of(model_def: ge.ModelDef) -> Optional[AttrDictionary]:
    """The compression dictionaries of `model_def`, or None when it is not compressed."""
    attrs = model_def.attr
    if COMPRESS_VERSION not in attrs and NAME_ENUM not in attrs:
        return None
    return AttrDictionary(
        names=tuple(_text(s) for s in attrs[NAME_ENUM].list.s) if NAME_ENUM in attrs else (),
        values=tuple(_text(s) for s in attrs[VALUE_ENUM].list.s) if VALUE_ENUM in attrs else (),
        use_string_value=tuple(attrs[USE_STRING_VALUE].list.b) if USE_STRING_VALUE in attrs else (),
    )


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


class KeyDecoder:
    """Resolves compressed keys: the model's own dictionary first, then the root model's.

    A sub-model's own dictionary may hold keys that are themselves encoded against the root's
    ("double-encoded"); those are resolved once more with the root dictionary.
    """

    def __init__(self, own: Optional[AttrDictionary], root: Optional[AttrDictionary]) -> None:
        self._own = own
        self._root = root
        # key -> (plain name, value dictionary when the name's string values are enumerated).
        # Readers look here first (a plain dict lookup per key) and call decode() on a miss.
        self.decoded: Dict[str, Tuple[str, Optional[Tuple[str, ...]]]] = {}

    @property
    def active(self) -> bool:
        """False when neither model is compressed (keys are plain names)."""
        return self._own is not None or self._root is not None

    def decode(self, key: str) -> Tuple[str, Optional[Tuple[str, ...]]]:
        """(plain name, enumerated string values or None) of `key`; plain keys name themselves.

        >>> names = AttrDictionary(("_datadump_origin_name",), ("relu1",), (True,))
        >>> KeyDecoder(names, None).decode("\\x00\\x01")
        ('_datadump_origin_name', ('relu1',))
        """
        name, dictionary, position = self.resolve(key)
        values = dictionary.values if dictionary is not None and dictionary.flags_value(position) else None
        self.decoded[key] = (name, values)
        return name, values

    def resolve(self, key: str) -> Tuple[str, Optional[AttrDictionary], int]:
        """(name, dictionary that named it, position there); plain keys give (key, None, -1)."""
        return self._resolve(key)

    def _resolve(self, key: str) -> Tuple[str, Optional[AttrDictionary], int]:
        if not is_encoded_key(key):
            return key, None, -1
        dictionary = self._own or self._root
        if dictionary is None:
            raise ValueError(f"compressed attribute key {key!r} but the model has no {NAME_ENUM}")
        position = self._lookup(dictionary, key)
        name = dictionary.names[position]
        if is_encoded_key(name) and self._root is not None and dictionary is not self._root:
            dictionary, position = self._root, self._lookup(self._root, name)
            name = dictionary.names[position]
        return name, dictionary, position

    @staticmethod
    def _lookup(dictionary: AttrDictionary, key: str) -> int:
        position = decode_key(key)
        if not dictionary.names:
            raise ValueError(f"compressed attribute key {key!r} but the model has no {NAME_ENUM}")
        if position >= len(dictionary.names):
            raise ValueError(f"compressed attribute key {key!r} points past the name dictionary ({len(dictionary.names)} names)")
        return position
