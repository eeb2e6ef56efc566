"""The reserved embeds: one module per embed, found in this package, and the registry of them.

Every public module of this package that defines ``EMBED``, a :class:`ReservedEmbed`, is one
(:mod:`~lmml_mdit.bundle.reserved_embeds.manifest`,
:mod:`~lmml_mdit.bundle.reserved_embeds.front_matter`,
:mod:`~lmml_mdit.bundle.reserved_embeds.settings`), taken in the order of its ``order``.
Everything that must know the reserved embeds reads them here: :data:`RESERVED_NAMES`
(what is left out of the conversation), validation (each one's decoding and check), and
the severity table, which each one's issue kinds join on import.
"""

from __future__ import annotations

import importlib
import os

from ...severity import declare_kinds
from .base import Check, Decoder, ReservedEmbed, Value

__all__ = [
    "RESERVED_EMBEDS",
    "RESERVED_NAMES",
    "Check",
    "Decoder",
    "ReservedEmbed",
    "Value",
]


def _module_names() -> list[str]:
    """The names of this package's modules: its folder listed (``pkgutil`` costs
    ``lmml validate`` half a millisecond to import), or for a package imported from a zip
    archive, which has no folder, as ``pkgutil`` finds them."""
    names: set[str] = set()
    for folder in __path__:
        try:
            entries = os.listdir(folder)
        except OSError:
            import pkgutil

            return sorted(info.name for info in pkgutil.iter_modules(__path__))
        names.update(entry[:-3] for entry in entries if entry.endswith(".py"))
    return sorted(names)


def _declarations() -> tuple[ReservedEmbed, ...]:
    """The ``EMBED`` of each public module of this package, by ``order`` (then name);
    two that reserve one name, or declare one kind, are refused."""
    found: list[ReservedEmbed] = []
    for name in _module_names():
        if name.startswith("_"):
            continue
        embed = getattr(importlib.import_module(f"{__name__}.{name}"), "EMBED", None)
        if isinstance(embed, ReservedEmbed):
            found.append(embed)
    for what, values in (
        ("name", [embed.name for embed in found]),
        ("entry name", [name for embed in found for name in embed.entry_names]),
        ("issue kind", [kind for embed in found for kind in embed.kinds]),
    ):
        repeated = sorted({value for value in values if values.count(value) > 1})
        if repeated:
            raise RuntimeError(f"two reserved embeds declare the {what} {', '.join(repeated)}")
    return tuple(sorted(found, key=lambda embed: (embed.order, embed.name)))


RESERVED_EMBEDS: tuple[ReservedEmbed, ...] = _declarations()
"""Every reserved embed, in order."""

RESERVED_NAMES: tuple[str, ...] = tuple(
    name for embed in RESERVED_EMBEDS for name in embed.entry_names
)
"""The entry names that are a bundle's own (``manifest.json``, the settings), never an
asset of the conversation."""

for _embed in RESERVED_EMBEDS:
    declare_kinds(_embed.kinds)
