"""The wanted attributes of attribute maps with compressed keys, found without a Python step per key."""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Mapping, Set, Tuple

from opdiff.graph.attr_compression import KeyDecoder
from opdiff.graph.proto import ge_ir_pb2 as ge

Found = Tuple[Mapping[str, ge.AttrDef], Mapping[str, Tuple[str, ...]]]
_NOTHING: Mapping[str, Any] = {}


class CompressedAttrReader:
    """Reads the `wanted` attributes of compressed maps by plain name, with the value dictionaries of
    enumerated ones.

    Every key of every map is decoded, so that a key pointing past the dictionary is an error even on
    an attribute nobody reads; but each distinct key only once. A map is then matched against the
    keys seen so far with set operations, which run in C: an op carries a dozen attributes, a model
    50,000 ops.

    >>> from opdiff.graph.attr_compression import AttrDictionary, encode_key
    >>> model = ge.OpDef()
    >>> model.attr[encode_key(1)].s = b"relu1"
    >>> model.attr[encode_key(0)].i = 7
    >>> names = AttrDictionary(("_unrelated", "_datadump_origin_name"), (), ())
    >>> found, enumerated = CompressedAttrReader(KeyDecoder(names, None), frozenset({"_datadump_origin_name"})).read(model.attr)
    >>> found["_datadump_origin_name"].s, enumerated
    (b'relu1', {})
    """

    def __init__(self, decoder: KeyDecoder, wanted: FrozenSet[str]) -> None:
        self._decoder = decoder
        self._wanted = wanted
        self._seen: Set[str] = set()
        self._wanted_keys: Set[str] = set()  # seen keys whose plain name is wanted

    def read(self, attr_map: Any) -> Found:
        """(wanted attributes by plain name, value dictionaries of the enumerated ones)."""
        keys = set(attr_map)
        if not keys <= self._seen:
            self._learn(attr_map)
        hits = keys & self._wanted_keys
        if not hits:
            return _NOTHING, _NOTHING
        decoded = self._decoder.decoded
        found: Dict[str, ge.AttrDef] = {}
        enumerated: Dict[str, Tuple[str, ...]] = {}
        for key in hits:
            name, values = decoded[key]
            if name in found:  # two keys name one attribute: the map's own order decides, as it always did
                return self._in_map_order(attr_map)
            found[name] = attr_map[key]
            if values is not None:
                enumerated[name] = values
        return found, enumerated

    def _learn(self, attr_map: Any) -> None:
        # In map order, so that the first bad key is the one reported.
        decoder, decoded = self._decoder, self._decoder.decoded
        for key in attr_map:
            if key not in self._seen:
                name, _ = decoded.get(key) or decoder.decode(key)
                self._seen.add(key)
                if name in self._wanted:
                    self._wanted_keys.add(key)

    def _in_map_order(self, attr_map: Any) -> Found:
        found: Dict[str, ge.AttrDef] = {}
        enumerated: Dict[str, Tuple[str, ...]] = {}
        decoded = self._decoder.decoded
        for key in attr_map:
            name, values = decoded[key]
            if name in self._wanted:
                found[name] = attr_map[key]
                if values is not None:
                    enumerated[name] = values
        return found, enumerated
