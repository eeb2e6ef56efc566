"""render_templated against a real Hugging Face tokenizer, built offline in memory."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

from dataclasses import dataclass
from typing import Any

import pytest

from lmml_mdit import Message, Transcript
from lmml_mdit.chat import (
    OPENING_USER_PLACEHOLDER,
    FlattenFlags,
    detect_template_flags,
    flatten,
)
from lmml_mdit.errors import ChatTemplateError, TranscriptTypeError

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    "{% if greeting is defined %}{{ greeting }}{% endif %}"
)

# Gemma-2 style: no system role, strict user/assistant alternation opening on user.
STRICT = (
    "{{ bos_token }}{% for m in messages %}"
    "{% if m['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}"
    "{% set role = 'model' if m['role'] == 'assistant' else m['role'] %}"
    "<start_of_turn>{{ role }}\n{{ m['content'] | trim }}<end_of_turn>\n"
    "{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)

WORDS = "hello world rules be brief alice bob carol hi there user assistant system model"


def tiny_tokenizer(chat_template: str) -> Any:
    """A WordLevel tokenizer trained on a few strings, wrapped as a fast HF tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[UNK]", "<bos>", "<|im_start|>", "<|im_end|>", "<start_of_turn>", "<end_of_turn>"]
    core = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.train_from_iterator([WORDS], trainers.WordLevelTrainer(special_tokens=specials))
    return PreTrainedTokenizerFast(
        tokenizer_object=core,
        chat_template=chat_template,
        unk_token="[UNK]",
        bos_token="<bos>",
        additional_special_tokens=specials[2:],
    )


@pytest.fixture(scope="module")
def chatml() -> Any:
    return tiny_tokenizer(CHATML)


@pytest.fixture(scope="module")
def strict() -> Any:
    return tiny_tokenizer(STRICT)


def dialogue() -> Transcript:
    transcript = Transcript()
    transcript.append("system", "Be brief.")
    transcript.append("bob", "hello")
    transcript.append("carol", "hi there")
    transcript.append("alice", "hello world")
    return transcript


def test_flags_detected_from_real_templates(chatml: Any, strict: Any) -> None:
    # Neither writes a message's tool_calls, so tool calls are folded into text for both;
    # both print the content as it is, so a list of parts would show as a list.
    assert detect_template_flags(chatml) == FlattenFlags(
        True, False, supports_tool_calls=False, supports_content_parts=False
    )
    assert detect_template_flags(strict) == FlattenFlags(
        False,
        True,
        supports_tool_calls=False,
        supports_system_midway=False,
        supports_content_parts=False,
    )


def test_chatml_renders_the_role_swapped_view(chatml: Any) -> None:
    text = dialogue().render_templated(pov="alice", tokenizer=chatml)
    assert text == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\nhello<|im_end|>\n"
        "<|im_start|>user\nhi there<|im_end|>\n"
        "<|im_start|>assistant\nhello world<|im_end|>\n"
    )
    from_bob = dialogue().render_templated(pov="bob", tokenizer=chatml)
    assert "<|im_start|>assistant\nhello<|im_end|>" in from_bob


def test_chatml_generation_prompt_and_tokens(chatml: Any) -> None:
    text = dialogue().render_templated(pov="alice", tokenizer=chatml, add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    ids = dialogue().render_templated(pov="alice", tokenizer=chatml, tokenize=True)
    # Token ids, as documented, though transformers 5 returns a BatchEncoding by default.
    assert isinstance(ids, list) and all(type(token) is int for token in ids)
    assert ids[0] == chatml.convert_tokens_to_ids("<|im_start|>")
    assert chatml.decode(ids).startswith("<|im_start|>")
    # Asking for the template's own dict (return_dict) still gets it, forwarded as given.
    encoded = dialogue().render_templated(
        pov="alice", tokenizer=chatml, tokenize=True, return_dict=True
    )
    assert encoded["input_ids"] == ids and "attention_mask" in encoded  # type: ignore[index,operator]


def test_extra_template_arguments_are_forwarded(chatml: Any) -> None:
    text = dialogue().render_templated(pov="alice", tokenizer=chatml, greeting="GREET")
    assert text.endswith("GREET")


def test_strict_template_raises_on_the_unflattened_view(strict: Any) -> None:
    with pytest.raises(ChatTemplateError, match="System role not supported") as caught:
        dialogue().render_templated(
            pov="alice", tokenizer=strict, fold_system=False, merge=False, user_first=False
        )
    assert caught.value.__cause__ is not None
    no_system = dialogue()[1:]
    with pytest.raises(ChatTemplateError, match="roles must alternate"):
        no_system.render_templated(
            pov="alice", tokenizer=strict, fold_system=False, merge=False, user_first=False
        )


def test_strict_template_renders_once_flattened(strict: Any) -> None:
    text = dialogue().render_templated(pov="alice", tokenizer=strict, add_generation_prompt=True)
    assert text == (
        "<bos><start_of_turn>user\nBe brief.\n\nbob: hello\n\ncarol: hi there<end_of_turn>\n"
        "<start_of_turn>model\nhello world<end_of_turn>\n"
        "<start_of_turn>model\n"
    )
    explicit = dialogue().render_templated(
        pov="alice",
        tokenizer=strict,
        fold_system=True,
        merge=True,
        user_first=True,
        add_generation_prompt=True,
    )
    assert explicit == text


def test_strict_template_with_the_model_speaking_first(strict: Any) -> None:
    transcript = Transcript([Message("alice", "hello"), Message("bob", "hi there")])
    text = transcript.render_templated(pov="alice", tokenizer=strict)
    assert text == (
        f"<bos><start_of_turn>user\n{OPENING_USER_PLACEHOLDER}<end_of_turn>\n"
        "<start_of_turn>model\nhello<end_of_turn>\n"
        "<start_of_turn>user\nhi there<end_of_turn>\n"
    )


@dataclass
class ModelParticipant:
    name: str
    tokenizer: Any
    self_role: str = "assistant"
    others_role: str = "user"


def test_tokenizer_taken_from_the_pov(chatml: Any) -> None:
    text = dialogue().render_templated(pov=ModelParticipant("alice", chatml))
    assert text == dialogue().render_templated(pov="alice", tokenizer=chatml)


def test_without_a_tokenizer() -> None:
    with pytest.raises(TranscriptTypeError, match="needs a tokenizer") as caught:
        dialogue().render_templated(pov="alice")
    assert isinstance(caught.value, TypeError)
    with pytest.raises(TranscriptTypeError, match="apply_chat_template"):
        dialogue().render_templated(pov="alice", tokenizer=object())


def test_duck_typed_tokenizer_gets_the_arguments() -> None:
    calls: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []

    class Recorder:
        def apply_chat_template(self, messages: list[dict[str, Any]], **kwargs: Any) -> str:
            calls.append((messages, kwargs))
            return "ok"

    out = dialogue().render_templated(
        pov="alice",
        tokenizer=Recorder(),
        fold_system=False,
        merge=False,
        user_first=False,
        add_generation_prompt=True,
        tokenize=False,
        enable_thinking=False,
        tools=[{"x": 1}],
    )
    assert out == "ok"
    assert len(calls) == 1  # all flags given: no detection renders
    messages, kwargs = calls[0]
    assert kwargs == {
        "tokenize": False,
        "add_generation_prompt": True,
        "enable_thinking": False,
        "tools": [{"x": 1}],
    }
    assert messages[0] == {"role": "system", "content": "Be brief."}


def test_render_templated_on_a_with_extra_view(chatml: Any) -> None:
    view = dialogue().with_extra(Message("bob", "bye"))
    assert view.render_templated(pov="alice", tokenizer=chatml).endswith(
        "<|im_start|>user\nbye<|im_end|>\n"
    )


def test_a_template_that_keeps_one_system_message_gets_the_later_one_as_user() -> None:
    """Yi's real template shows only the first system message; the later one is not lost."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "data" / "chat_templates.json").read_text("utf-8"))
    yi = next(t["chat_template"] for t in data["templates"] if t["model"] == "yi:6b")
    transcript = dialogue()
    transcript.append("system", "Answer in French.")
    transcript.append("bob", "hello again")
    text = transcript.render_templated(pov="alice", tokenizer=tiny_tokenizer(yi))
    assert isinstance(text, str)
    assert "Be brief." in text and "Answer in French." in text
    raw = transcript.render_templated(
        pov="alice", tokenizer=tiny_tokenizer(yi), fold_system=False, merge=False, user_first=False
    )
    assert isinstance(raw, str) and "Answer in French." not in raw  # what detection prevents


def test_call_arguments_that_are_no_strict_json_reach_the_template_as_text() -> None:
    # A template gets arguments as an object only when they are strict JSON: Python's
    # reader would hand it a float NaN for text no JSON reader takes.
    def call(arguments: str) -> dict[str, Any]:
        return {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}

    said = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [call('{"x": NaN}'), call('{"x": 1}')]},
    ]
    (_, answer) = flatten(said)
    assert [c["function"]["arguments"] for c in answer["tool_calls"]] == ['{"x": NaN}', {"x": 1}]
