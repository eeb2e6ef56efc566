"""The reading modes a parse takes, as names: how strictly a heading opens a turn and which
``@name`` is a reference. A module of its own so that the command line's parser names the
choices without loading the syntax (and markdown-it) to print ``--help``."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: ``lmml --help`` reads this module and no more
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    DelimiterMode: TypeAlias = Literal["strict", "loose"]
    ReferenceMode: TypeAlias = Literal["assets", "any"]

__all__ = ["DELIMITER_MODES", "REFERENCE_MODES", "DelimiterMode", "ReferenceMode"]

DELIMITER_MODES: tuple[DelimiterMode, ...] = ("strict", "loose")
REFERENCE_MODES: tuple[ReferenceMode, ...] = ("assets", "any")


def __getattr__(name: str) -> object:
    """``DelimiterMode`` and ``ReferenceMode`` at run time: the ``Literal`` of the choices
    above, made (and ``typing`` imported) on first use."""
    choices = {"DelimiterMode": DELIMITER_MODES, "ReferenceMode": REFERENCE_MODES}.get(name)
    if choices is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal

    alias = Literal[choices]  # type: ignore[valid-type]
    globals()[name] = alias
    return alias
