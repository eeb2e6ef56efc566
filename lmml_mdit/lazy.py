"""Names a package imports on first use (PEP 562), so importing the package stays quick and
an optional extra is loaded only by the code that needs it; and the package's ``__all__``,
read from the same table."""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # not typing's: the package imports this module at start-up
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_attributes", "public_names"]


def lazy_attributes(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """The module ``__getattr__`` of *package*: each name in *names* imported from its
    module (relative to *package*) the first time it is read, then kept on the package.

    :param package: the package's ``__name__``.
    :param names: each name, by the module that defines it (``".arrow"``).
    """

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def public_names(names: Iterable[str]) -> list[str]:
    """A package's ``__all__``, computed at run time: *names* in the order ruff keeps a
    written ``__all__`` in (constants, then classes, then the rest, each alphabetical).

    A package assigns it under ``if not TYPE_CHECKING:``. Type checkers read the package's
    explicit re-exports (``from ._module import Name as Name``) instead: an ``__all__`` they
    cannot read would make every name private to them.
    """
    return sorted(
        names, key=lambda name: (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)
    )
