"""Plug-ins with the reference tool's contract (``-c DIR``, ``-a``): custom algorithms and format
converters read from a folder, or given as Python functions (docs/plugins.md). A plug-in is code:
it runs with the rights of whoever runs opdiff."""

from opdiff.plugins.folder import PluginError, Plugins, PluginScript, parse_algorithm_options, read_plugins

__all__ = ["PluginError", "PluginScript", "Plugins", "parse_algorithm_options", "read_plugins"]
