"""The default request body is what the installed official SDK's create call accepts.

For every provider, ``to_request`` (and ``lmml render --request``) with the default options
gives keyword arguments that bind to the real client's create method (constructed offline
with a dummy key; nothing is sent) and pass the SDK's own request type: a setting the
provider has no parameter for is left out with a warning naming it, Anthropic's
``max_tokens`` takes its documented default, and a model is required where the create call
requires one.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args, get_type_hints

import anthropic
import openai
import pytest
from _messages_support import pdf, png, zip_bundle
from _sdk_types import check_strict
from anthropic.types import Base64ImageSourceParam, message_create_params
from google import genai
from google.genai import types as genai_types
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params
from pydantic import TypeAdapter

from lmml_mdit import (
    Bundle,
    ImagePart,
    MissingSettingWarning,
    UnknownSettingWarning,
    UnsupportedContentError,
    to_request,
)
from lmml_mdit import open as open_bundle
from lmml_mdit.chat.providers import PROVIDERS
from lmml_mdit.chat.providers.anthropic import DEFAULT_MAX_TOKENS
from lmml_mdit.cli import main
from lmml_mdit.errors import InvalidSettingsError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

_OPENAI = openai.OpenAI(api_key="sk-offline", base_url="http://127.0.0.1:9")
_ANTHROPIC = anthropic.Anthropic(api_key="sk-offline", base_url="http://127.0.0.1:9")
_GEMINI = genai.Client(api_key="offline")

CREATE_CALLS: dict[str, Callable[..., Any]] = {
    "openai": _OPENAI.chat.completions.create,
    "openai-responses": _OPENAI.responses.create,
    "anthropic": _ANTHROPIC.messages.create,
    "gemini": _GEMINI.models.generate_content,
}

REQUEST_TYPES: dict[str, TypeAdapter[Any]] = {
    "openai": TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming),
    "openai-responses": TypeAdapter(response_create_params.ResponseCreateParamsNonStreaming),
    "anthropic": TypeAdapter(message_create_params.MessageCreateParamsNonStreaming),
}

EVERY_SETTING = (
    b"temperature: 0.4\ntop_p: 0.9\ntop_k: 20\nmax_tokens: 128\nstop: [END, STOP]\n"
    b"seed: 7\npresence_penalty: 0.5\nfrequency_penalty: -0.5\nn: 1\nwibble: 3\n"
)
"""Every portable setting, and one no provider has."""


def accepted_by_the_sdk(provider: str, body: dict[str, Any]) -> None:
    """*body* binds to the create call's keywords and passes the SDK's request type."""
    inspect.signature(CREATE_CALLS[provider]).bind(**body)
    if provider == "gemini":
        for content in body["contents"]:
            genai_types.Content.model_validate(content)
        genai_types.GenerateContentConfig.model_validate(body.get("config", {}))
        return
    check_strict(REQUEST_TYPES[provider], body)


def _bundles() -> dict[str, Bundle]:
    tools = (
        "Be precise.\n\n## user\nplot it @a.png and read @r.pdf\n\n## assistant\nOn it.\n\n"
        '@@@call_1.tool_call.json\n{"id": "call_1", "name": "plot", "arguments": {"n": 2}}\n@@@\n\n'
        "## tool\n@call_1.tool_call.json\n\nDone.\n\n## assistant\nHere it is.\n"
    )
    return {
        "sales-review.lmmlz": open_bundle(EXAMPLES / "sales-review.lmmlz"),
        "sales-review.lmml": open_bundle(EXAMPLES / "sales-review.lmml"),
        "weather-tools.lmml": open_bundle(EXAMPLES / "weather-tools.lmml"),
        "every-setting": zip_bundle(
            tools, {"a.png": png(), "r.pdf": pdf(), "settings.yaml": EVERY_SETTING}, "every"
        ),
    }


BUNDLES = _bundles()
CASES = [
    pytest.param(provider, name, id=f"{name}->{provider}")
    for provider in PROVIDERS
    for name in BUNDLES
]


@pytest.mark.parametrize(("provider", "name"), CASES)
def test_the_default_body_is_accepted_by_the_create_call(provider: str, name: str) -> None:
    bundle = BUNDLES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = to_request(bundle, provider, model="some-model")
    accepted_by_the_sdk(provider, body)
    # Each setting left out is named by a warning, and only those are left out.
    left_out = {
        str(warning.message).split("'")[1]
        for warning in caught
        if isinstance(warning.message, UnknownSettingWarning)
    }
    settings = bundle.settings or {}
    chosen = PROVIDERS[provider]
    expected = {
        key
        for key in settings
        if key != "model"
        and key not in chosen.native_settings
        and {"max_completion_tokens": "max_tokens", "stop_sequences": "stop"}.get(key, key)
        not in chosen.settings
    }
    assert left_out == expected
    if name == "every-setting":
        assert "wibble" in left_out


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_pass_keeps_what_the_sdk_would_refuse(provider: str) -> None:
    body = to_request(
        BUNDLES["every-setting"], provider, model="some-model", unknown_settings="pass"
    )
    params = body.get("config", body)
    assert params["wibble"] == 3
    with pytest.raises((TypeError, AssertionError, ValueError)):
        accepted_by_the_sdk(provider, body)


def test_anthropic_max_tokens_default_is_accepted() -> None:
    bundle = BUNDLES["weather-tools.lmml"]  # no settings at all
    with pytest.warns(MissingSettingWarning, match=f"max_tokens={DEFAULT_MAX_TOKENS}"):
        body = to_request(bundle, "anthropic", model="claude-x")
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS
    accepted_by_the_sdk("anthropic", body)


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_a_missing_model_follows_the_create_call(provider: str) -> None:
    create = inspect.signature(CREATE_CALLS[provider])
    required = create.parameters["model"].default is inspect.Parameter.empty
    assert required == PROVIDERS[provider].requires_model
    bundle = BUNDLES["weather-tools.lmml"]
    if required:
        with pytest.raises(InvalidSettingsError, match="requires a model") as error:
            to_request(bundle, provider, settings={"max_tokens": 10})
        assert error.value.name == "model"
        return
    with pytest.warns(MissingSettingWarning, match="no model given"):
        body = to_request(bundle, provider)
    assert "model" not in body
    accepted_by_the_sdk(provider, body)


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("model", ["", "  "])
def test_an_empty_model_name_is_refused(provider: str, model: str, capsys: Any) -> None:
    # Before, the body went out with "model": "" and no word.
    bundle = BUNDLES["weather-tools.lmml"]
    with pytest.raises(InvalidSettingsError, match="is empty") as error:
        to_request(bundle, provider, model=model, settings={"max_tokens": 10})
    assert error.value.name == "model"
    path = str(EXAMPLES / "weather-tools.lmml")
    assert main(["render", path, "-p", provider, "--request", "--model", model]) == 2
    assert "give --model a name" in capsys.readouterr().err


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_render_request_prints_an_accepted_body(provider: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", "render", str(EXAMPLES / "sales-review.lmmlz"),
         "-p", provider, "--request", "--model", "some-model"],
        capture_output=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    accepted_by_the_sdk(provider, json.loads(result.stdout))
    warned = result.stderr.decode().splitlines()
    assert all(line.startswith("lmml: warning: ") for line in warned)
    if provider == "anthropic":  # no temperature or top_p in the Messages create call
        assert any("'temperature' left out" in line for line in warned)


_NOT_SETTINGS = {
    # The messages and the model, which the body gets from the bundle; streaming, which a
    # request body here never asks for; Chat's deprecated functions (its tools are read)
    # and max_tokens (the LMML key, sent as max_completion_tokens).
    "openai": {
        *("messages", "model", "stream", "stream_options"),
        *("function_call", "functions", "max_tokens"),
    },
    "openai-responses": {"input", "model", "stream", "stream_options"},
    "anthropic": {"messages", "model", "system", "stream"},
    # The system instruction comes from the system turns; the rest is the client's own.
    "gemini": {"system_instruction", "http_options", "should_return_http_response"},
}


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_every_parameter_of_the_create_call_is_a_setting(provider: str) -> None:
    # A settings key the installed SDK takes is sent under its name, never left out with a
    # warning saying the provider has no such parameter (an imported body's
    # safety_identifier or prompt_cache_key comes back).
    if provider == "gemini":
        taken = set(genai_types.GenerateContentConfig.model_fields)
    else:
        taken = set(inspect.signature(CREATE_CALLS[provider]).parameters)
        taken -= {"extra_headers", "extra_query", "extra_body", "timeout", "betas"}
    chosen = PROVIDERS[provider]
    known = set(chosen.native_settings) | set(chosen.settings.values())
    assert sorted(taken - known - _NOT_SETTINGS[provider]) == []


def test_anthropic_takes_exactly_the_image_types_its_sdk_names() -> None:
    def strings(hint: object) -> set[str]:
        """The strings of a ``Literal``, inside ``Required[...]`` or not (Python 3.10's
        ``get_type_hints`` keeps the wrapper)."""
        return {
            found
            for arg in get_args(hint)
            for found in ((arg,) if isinstance(arg, str) else strings(arg))
        }

    named = strings(get_type_hints(Base64ImageSourceParam)["media_type"])
    assert "image/png" in named
    bundle = zip_bundle("## user\n@a.img\n", {"a.img": png()})
    limit = {"max_tokens": 16}
    for media_type in sorted(named | {"image/svg+xml", "image/bmp", "image/heic"}):
        handlers = {".img": lambda asset, kind=media_type: ImagePart(asset, kind)}
        if media_type in named:
            accepted_by_the_sdk(
                "anthropic",
                to_request(bundle, "anthropic", model="m", handlers=handlers, settings=limit),
            )
        else:
            with pytest.raises(UnsupportedContentError, match=re.escape(f"({media_type})")):
                to_request(bundle, "anthropic", model="m", handlers=handlers, settings=limit)
