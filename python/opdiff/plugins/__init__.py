"""Plug-ins with the reference tool's contract (``-c DIR``, ``-a``): custom algorithms and format
converters read from a folder, or given as Python functions (docs/plugins.md). A plug-in is code:
it runs with the rights of whoever runs opdiff.

>>> from opdiff.plugins import parse_algorithm_options
>>> parse_algorithm_options("Peak:scale=2")
{'Peak': {'scale': '2'}}

The names are imported from their modules on first use (PEP 562), as in the `opdiff` package.
"""

from opdiff._lazy_exports import lazy_exports

_EXPORTS = {
    "PluginError": "opdiff.plugins.folder",
    "PluginScript": "opdiff.plugins.folder",
    "Plugins": "opdiff.plugins.folder",
    "parse_algorithm_options": "opdiff.plugins.folder",
    "read_plugins": "opdiff.plugins.folder",
}

# The public names are the table's keys (__init__.pyi imports each one for type checkers;
# tests/package/test_public_api.py keeps the two equal).
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
