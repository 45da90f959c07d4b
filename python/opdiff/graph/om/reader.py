"""Reading .om offline models: header, partition tables, MODEL_DEF, attribute decompression."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import List, Optional, Tuple, Union

from opdiff.graph.attr_compression import AttrDictionary, dictionary_of
from opdiff.graph.errors import GraphFormatError
from opdiff.graph.fusion_map import FusionMap
from opdiff.graph.model_def import fusion_map_of_model_def, parse_model_def
from opdiff.graph.model_facts import ModelFacts, model_facts, string_attrs_of_model_def
from opdiff.graph.om.header import HEADER_SIZE, OmHeader, parse_header
from opdiff.graph.om.partitions import PartitionType, SubModel, walk_submodels
from opdiff.graph.proto import ge_ir_pb2 as ge

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class OmModel:
    """A decoded .om file: header, sub-models, their ModelDefs (None where a sub-model has none).

    `fusion_map` is built from the first ModelDef (the root graph plus all its subgraphs), as
    `atc --mode=1` does; `submodel_fusion_map(i)` gives another sub-model's own copy.
    """

    path: str
    header: OmHeader
    submodels: Tuple[SubModel, ...]
    model_defs: Tuple[Optional[ge.ModelDef], ...] = field(repr=False)
    warnings: Tuple[str, ...]

    @property
    def root_index(self) -> int:
        """Index of the sub-model whose ModelDef is the root."""
        return next(i for i, model_def in enumerate(self.model_defs) if model_def is not None)

    @cached_property
    def dictionaries(self) -> Tuple[Optional[AttrDictionary], ...]:
        """Each sub-model's own compression dictionaries (None when it has none or no ModelDef)."""
        return tuple(None if model_def is None else dictionary_of(model_def) for model_def in self.model_defs)

    @property
    def root_dictionary(self) -> Optional[AttrDictionary]:
        """The root ModelDef's compression dictionaries (None when uncompressed)."""
        return self.dictionaries[self.root_index]

    @cached_property
    def facts(self) -> ModelFacts:
        """What the root ModelDef records of its build (ATC command line, soc_version, ...)."""
        root = self.model_defs[self.root_index]
        assert root is not None  # root_index picks a sub-model with a ModelDef
        return model_facts(string_attrs_of_model_def(root))

    @cached_property
    def fusion_map(self) -> FusionMap:
        """The FusionMap of the root ModelDef (built on first use, then kept)."""
        return self.submodel_fusion_map(self.root_index)

    def submodel_fusion_map(self, index: int) -> FusionMap:
        """The FusionMap of sub-model `index`, its own dictionaries tried before the root's."""
        model_def = self.model_defs[index]
        if model_def is None:
            raise GraphFormatError(self.path, f"sub-model {index} has no MODEL_DEF partition")
        return fusion_map_of_model_def(
            model_def, self.path, own=self.dictionaries[index], root=self.root_dictionary, warnings=self.warnings
        )


def read_om(path: PathLike) -> OmModel:
    """Decode the .om file at `path`.

    >>> import tempfile, os
    >>> from opdiff.graph.model_def_builder import simple_model_def
    >>> from opdiff.graph.om.writer import write_om
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = write_om(os.path.join(folder, "m.om"), [[(0, simple_model_def().SerializeToString())]])
    ...     read_om(target).fusion_map.ops[0].name
    'x'
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise GraphFormatError(source, f"cannot open: {error.strerror or error}") from None
    header = parse_header(data, source)
    submodels, notes = walk_submodels(data, header, source)
    view = memoryview(data)
    model_defs: List[Optional[ge.ModelDef]] = []
    for submodel in submodels:
        partition = submodel.find(PartitionType.MODEL_DEF)
        if partition is None:
            model_defs.append(None)
            continue
        payload = view[partition.offset : partition.offset + partition.size]
        model_defs.append(parse_model_def(payload, source, f"MODEL_DEF of sub-model {submodel.index}"))
    if all(model_def is None for model_def in model_defs):
        raise GraphFormatError(source, "no MODEL_DEF partition in any sub-model")
    return OmModel(source, header, submodels, tuple(model_defs), notes)


def read_om_fusion_map(path: PathLike) -> FusionMap:
    """The FusionMap of the .om file at `path` (its root ModelDef)."""
    return read_om(path).fusion_map


__all__ = ["HEADER_SIZE", "OmModel", "read_om", "read_om_fusion_map"]
