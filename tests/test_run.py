"""``lmml run`` and ``send``: the official SDKs against a loopback server speaking each
provider's wire protocol (JSON and server-sent events), the file after the run."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import _run_tools
import pytest
from _wire_server import (
    BUILDERS,
    Drop,
    Json,
    Raw,
    Said,
    Sse,
    WireServer,
    base_url,
    error_body,
    openai_chat,
)

import lmml_mdit
from lmml_mdit import Transcript
from lmml_mdit.cli import main
from lmml_mdit.errors import (
    MissingCredentialsError,
    ProviderConnectionError,
    ProviderError,
    ReadOnlyTranscriptError,
    RunError,
    ToolLoadError,
)
from lmml_mdit.run import TextDelta, ToolCallEvent, load_tool

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "The weather in a city right now.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"],
    },
}

CHAT = (
    "@@@settings.yaml\nmodel: m1\nmax_tokens: 50\n@@@\n\n"
    "## system\n\nBe brief.\n\n## Turn 1 -- user\n\nWhat is the weather in Paris?\n"
)


def _chat(tmp_path: Path, text: str = CHAT) -> Path:
    path = tmp_path / "chat.lmml"
    path.write_bytes(text.encode())
    return path


def _camel(value: Any) -> Any:
    """JSON keys in the camelCase the Gemini REST API spells them in."""
    if isinstance(value, dict):
        return {
            "".join(w.title() if i else w for i, w in enumerate(k.split("_"))): _camel(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_camel(item) for item in value]
    return value


def assert_sent(provider: str, received: dict[str, Any], body: dict[str, Any]) -> None:
    """The request the server received is the body ``to_request`` built (for Gemini, the
    SDK's keyword arguments as the REST API spells them)."""
    body = json.loads(json.dumps(body))
    if provider != "gemini":
        sent = {k: v for k, v in received.items() if k not in ("stream", "stream_options")}
        assert sent == body
        return
    assert received["contents"] == _camel(body["contents"])
    config = body.get("config", {})
    if "system_instruction" in config:
        assert received["systemInstruction"] == _camel(config["system_instruction"])
    if "max_output_tokens" in config:
        assert received["generationConfig"]["maxOutputTokens"] == config["max_output_tokens"]
    if "tools" in config:
        names = [d["name"] for t in config["tools"] for d in t["function_declarations"]]
        assert [d["name"] for t in received["tools"] for d in t["functionDeclarations"]] == names


def _run(server: WireServer, provider: str, *args: object) -> int:
    return main(["run", *map(str, args), "-p", provider, "--base-url", base_url(server, provider)])


# -- one reply, every provider, streamed and not ------------------------------------------


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_run_sends_the_request_body_and_appends_the_reply(
    tmp_path: Path,
    server: WireServer,
    provider: str,
    stream: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _chat(tmp_path)
    expected = lmml_mdit.open(path).to_request(provider)
    server.script(BUILDERS[provider](Said(["Sunny", " and mild, see @x.png."]), stream=stream))
    flags = [] if stream else ["--no-stream"]
    assert _run(server, provider, path, *flags) == 0
    out = capsys.readouterr()
    assert "Sunny and mild, see @x.png." in out.out
    assert "wrote the reply" in out.err
    (request,) = server.requests
    assert_sent(provider, request.body, expected)
    if provider == "gemini":
        assert request.path.endswith("streamGenerateContent" if stream else "generateContent")
        assert request.query == ({"alt": ["sse"]} if stream else {})
    else:
        assert request.body.get("stream", False) is stream
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CHAT)  # every byte above the reply as it was
    assert text[len(CHAT) :].startswith(
        "\n## Turn 2 -- assistant\n\nSunny and mild, see \\@x.png.\n"
    )
    bundle = lmml_mdit.open(path)
    assert bundle.narrative.turns[-1].role == "assistant"
    (record,) = bundle.manifest["lmml_run"]
    assert record["provider"] == provider
    assert record["model"] == "test-model"
    assert record["input_tokens"] == 11 and record["output_tokens"] == 7
    assert record["turn"] == 3 and record["latency_ms"] >= 0
    assert record["finish_reason"] in ("stop", "end_turn", "STOP", "completed")
    assert record["request_id"]
    # The reply goes back on the next request as the assistant's message.
    body = bundle.to_request(provider)
    assert "Sunny and mild, see @x.png." in json.dumps(body)


def test_a_reply_quoting_a_chat_is_written_so_that_no_command_warns(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reply such as an example dialogue ("User: hi" opening a paragraph) was written
    as it is: every later command warned suspicious_delimiter of the file run wrote."""
    path = _chat(tmp_path)
    reply = "An example:\n\nUser: hi\nAssistant: hello"
    server.script(BUILDERS["openai"](Said([reply]), stream=False))
    assert _run(server, "openai", path, "--no-stream") == 0
    capsys.readouterr()
    bundle = lmml_mdit.open(path)
    assert bundle.validate() == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", lmml_mdit.DefectWarning)
        sent = bundle.messages("openai")
    assert sent[-1] == {"role": "assistant", "content": [{"type": "text", "text": reply}]}
    assert main(["render", "--strict", str(path)]) == 0


def test_the_output_option_leaves_the_source_alone(tmp_path: Path, server: WireServer) -> None:
    path = _chat(tmp_path)
    out = tmp_path / "out.lmml"
    server.script(openai_chat(Said(["Hi"]), stream=True))
    assert _run(server, "openai", path, "-o", out, "-q") == 0
    assert path.read_text(encoding="utf-8") == CHAT
    assert out.read_text(encoding="utf-8").startswith(CHAT + "\n## Turn 2 -- assistant\n\nHi\n")


@pytest.mark.parametrize(
    ("source", "out", "kind"),
    [("chat.lmml", "out.lmmlz", "a bare narrative"), ("copy.lmmlz", "out.lmml", "an archive")],
)
def test_an_output_of_the_other_bundle_kind_is_refused_before_sending(
    tmp_path: Path,
    server: WireServer,
    source: str,
    out: str,
    kind: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shutil

    if source.endswith(".lmmlz"):
        path = tmp_path / source
        shutil.copy(
            Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmmlz", path
        )
    else:
        path = _chat(tmp_path)
    before = path.read_bytes()
    server.script(openai_chat(Said(["Hi"]), stream=True))
    assert _run(server, "openai", path, "-o", tmp_path / out) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"lmml: error: {tmp_path / out}: lmml run writes {kind} here")
    assert server.requests == []
    assert not (tmp_path / out).exists() and path.read_bytes() == before


def test_an_output_of_dash_is_refused_before_sending(
    tmp_path: Path,
    server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _chat(tmp_path)
    monkeypatch.chdir(tmp_path)
    server.script(openai_chat(Said(["Hi"]), stream=True))
    assert _run(server, "openai", path, "-o", "-") == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("lmml: error: lmml run -o -: ")
    assert server.requests == [] and sorted(tmp_path.iterdir()) == [path]


def test_an_output_in_missing_folders_is_written_there_and_a_failed_run_makes_none(
    tmp_path: Path, server: WireServer
) -> None:
    """As every command's OUT, -o makes the folders it needs; only once there is a reply
    to write, so a run that fails leaves no folder behind."""
    path = _chat(tmp_path)
    out = tmp_path / "made" / "for" / "it.lmml"
    server.script(Json(error_body("openai", 400, "no such model"), status=400))
    assert _run(server, "openai", path, "-q", "-o", str(out)) == 1
    assert not (tmp_path / "made").exists()
    server.script(openai_chat(Said(["Hi"]), stream=True))
    assert _run(server, "openai", path, "-q", "-o", str(out)) == 0
    assert out.read_text(encoding="utf-8").startswith(CHAT + "\n## Turn 2 -- assistant\n\nHi\n")


def test_a_second_run_moves_the_metadata_below_the_new_reply(
    tmp_path: Path, server: WireServer
) -> None:
    path = _chat(tmp_path)
    server.script(openai_chat(Said(["One"]), stream=True), openai_chat(Said(["Two"]), stream=False))
    assert _run(server, "openai", path, "-q") == 0
    assert _run(server, "openai", path, "-q", "--no-stream") == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(
        CHAT + "\n## Turn 2 -- assistant\n\nOne\n\n## Turn 3 -- assistant\n\nTwo\n"
    )
    assert text.count("@@@manifest.json") == 1
    assert [r["turn"] for r in lmml_mdit.open(path).manifest["lmml_run"]] == [3, 4]
    # The second request carried the first reply, and no metadata.
    second = server.requests[1].body["messages"]
    assert second[-1]["role"] == "assistant"
    assert "lmml_run" not in json.dumps(second)


def test_comment_delimiters_are_followed(tmp_path: Path, server: WireServer) -> None:
    source = "<!-- system -->\n\nBe brief.\n\n<!-- user -->\n\nHi\n"
    path = _chat(tmp_path, source)
    server.script(openai_chat(Said(["Hello"]), stream=True))
    assert _run(server, "openai", path, "--model", "m", "-q") == 0
    assert path.read_text(encoding="utf-8").startswith(source + "\n<!-- assistant -->\n\nHello\n")


def test_dry_run_prints_the_body_and_sends_nothing(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    assert main(["run", str(path), "-p", "anthropic", "--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out) == lmml_mdit.open(path).to_request("anthropic")
    assert server.requests == []
    assert path.read_text(encoding="utf-8") == CHAT


def test_a_warning_names_the_file_as_render_says_it(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path, CHAT.replace("max_tokens: 50\n", "max_tokens: 50\nfrobnicate: 1\n"))
    said = f"lmml: warning: {path}:4:13: setting 'frobnicate' left out: "
    assert main(["run", str(path), "--dry-run"]) == 0
    assert capsys.readouterr().err.startswith(said)
    server.script(openai_chat(Said(["Hello"]), stream=True))
    assert _run(server, "openai", path, "-q") == 0
    err = capsys.readouterr().err
    assert err.startswith(said) and err.count("frobnicate") == 1
    assert main(["render", str(path), "--request"]) == 0
    assert capsys.readouterr().err.startswith(said)


# -- tools ------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_tool_round_runs_the_function_and_sends_the_result(
    tmp_path: Path,
    server: WireServer,
    provider: str,
    stream: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _chat(tmp_path)
    _run_tools.CALLS.clear()
    server.script(
        BUILDERS[provider](
            Said(["Let me look."], [("call_7", "get_weather", {"city": "Paris"})]), stream=stream
        ),
        BUILDERS[provider](Said(["It is sunny, 21 C."]), stream=stream),
    )
    flags = ["--tool", "_run_tools:get_weather", "--yes"] + ([] if stream else ["--no-stream"])
    assert _run(server, provider, path, *flags) == 0
    out = capsys.readouterr().out
    assert '[tool call] get_weather({"city": "Paris"})' in out
    assert _run_tools.CALLS == [("get_weather", {"city": "Paris", "unit": "C"})]
    first, second = (request.body for request in server.requests)
    # The function's declaration comes from its signature and docstring.
    declared = json.dumps(first)
    assert "The weather in a city right now." in declared and '"unit"' in declared
    # The second request carries the call and its result, as to_request builds it.
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CHAT)
    bundle = lmml_mdit.open(path)
    assert [turn.role for turn in bundle.narrative.turns][-3:] == ["assistant", "tool", "assistant"]
    assert bundle.validate() == []
    if provider == "gemini":
        assert "Sunny, 21 C in Paris" in json.dumps(second)
    else:
        rebuilt = bundle.to_request(provider, settings={"tools": [WEATHER_TOOL]})
        trimmed = json.loads(json.dumps(rebuilt))
        key = "input" if provider == "openai-responses" else "messages"
        sent = second[key]
        assert sent == trimmed[key][: len(sent)]
    assert "call_7.tool_call.json" in text or provider == "gemini"
    assert "Sunny, 21 C in Paris" in text
    records = bundle.manifest["lmml_run"]
    assert [r["turn"] for r in records] == [3, 5]


def test_without_tools_a_tool_call_is_written_and_the_run_stops(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(openai_chat(Said([], [("call_1", "get_weather", {"city": "Oslo"})]), stream=True))
    assert _run(server, "openai", path) == 0
    assert "no tools were given, so the run stops here" in capsys.readouterr().err
    text = path.read_text(encoding="utf-8")
    assert '@@@call_1.tool_call.json\n{"id": "call_1", "name": "get_weather"' in text
    assert len(server.requests) == 1


def test_a_failing_tool_becomes_an_error_result(tmp_path: Path, server: WireServer) -> None:
    path = _chat(tmp_path)
    server.script(
        BUILDERS["anthropic"](Said([], [("toolu_1", "broken", {"city": "Rome"})]), stream=True),
        BUILDERS["anthropic"](Said(["The service is down."]), stream=True),
    )
    assert _run(server, "anthropic", path, "--tool", "_run_tools:broken", "--yes", "-q") == 0
    second = server.requests[1].body["messages"]
    result = second[-1]["content"][0]
    assert result["type"] == "tool_result"
    assert "RuntimeError: the service for Rome is down" in json.dumps(result)
    assert path.read_text(encoding="utf-8").rstrip().endswith("@@@")


def test_a_tool_that_exits_becomes_an_error_result_not_an_exit(
    tmp_path: Path, server: WireServer
) -> None:
    path = _chat(tmp_path)
    server.script(
        BUILDERS["openai"](Said([], [("call_1", "exits", {"city": "Rome"})]), stream=True),
        BUILDERS["openai"](Said(["The tool gave up."]), stream=True),
    )
    assert _run(server, "openai", path, "--tool", "_run_tools:exits", "--yes", "-q") == 0
    result = server.requests[1].body["messages"][-1]
    assert result["role"] == "tool"
    assert "error: SystemExit: 3" in json.dumps(result)
    assert [turn.role for turn in lmml_mdit.open(path).narrative.turns][-3:] == [
        "assistant",
        "tool",
        "assistant",
    ]


def test_max_rounds_bounds_the_tool_rounds(tmp_path: Path, server: WireServer) -> None:
    path = _chat(tmp_path)
    calls = [
        openai_chat(Said([], [(f"call_{n}", "get_weather", {"city": "Rome"})]), stream=True)
        for n in range(3)
    ]
    server.script(*calls)
    code = _run(
        server, "openai", path, "--tool", "_run_tools:get_weather", "--yes", "--max-rounds", "2"
    )
    assert code == 0
    assert len(server.requests) == 2


def test_without_a_terminal_or_yes_a_tool_call_is_declined(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    _run_tools.CALLS.clear()
    server.script(
        openai_chat(Said([], [("call_1", "get_weather", {"city": "Rome"})]), stream=True),
        openai_chat(Said(["OK"]), stream=True),
    )
    assert _run(server, "openai", path, "--tool", "_run_tools:get_weather") == 0
    assert _run_tools.CALLS == []
    assert "pass --yes" in capsys.readouterr().err
    assert "declined" in json.dumps(server.requests[1].body["messages"][-1])


def test_a_bad_tool_spec_is_a_local_error(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    assert _run(server, "openai", path, "--tool", "no_such_module_x:f") == 2
    assert "cannot import 'no_such_module_x'" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == CHAT
    assert _run(server, "openai", path, "--tool", "_run_tools:nothing_here") == 2
    assert "has no 'nothing_here'" in capsys.readouterr().err
    with pytest.raises(ToolLoadError, match="MODULE:FUNCTION"):
        load_tool("nope")


def test_a_tool_spec_without_a_function_is_refused() -> None:
    with pytest.raises(ToolLoadError, match="MODULE:FUNCTION"):
        load_tool("nope")


# -- errors and faults --------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_400_shows_the_providers_message_and_the_file(
    tmp_path: Path, server: WireServer, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(Json(error_body(provider, 400, "max_tokens is too large"), status=400))
    assert _run(server, provider, path) == 1
    err = capsys.readouterr().err
    assert "chat.lmml" in err and "(400)" in err and "max_tokens is too large" in err
    assert path.read_text(encoding="utf-8") == CHAT


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_401_names_the_key_variable(
    tmp_path: Path, server: WireServer, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(Json(error_body(provider, 401, "invalid x-api-key"), status=401))
    assert _run(server, provider, path) == 1
    err = capsys.readouterr().err
    variable = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
    assert "(401)" in err and variable in err and "--api-key" in err


def test_a_missing_key_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    path = _chat(tmp_path)
    assert main(["run", str(path), "-p", "gemini"]) == 2
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in capsys.readouterr().err
    with pytest.raises(MissingCredentialsError):
        lmml_mdit.open(path).send("gemini")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_429_and_500_are_retried_honouring_retry_after(
    tmp_path: Path, server: WireServer, provider: str
) -> None:
    path = _chat(tmp_path)
    server.script(
        Json(error_body(provider, 429, "slow down"), status=429, headers={"retry-after": "0"}),
        Json(error_body(provider, 500, "oops"), status=500),
        BUILDERS[provider](Said(["Finally"]), stream=True),
    )
    assert _run(server, provider, path, "--backoff", "0.01", "-q") == 0
    assert len(server.requests) == 3
    assert "Finally" in path.read_text(encoding="utf-8")


def test_retries_give_up_with_the_status(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(*[Json(error_body("openai", 503, "overloaded"), status=503)] * 3)
    assert _run(server, "openai", path, "--retries", "2", "--backoff", "0.01") == 1
    assert len(server.requests) == 3
    assert "(503)" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == CHAT


def test_retry_after_is_waited_for(tmp_path: Path, server: WireServer) -> None:
    import time

    path = _chat(tmp_path)
    server.script(
        Json(error_body("openai", 429, "wait"), status=429, headers={"retry-after": "0.3"}),
        openai_chat(Said(["ok"]), stream=False),
    )
    started = time.perf_counter()
    assert _run(server, "openai", path, "--backoff", "0", "-q", "--no-stream") == 0
    assert time.perf_counter() - started >= 0.3


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_retry_after_that_is_neither_seconds_nor_a_date_is_retried_with_backoff(
    tmp_path: Path, server: WireServer, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(
        Json(error_body(provider, 429, "slow down"), status=429, headers={"retry-after": "soon"}),
        BUILDERS[provider](Said(["Finally"]), stream=True),
    )
    assert _run(server, provider, path, "--backoff", "0.01", "-q") == 0
    assert capsys.readouterr().err == ""
    assert len(server.requests) == 2
    assert "Finally" in path.read_text(encoding="utf-8")


NOT_A_REPLY = {
    "no reply in it": Json({}),
    "json cut short": Raw(b'{"id": "x", "choi'),
    "a web page": Raw(b"<html>\n<body>Welcome</body>\n</html>", content_type="text/html"),
}


@pytest.mark.parametrize("body", NOT_A_REPLY, ids=list(NOT_A_REPLY))
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_200_whose_body_is_not_a_reply_is_refused_and_the_file_left_alone(
    tmp_path: Path,
    server: WireServer,
    provider: str,
    body: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _chat(tmp_path)
    server.script(NOT_A_REPLY[body])
    assert _run(server, provider, path, "--no-stream") == 1
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "lmml:" in line]
    assert line.startswith(
        f"lmml: error: chat.lmml: the answer from {base_url(server, provider)} "
        f"is no {provider} reply: "
    )
    assert "check --base-url" in line
    assert path.read_text(encoding="utf-8") == CHAT
    assert sorted(tmp_path.iterdir()) == [path]
    assert len(server.requests) == 1  # not sent again
    server.script(NOT_A_REPLY[body])
    with pytest.raises(ProviderError, match="is no") as raised:
        lmml_mdit.open(path).send(provider, base_url=base_url(server, provider))
    assert raised.value.status is None


@pytest.mark.parametrize("body", ["json cut short", "a web page"])
def test_a_gemini_stream_whose_body_is_not_a_reply_is_refused(
    tmp_path: Path, server: WireServer, body: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(NOT_A_REPLY[body])
    assert _run(server, "gemini", path, "-q") == 1
    assert f"the answer from {server.url} is no gemini reply" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == CHAT


@pytest.mark.parametrize("body", NOT_A_REPLY, ids=list(NOT_A_REPLY))
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_streamed_200_whose_body_is_not_a_reply_is_refused_and_nothing_written(
    tmp_path: Path,
    server: WireServer,
    provider: str,
    body: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Streamed (the default), a body that is no stream of the provider's events is no
    reply, said as such: not a cut stream, so even ``--keep-partial`` writes nothing."""
    path = _chat(tmp_path)
    server.script(NOT_A_REPLY[body])
    assert _run(server, provider, path, "--keep-partial") == 1
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "lmml:" in line]
    assert line.startswith(
        f"lmml: error: chat.lmml: the answer from {base_url(server, provider)} "
        f"is no {provider} reply: "
    )
    assert "check --base-url" in line
    assert path.read_text(encoding="utf-8") == CHAT
    assert len(server.requests) == 1  # not sent again
    server.script(NOT_A_REPLY[body])

    async def send() -> None:
        await lmml_mdit.open(path).asend(provider, base_url=base_url(server, provider), stream=True)

    with pytest.raises(ProviderError, match="is no"):
        asyncio.run(send())


def test_connection_refused_names_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = _chat(tmp_path)
    url = f"http://127.0.0.1:{port}/v1"
    assert main(["run", str(path), "--base-url", url]) == 1
    assert url in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == CHAT
    with pytest.raises(ProviderConnectionError, match=str(port)):
        lmml_mdit.open(path).send("openai", base_url=url)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_cut_midway_leaves_the_file_as_it_was(
    tmp_path: Path, server: WireServer, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    answer = BUILDERS[provider](Said(["Half", " of", " it", " and", " more"]), stream=True)
    assert isinstance(answer, Sse)
    answer.cut_after = 3
    server.script(answer)
    assert _run(server, provider, path) == 1
    out = capsys.readouterr()
    assert "Half" in out.out  # the partial reply is printed
    assert "mid-reply" in out.err
    assert path.read_text(encoding="utf-8") == CHAT
    assert len(server.requests) == 1  # a cut stream is not sent again


def test_keep_partial_writes_the_cut_reply_marked_incomplete(
    tmp_path: Path, server: WireServer
) -> None:
    path = _chat(tmp_path)
    answer = openai_chat(Said(["Half", " of", " it"]), stream=True)
    assert isinstance(answer, Sse)
    answer.cut_after = 3
    server.script(answer)
    assert _run(server, "openai", path, "--keep-partial", "-q") == 1
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CHAT + "\n## Turn 2 -- assistant\n\nHalf of\n")
    (record,) = lmml_mdit.open(path).manifest["lmml_run"]
    assert record["incomplete"] is True


@pytest.mark.parametrize("cut", ["connection cut", "no final event"])
def test_keep_partial_says_what_arrived_was_written(
    tmp_path: Path, server: WireServer, cut: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    answer = openai_chat(Said(["Half", " of", " it"]), stream=True)
    assert isinstance(answer, Sse)
    if cut == "connection cut":
        answer.cut_after = 3
    else:
        answer.events, answer.done_marker = answer.events[:3], False
    server.script(answer)
    assert _run(server, "openai", path, "--keep-partial") == 1
    err = capsys.readouterr().err
    assert f"wrote what arrived, marked incomplete, to {path}\n" in err
    assert "rounds before" not in err  # there was none: the cut reply was the first
    (line,) = [line for line in err.splitlines() if "lmml: error" in line]
    assert "nothing was written" not in line
    assert line.endswith("(what arrived was written, marked incomplete; run again for the rest)")
    assert "\n## Turn 2 -- assistant\n\nHalf of\n" in path.read_text(encoding="utf-8")


def _script_a_cut_after_a_tool_round(tmp_path: Path, server: WireServer) -> Path:
    """A chat file, and the server scripted with a tool-call round, then a reply whose
    stream is cut after two events."""
    cut = openai_chat(Said(["It is", " sunny"]), stream=True)
    assert isinstance(cut, Sse)
    cut.cut_after = 2
    server.script(
        openai_chat(Said([], [("call_7", "get_weather", {"city": "Paris"})]), stream=True), cut
    )
    return _chat(tmp_path)


def test_keep_partial_after_a_tool_round_says_both_were_written(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _script_a_cut_after_a_tool_round(tmp_path, server)
    flags = ["--tool", "_run_tools:get_weather", "--yes", "--keep-partial"]
    assert _run(server, "openai", path, *flags) == 1
    err = capsys.readouterr().err
    said = "wrote the rounds before the failure and what arrived, marked incomplete, to "
    assert f"{said}{path}\n" in err
    bundle = lmml_mdit.open(path)
    assert [turn.role for turn in bundle.narrative.turns][-3:] == ["assistant", "tool", "assistant"]
    assert [r.get("incomplete", False) for r in bundle.manifest["lmml_run"]] == [False, True]


def test_a_cut_after_a_tool_round_says_the_rounds_before_were_written(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _script_a_cut_after_a_tool_round(tmp_path, server)
    flags = ["--tool", "_run_tools:get_weather", "--yes"]
    assert _run(server, "openai", path, *flags) == 1
    err = capsys.readouterr().err
    assert f"wrote the rounds before the failure to {path}\n" in err
    (line,) = [line for line in err.splitlines() if "lmml: error" in line]
    assert "nothing was written" not in line
    assert line.endswith(
        "(this reply was not written, the rounds before it were; run again"
        " (--keep-partial writes what arrived))"
    )
    bundle = lmml_mdit.open(path)
    assert [turn.role for turn in bundle.narrative.turns][-2:] == ["assistant", "tool"]


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_streamed_arguments_that_are_no_strict_json_are_kept_as_text(
    tmp_path: Path, server: WireServer, provider: str
) -> None:
    # json.dumps writes NaN; the arguments stay the text the model wrote, not a value no
    # JSON file can hold.
    path = _chat(tmp_path)
    said = Said([], [("call_7", "get_weather", {"x": float("nan")})])
    server.script(BUILDERS[provider](said, stream=True))
    assert _run(server, provider, path, "-q") == 0
    bundle = lmml_mdit.open(path)
    call = json.loads(bundle.embed("call_7.tool_call.json"))
    assert call["arguments"] == '{"x": NaN}'
    assert [issue.kind for issue in bundle.validate()] == ["unanswered_tool_call"]


def test_a_streamed_tool_input_that_is_no_json_object_is_refused_and_nothing_written(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # An Anthropic tool_use input must be an object: one that does not read (cut at the
    # token limit, or not strict JSON) was written as an invalid tool call file.
    path = _chat(tmp_path)
    said = Said([], [("call_7", "get_weather", {"x": float("nan")})])
    server.script(BUILDERS["anthropic"](said, stream=True))
    assert _run(server, "anthropic", path, "-q") == 1
    err = capsys.readouterr().err
    assert "cannot be written: messages[0].content[0].input: expected dict" in err
    assert "(nothing was written; run again, with --set max_tokens=N" in err
    assert path.read_text(encoding="utf-8") == CHAT


def test_a_dropped_connection_is_a_connection_error(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(Drop())
    assert _run(server, "anthropic", path) == 1
    assert server.url in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == CHAT


def test_ctrl_c_mid_stream_leaves_the_file_and_exits_130(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(openai_chat(Said(["a", "b", "c"]), stream=True))
    original = sys.stdout.write
    seen = []

    def interrupt(text: str) -> int:
        seen.append(text)
        if text == "b":
            raise KeyboardInterrupt
        return original(text)

    sys.stdout.write = interrupt  # type: ignore[method-assign]
    try:
        code = _run(server, "openai", path)
    finally:
        sys.stdout.write = original  # type: ignore[method-assign]
    assert code == 130
    assert path.read_text(encoding="utf-8") == CHAT
    assert "wrote" not in capsys.readouterr().err  # nothing was


def test_a_gemini_stream_whose_last_chunk_is_a_signature_alone_keeps_it(
    tmp_path: Path, server: WireServer
) -> None:
    # Gemini may send a turn's thought signature alone, in a part of its own in the last
    # chunk: the reply is written with it, and it goes back to Gemini where it stood.
    path = _chat(tmp_path)
    signature = "c2lnbmVkIHRob3VnaHRz"

    def chunk(part: dict[str, Any], last: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if last:
            candidate["finishReason"] = "STOP"
        return {"candidates": [candidate], "modelVersion": "m1", "responseId": "r"}

    events = [(None, chunk({"text": "Sunny."}, False))]
    events.append((None, chunk({"thoughtSignature": signature}, True)))
    server.script(Sse(events))
    assert _run(server, "gemini", path, "-q") == 0
    bundle = lmml_mdit.open(path)
    assert bundle.narrative.turns[-1].text.startswith(
        f'Sunny.\n\n@@@gemini.thought_signature.1.json\n{{"thought_signature": "{signature}"}}'
        "\n@@@\n"
    )
    parts = bundle.to_request("gemini")["contents"][-1]["parts"]
    assert parts == [{"text": "Sunny."}, {"thought_signature": signature}]


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_gemini_reply_its_sdk_refuses_is_no_reply(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str], stream: bool
) -> None:
    path = _chat(tmp_path)
    # a thought signature that is not base64: the SDK's model of the reply refuses it
    server.script(BUILDERS["gemini"](Said(["Hi"], thinking=("x", "SIG123")), stream=stream))
    flags = [] if stream else ["--no-stream"]
    assert _run(server, "gemini", path, *flags) == 1
    err = capsys.readouterr().err
    assert "is no gemini reply" in err and "internal error" not in err
    assert path.read_text(encoding="utf-8") == CHAT


def test_a_timeout_is_reported_with_the_url(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    path = _chat(tmp_path)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    try:
        assert main(["run", str(path), "--base-url", url, "--timeout", "0.3"]) == 1
    finally:
        listener.close()
    err = capsys.readouterr().err
    assert "timed out" in err and url in err


# -- the API ------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_bundle_send_returns_the_reply_and_leaves_the_bundle(
    tmp_path: Path, server: WireServer, provider: str
) -> None:
    path = _chat(tmp_path)
    bundle = lmml_mdit.open(path)
    server.script(
        BUILDERS[provider](
            Said(["A", "B"], [("call_3", "get_weather", {"city": "Nice"})]), stream=True
        )
    )
    reply = bundle.send(provider, stream=True, base_url=base_url(server, provider))
    assert reply.text == "AB"
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("get_weather", {"city": "Nice"})]
    events = list(reply)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["A", "B"]
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == ["get_weather"]
    assert reply.usage.input_tokens == 11 and reply.usage.output_tokens == 7
    assert reply.raw is not None
    assert reply.stopped is not None
    assert "## Turn 2 -- assistant" in reply.lmml
    assert path.read_text(encoding="utf-8") == CHAT


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize(
    ("provider", "request_id"),
    [("openai", "req_test"), ("openai-responses", "req_test"), ("anthropic", "req_ant")],
)
def test_the_request_id_is_read_from_the_providers_own_header(
    tmp_path: Path, server: WireServer, provider: str, request_id: str, stream: bool
) -> None:
    server.script(BUILDERS[provider](Said(["x"]), stream=stream))
    reply = lmml_mdit.open(_chat(tmp_path)).send(
        provider, stream=stream, base_url=base_url(server, provider)
    )
    assert reply.request_id == request_id == reply.metadata["request_id"]


def test_a_client_the_caller_built_is_used(tmp_path: Path, server: WireServer) -> None:
    import openai

    client = openai.OpenAI(base_url=server.url + "/v1", api_key="mine", max_retries=0)
    server.script(openai_chat(Said(["mine"]), stream=False))
    reply = lmml_mdit.open(_chat(tmp_path)).send("openai", client=client)
    assert reply.text == "mine"
    assert server.requests[0].headers["authorization"] == "Bearer mine"


def test_tools_from_the_api_and_the_settings_declaration(
    tmp_path: Path, server: WireServer
) -> None:
    declared = CHAT.replace(
        "max_tokens: 50\n",
        "max_tokens: 50\ntools:\n  - name: get_weather\n    description: Declared.\n"
        "    parameters: {type: object, properties: {city: {type: string}}}\n",
    )
    path = _chat(tmp_path, declared)
    server.script(
        openai_chat(Said([], [("c1", "get_weather", {"city": "Lyon"})]), stream=False),
        openai_chat(Said(["Done"]), stream=False),
    )
    reply = lmml_mdit.open(path).send(
        "openai", tools=[_run_tools.get_weather], base_url=server.url + "/v1"
    )
    assert reply.text == "Done" and reply.rounds == 2
    assert [run.result for run in reply.tool_runs] == ["Sunny, 21 C in Lyon"]
    tools = server.requests[0].body["tools"]
    assert [t["function"]["description"] for t in tools] == ["Declared."]
    assert [turn.role for turn in reply.turns] == ["assistant", "tool", "assistant"]


def test_transcript_send_appends_the_reply(tmp_path: Path, server: WireServer) -> None:
    transcript = Transcript.load(_chat(tmp_path))
    before = len(transcript)
    server.script(BUILDERS["anthropic"](Said(["Hello from the transcript"]), stream=True))
    reply = transcript.send("anthropic", stream=True, base_url=server.url)
    assert len(transcript) == before + 1
    last = transcript[-1]
    assert (last.author, last.content) == ("assistant", "Hello from the transcript")
    assert last.metadata["lmml_run"]["provider"] == "anthropic"
    assert reply.metadata["output_tokens"] == 7


@pytest.mark.parametrize("method", ["send", "asend", "stream", "astream"])
def test_a_with_extra_view_refuses_to_send_before_any_request(
    tmp_path: Path, server: WireServer, method: str
) -> None:
    # A view is read-only: sending would append the reply, so it is refused up front,
    # before a request is paid for and its reply lost.
    view = Transcript.load(_chat(tmp_path)).with_extra(lmml_mdit.Message("user", "And Rome?"))
    before = list(view)
    server.script(openai_chat(Said(["lost"]), stream=method.endswith("stream")))

    async def consume(stream: Any) -> None:
        async with stream:
            async for _ in stream:
                pass

    with pytest.raises(ReadOnlyTranscriptError, match=f"cannot {method}: this is a read-only"):
        call = getattr(view, method)("openai", base_url=server.url + "/v1")
        if method == "asend":
            asyncio.run(call)
        elif method == "astream":
            asyncio.run(consume(call))
        else:
            with call if method == "stream" else contextlib.nullcontext() as stream:
                for _ in stream or ():
                    pass
    assert server.requests == []
    assert list(view) == before


def test_lmml_run_on_a_saved_transcript_keeps_its_record(
    tmp_path: Path, server: WireServer
) -> None:
    path = _chat(tmp_path)
    transcript = Transcript.load(path)
    server.script(BUILDERS["openai"](Said(["One"]), stream=False))
    transcript.send("openai", base_url=base_url(server, "openai"))
    transcript.append("user", "And in Rome?")
    transcript.save(path)
    server.script(BUILDERS["openai"](Said(["Two"]), stream=True))
    url = base_url(server, "openai")
    assert main(["run", str(path), "--provider", "openai", "-q", "--base-url", url]) == 0
    read = Transcript.load(path)
    assert [(m.author, m.content) for m in read] == [
        *[(m.author, m.content) for m in transcript],
        ("assistant", "Two"),
    ]
    assert read[-3].metadata == transcript[-2].metadata  # the first reply's, as sent
    assert read[-3].metadata["lmml_run"]["request_id"] == "req_test"
    saved = tmp_path / "again.lmml"
    read.save(saved)
    assert list(Transcript.load(saved)) == list(read)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_asend(tmp_path: Path, server: WireServer, provider: str) -> None:
    bundle = lmml_mdit.open(_chat(tmp_path))

    async def go() -> list[str]:
        replies = []
        for stream in (True, False):
            server.script(BUILDERS[provider](Said(["async", " reply"]), stream=stream))
            reply = await bundle.asend(provider, stream=stream, base_url=base_url(server, provider))
            replies.append(reply.text)
        return replies

    assert asyncio.run(go()) == ["async reply", "async reply"]
    assert_sent(provider, server.requests[1].body, bundle.to_request(provider))


def test_transcript_asend(tmp_path: Path, server: WireServer) -> None:
    transcript = Transcript.load(_chat(tmp_path))
    server.script(openai_chat(Said(["hi"]), stream=True))
    asyncio.run(transcript.asend("openai", stream=True, base_url=server.url + "/v1"))
    assert transcript[-1].content == "hi"


# -- live streams ----------------------------------------------------------------------------


def _held(provider: str, said: Said) -> tuple[Sse, threading.Event]:
    """*said* as *provider*'s stream, held before its last event until the gate opens."""
    answer = BUILDERS[provider](said, stream=True)
    assert isinstance(answer, Sse)
    gate = threading.Event()
    answer.hold_before, answer.gate = len(answer.events) - 1, gate
    return answer, gate


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_stream_yields_each_event_before_the_provider_has_finished(
    tmp_path: Path, server: WireServer, provider: str
) -> None:
    answer, gate = _held(provider, Said(["Hel", "lo", " there"]))
    server.script(answer)
    bundle = lmml_mdit.open(_chat(tmp_path))
    texts = []
    with bundle.stream(provider, base_url=base_url(server, provider)) as stream:
        for event in stream:
            assert isinstance(event, TextDelta)
            texts.append(event.text)
            gate.set()  # the server sends the rest only now
        reply = stream.reply()
    assert answer.released is True  # the first event came while the server held the rest
    assert "".join(texts) == reply.text == "Hello there"
    assert reply.usage.output_tokens == 7
    assert_sent(provider, server.requests[0].body, bundle.to_request(provider))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_async_stream_yields_each_event_before_the_provider_has_finished(
    tmp_path: Path, server: WireServer, provider: str
) -> None:
    answer, gate = _held(provider, Said(["as", "ync"], [("c9", "get_weather", {"city": "Rome"})]))
    server.script(answer)
    bundle = lmml_mdit.open(_chat(tmp_path))

    async def go() -> tuple[list[object], lmml_mdit.Reply]:
        events: list[object] = []
        async with bundle.astream(provider, base_url=base_url(server, provider)) as stream:
            async for event in stream:
                events.append(event)
                gate.set()
            return events, await stream.reply()

    events, reply = asyncio.run(go())
    assert answer.released is True
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["as", "ync"]
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == ["get_weather"]
    assert reply.text == "async" and reply.tool_calls[0].arguments == {"city": "Rome"}


def test_a_transcript_stream_appends_the_reply_when_it_ends(
    tmp_path: Path, server: WireServer
) -> None:
    transcript = Transcript.load(_chat(tmp_path))
    before = len(transcript)
    answer, gate = _held("openai", Said(["one", " two"]))
    server.script(answer)
    stream = transcript.stream("openai", base_url=server.url + "/v1")
    for _ in stream:
        assert len(transcript) == before  # nothing is appended while the reply streams
        gate.set()
    assert stream.reply().text == "one two"
    assert len(transcript) == before + 1 and transcript[-1].content == "one two"


def test_an_abandoned_stream_appends_nothing(tmp_path: Path, server: WireServer) -> None:
    transcript = Transcript.load(_chat(tmp_path))
    before = len(transcript)
    answer, gate = _held("anthropic", Said(["a", "b", "c"]))
    server.script(answer)
    with transcript.stream("anthropic", base_url=server.url) as stream:
        for _ in stream:
            break
        gate.set()
    assert len(transcript) == before
    # Leaving the block ended the send: its worker thread is gone, its stream closed.
    assert not any(t.name == "lmml-stream" and t.is_alive() for t in threading.enumerate())
    with pytest.raises(RuntimeError, match="closed before its reply"):
        stream.reply()


def test_an_abandoned_async_stream_is_cancelled_and_appends_nothing(
    tmp_path: Path, server: WireServer
) -> None:
    transcript = Transcript.load(_chat(tmp_path))
    before = len(transcript)
    answer, gate = _held("openai", Said(["a", "b", "c"]))
    server.script(answer)

    async def go() -> list[object]:
        seen: list[object] = []
        async with transcript.astream("openai", base_url=server.url + "/v1") as stream:
            async for event in stream:
                seen.append(event)
                break
        gate.set()
        with pytest.raises(RuntimeError, match="closed before its reply"):
            await stream.reply()
        return seen

    assert len(asyncio.run(go())) == 1
    assert len(transcript) == before


def test_a_stream_cut_is_raised_where_the_iteration_reaches_it(
    tmp_path: Path, server: WireServer
) -> None:
    answer = openai_chat(Said(["partial", " text", " more"]), stream=True)
    assert isinstance(answer, Sse)
    answer.cut_after = 2
    server.script(answer)
    stream = lmml_mdit.open(_chat(tmp_path)).stream("openai", base_url=server.url + "/v1")
    seen = []
    with pytest.raises(RunError):
        for event in stream:
            seen.append(event)
    assert seen  # what arrived before the cut was yielded
    with pytest.raises(RunError):
        stream.reply()


def test_a_stream_takes_neither_stream_nor_on_event(tmp_path: Path) -> None:
    bundle = lmml_mdit.open(_chat(tmp_path))
    for option in ({"stream": False}, {"on_event": print}):
        with pytest.raises(TypeError, match="takes no"):
            bundle.stream("openai", **option)


def test_anthropic_thinking_is_kept_as_a_native_item_and_sent_back(
    tmp_path: Path, server: WireServer
) -> None:
    path = _chat(tmp_path)
    said = Said(["Answer"], thinking=("Let me think.", "sig-123"))
    server.script(BUILDERS["anthropic"](said, stream=True))
    assert _run(server, "anthropic", path, "-q") == 0
    text = path.read_text(encoding="utf-8")
    assert "@@@anthropic.thinking.1.json" in text
    body = lmml_mdit.open(path).to_request("anthropic")
    blocks = body["messages"][-1]["content"]
    assert blocks[0] == {"type": "thinking", "thinking": "Let me think.", "signature": "sig-123"}


def test_clients_are_reused_per_provider_and_base_url(tmp_path: Path, server: WireServer) -> None:
    from lmml_mdit.run import _clients

    bundle = lmml_mdit.open(_chat(tmp_path))
    server.script(*(openai_chat(Said(["x"]), stream=False) for _ in range(2)))
    bundle.send("openai", base_url=server.url + "/v1")
    count = len(_clients._PROCESS)
    bundle.send("openai", base_url=server.url + "/v1")
    assert len(_clients._PROCESS) == count


# -- tracing --------------------------------------------------------------------------------

_SUBPROCESS = """
import sys
sys.path.insert(0, {tests!r})
from lmml_mdit.cli import main
code = main(["run", {path!r}, "--base-url", {url!r}] + {extra!r})
print("otel-loaded" if any(m.startswith("opentelemetry") for m in sys.modules) else "otel-off")
sys.exit(code)
"""


def _in_subprocess(
    path: Path, url: str, *extra: str, environment: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    tests = str(Path(__file__).parent)
    script = _SUBPROCESS.format(tests=tests, path=str(path), url=url, extra=list(extra))
    env = dict(os.environ, PYTHONPATH=str(Path(tests).parent), OPENAI_API_KEY="k")
    env.update(environment or {})
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )


def test_nothing_of_opentelemetry_is_imported_when_tracing_is_off(
    tmp_path: Path, server: WireServer
) -> None:
    server.script(openai_chat(Said(["quiet"]), stream=True))
    done = _in_subprocess(_chat(tmp_path), server.url + "/v1")
    assert done.returncode == 0, done.stderr
    assert "otel-off" in done.stdout


def test_trace_console_prints_the_genai_spans(tmp_path: Path, server: WireServer) -> None:
    pytest.importorskip("opentelemetry.sdk")
    server.script(
        openai_chat(Said([], [("call_1", "get_weather", {"city": "Oslo"})]), stream=True),
        openai_chat(Said(["Sunny"]), stream=True),
    )
    done = _in_subprocess(
        _chat(tmp_path),
        server.url + "/v1",
        "--trace",
        "console",
        "--tool",
        "_run_tools:get_weather",
        "--yes",
    )
    assert done.returncode == 0, done.stderr
    err = done.stderr
    for name in ('"chat m1"', '"execute_tool get_weather"', '"invoke_agent lmml"'):
        assert name in err
    for attribute in (
        '"gen_ai.operation.name": "chat"',
        '"gen_ai.provider.name": "openai"',
        '"gen_ai.request.model": "m1"',
        '"gen_ai.response.model": "test-model"',
        '"gen_ai.usage.input_tokens": 11',
        '"gen_ai.usage.output_tokens": 7',
        '"gen_ai.tool.name": "get_weather"',
    ):
        assert attribute in err
    assert '"gen_ai.response.finish_reasons": [\n' in err or "finish_reasons" in err


class _Collector:
    """An OTLP/HTTP trace receiver on 127.0.0.1: each export request, decoded."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

        self.exports: list[tuple[str, Any]] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.headers.get("content-encoding") == "gzip":
                    data = gzip.decompress(data)
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(data)
                collector.exports.append((self.path, request))
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        threading.Thread(target=self._http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def _value(any_value: Any) -> object:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


@pytest.mark.parametrize(
    "variable", ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
)
def test_the_standard_otel_variables_send_the_spans_to_an_otlp_collector(
    tmp_path: Path, server: WireServer, variable: str
) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    collector = _Collector()
    server.script(
        openai_chat(Said([], [("call_1", "get_weather", {"city": "Oslo"})]), stream=True),
        openai_chat(Said(["Sunny"]), stream=True),
    )
    endpoint = collector.url + ("/v1/traces" if variable.endswith("TRACES_ENDPOINT") else "")
    try:
        done = _in_subprocess(
            _chat(tmp_path),
            server.url + "/v1",
            "--tool",
            "_run_tools:get_weather",
            "--yes",
            environment={variable: endpoint, "OTEL_SERVICE_NAME": "lmml-otlp-test"},
        )
    finally:
        collector.close()
    assert done.returncode == 0, done.stderr
    assert collector.exports and {path for path, _ in collector.exports} == {"/v1/traces"}
    spans: dict[str, Any] = {}
    for _, request in collector.exports:
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            assert resource["service.name"] == "lmml-otlp-test"
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans[span.name] = span
    assert set(spans) == {"chat m1", "execute_tool get_weather", "invoke_agent lmml"}
    run = spans["invoke_agent lmml"]
    tool = spans["execute_tool get_weather"]
    assert spans["chat m1"].parent_span_id == run.span_id == tool.parent_span_id
    assert len({span.trace_id for span in spans.values()}) == 1
    chat = {a.key: _value(a.value) for a in spans["chat m1"].attributes}
    assert chat["gen_ai.operation.name"] == "chat"
    assert chat["gen_ai.provider.name"] == "openai"
    assert chat["gen_ai.request.model"] == "m1"
    assert chat["gen_ai.response.model"] == "test-model"
    assert chat["gen_ai.usage.input_tokens"] == 11
    assert chat["gen_ai.usage.output_tokens"] == 7
    assert chat["gen_ai.response.finish_reasons"]
    assert {a.key: _value(a.value) for a in tool.attributes}["gen_ai.tool.name"] == "get_weather"


def test_spans_nest_a_tool_under_the_run(tmp_path: Path, server: WireServer) -> None:
    with _recorded_spans() as exporter:
        server.script(
            BUILDERS["anthropic"](Said([], [("t1", "get_weather", {"city": "Bern"})]), stream=True),
            BUILDERS["anthropic"](Said(["Cold"]), stream=True),
        )
        lmml_mdit.open(_chat(tmp_path)).send(
            "anthropic", stream=True, base_url=server.url, tools=[_run_tools.get_weather]
        )
    spans = {span.name: span for span in exporter.get_finished_spans()}
    run, tool = spans["invoke_agent lmml"], spans["execute_tool get_weather"]
    chats = [span for span in exporter.get_finished_spans() if span.name == "chat m1"]
    assert len(chats) == 2
    assert tool.parent.span_id == run.context.span_id
    assert all(chat.parent.span_id == run.context.span_id for chat in chats)
    attributes = dict(chats[0].attributes)
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.response.finish_reasons"] == ("tool_use",)
    assert attributes["gen_ai.usage.output_tokens"] == 7
    assert attributes["server.address"] == "127.0.0.1"
    assert attributes["server.port"] == server.port


REPLY_IDS = {
    "openai": "chatcmpl-1",
    "openai-responses": "resp_1",
    "anthropic": "msg_1",
    "gemini": "resp_gem",
}
"""The id each provider gives its reply in the scripted answers (not the request id)."""


@contextlib.contextmanager
def _recorded_spans() -> Any:
    """The spans the block ends, recorded in memory (the SDK's tracer swapped in for the
    library's)."""
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = sdk.TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = tracer_provider.get_tracer("test")
    original = trace.get_tracer
    trace.get_tracer = lambda *args, **kwargs: tracer  # type: ignore[assignment]
    try:
        yield exporter
    finally:
        trace.get_tracer = original  # type: ignore[assignment]


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_chat_span_names_the_reply_by_its_response_id(
    tmp_path: Path, server: WireServer, provider: str, stream: bool
) -> None:
    server.script(BUILDERS[provider](Said(["Fine"]), stream=stream))
    with _recorded_spans() as exporter:
        reply = lmml_mdit.open(_chat(tmp_path)).send(
            provider, stream=stream, base_url=base_url(server, provider)
        )
    (chat,) = [span for span in exporter.get_finished_spans() if span.name == "chat m1"]
    # gen_ai.response.id is the provider's id of the completion, not the HTTP request id
    # the manifest records.
    assert chat.attributes["gen_ai.response.id"] == REPLY_IDS[provider]
    assert reply.request_id


def test_a_failing_tool_marks_its_span_failed(tmp_path: Path, server: WireServer) -> None:
    from opentelemetry.trace import StatusCode

    server.script(
        BUILDERS["openai"](Said([], [("call_1", "broken", {"city": "Rome"})]), stream=True),
        BUILDERS["openai"](Said(["The service is down."]), stream=True),
        BUILDERS["openai"](Said([], [("call_2", "get_weather", {"city": "Rome"})]), stream=True),
        BUILDERS["openai"](Said(["Sunny."]), stream=True),
    )
    with _recorded_spans() as exporter:
        bundle = lmml_mdit.open(_chat(tmp_path))
        bundle.send(
            "openai", stream=True, base_url=base_url(server, "openai"), tools=[_run_tools.broken]
        )
        bundle.send(
            "openai",
            stream=True,
            base_url=base_url(server, "openai"),
            tools=[_run_tools.get_weather],
        )
    spans = {span.name: span for span in exporter.get_finished_spans()}
    failed, ran = spans["execute_tool broken"], spans["execute_tool get_weather"]
    # The model reads the failure as the tool's result; the trace says the tool failed.
    assert failed.attributes["error.type"] == "RuntimeError"
    assert failed.status.status_code is StatusCode.ERROR
    assert "error.type" not in ran.attributes
    assert ran.status.status_code is not StatusCode.ERROR


def test_an_archive_gets_the_reply_in_its_narrative_and_the_metadata_in_its_manifest(
    tmp_path: Path, server: WireServer
) -> None:
    import shutil
    import zipfile

    example = Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmmlz"
    path = tmp_path / "copy.lmmlz"
    shutil.copy(example, path)
    before = lmml_mdit.open(path)
    narrative = before.narrative.text
    server.script(BUILDERS["gemini"](Said(["Zip", " reply"]), stream=True))
    assert _run(server, "gemini", path, "--model", "m", "-q") == 0
    after = lmml_mdit.open(path)
    assert after.narrative.text.startswith(narrative)
    assert (
        after.narrative.text[len(narrative) :]
        .lstrip("\n")
        .startswith("## Turn 6 -- assistant\n\nZip reply\n")
    )
    assert after.manifest["lmml_run"][0]["provider"] == "gemini"
    assert after.manifest["title"] == before.manifest["title"]

    def assets(archive: Path) -> list[str]:
        return sorted(n for n in zipfile.ZipFile(archive).namelist() if not n.endswith(".lmml"))

    assert assets(path) == assets(example)
    assert after.validate() == []


def test_keep_partial_on_ctrl_c_writes_what_arrived(tmp_path: Path, server: WireServer) -> None:
    path = _chat(tmp_path)
    server.script(openai_chat(Said(["first", " second", " third"]), stream=True))

    def stop(event: object) -> None:
        if isinstance(event, TextDelta) and event.text == " second":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        lmml_mdit.open(path).send("openai", stream=True, base_url=server.url + "/v1", on_event=stop)
    assert path.read_text(encoding="utf-8") == CHAT  # send() never writes the file


def test_on_a_terminal_a_tool_call_is_asked_for(
    tmp_path: Path,
    server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    answers = io.StringIO("n\ny\n")
    answers.isatty = lambda: True  # type: ignore[method-assign]
    monkeypatch.setattr(sys, "stdin", answers)
    _run_tools.CALLS.clear()
    path = _chat(tmp_path)
    server.script(
        openai_chat(Said([], [("call_1", "get_weather", {"city": "Rome"})]), stream=True),
        openai_chat(Said([], [("call_2", "get_weather", {"city": "Oslo"})]), stream=True),
        openai_chat(Said(["Done"]), stream=True),
    )
    assert _run(server, "openai", path, "--tool", "_run_tools:get_weather") == 0
    assert 'run get_weather({"city": "Rome"})? [y/N]' in capsys.readouterr().err
    assert _run_tools.CALLS == [("get_weather", {"city": "Oslo", "unit": "C"})]
    assert "declined" in json.dumps(server.requests[1].body["messages"][-1])


def test_a_missing_sdk_names_the_extra(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(RunError, match=r"pip install 'lmml-mdit\[anthropic\]'"):
        lmml_mdit.open(_chat(tmp_path)).send("anthropic", base_url=server.url + "/no-sdk")


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
@pytest.mark.parametrize(
    ("provider", "fence"),
    [
        ("openai-responses", "@@@openai-responses.reasoning.1.json"),
        ("gemini", "@@@gemini.part.1.json"),
    ],
)
def test_reasoning_items_and_thought_signatures_go_back_to_their_provider(
    tmp_path: Path, server: WireServer, provider: str, fence: str, stream: bool
) -> None:
    import base64

    signature = base64.b64encode(b"opaque-signature").decode()
    path = _chat(tmp_path)
    said = Said(["Answer"], thinking=("Thought it over.", signature))
    server.script(BUILDERS[provider](said, stream=stream))
    flags = [] if stream else ["--no-stream"]
    assert _run(server, provider, path, "-q", *flags) == 0
    text = path.read_text(encoding="utf-8")
    assert fence in text
    body = json.loads(json.dumps(lmml_mdit.open(path).to_request(provider)))
    if provider == "openai-responses":
        reasoning = [item for item in body["input"] if item.get("type") == "reasoning"]
        assert reasoning and reasoning[0]["encrypted_content"] == signature
        assert reasoning[0]["id"] == "rs_1"
    else:
        parts = body["contents"][-1]["parts"]
        assert parts[0]["text"] == "Answer"
        assert parts[0]["thought_signature"] == signature


@pytest.fixture
def without_otlp_exporter(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenTelemetry's SDK present, its OTLP exporter missing: an export is only announced."""
    pytest.importorskip("opentelemetry.sdk")
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)


@pytest.mark.usefixtures("without_otlp_exporter")
def test_an_otlp_endpoint_without_the_exporter_is_said_and_the_run_goes_on(
    tmp_path: Path,
    server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    path = _chat(tmp_path)
    server.script(openai_chat(Said(["traced?"]), stream=True))
    assert _run(server, "openai", path) == 0
    err = capsys.readouterr().err
    assert "OTEL_EXPORTER_OTLP_ENDPOINT is set" in err and "not traced" in err
    assert main(["run", str(path), "--trace", "otlp", "--dry-run"]) == 2
    assert "--trace otlp needs" in capsys.readouterr().err


def test_gemini_calls_without_ids_get_one_fence_each_across_rounds(
    tmp_path: Path, server: WireServer
) -> None:
    path = _chat(tmp_path)
    server.script(
        BUILDERS["gemini"](Said([], [("", "get_weather", {"city": "Rome"})]), stream=True),
        BUILDERS["gemini"](Said([], [("", "get_weather", {"city": "Oslo"})]), stream=True),
        BUILDERS["gemini"](Said(["Both sunny."]), stream=True),
    )
    assert _run(server, "gemini", path, "--tool", "_run_tools:get_weather", "--yes", "-q") == 0
    text = path.read_text(encoding="utf-8")
    assert "@@@call_1.tool_call.json" in text and "@@@call_1_2.tool_call.json" in text
    bundle = lmml_mdit.open(path)
    assert bundle.validate() == []
    roles = [turn.role for turn in bundle.narrative.turns][-5:]
    assert roles == ["assistant", "tool", "assistant", "tool", "assistant"]
    third = json.dumps(server.requests[2].body)
    assert "Sunny, 21 C in Rome" in third and "Sunny, 21 C in Oslo" in third


def test_a_crlf_file_keeps_its_line_endings_over_two_runs(
    tmp_path: Path, server: WireServer
) -> None:
    source = "## user\r\n\r\nHi there\r\n"
    path = _chat(tmp_path, source)
    for _ in range(2):
        server.script(openai_chat(Said(["Line one\n\nLine two"]), stream=True))
        assert _run(server, "openai", path, "--model", "m", "-q") == 0
    data = path.read_bytes()
    assert data.startswith(source.encode())
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.count(b"@@@manifest.json") == 1
    bundle = lmml_mdit.open(path)
    assert bundle.validate() == []
    assert [turn.role for turn in bundle.narrative.turns] == ["user", "assistant", "assistant"]


def test_a_manifest_at_the_head_is_updated_where_it_stands(
    tmp_path: Path, server: WireServer
) -> None:
    example = Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmml"
    source = example.read_text(encoding="utf-8")
    path = _chat(tmp_path, source)
    server.script(openai_chat(Said(["A reply"]), stream=True))
    assert _run(server, "openai", path, "--model", "m", "-q") == 0
    text = path.read_text(encoding="utf-8")
    closing = source.index("\n}\n@@@\n")  # the end of the manifest fence's JSON
    assert text.startswith(source[:closing] + ',\n  "lmml_run": [\n    {"turn": 6')
    rest = source[closing + len("\n}\n@@@\n") :]
    assert text.endswith(rest + "\n## Turn 6 -- assistant\n\nA reply\n")
    bundle = lmml_mdit.open(path)
    assert bundle.validate() == []
    assert bundle.manifest["title"] == "Quarterly sales review"


@pytest.mark.parametrize("at", ["head", "foot", "head, CR", "foot, CR", "head, CRLF", "foot, CRLF"])
def test_a_manifest_fence_closed_at_its_last_line_is_updated_where_it_stands(
    tmp_path: Path, server: WireServer, at: str
) -> None:
    # "}@@@" closes the fence (the reference's inliner writes it so): the fence ends there,
    # not at the next line holding only @@@, which closes another fence further down.
    example = Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmml"
    source = example.read_text(encoding="utf-8").replace("\n}\n@@@\n", "\n}@@@\n", 1)
    if at.startswith("foot"):
        start = source.index("@@@manifest.json")
        end = source.index("}@@@\n") + len("}@@@\n")
        source = source[:start] + source[end:] + "\n" + source[start:end]
    if at.endswith("CR"):  # lone carriage returns end lines as line feeds do
        source = source.replace("\n", "\r")
    elif at.endswith("CRLF"):
        source = source.replace("\n", "\r\n")
    before = lmml_mdit.open(_chat(tmp_path, source))
    assert before.validate() == []
    turns = [(turn.role, turn.text) for turn in before.narrative.turns]
    path = _chat(tmp_path, source)
    server.script(openai_chat(Said(["A reply"]), stream=True))
    assert _run(server, "openai", path, "--model", "m", "-q") == 0
    bundle = lmml_mdit.open(path)
    assert bundle.validate() == []
    after = [(turn.role, turn.text) for turn in bundle.narrative.turns]
    assert [role for role, _ in after] == [role for role, _ in turns] + ["assistant"]
    # the turns between the manifest's two places, every byte as it was
    assert after[1:-2] == turns[1:-1]
    assert after[-2][1].startswith(turns[-1][1].split("\n\n@@@manifest.json")[0])
    assert after[-1][1].startswith("A reply")
    assert bundle.embed("sales.csv") == before.embed("sales.csv")
    assert bundle.manifest["title"] == "Quarterly sales review"
    assert [record["turn"] for record in bundle.manifest["lmml_run"]] == [6]
    assert path.read_text(encoding="utf-8").count("@@@manifest.json") == 1
    if at.endswith(("CR", "CRLF")):  # the file keeps its line ends: no lone line feed
        assert "\n" not in path.read_bytes().decode("utf-8").replace("\r\n", "")


def test_ctrl_c_with_keep_partial_writes_what_arrived(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    server.script(openai_chat(Said(["a", "b", "c"]), stream=True))
    original = sys.stdout.write

    def interrupt(text: str) -> int:
        if text == "b":
            raise KeyboardInterrupt
        return original(text)

    sys.stdout.write = interrupt  # type: ignore[method-assign]
    try:
        code = _run(server, "openai", path, "--keep-partial")
    finally:
        sys.stdout.write = original  # type: ignore[method-assign]
    assert code == 130
    text = path.read_text(encoding="utf-8")
    assert text.startswith(CHAT + "\n## Turn 2 -- assistant\n\nab\n")
    assert lmml_mdit.open(path).manifest["lmml_run"][0]["incomplete"] is True
    err = capsys.readouterr().err
    assert f"wrote what arrived, marked incomplete, to {path}\n" in err
    assert err.endswith("lmml: error: interrupted\n")


def test_max_rounds_zero_is_refused(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(server, "openai", _chat(tmp_path), "--max-rounds", "0") == 2
    assert "--max-rounds must be 1 or more" in capsys.readouterr().err
    assert server.requests == []
    with pytest.raises(ValueError, match="max_rounds"):
        lmml_mdit.open(_chat(tmp_path)).send("openai", max_rounds=0)


@pytest.mark.usefixtures("without_otlp_exporter")
def test_otel_traces_exporter_turns_otlp_on_and_none_turns_it_off(
    tmp_path: Path,
    server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _chat(tmp_path)
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp")
    server.script(openai_chat(Said(["on"]), stream=True))
    assert _run(server, "openai", path) == 0
    assert "OTEL_TRACES_EXPORTER is set" in capsys.readouterr().err
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "none")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    server.script(openai_chat(Said(["off"]), stream=True))
    assert _run(server, "openai", path) == 0
    assert "not traced" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("part", "said"),
    [
        ({"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}, "image/png part"),
        (
            {"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/cat.png"}},
            "remote image part",
        ),
    ],
    ids=["inline", "remote"],
)
def test_a_reply_holding_an_asset_is_refused_and_the_file_left_alone(
    tmp_path: Path,
    server: WireServer,
    capsys: pytest.CaptureFixture[str],
    part: dict[str, Any],
    said: str,
) -> None:
    path = _chat(tmp_path)
    reply = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "Here it is."}, part]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "modelVersion": "m1",
    }
    server.script(Json(reply))
    assert _run(server, "gemini", path, "--no-stream", "-q") != 0
    assert f"the reply holds a {said}, which a run cannot write yet" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == CHAT


# -- a second run reads the file as the first did ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "flags", "asset"),
    [
        # @Dockerfile is a reference because the file lies beside the narrative
        ("## user\n\nCheck @Dockerfile please.\n", [], True),
        # the headings are delimiters only with --delimiters loose
        ("## User question\n\nCheck @Dockerfile please.\n", ["--delimiters", "loose"], True),
        # @notes is a reference only with --references any
        ("## user\n\nCheck @notes please.\n", ["--references", "any"], False),
    ],
    ids=["folder-name", "loose", "any"],
)
def test_a_later_run_sends_what_the_first_run_sent(
    tmp_path: Path, server: WireServer, text: str, flags: list[str], asset: bool
) -> None:
    # After a run the file ends in the run's manifest fence; the next run parses the file
    # again, and must read it with the same folder and syntax as the first.
    (tmp_path / "Dockerfile").write_text("FROM python\n", encoding="utf-8")
    (tmp_path / "notes").write_text("buy milk\n", encoding="utf-8")
    path = _chat(tmp_path, "@@@settings.yaml\nmodel: m1\n@@@\n\n" + text)
    for _ in range(2):
        server.script(openai_chat(Said(["Done."]), stream=False))
        assert _run(server, "openai", path, "--no-stream", "-q", *flags) == 0
    first, second = (request.body["messages"] for request in server.requests)
    assert first[0]["role"] == "user"
    assert len(first[0]["content"]) == 2  # the text, then the file
    assert ("FROM python" if asset else "buy milk") in first[0]["content"][1]["text"]
    assert second[: len(first)] == first
    assert [message["role"] for message in second] == ["user", "assistant"]
