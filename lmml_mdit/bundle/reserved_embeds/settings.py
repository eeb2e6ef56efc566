"""``settings.yaml``, ``settings.yml`` or ``settings.json``: request parameters, merged over
the front matter's ``settings:``, their values checked against the settings schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import BundleError, InvalidSettingsError
from ...jsontypes import JSONObject
from ...model import Issue
from .._reserved import SETTINGS_NAMES, load_settings
from .base import ReservedEmbed

if TYPE_CHECKING:
    from .._contents import BundleContents

__all__ = ["EMBED"]


def _decode(data: bytes, name: str, line: int | None) -> JSONObject:
    return load_settings(data, name=name, line=line)


def _value(bundle: BundleContents) -> JSONObject | None:
    return bundle.settings


def _value_issues(bundle: BundleContents, settings: JSONObject | None) -> list[Issue]:
    """The settings values the schema refuses or finds out of range (``invalid_setting``,
    ``setting_out_of_range``); the schema is loaded only for a bundle with settings to
    check, or settings that do not decode."""
    try:
        present = bool(bundle.settings)
    except BundleError:
        present = True
    if not present:
        return []
    from .._setting_values import setting_issues

    return setting_issues(bundle)


EMBED = ReservedEmbed(
    name="settings",
    order=30,
    entry_names=SETTINGS_NAMES,
    kinds={
        "invalid_settings": ("error", "refused"),
        "invalid_setting": ("error", "refused"),
        "setting_out_of_range": ("warning", "validated"),
    },
    invalid_kind="invalid_settings",
    error=InvalidSettingsError,
    decode=_decode,
    value=_value,
    check=_value_issues,
)
