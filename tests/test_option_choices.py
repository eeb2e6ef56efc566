"""The send options that take one of a few values: each set of values is one ``Literal``
type of :mod:`lmml_mdit.chat`, and the typed options, the run-time check and the command
line's choices all read it."""

from __future__ import annotations

import re
from typing import Literal, get_args, get_origin, get_type_hints

import pytest

from lmml_mdit.chat import (
    ATTACHMENT_LINES_CHOICES,
    CONTEXT_CHOICES,
    IMAGE_DETAIL_CHOICES,
    MIDWAY_SYSTEM_CHOICES,
    ON_OMIT_CHOICES,
    SYSTEM_CHOICES,
    TEXT_EMBEDS_CHOICES,
    TOOL_RESULT_IMAGES_CHOICES,
    UNKNOWN_SETTINGS_CHOICES,
    AttachmentLines,
    ContextPlacement,
    ImageDetail,
    MidwaySystem,
    OnOmit,
    Options,
    RequestOptions,
    SystemPlacement,
    TextEmbeds,
    ToolResultImages,
    UnknownSettings,
)
from tests._cli import help_text

OPTIONS: dict[str, tuple[object, tuple[str, ...], bool]] = {
    "context": (ContextPlacement, CONTEXT_CHOICES, False),
    "system": (SystemPlacement, SYSTEM_CHOICES, True),
    "midway_system": (MidwaySystem, MIDWAY_SYSTEM_CHOICES, False),
    "attachment_lines": (AttachmentLines, ATTACHMENT_LINES_CHOICES, False),
    "on_omit": (OnOmit, ON_OMIT_CHOICES, False),
    "image_detail": (ImageDetail, IMAGE_DETAIL_CHOICES, True),
    "text_embeds": (TextEmbeds, TEXT_EMBEDS_CHOICES, True),
    "tool_result_images": (ToolResultImages, TOOL_RESULT_IMAGES_CHOICES, False),
    "unknown_settings": (UnknownSettings, UNKNOWN_SETTINGS_CHOICES, False),
}
"""Each option by name: its type, its tuple, and whether None is taken besides."""

COMMAND_LINE = {
    ("render", "--context"): ContextPlacement,
    ("render", "--system"): SystemPlacement,
    ("render", "--midway-system"): MidwaySystem,
    ("render", "--attachment-lines"): AttachmentLines,
    ("render", "--on-omit"): OnOmit,
    ("render", "--text-embeds"): TextEmbeds,
    ("render", "--image-detail"): ImageDetail,
    ("render", "--unknown-settings"): UnknownSettings,
    ("export", "--unknown-settings"): UnknownSettings,
}


def _help_choices(help: str, flag: str) -> tuple[str, ...]:
    """The choices ``--help`` shows for *flag*, in their order."""
    found = re.search(rf"^  {re.escape(flag)} \{{([^}}]*)\}}", help, re.MULTILINE)
    assert found is not None, flag
    return tuple(found[1].split(","))


@pytest.mark.parametrize(("command", "flag"), list(COMMAND_LINE))
def test_the_command_line_offers_the_option_s_values_in_order(
    capsys: pytest.CaptureFixture[str], command: str, flag: str
) -> None:
    shown = _help_choices(help_text(capsys, command, "--help"), flag)
    assert shown == get_args(COMMAND_LINE[command, flag])


def test_the_tables_list_every_option_that_takes_one_of_a_few_values() -> None:
    """Every option of ``Options`` typed with a ``Literal`` is in ``OPTIONS``, and each that
    ``lmml render`` offers in ``COMMAND_LINE`` (``tool_result_images`` alone has no flag)."""
    literal = {
        name
        for name, hint in get_type_hints(Options).items()
        if any(get_origin(kind) is Literal for kind in (hint, *get_args(hint)))
    }
    assert literal == set(OPTIONS)
    flags = {flag.removeprefix("--").replace("-", "_") for _, flag in COMMAND_LINE}
    assert set(OPTIONS) - flags == {"tool_result_images"}


@pytest.mark.parametrize("name", list(OPTIONS))
def test_each_tuple_is_its_type_s_values(name: str) -> None:
    kind, choices, _ = OPTIONS[name]
    assert choices == get_args(kind)


@pytest.mark.parametrize("name", list(OPTIONS))
def test_the_typed_options_and_the_checked_ones_take_the_type(name: str) -> None:
    kind, _, takes_none = OPTIONS[name]
    expected = kind | None if takes_none else kind  # type: ignore[operator]
    assert get_type_hints(RequestOptions)[name] == expected
    assert get_type_hints(Options)[name] == expected


@pytest.mark.parametrize("name", list(OPTIONS))
def test_the_run_time_check_takes_each_value_and_names_them_in_order(name: str) -> None:
    _, choices, takes_none = OPTIONS[name]
    allowed = (None, *choices) if takes_none else choices
    for value in allowed:
        assert getattr(Options.from_kwargs({name: value}), name) == value
    with pytest.raises(ValueError, match=re.escape(f"{name} must be one of {allowed!r}")):
        Options.from_kwargs({name: "bogus"})
