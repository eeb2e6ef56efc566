"""The narrative's YAML front matter: metadata, never a turn; not an entry, so it reserves
no name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import InvalidSettingsError
from ...jsontypes import JSONObject
from .._reserved import FRONT_MATTER_NAME
from .base import ReservedEmbed

if TYPE_CHECKING:
    from .._contents import BundleContents

__all__ = ["EMBED"]


def _value(bundle: BundleContents) -> JSONObject | None:
    return bundle.front_matter


EMBED = ReservedEmbed(
    name=FRONT_MATTER_NAME,
    order=20,
    entry_names=(),
    kinds={"invalid_front_matter": ("error", "refused")},
    invalid_kind="invalid_front_matter",
    error=InvalidSettingsError,
    value=_value,
)
