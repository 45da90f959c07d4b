"""Compressing a ModelDef's op and tensor attributes the way offline ATC builds do (for tests).

Written from docs/reference/om-layout.md §2.1 independently of the reader in opdiff.graph.attr_compression.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, MutableMapping, Optional, Set

from opdiff.graph.proto import ge_ir_pb2 as ge

# Serializer-generated keys that real builds leave plain; everything else is encoded.
PLAIN_KEY_PREFIXES = ("_input_name_", "_output_name_", "_ir_", "_opt_input")


@dataclass
class Dictionaries:
    """The dictionaries a compressed ModelDef carries (mutable while being filled)."""

    names: List[str] = field(default_factory=list)
    values: List[str] = field(default_factory=list)
    use_string_value: List[bool] = field(default_factory=list)
    _name_index: Dict[str, int] = field(default_factory=dict, repr=False)
    _value_index: Dict[str, int] = field(default_factory=dict, repr=False)

    def name_position(self, name: str, enumerate_values: bool) -> int:
        if name not in self._name_index:
            self._name_index[name] = len(self.names)
            self.names.append(name)
            self.use_string_value.append(enumerate_values)
        return self._name_index[name]

    def value_position(self, value: bytes) -> int:
        text = value.decode()
        if text not in self._value_index:
            self._value_index[text] = len(self.values)
            self.values.append(text)
        return self._value_index[text]


def encoded_key(position: int) -> str:
    """"\\0" + base-127 digits, least significant first, each + 1."""
    digits = ""
    while True:
        digits += chr(position % 127 + 1)
        position //= 127
        if position == 0:
            return "\0" + digits


def compress(
    model: ge.ModelDef,
    *,
    enumerate_values: bool = True,
    root: Optional[Dictionaries] = None,
    own_dictionary: bool = True,
    double_encoded: bool = False,
) -> Dictionaries:
    """Compress `model` in place; returns the dictionary the keys were encoded against.

    With `root`, names are looked up (and added) there: the sub-model then carries no dictionary
    (`own_dictionary=False`), a plain copy of the root's, or with `double_encoded` its own list whose
    entries are themselves keys encoded against the root.
    """
    dictionary = root if root is not None else Dictionaries()
    flagged = _string_valued_names(model) if enumerate_values else set()
    own = Dictionaries() if double_encoded else None
    for attr_map in _attr_maps(model):
        for key in [k for k in attr_map if not k.startswith(PLAIN_KEY_PREFIXES)]:
            value = ge.AttrDef()
            value.CopyFrom(attr_map[key])
            del attr_map[key]
            position = dictionary.name_position(key, key in flagged)
            if dictionary.use_string_value[position]:
                _enumerate(value, dictionary)
            if own is not None:
                position = own.name_position(encoded_key(position), False)
            attr_map[encoded_key(position)].CopyFrom(value)
    written = own if own is not None else dictionary
    if root is None or own_dictionary:
        _store(model, written)
    return dictionary


def _string_valued_names(model: ge.ModelDef) -> Set[str]:
    kinds: Dict[str, bool] = {}
    for attr_map in _attr_maps(model):
        for key, value in attr_map.items():
            which = value.WhichOneof("value")
            is_string = which == "s" or (which == "list" and value.list.val_type == ge.AttrDef.ListValue.VT_LIST_STRING)
            kinds[key] = kinds.get(key, True) and is_string
    return {key for key, is_string in kinds.items() if is_string}


def _enumerate(value: ge.AttrDef, dictionary: Dictionaries) -> None:
    if value.WhichOneof("value") == "s":
        value.i = dictionary.value_position(value.s)
    else:
        indices = [dictionary.value_position(s) for s in value.list.s]
        del value.list.s[:]
        value.list.i.extend(indices)
        value.list.val_type = ge.AttrDef.ListValue.VT_LIST_INT


def _attr_maps(model: ge.ModelDef) -> Iterator[MutableMapping[str, ge.AttrDef]]:
    for graph in model.graph:
        for op in graph.op:
            yield op.attr
            for desc in list(op.input_desc) + list(op.output_desc):
                yield desc.attr


def _store(model: ge.ModelDef, dictionary: Dictionaries) -> None:
    model.attr["om_compress_version"].i = 1
    names = model.attr["attr_name_enum"].list
    names.val_type = ge.AttrDef.ListValue.VT_LIST_STRING
    names.s.extend(n.encode() for n in dictionary.names)
    values = model.attr["attr_value_enum"].list
    values.val_type = ge.AttrDef.ListValue.VT_LIST_STRING
    values.s.extend(v.encode() for v in dictionary.values)
    flags = model.attr["attrs_use_string_value"].list
    flags.val_type = ge.AttrDef.ListValue.VT_LIST_BOOL
    flags.b.extend(dictionary.use_string_value)
