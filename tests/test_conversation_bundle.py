"""``ChatConversation.from_bundle``, ``to_bundle`` and ``to_lmml``: a bundle's conversation
written back reads as the same requests, on the shipped examples."""

from __future__ import annotations

from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import ChatConversation, ChatMessage
from lmml_mdit.chat import write_bundle
from lmml_mdit.conversation import ImagePart, TextPart
from lmml_mdit.errors import ImportFormatError, InputError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ["sales-review.lmmlz", "weather-tools.lmml"])
def test_a_bundle_written_back_sends_the_same_requests(name: str) -> None:
    with lmml_mdit.open(str(EXAMPLES / name)) as bundle:
        conversation = ChatConversation.from_bundle(bundle)
        again = conversation.to_bundle("again")
        for provider in PROVIDERS:
            assert again.to_request(provider, model="m") == bundle.to_request(provider, model="m")
        assert ChatConversation.from_bundle(again).to_lmml() == again.narrative.text
    assert conversation.to_lmml() == again.narrative.text


def test_the_assets_keep_their_names_and_bytes() -> None:
    with lmml_mdit.open(str(EXAMPLES / "sales-review.lmmlz")) as bundle:
        again = ChatConversation.from_bundle(bundle).to_bundle()
        for name in ("sales.csv", "chart.png", "report.pdf"):
            assert again.read(name) == bundle.read(name)
        assert again.settings == bundle.settings


def test_a_template_is_filled_as_export_fills_it() -> None:
    with lmml_mdit.open(str(EXAMPLES / "capitals.lmml")) as bundle:
        with pytest.raises(InputError, match="country"):
            ChatConversation.from_bundle(bundle)
        filled = ChatConversation.from_bundle(bundle, inputs={"country": "Peru"})
    assert "Peru" in filled.to_lmml()


def _image(name: str, data: bytes) -> ImagePart:
    with lmml_mdit.open(str(EXAMPLES / "sales-review.lmmlz")) as bundle:
        (part,) = (
            part
            for message in ChatConversation.from_bundle(bundle).messages
            for part in message.parts
            if isinstance(part, ImagePart)
        )
    asset = type(part.asset)(name, data, part.asset.media_type, part.asset.embed)
    return ImagePart(asset, part.media_type)


def test_an_asset_part_a_caller_builds_is_written_not_dropped() -> None:
    image = _image("cat.png", b"\x89PNG\r\n\x1a\ncat")
    conversation = ChatConversation([ChatMessage("user", [TextPart("Look:"), image])])
    bundle = write_bundle(conversation, "c")
    assert bundle.read("cat.png") == b"\x89PNG\r\n\x1a\ncat"
    assert bundle.narrative.turns[0].text == "Look:\n\n@cat.png"


def test_two_assets_of_one_name_with_different_bytes_are_refused() -> None:
    first, second = _image("cat.png", b"one"), _image("cat.png", b"two")
    conversation = ChatConversation([ChatMessage("user", [first, second])])
    with pytest.raises(ImportFormatError, match="two different assets would be written as"):
        conversation.to_bundle()
