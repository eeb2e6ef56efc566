"""A file's own name comes back: an OpenAI Chat ``file``'s and a Responses ``input_file``'s
``filename``, and an Anthropic ``document``'s ``title``, travel as the keys of a ``part``
fence after the asset (or the remote asset), are put back onto that part when exporting to
the same provider, and leave with a warning naming them for another provider. Before, each
was replaced without a word by the asset's content-hash name."""

from __future__ import annotations

import base64
import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _messages_support import pdf
from test_bridge_roundtrip import exported, validate_with_sdk

from lmml_mdit import NativeItemDroppedWarning, import_messages
from lmml_mdit import open as open_bundle
from lmml_mdit.cli import main

PDF_URI = "data:application/pdf;base64," + base64.b64encode(pdf()).decode()
TEXT_URI = "data:text/plain;base64," + base64.b64encode(b"Plain notes.\n").decode()


def _round_trip(body: dict[str, Any], fmt: str) -> dict[str, Any]:
    bundle = import_messages(copy.deepcopy(body), fmt)
    assert bundle.validate() == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeItemDroppedWarning)
        sent: dict[str, Any] = exported(bundle, fmt)
    validate_with_sdk(fmt, sent, bundle.settings)
    return sent


def _chat_body() -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Compare these."},
                    {"type": "file", "file": {"file_data": PDF_URI, "filename": "q3-report.pdf"}},
                    {"type": "file", "file": {"file_data": TEXT_URI, "filename": "notes.txt"}},
                    {"type": "file", "file": {"file_id": "file-abc123", "filename": "q2.pdf"}},
                ],
            }
        ],
    }


def test_a_chat_file_keeps_its_filename() -> None:
    body = _chat_body()
    assert _round_trip(body, "openai")["messages"] == body["messages"]


def test_a_responses_file_keeps_its_filename() -> None:
    content = [
        {"type": "input_text", "text": "Compare these."},
        {"type": "input_file", "file_data": PDF_URI, "filename": "q3-report.pdf"},
        {"type": "input_file", "file_id": "file-abc123", "filename": "q2.pdf"},
        {"type": "input_file", "file_url": "https://example.com/q1.pdf", "filename": "q1.pdf"},
    ]
    body = {"model": "gpt-4o", "input": [{"type": "message", "role": "user", "content": content}]}
    assert _round_trip(body, "openai-responses")["input"] == body["input"]


def test_an_anthropic_document_keeps_its_title() -> None:
    text_source = {"type": "text", "media_type": "text/plain", "data": "Plain notes."}
    pdf_source = {"type": "base64", "media_type": "application/pdf", "data": PDF_URI[28:]}
    content = [
        {"type": "document", "source": text_source, "title": "Meeting notes"},
        {"type": "document", "source": pdf_source, "title": "Q3 report", "context": "draft"},
        {"type": "text", "text": "Compare them."},
    ]
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "messages": [{"role": "user", "content": content}],
    }
    assert _round_trip(body, "anthropic")["messages"] == body["messages"]


def test_the_name_leaves_with_a_warning_for_another_provider() -> None:
    body = _chat_body()
    body["messages"][0]["content"].pop()  # the file id goes to OpenAI only
    bundle = import_messages(body, "openai")
    with pytest.warns(NativeItemDroppedWarning, match=r"openai part key 'file'") as caught:
        exported(bundle, "anthropic")
    assert len([w for w in caught if w.category is NativeItemDroppedWarning]) == 2


def test_import_then_render_from_the_cli_keeps_the_name(tmp_path: Path) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(_chat_body()), encoding="utf-8")
    out = tmp_path / "chat.lmmlz"
    assert main(["import", str(source), "-o", str(out), "-q"]) == 0
    sent = tmp_path / "sent.json"
    args = ["render", str(out), "--request", "-o", str(sent), "-q"]
    assert main(args) == 0
    content = json.loads(sent.read_text(encoding="utf-8"))["messages"][0]["content"]
    assert [part["file"]["filename"] for part in content[1:]] == [
        "q3-report.pdf",
        "notes.txt",
        "q2.pdf",
    ]
    assert open_bundle(out).validate() == []
