"""Remote assets: an image or file given by URL or file id is recorded (never fetched) as a
``*.remote.json`` entry, exported as that URL or id where a provider takes it, refused
with a named error where it needs the bytes; validated as resolved; shown as a safe link."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import run_lmml as run
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bridge_roundtrip import PROVIDER_FORMATS, exported, normalise, validate_with_sdk
from test_preview_xss import violations
from xss_corpus import parse_document

import lmml_mdit
from lmml_mdit import (
    Bundle,
    DefectWarning,
    export_sharegpt,
    import_messages,
    import_path,
    render_html,
)
from lmml_mdit.bundle import (
    REMOTE_SUFFIX,
    link_target,
    parse_remote,
    remote_entry,
)
from lmml_mdit.chat import export_bundle
from lmml_mdit.conversation import MAX_URL_LENGTH, RemoteAsset
from lmml_mdit.errors import BundleError, DefectError, ImportFormatError, UnsupportedContentError

CORPUS = Path(__file__).parent / "bridge_corpus" / "remote"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


BODIES = [
    pytest.param(fmt, path, id=f"{fmt}/{path.name}")
    for fmt in PROVIDER_FORMATS
    for path in sorted((CORPUS / fmt).glob("*.json"))
]


def remote_entries(bundle: Bundle) -> dict[str, RemoteAsset]:
    return {
        name: parse_remote(bundle.read(name), name=name)
        for name in bundle.entries
        if name.endswith(REMOTE_SUFFIX)
    }


def test_the_corpus_covers_every_format() -> None:
    for fmt in PROVIDER_FORMATS:
        assert sorted((CORPUS / fmt).glob("*.json")), fmt


# -- round trip: import, save, reopen, export to the same provider ------------------------


@pytest.mark.parametrize(("fmt", "path"), BODIES)
def test_round_trip_through_a_saved_bundle(fmt: str, path: Path, tmp_path: Path) -> None:
    source = load(path)
    imported = import_messages(source, fmt)
    saved = tmp_path / "chat.lmmlz"
    imported.save(saved)
    bundle = lmml_mdit.open(saved)
    remotes = remote_entries(bundle)
    assert remotes, "every corpus body holds a remote asset"
    # Only the URL or the id is recorded: nothing else is an entry but the settings.
    assert set(bundle.entries) - set(remotes) <= {"settings.json"}
    for name in remotes:
        assert f"@{name}" in bundle.narrative.source
    body = exported(bundle, fmt)
    validate_with_sdk(fmt, body, bundle.settings)
    assert normalise(fmt, body, source=source) == normalise(fmt, source, source=source)


@pytest.mark.parametrize(("fmt", "path"), BODIES)
def test_round_trip_through_an_inlined_narrative(fmt: str, path: Path, tmp_path: Path) -> None:
    # A remote asset is text: a bare .lmml holds it as an inline fence, which works alike.
    source = load(path)
    (out,) = import_path(path, tmp_path / "chat.lmml", fmt)
    bundle = lmml_mdit.open(out)
    assert "@@@" in bundle.narrative.source and REMOTE_SUFFIX in bundle.narrative.source
    assert bundle.validate() == []
    body = exported(bundle, fmt)
    assert normalise(fmt, body, source=source) == normalise(fmt, source, source=source)


# -- across providers ---------------------------------------------------------------------

# What each body's remote assets become elsewhere: True when the provider takes them all.
TAKES = {
    "openai/image_url_https.json": {"openai-responses", "anthropic", "gemini"},
    "openai/file_id.json": {"openai-responses"},
    "openai-responses/input_image_url.json": {"openai", "anthropic", "gemini"},
    "openai-responses/file_ids.json": set(),  # Chat takes no image file id
    "openai-responses/input_file_url.json": {"anthropic", "gemini"},
    "anthropic/url_sources.json": {"openai-responses", "gemini"},
    "anthropic/file_sources.json": set(),
    "gemini/file_data.json": {"openai-responses", "anthropic"},
    "gemini/file_data_rest.json": set(),  # a video URL: only Gemini takes video
}


def test_the_expectations_name_every_body() -> None:
    assert sorted(TAKES) == sorted(f"{p.parent.name}/{p.name}" for p in CORPUS.glob("*/*.json"))


CROSS = [
    pytest.param(fmt, path, provider, id=f"{fmt}/{path.name}->{provider}")
    for fmt in PROVIDER_FORMATS
    for path in sorted((CORPUS / fmt).glob("*.json"))
    for provider in PROVIDER_FORMATS
    if provider != fmt
]


def _pointers(remote: RemoteAsset) -> str:
    return remote.url if remote.url is not None else str(remote.file_id)


@pytest.mark.parametrize(("fmt", "path", "provider"), CROSS)
def test_other_providers_take_the_url_or_refuse_clearly(
    fmt: str, path: Path, provider: str
) -> None:
    bundle = import_messages(load(path), fmt)
    remotes = remote_entries(bundle)
    expected = provider in TAKES[f"{fmt}/{path.name}"]
    try:
        body = export_bundle(bundle, provider)
    except UnsupportedContentError as error:
        assert not expected, str(error)
        assert error.name in remotes and error.line is not None
        assert _pointers(remotes[error.name])[:40] in error.message
        assert f"cannot take {error.name}, a remote" in error.message and error.hint
        return
    assert expected, f"{provider} was expected to refuse"
    validate_with_sdk(provider, body, bundle.settings)
    text = json.dumps(body)
    for remote in remotes.values():
        assert json.dumps(_pointers(remote)) in text  # sent as the URL or id itself


def test_exports_in_each_providers_form() -> None:
    body = load(CORPUS / "anthropic" / "url_sources.json")
    bundle = import_messages(body, "anthropic")
    image, pdf = (s["source"]["url"] for s in body["messages"][0]["content"][:2])
    responses = export_bundle(bundle, "openai-responses")["input"][0]["content"]
    assert responses[:2] == [
        {"type": "input_image", "image_url": image, "detail": "auto"},
        {"type": "input_file", "file_url": pdf},
    ]
    gemini = export_bundle(bundle, "gemini")["contents"][0]["parts"]
    assert gemini[:2] == [{"file_data": {"file_uri": image}}, {"file_data": {"file_uri": pdf}}]
    with pytest.raises(UnsupportedContentError, match="not a URL"):
        export_bundle(bundle, "openai")  # Chat's file part takes no URL


def test_a_file_id_goes_only_to_the_provider_that_issued_it() -> None:
    bundle = import_messages(load(CORPUS / "anthropic" / "file_sources.json"), "anthropic")
    for provider in ("openai", "openai-responses"):
        with pytest.raises(UnsupportedContentError, match="issued by another provider"):
            export_bundle(bundle, provider)
    with pytest.raises(UnsupportedContentError, match="not another provider's id"):
        export_bundle(bundle, "gemini")


def test_sharegpt_refuses_a_remote_asset() -> None:
    bundle = import_messages(load(CORPUS / "openai" / "image_url_https.json"), "openai")
    with pytest.raises(UnsupportedContentError):
        export_sharegpt(bundle)


def test_the_same_url_twice_is_sent_twice() -> None:
    # An embed is sent at its first reference only, so the URL given again has an entry
    # of its own (the same JSON, named <digits>-2.remote.json) and is sent again.
    part = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    text = {"type": "text", "text": "Both:"}
    bundle = import_messages([{"role": "user", "content": [text, part, part]}], "openai")
    first, second = sorted(remote_entries(bundle), key=len)
    assert second == first[:16] + "-2" + first[16:]
    assert bundle.read(first) == bundle.read(second)
    content = export_bundle(bundle, "openai")["messages"][0]["content"]
    assert content == [text, part, part]


def test_an_input_image_with_both_a_url_and_an_id_is_refused() -> None:
    part = {"type": "input_image", "image_url": "https://x/a.png", "file_id": "file-1"}
    with pytest.raises(ImportFormatError, match="both image_url and file_id"):
        import_messages([{"role": "user", "content": [part]}], "openai-responses")


# -- the entry -----------------------------------------------------------------------------


def test_entry_form_is_documented_json() -> None:
    remote = RemoteAsset("image", url="https://e.com/a.png", media_type="image/png")
    name, data = remote_entry(remote)
    assert name.endswith(REMOTE_SUFFIX) and len(name) == 16 + len(REMOTE_SUFFIX)
    assert json.loads(data) == {
        "kind": "image",
        "url": "https://e.com/a.png",
        "media_type": "image/png",
    }
    assert parse_remote(data, name=name) == remote
    file_id = RemoteAsset("file", file_id="file-1", provider="openai")
    assert json.loads(remote_entry(file_id)[1]) == {
        "kind": "file",
        "file_id": "file-1",
        "provider": "openai",
    }


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b"not json", "not JSON"),
        (b"[]", "JSON object"),
        (b'{"kind": "image"}', "exactly one of url and file_id"),
        (b'{"kind": "video", "url": "https://x"}', "kind"),
        (b'{"kind": "image", "url": "https://x", "extra": 1}', "unknown keys"),
        (b'{"kind": "file", "file_id": "f"}', "provider"),
        (b'{"kind": "file", "file_id": "f", "provider": "gemini"}', "provider"),
        (b'{"kind": "image", "url": 5}', "string"),
        (b'{"kind": "image", "url": "https://x\\u0000"}', "control characters"),
        # Read as every JSON the package reads (lmml_mdit.jsonio): strictly, never a crash.
        (b'{"kind": "image", "url": "https://a", "url": "https://b"}', "appears twice"),
        (b"[" * 100_000 + b"]" * 100_000, "nests too deeply"),
        (b'{"kind": "image", "url": NaN}', "NaN is not a JSON number"),
        (b"\xff", "not UTF-8"),
    ],
)
def test_a_malformed_entry_is_refused(data: bytes, fragment: str) -> None:
    with pytest.raises(BundleError, match=fragment):
        parse_remote(data, name="x.remote.json")


def test_a_malformed_entry_is_refused_on_export_and_flagged_in_the_preview() -> None:
    bundle = Bundle.from_zip(
        "chat", "## user\n\nLook:\n\n@bad.remote.json\n", {"bad.remote.json": b'{"kind": 1}'}
    )
    # What a send refuses, validate reports as an error (issue 26): the refusal is that
    # defect, and strict=False sends the reference as written, warning it.
    with pytest.raises(DefectError, match="kind") as info:
        bundle.to_request("openai", model="m")
    assert info.value.kind == "invalid_remote_asset"
    assert info.value.name == "bad.remote.json" and info.value.line == 5
    with pytest.warns(DefectWarning, match="invalid_remote_asset"):
        body = bundle.to_request("openai", model="m", strict=False)
    assert body["messages"][0]["content"][-1] == {"type": "text", "text": "@bad.remote.json"}
    markup = render_html(bundle)
    assert "lmml-missing" in markup and violations(markup, bundle) == []
    (issue,) = bundle.validate()
    assert (issue.kind, issue.name, issue.line, issue.severity) == (
        "invalid_remote_asset",
        "bad.remote.json",
        5,
        "error",
    )


# -- validate and preview -----------------------------------------------------------------


def test_validate_treats_a_remote_asset_as_resolved(tmp_path: Path) -> None:
    for path in CORPUS.glob("*/*.json"):
        bundle = import_messages(load(path), path.parent.name)
        assert bundle.validate() == [], path


def test_the_preview_links_a_url_and_shows_an_id_as_text() -> None:
    bundle = import_messages(load(CORPUS / "anthropic" / "url_sources.json"), "anthropic")
    markup = render_html(bundle)
    assert violations(markup, bundle) == []
    links = [e for e in parse_document(markup).root.iter() if e.tag == "a" and e.get("href")]
    hrefs = {link.get("href") for link in links}
    for remote in remote_entries(bundle).values():
        assert remote.url in hrefs
    bundle = import_messages(load(CORPUS / "anthropic" / "file_sources.json"), "anthropic")
    markup = render_html(bundle)
    assert "file_011CNha8iCJcU1wXNR6q4V8w" in markup and violations(markup, bundle) == []
    assert 'href="file_' not in markup


HOSTILE_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.cookie)",
    " javascript:alert(1)",
    "java%0ascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    'https://x.example/"><script>alert(1)</script>',
    "https://x.example/a b' onerror='alert(1)",
    "file:///etc/passwd",
    "//evil.example/a.png",
    "https://" + "a" * (MAX_URL_LENGTH - 8),
]


def _hand_written(url: str) -> Bundle:
    """A bundle holding a remote entry written by hand: the preview must not trust it."""
    name, data = "x.remote.json", json.dumps({"kind": "image", "url": url}).encode()
    return Bundle.from_zip("chat", f"## user\n\nSee @{name}\n", {name: data})


@pytest.mark.parametrize("url", HOSTILE_URLS, ids=range(len(HOSTILE_URLS)))
def test_hostile_urls_are_safe_in_the_preview(url: str) -> None:
    bundle = _hand_written(url)
    markup = render_html(bundle)
    assert violations(markup, bundle) == []
    assert "<script>alert" not in markup
    anchors = [e for e in parse_document(markup).root.iter() if e.tag == "a" and e.get("href")]
    for anchor in anchors:
        assert anchor.get("href").startswith(("https://", "http://", "#"))
    assert len(markup) < 2 * len(render_html(_hand_written("https://x"))) + MAX_URL_LENGTH * 7


@pytest.mark.parametrize(
    "url",
    [
        "https://x.example/\u0000a.png",
        "https://x.example/\x07",
        "https://x/\r\n",
        "a" * (MAX_URL_LENGTH + 1),
        "",
    ],
    ids=["nul", "bell", "newline", "too-long", "empty"],
)
def test_malformed_urls_are_refused_at_import(url: str) -> None:
    part = {"type": "image_url", "image_url": {"url": url}}
    with pytest.raises(ImportFormatError, match="invalid remote asset") as info:
        import_messages([{"role": "user", "content": [part]}], "openai")
    assert info.value.name == "messages[0].content[0]"


def test_a_hostile_imported_url_travels_but_is_never_a_link() -> None:
    # The payload's URL is recorded as given and sent back as given; only the page refuses
    # to make it a link.
    part = {"type": "image_url", "image_url": {"url": "javascript:alert(1)"}}
    bundle = import_messages([{"role": "user", "content": [part]}], "openai")
    assert export_bundle(bundle, "openai")["messages"][0]["content"] == [part]
    markup = render_html(bundle)
    assert violations(markup, bundle) == [] and "javascript:alert(1)" in markup


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_any_url_imports_safely_or_is_refused(url: str) -> None:
    part = {"type": "image_url", "image_url": {"url": url}}
    try:
        bundle = import_messages([{"role": "user", "content": [part]}], "openai")
    except ImportFormatError:
        return
    markup = render_html(bundle)
    assert violations(markup, bundle) == []
    target = link_target(url)
    assert (target is not None) == url.lower().startswith(("https://", "http://")) or not url


# -- the command line ---------------------------------------------------------------------


def test_cli_import_then_export_and_validate(tmp_path: Path) -> None:
    source = CORPUS / "openai-responses" / "file_ids.json"
    out = tmp_path / "chat.lmmlz"
    assert run("import", source, "-o", out).returncode == 0
    result = run("validate", out)
    assert result.returncode == 0, result.stderr.decode()
    result = run(
        "export", tmp_path, "--provider", "openai-responses", "--jsonl", tmp_path / "a.jsonl"
    )
    assert result.returncode == 0, result.stderr.decode()
    line = json.loads((tmp_path / "a.jsonl").read_text())
    assert normalise("openai-responses", line, source=load(source)) == normalise(
        "openai-responses", load(source), source=load(source)
    )
    result = run("export", tmp_path, "--provider", "anthropic", "--jsonl", tmp_path / "b.jsonl")
    stderr = result.stderr.decode()
    assert result.returncode == 1 and ", a remote image" in stderr
