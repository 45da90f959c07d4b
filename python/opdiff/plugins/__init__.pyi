"""Types of the names opdiff.plugins exports lazily (__init__.py)."""

from opdiff.plugins.folder import PluginError as PluginError
from opdiff.plugins.folder import Plugins as Plugins
from opdiff.plugins.folder import PluginScript as PluginScript
from opdiff.plugins.folder import parse_algorithm_options as parse_algorithm_options
from opdiff.plugins.folder import read_plugins as read_plugins
