"""The realistic corpus (tests/bridge_corpus/realistic/): every body survives import, save,
reopen and export to its own format, exactly or up to the documented normalisations, and
every export to another provider passes that provider's SDK request type or is refused
with a named UnsupportedContentError. The harness is tests/corpus_roundtrip.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import corpus_roundtrip
import pytest
from corpus_roundtrip import (
    EXPECTED_REFUSALS,
    MODEL,
    NORMALISERS,
    Outcome,
    corpus,
    cross_export,
    export,
    load,
    reopened,
    report,
    round_trip,
    run_corpus,
    sdk_check,
)

from lmml_mdit.chat.providers import EXPORT_PROVIDERS, PROVIDER_NAMES
from lmml_mdit.cli import main as lmml
from lmml_mdit.errors import UnsupportedContentError

BODIES = corpus()

#: Cross exports known to fail the target's SDK type, each with the defect. Kept exact: a
#: pair that starts passing, or a new failure, fails the test below.
KNOWN_CROSS_DEFECTS: dict[tuple[str, str, str], str] = {}


def test_the_corpus_has_at_least_100_bodies_in_every_format() -> None:
    assert len(BODIES) >= 100
    for fmt in EXPORT_PROVIDERS:
        assert sum(source == fmt for source, _ in BODIES) >= 10, fmt


@pytest.mark.parametrize(("fmt", "path"), BODIES, ids=[f"{f}/{p.stem}" for f, p in BODIES])
def test_round_trip_is_exact_or_normalised(fmt: str, path: Path) -> None:
    outcome = round_trip(fmt, path)
    key = f"{fmt}/{path.stem}"
    if key in EXPECTED_REFUSALS:
        assert outcome.kind == "refused" and EXPECTED_REFUSALS[key] in outcome.detail
        return
    assert outcome.kind in ("exact", "normalised"), outcome.detail


@pytest.mark.parametrize(("fmt", "path"), BODIES, ids=[f"{f}/{p.stem}" for f, p in BODIES])
def test_every_cross_export_passes_the_sdk_type_or_is_refused(fmt: str, path: Path) -> None:
    bundle = reopened(load(path), fmt)
    for target in EXPORT_PROVIDERS:
        if target == fmt:
            continue
        outcome = cross_export(bundle, target)
        known = KNOWN_CROSS_DEFECTS.get((fmt, path.stem, target))
        if known is not None:
            assert outcome.kind == "failed", f"{target} passes now: remove it from the table"
            continue
        if outcome.kind == "refused":
            with pytest.raises(UnsupportedContentError) as caught:
                export(bundle, target)
            assert caught.value.name and caught.value.name in outcome.detail
            continue
        assert outcome.kind == "passed", f"{target}: {outcome.detail}"


@pytest.mark.parametrize(("fmt", "path"), BODIES, ids=[f"{f}/{p.stem}" for f, p in BODIES])
def test_the_command_line_gives_the_same_bodies(
    fmt: str, path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `lmml import` (format detected) then `lmml render --request` to every provider: the
    # body the API gives, or the refusal as one error line and exit status 2.
    archive = tmp_path / "conversation.lmmlz"
    assert lmml(["import", str(path), "-o", str(archive)]) == 0
    bundle = reopened(load(path), fmt)
    for target in PROVIDER_NAMES:
        capsys.readouterr()
        model = [] if (bundle.settings or {}).get("model") else ["--model", MODEL]
        argv = ["render", str(archive), "-p", target, "--request", "--attachment-lines", "drop"]
        status = lmml([*argv, *model])
        out, err = capsys.readouterr()
        try:
            expected = export(bundle, target)
        except UnsupportedContentError as error:
            assert status == 2 and str(error.name) in err, (target, err)
            continue
        assert status == 0, (target, err)
        assert json.loads(out) == expected, target


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


@pytest.mark.parametrize(
    ("fmt", "body"),
    [
        # (5) a Chat message's null or empty fields, as the API's reply message holds them
        (
            "openai",
            {
                "messages": [
                    _user("Hi"),
                    {"role": "assistant", "content": "Hello.", "refusal": None, "annotations": []},
                    _user("Bye"),
                    {"role": "assistant", "content": "Bye.", "tool_calls": [], "audio": None},
                ]
            },
        ),
        # (4) line endings, NUL and the blank lines at a text's edges
        ("openai", {"messages": [_user("\n\na\r\nb\rc\x00\n \n")]}),
        # (3) a message left with nothing is left out
        ("openai", {"messages": [_user("a"), {"role": "assistant", "content": ""}, _user("b")]}),
        ("openai-responses", {"input": [_user("a"), {"role": "assistant", "content": []}]}),
        (
            "anthropic",
            {"messages": [_user("a"), {"role": "assistant", "content": ""}, _user("b")]},
        ),
        ("gemini", {"contents": [{"parts": [{"text": "a"}]}, {"role": "model", "parts": []}]}),
        # (2) a replayed output_text's empty annotations and logprobs
        (
            "openai-responses",
            {
                "input": [
                    _user("Hi"),
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "output_text",
                                "text": "Hi.",
                                "annotations": [],
                                "logprobs": [],
                            }
                        ],
                    },
                ]
            },
        ),
        # (7) a Chat call's index, as a replayed stream's reply holds it
        (
            "openai",
            {
                "messages": [
                    _user("Hi"),
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c", "content": "ok"},
                ]
            },
        ),
        # (5) a Gemini part's fields at their default: thought false, null
        (
            "gemini",
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "Hi", "thought": None}]},
                    {"role": "model", "parts": [{"text": "Hello.", "thought": False}]},
                ]
            },
        ),
    ],
    ids=[
        "chat-empty-fields",
        "text",
        "chat-empty-message",
        "responses-empty-message",
        "anthropic-empty-message",
        "gemini-empty-content",
        "responses-empty-logprobs",
        "chat-call-index",
        "gemini-default-fields",
    ],
)
def test_each_documented_normalisation_is_taken_for_one(
    fmt: str, body: dict[str, Any], tmp_path: Path
) -> None:
    # The harness applies every normalisation docs/bridge.md lists: a body differing from
    # its export only by one of them is normalised, not lossy.
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    outcome = round_trip(fmt, path)
    assert outcome.kind == "normalised", outcome.detail


def test_a_changed_body_is_not_taken_for_a_normalised_one(tmp_path: Path) -> None:
    # The normalisers explain only the documented kinds: a body the export would change in
    # another way (a word of text, an argument, a setting) is reported lossy.
    source = load(Path(__file__).parent / "bridge_corpus/realistic/openai/parallel_tool_calls.json")
    for change in (
        lambda body: body["messages"][1].update(content="Compare the weather in Oslo."),
        lambda body: body["messages"][2]["tool_calls"][0]["function"].update(arguments="{}"),
        lambda body: body.update(temperature=0.5),
    ):
        changed = copy.deepcopy(source)
        change(changed)
        assert NORMALISERS["openai"](changed, changed) != NORMALISERS["openai"](source, source)
    path = tmp_path / "body.json"
    path.write_text(json.dumps(source), encoding="utf-8")
    assert round_trip("openai", path).kind == "normalised"


@pytest.mark.parametrize(
    ("fmt", "name", "damage"),
    [
        ("openai", "parallel_tool_calls", lambda body: body["messages"][2]["tool_calls"].pop()),
        (
            "openai",
            "gemini_compat_extra_content",
            lambda body: body["messages"][1]["tool_calls"][0].pop("extra_content"),
        ),
        ("anthropic", "pdf_document", lambda body: body["messages"][0]["content"].pop(0)),
        ("gemini", "rest_generation_config", lambda body: body["config"].pop("top_k")),
        # the tool objects are regrouped (8), but a built-in tool or a declaration lost is a loss
        (
            "gemini",
            "builtin_tools_first_declarations_split",
            lambda body: body["config"]["tools"].pop(),
        ),
        (
            "gemini",
            "builtin_tools_first_declarations_split",
            lambda body: body["config"]["tools"][0]["function_declarations"].pop(),
        ),
        # ids the body wrote are kept; only ids generated on import (7) are explained away
        (
            "gemini",
            "rest_tool_with_ids",
            lambda body: body["contents"][1]["parts"][1]["function_call"].pop("id"),
        ),
        ("openai-responses", "input_image_base64", lambda body: body.pop("model")),
        ("sharegpt", "system_multiturn", lambda body: body.pop("id")),
    ],
)
def test_round_trip_reports_an_export_that_loses_something(
    fmt: str, name: str, damage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = Path(__file__).parent / "bridge_corpus" / "realistic" / fmt / f"{name}.json"
    assert round_trip(fmt, path).kind in ("exact", "normalised")

    def damaged(bundle: Any, provider: str, **options: Any) -> Any:
        body = export(bundle, provider, **options)
        damage(body)
        return body

    monkeypatch.setattr(corpus_roundtrip, "export", damaged)
    outcome = round_trip(fmt, path)
    assert outcome.kind == "lossy" and outcome.detail


def test_sdk_check_refuses_what_the_create_call_would() -> None:
    with pytest.raises(AssertionError, match="not parameters"):
        sdk_check("openai", {"model": MODEL, "messages": [], "top_k": 3})
    with pytest.raises(Exception, match="max_tokens"):
        sdk_check("anthropic", {"model": MODEL, "messages": []})
    with pytest.raises(Exception, match="Extra inputs"):
        sdk_check(
            "gemini", {"model": MODEL, "contents": [{"role": "user", "parts": [{"txt": "x"}]}]}
        )


def test_report_gives_the_counts() -> None:
    run = run_corpus()
    text = report(run)
    kinds = [outcome.kind for outcome in run.trips.values()]
    assert len(kinds) == len(BODIES)
    assert "lossy" not in kinds
    assert f"{kinds.count('exact'):>12}{kinds.count('normalised'):>12}" in text
    assert "pass rate" in text
    failed = {key for key, outcome in run.pairs.items() if outcome.kind == "failed"}
    assert failed == set(KNOWN_CROSS_DEFECTS)
    assert all(isinstance(o, Outcome) for o in run.pairs.values())
