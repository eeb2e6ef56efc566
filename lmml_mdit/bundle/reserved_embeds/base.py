"""What declares a reserved embed: :class:`ReservedEmbed`, its name, how it decodes, how it
is checked and the issue kinds it raises, each with its severity."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from ...errors import BundleError
from ...jsontypes import JSONObject
from ...model import Issue
from ...severity import Rule
from .._contents import has_reserved

if TYPE_CHECKING:
    from .._contents import BundleContents

__all__ = ["Check", "Decoder", "ReservedEmbed", "Value"]

Decoder = Callable[[bytes, str, "int | None"], JSONObject]
"""How an embed's bytes decode: ``(data, name, line)``, *line* the narrative line its
content starts on (an inline fence) or None (an entry, whose lines count from 1); raises
the declaration's ``error`` for content that does not decode."""

Value = Callable[["BundleContents"], "JSONObject | None"]
"""The embed decoded from a bundle, or None when the bundle has none."""

Check = Callable[["BundleContents", "JSONObject | None"], Iterable[Issue]]
"""What validation finds about the embed beyond its decoding: given the bundle and the
decoded value (None when absent or not decoded), the issues, in order."""


def _no_issues(bundle: BundleContents, value: JSONObject | None) -> list[Issue]:
    return []


class ReservedEmbed:
    """One reserved embed, declared once: everything the package knows of it. Frozen: its
    attributes are set once, by keyword (a plain class with slots rather than a dataclass:
    making a dataclass costs ``lmml validate`` a millisecond at start-up).

    Its entry names leave it out of the conversation (packing, saving, the preview, the
    messages ask ``RESERVED_NAMES``, read from these declarations), ``validate`` reports
    what does not decode as *invalid_kind* and runs its *check*, and its *kinds* join the
    severity table (:data:`lmml_mdit.severity.KIND_RULES`).

    :ivar name: what its issues name when its error names nothing (``settings``).
    :ivar order: its place among the declarations (lowest first): the order of
        ``RESERVED_NAMES`` and of its issues among those of other reserved embeds.
    :ivar entry_names: the entry and fence names reserved for it; none for an embed that
        is not an entry (the front matter).
    :ivar kinds: every issue kind it raises, each with its rule (severity, on send).
    :ivar invalid_kind: the kind (one of *kinds*) of content that does not decode.
    :ivar error: the error its decoding raises for such content; any other
        :class:`~lmml_mdit.errors.BundleError` (an unresolvable reference) is left to the
        cross-check, which reports it already.
    :ivar decode: how its bytes decode, for an embed that is one entry or fence.
    :ivar value: how a bundle gives it decoded, when that is more than decoding its bytes
        (the bundle's cached ``manifest``, ``settings`` merged over the front matter); by
        default its first entry name the bundle has, decoded by *decode*.
    :ivar check: what validation finds beyond its decoding (:data:`Check`).
    """

    __slots__ = (
        "check",
        "decode",
        "entry_names",
        "error",
        "invalid_kind",
        "kinds",
        "name",
        "order",
        "value",
    )

    name: str
    order: int
    entry_names: tuple[str, ...]
    kinds: Mapping[str, Rule]
    invalid_kind: str
    error: type[BundleError]
    decode: Decoder | None
    value: Value | None
    check: Check

    def __init__(
        self,
        *,
        name: str,
        order: int,
        entry_names: tuple[str, ...],
        kinds: Mapping[str, Rule],
        invalid_kind: str,
        error: type[BundleError],
        decode: Decoder | None = None,
        value: Value | None = None,
        check: Check = _no_issues,
    ) -> None:
        if invalid_kind not in kinds:
            raise ValueError(f"{name}: its invalid_kind {invalid_kind!r} is not a kind")
        if decode is None and value is None:
            raise ValueError(f"{name}: a reserved embed needs a decode or a value")
        given = {
            "name": name,
            "order": order,
            "entry_names": tuple(entry_names),
            "kinds": MappingProxyType(dict(kinds)),
            "invalid_kind": invalid_kind,
            "error": error,
            "decode": decode,
            "value": value,
            "check": check,
        }
        for attribute, held in given.items():
            object.__setattr__(self, attribute, held)

    def __setattr__(self, attribute: str, held: object) -> None:
        raise AttributeError(f"a ReservedEmbed is frozen: {attribute} cannot be set")

    def __delattr__(self, attribute: str) -> None:
        raise AttributeError(f"a ReservedEmbed is frozen: {attribute} cannot be deleted")

    def __repr__(self) -> str:
        return f"ReservedEmbed(name={self.name!r}, order={self.order})"

    def read(self, bundle: BundleContents) -> JSONObject | None:
        """The embed decoded from *bundle*, or None when *bundle* has none.

        :raises BundleError: *error* for content that does not decode; another for a
            reference that does not resolve.
        """
        if self.value is not None:
            return self.value(bundle)
        assert self.decode is not None
        for name in self.entry_names:
            if has_reserved(bundle, name):
                fence = bundle.fences.get(name)
                line = fence.line + 1 if fence is not None else None
                return self.decode(bundle.embed(name), name, line)
        return None
