"""The documented path ``lmml_mdit.bundle.setting_values``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_setting_values`` (see docs/architecture.md)."""

from __future__ import annotations

from ._setting_values import (
    INVALID_SETTING,
    SETTING_OUT_OF_RANGE,
    check_setting_values,
    json_value_offsets,
    problem_message,
    range_problems,
    setting_issues,
    setting_problems,
    settings_embed_source,
    settings_value_positions,
)

__all__ = [
    "INVALID_SETTING",
    "SETTING_OUT_OF_RANGE",
    "check_setting_values",
    "json_value_offsets",
    "problem_message",
    "range_problems",
    "setting_issues",
    "setting_problems",
    "settings_embed_source",
    "settings_value_positions",
]
