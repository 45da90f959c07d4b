"""The runnable examples in the graph package's docstrings run and give what they show."""

import doctest
import importlib
import pkgutil

import pytest

import opdiff.graph
import opdiff.testing

MODULES = sorted(
    [f"opdiff.graph.{m.name}" for m in pkgutil.iter_modules(opdiff.graph.__path__) if m.name != "proto"]
    + ["opdiff.testing.model_defs", "opdiff.testing.om_writer", "opdiff.testing.attr_compressor"]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_every_public_graph_name_has_an_example():
    for name in opdiff.graph.__all__:
        obj = getattr(opdiff.graph, name)
        if callable(obj) and not isinstance(obj, type):
            assert ">>>" in (obj.__doc__ or ""), name
