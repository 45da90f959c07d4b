"""Reading an `atc --mode=1` JSON (docs/reference/reference-tool.md §3.2) into a FusionMap."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from opdiff.graph import provenance as pv
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap, Op, OutputDesc, new_output_desc
from opdiff.graph.grouping import build_fusion_map

PathLike = Union[str, "os.PathLike[str]"]


def read_atc_json(path: PathLike) -> FusionMap:
    """The FusionMap of an atc JSON file.

    >>> import json, tempfile, os
    >>> doc = {"graph": [{"name": "g", "op": [{"name": "x", "type": "Data"}]}]}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "rule.json")
    ...     with open(path, "w") as f:
    ...         json.dump(doc, f)
    ...     read_atc_json(path).groups[0].relation.value
    'OneToOne'
    """
    source = os.fspath(path)
    return fusion_map_from_json(load_atc_json(source), source)


def load_atc_json(path: PathLike) -> Any:
    """The parsed JSON document at `path` (a UTF-8 BOM allowed); GraphFormatError when it is not JSON.

    >>> import codecs, os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "rule.json")
    ...     with open(path, "wb") as f:
    ...         _ = f.write(codecs.BOM_UTF8 + b'{"graph": []}')
    ...     load_atc_json(path)
    {'graph': []}
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            raw = handle.read()
        doc = json.loads(raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw)  # a BOM is not JSON
    except OSError as error:
        raise GraphFormatError(source, f"cannot open: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise GraphFormatError(source, f"not valid JSON ({error})") from None
    except UnicodeDecodeError as error:
        raise GraphFormatError(source, f"not valid UTF-8 JSON ({error.reason})") from None
    return doc


def fusion_map_from_json(doc: Any, source: str = "<json>") -> FusionMap:
    """The FusionMap of an already loaded atc JSON document; `source` names it in errors."""
    if not isinstance(doc, dict):
        raise GraphFormatError(source, "top level is not a JSON object")
    graphs = doc.get("graph")
    if not isinstance(graphs, list):
        raise GraphFormatError(source, "missing 'graph' array")
    parsed: List[Tuple[str, List[Op]]] = []
    for g, graph in enumerate(graphs):
        if not isinstance(graph, dict) or not isinstance(graph.get("op"), list):
            raise GraphFormatError(source, f"graph[{g}] has no 'op' array")
        graph_name = graph.get("name", "")
        if not isinstance(graph_name, str):
            raise GraphFormatError(source, f"graph[{g}].name is not a string")
        parsed.append((graph_name, [_op(op, source, (g, k), graph_name) for k, op in enumerate(graph["op"])]))
    name = doc.get("name", "")
    return build_fusion_map(name if isinstance(name, str) else "", parsed, source=source)


def _op(raw: Any, source: str, position: Tuple[int, int], graph: str) -> Op:
    # Where an error is, is written only when there is one: a rule of 200,000 ops has none.
    if not isinstance(raw, dict):
        raise GraphFormatError(source, f"graph[{position[0]}].op[{position[1]}] is not an object")
    name, type_ = raw.get("name"), raw.get("type")
    if not isinstance(name, str) or not isinstance(type_, str):
        raise GraphFormatError(source, f"graph[{position[0]}].op[{position[1]}] needs string 'name' and 'type'")
    id_ = raw.get("id", 0)
    if isinstance(id_, str) and id_.lstrip("-").isdigit():
        id_ = int(id_)  # protobuf's own JSON mapping writes int64 as strings
    if isinstance(id_, bool) or not isinstance(id_, int):
        raise GraphFormatError(source, f"op {name!r}: 'id' is not an integer")
    inputs = raw.get("input", [])
    if not isinstance(inputs, list) or not all(isinstance(text, str) for text in inputs):
        raise GraphFormatError(source, f"op {name!r}: 'input' is not an array of strings")
    attrs = _attrs(raw.get("attr"), source, name)
    descs = raw.get("output_desc", [])
    if not isinstance(descs, list):
        raise GraphFormatError(source, f"op {name!r}: 'output_desc' is not an array")
    try:
        return pv.make_op(
            name,
            type_,
            id_=id_,
            inputs=inputs,
            original_names=_original_names(attrs),
            output_descs=[_output_desc(desc, k, source, name) for k, desc in enumerate(descs)],
            l1_fusion_sub_graph_no=_string(attrs.get(pv.L1_FUSION_SUB_GRAPH_NO)),
            is_multiop=bool(_scalar(attrs.get(pv.IS_MULTIOP), "b", False)),
            graph=graph,
            )
    except (ValueError, TypeError) as error:
        raise GraphFormatError(source, f"op {name!r}: {error}") from None


def _attrs(raw: Any, source: str, op: str, desc: Optional[int] = None) -> Dict[str, Optional[Mapping[str, Any]]]:
    """The attr list of op `op` (of its output desc `desc`, when given) as a dict by key."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise GraphFormatError(source, f"{_where(op, desc)}: 'attr' is not an array")
    attrs: Dict[str, Optional[Mapping[str, Any]]] = {}
    for entry in raw:
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            raise GraphFormatError(source, f"{_where(op, desc)}: attr entry without a string 'key'")
        value = entry.get("value")
        if value is not None and not isinstance(value, dict):
            raise GraphFormatError(source, f"{_where(op, desc)}: attr {entry['key']!r} value is not an object")
        attrs[entry["key"]] = value
    return attrs


def _where(op: str, desc: Optional[int] = None) -> str:
    return f"op {op!r}" if desc is None else f"op {op!r} output_desc[{desc}]"


def _output_desc(raw: Any, position: int, source: str, op: str) -> OutputDesc:
    if not isinstance(raw, dict):
        raise GraphFormatError(source, f"{_where(op, position)} is not an object")
    attrs = _attrs(raw.get("attr"), source, op, position)
    dtype = raw.get("dtype", "")
    index = _scalar(attrs.get(pv.ORIGIN_OUTPUT_INDEX), "i", None)
    ge_origin_format = _string(attrs.get(pv.GE_ORIGIN_FORMAT))
    origin_format = _string(attrs.get(pv.ORIGIN_FORMAT)) or ge_origin_format
    shape_value = attrs.get(pv.ORIGIN_SHAPE)
    shape = None if pv.ORIGIN_SHAPE not in attrs else tuple(int(d) for d in _list(shape_value, "i") or ())
    return new_output_desc(_string(attrs.get(pv.ORIGIN_NAME)), position if index is None else int(index), origin_format, shape,
                           dtype if isinstance(dtype, str) else str(dtype), "" if ge_origin_format == origin_format else ge_origin_format)


def _original_names(attrs: Mapping[str, Optional[Mapping[str, Any]]]) -> Optional[Sequence[str]]:
    if pv.ORIGINAL_OP_NAMES not in attrs:
        return None
    names = _list(attrs[pv.ORIGINAL_OP_NAMES], "s")
    return [str(name) for name in names] if names else [""]


def _scalar(value: Optional[Mapping[str, Any]], kind: str, default: Any) -> Any:
    return default if value is None else value.get(kind, default)


def _string(value: Optional[Mapping[str, Any]]) -> str:
    text = _scalar(value, "s", "")
    if not isinstance(text, str):
        raise TypeError(f"string attribute holds {text!r}")
    return text


def _list(value: Optional[Mapping[str, Any]], kind: str) -> Optional[List[Any]]:
    if value is None:
        return None
    listed = value.get("list")
    if listed is None:
        return None
    if not isinstance(listed, dict):
        raise TypeError("'list' attribute value is not an object")
    items = listed.get(kind)
    if items is not None and not isinstance(items, list):
        raise TypeError(f"'list.{kind}' is not an array")
    return items
