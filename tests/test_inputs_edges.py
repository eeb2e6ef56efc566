"""Edge values through the API and the command line: a number beyond a double, a lone
surrogate, a file name that is not UTF-8."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main
from lmml_mdit.errors import InputError

TEMPLATE = (
    "---\ninputs: {n: number, s: string, o: object}\n---\n## user\n\n{{ n }} {{ s }} {{ o }}\n"
)


@pytest.mark.parametrize(
    ("values", "name", "words"),
    [
        ({"n": 10**400, "s": "x", "o": {}}, "n", "too large"),
        ({"n": 1, "s": "\udcff", "o": {}}, "s", "lone surrogate"),
        ({"n": 1, "s": "x", "o": {"k": ["\ud800"]}}, "o", "lone surrogate"),
        ({"n": 1, "s": "x", "o": {"k": [1, 10**400]}}, "o", "too large for JSON readers"),
        ({"n": 1, "s": "x", "o": {"k": {"\ud800": 1}}}, "o", "lone surrogate"),
    ],
)
def test_unwritable_values_are_input_errors_naming_the_input(
    values: dict[str, object], name: str, words: str
) -> None:
    bundle = lmml_mdit.Bundle.from_text("t.lmml", TEMPLATE)
    with pytest.raises(InputError, match=words) as caught:
        bundle.to_request("openai", model="m", inputs=values)
    assert caught.value.name == name
    results = list(lmml_mdit.render_cases(bundle, [values], model="m"))
    assert results[0].kind == "invalid_input"


@pytest.mark.skipif(os.name == "nt", reason="POSIX file names are bytes")
def test_new_takes_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    path = os.path.join(os.fsdecode(tmp_path), os.fsdecode(b"\xff\xfe-chat.lmml"))
    assert main(["new", path, "-q"]) == 0
    with open(path, encoding="utf-8") as stream:
        assert stream.read().startswith("# \ufffd\ufffd-chat")


def test_deep_flow_yaml_is_refused_where_the_depth_is_crossed_not_after_a_full_scan() -> None:
    from lmml_mdit.bundle import load_settings
    from lmml_mdit.errors import InvalidSettingsError

    # Open brackets, then a token no scanner accepts: refused at the 65th bracket, before
    # the scanner reads on (each open bracket keeps a key pending, so PyYAML alone scans
    # ahead, here to the '@', at a cost that grows with the square of the brackets).
    data = b"[" * 100 + b" @x"
    with pytest.raises(InvalidSettingsError, match="nests deeper than 64") as caught:
        load_settings(data, name="settings.yaml", line=1)
    assert ":1:65:" in str(caught.value)


def test_an_integer_given_as_a_whole_float_is_written_as_an_integer() -> None:
    template = "---\ninputs: {n: {type: integer, default: 2.0}}\n---\n## user\n\nn={{ n }}\n"
    bundle = lmml_mdit.Bundle.from_text("t.lmml", template)
    [message] = bundle.messages("openai", inputs={"n": 3.0})
    assert message["content"] == [{"type": "text", "text": "n=3"}]
    [message] = bundle.messages("openai")
    assert message["content"] == [{"type": "text", "text": "n=2"}]


def _self_holding() -> dict[str, object]:
    value: dict[str, object] = {}
    value["again"] = [value]
    return value


def _nested(levels: int) -> list[object]:
    value: list[object] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (_self_holding(), "holds itself"),
        (_nested(100_000), "nests deeper than"),
    ],
)
def test_a_value_no_json_can_write_is_an_input_error_not_a_hang_or_a_traceback(
    value: object, words: str
) -> None:
    # A value holding itself used to loop for ever in the check; one nested 100,000 deep
    # escaped as a RecursionError from the JSON encoder.
    bundle = lmml_mdit.Bundle.from_text("t.lmml", TEMPLATE)
    values = {"n": 1, "s": "x", "o": {"k": value}}
    with pytest.raises(InputError, match=words) as caught:
        bundle.to_request("openai", model="m", inputs=values)
    assert caught.value.name == "o"
    results = list(lmml_mdit.render_cases(bundle, [values], model="m"))
    assert results[0].kind == "invalid_input"


def test_values_shared_but_not_circular_are_sent() -> None:
    shared = {"a": [1, 2]}
    bundle = lmml_mdit.Bundle.from_text("t.lmml", TEMPLATE)
    values = {"n": 1, "s": "x", "o": {"k": [shared, shared], "deep": _nested(50)}}
    [message] = bundle.messages("openai", inputs=values)
    assert '"k": [{"a": [1, 2]}, {"a": [1, 2]}]' in message["content"][0]["text"]
