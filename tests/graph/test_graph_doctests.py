"""Every public function of the graph package documents itself with a runnable example (the examples
themselves run in tests/docs/test_doctests.py, with every other module's)."""

import opdiff.graph


def test_every_public_graph_name_has_an_example():
    for name in opdiff.graph.__all__:
        obj = getattr(opdiff.graph, name)
        if callable(obj) and not isinstance(obj, type):
            assert ">>>" in (obj.__doc__ or ""), name
