"""The chat formats' registry, the typed provider interface and the bundle-source seam."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from lmml_mdit import Bundle, MissingSettingWarning, UnknownSettingWarning, to_request
from lmml_mdit.bundle import BundleSource
from lmml_mdit.chat import Options, export_bundle, messages, read_conversation, request_body

# private on purpose: the test checks which names the modules themselves hold
from lmml_mdit.chat import _detect as detect
from lmml_mdit.chat import _export as export
from lmml_mdit.chat.providers import (
    EXPORT_PROVIDERS,
    FORMATS,
    IMPORT_FORMATS,
    PROVIDER_NAMES,
    PROVIDERS,
    ChatFormat,
    Provider,
    provider,
)
from lmml_mdit.chat.providers.anthropic import DEFAULT_MAX_TOKENS
from lmml_mdit.cli import parser

SETTINGS = b"model: m-1\nmax_tokens: 64\ntemperature: 0.5\nstop: END\n"


def _bundle(settings: bytes = SETTINGS) -> Bundle:
    return Bundle.from_zip(
        "chat", "## system\n\nBe brief.\n\n## user\n\nhi\n", {"settings.yaml": settings}
    )


def test_the_registry_is_the_one_list_of_format_names() -> None:
    assert list(PROVIDERS) == ["openai", "openai-responses", "anthropic", "gemini"]
    assert list(FORMATS) == [*PROVIDERS, "sharegpt"]
    assert all(isinstance(found, Provider) for found in PROVIDERS.values())
    assert isinstance(FORMATS["sharegpt"], ChatFormat)
    assert not isinstance(FORMATS["sharegpt"], Provider)
    assert all(found.name == name for name, found in FORMATS.items())
    assert tuple(PROVIDERS) == PROVIDER_NAMES
    assert IMPORT_FORMATS == EXPORT_PROVIDERS == tuple(FORMATS)
    # Every other place that names the formats reads them from the registry.
    # No second list of names beside the registry, which would miss the plugins' formats
    # (detect.FORMATS was the built-in names only).
    assert not hasattr(detect, "FORMATS")
    assert export.EXPORT_PROVIDERS is EXPORT_PROVIDERS
    assert parser.PROVIDERS is PROVIDER_NAMES
    assert parser.IMPORT_FORMATS is IMPORT_FORMATS
    assert parser.EXPORT_PROVIDERS is EXPORT_PROVIDERS
    assert set(detect.FORMAT_DESCRIPTIONS) == set(FORMATS)


@pytest.mark.parametrize("name", list(FORMATS))
def test_each_format_reads_and_writes_in_one_module(name: str) -> None:
    found = FORMATS[name]
    module = importlib.import_module(found.read.__module__)
    assert module.__name__ == f"lmml_mdit.chat.providers.{name.replace('-', '_')}"
    if isinstance(found, Provider):
        assert found.write.__module__ == found.request.__module__ == module.__name__
        assert module.PROVIDER is found
    else:
        assert module.FORMAT is found
        assert hasattr(module, "export_sharegpt")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{module.__name__}_reader")


def test_an_unknown_provider_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="openai, openai-responses, anthropic, gemini"):
        provider("palm")
    with pytest.raises(ValueError, match="unknown provider 'palm'"):
        to_request(_bundle(), "palm")


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_to_request_and_the_dataset_export_build_the_same_body(name: str) -> None:
    # A dataset line keeps every setting: it is to_request with unknown_settings="pass".
    bundle = _bundle()
    body = to_request(bundle, name, attachment_lines="drop", unknown_settings="pass")
    assert export_bundle(bundle, name) == body
    options = Options(attachment_lines="drop", unknown_settings="pass")
    assert body == request_body(bundle, PROVIDERS[name], options)
    assert body["model"] == "m-1"


@pytest.mark.parametrize("name", [name for name in PROVIDERS if "stop" in PROVIDERS[name].settings])
def test_list_settings_are_wrapped_as_the_provider_declares(name: str) -> None:
    chosen = PROVIDERS[name]
    body = to_request(_bundle(), name)
    params: dict[str, Any] = body.get("config", body)  # Gemini's parameters are its config
    stop = params[chosen.settings["stop"]]
    assert stop == (["END"] if chosen.settings["stop"] in chosen.list_settings else "END")


def test_a_required_setting_takes_its_default_live_only() -> None:
    bundle = _bundle(b"model: m-1\n")
    anthropic = PROVIDERS["anthropic"]
    assert anthropic.required_settings == {"max_tokens"}
    assert anthropic.setting_defaults == {"max_tokens": DEFAULT_MAX_TOKENS}
    with pytest.warns(MissingSettingWarning, match="requires max_tokens and the settings give"):
        body = to_request(bundle, "anthropic")
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS
    record = export_bundle(bundle, "anthropic")
    assert "max_tokens" not in record
    assert record == request_body(bundle, anthropic, Options(attachment_lines="drop"), live=False)


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_what_a_provider_writes_its_reader_reads_back(name: str) -> None:
    body = to_request(_bundle(), name)
    conversation = read_conversation(body, name)
    assert PROVIDERS[name].read(body) == conversation
    roles = [turn.role for turn in conversation.turns]
    assert roles == ["system", "user"]


class _Delegate:
    """Not a Bundle: an object with only what :class:`BundleSource` names, read from one."""

    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle
        self.name = bundle.name
        self.kind = bundle.kind
        self.narrative_name = bundle.narrative_name
        self.file_name = bundle.file_name
        self.narrative = bundle.narrative
        self.entries = bundle.entries
        self.fences = bundle.fences
        self.front_matter = bundle.front_matter
        self.base_dir = bundle.base_dir
        self.RESERVED_NAMES = bundle.RESERVED_NAMES
        self.manifest = bundle.manifest
        self.settings = bundle.settings

    def embed(self, name: str) -> bytes:
        return self._bundle.embed(name)

    def entry_size(self, name: str) -> int:
        return self._bundle.entry_size(name)

    def has_asset(self, name: str) -> bool:
        return self._bundle.has_asset(name)

    def check_sendable(self, *, strict: bool = True) -> None:
        self._bundle.check_sendable(strict=strict)

    def warn_defects(self) -> None:
        self._bundle.warn_defects()


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_any_bundle_source_is_sent_as_the_bundle_is(name: str) -> None:
    bundle = _bundle()
    source: BundleSource = _Delegate(bundle)
    assert to_request(source, name) == to_request(bundle, name)
    assert messages(source, name, system="separate") == messages(bundle, name, system="separate")
    assert export_bundle(source, name) == export_bundle(bundle, name)


def test_a_native_setting_in_another_providers_shape_is_left_out_with_a_warning() -> None:
    from lmml_mdit.chat import request_params

    with pytest.warns(UnknownSettingWarning, match="takes another shape"):
        params = request_params({"metadata": {"trace": "x"}}, "anthropic")
    assert "metadata" not in params
    assert request_params({"metadata": {"user_id": "u1"}}, "anthropic") == {
        "metadata": {"user_id": "u1"}
    }
    assert request_params({"metadata": {"trace": "x"}}, "anthropic", unknown="pass") == {
        "metadata": {"trace": "x"}
    }
    assert request_params({"metadata": {"trace": "x"}}, "openai") == {"metadata": {"trace": "x"}}
