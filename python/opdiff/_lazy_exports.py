"""PEP 562 lazy exports: a package's public names imported from their modules on first use."""

from importlib import import_module
from typing import Any, Callable, Dict, List, MutableMapping, Tuple


def lazy_exports(package: str, exports: Dict[str, str],
                 namespace: MutableMapping[str, Any]) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of `package`, whose public names are
    `exports` (name -> defining module); `namespace` is the package's ``globals()``, where a name is
    kept once imported, so later lookups skip ``__getattr__``."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> List[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
