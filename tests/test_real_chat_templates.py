"""A tool-using conversation through 86 real chat templates, each rendered by transformers'
own ``apply_chat_template`` after ``flatten`` with the flags detected from the template:
every message's text, the tool call and its result must appear in the prompt.

The templates are in ``tests/data/chat_templates.json``, with their source named there.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit.chat import detect_template_flags, flatten

DATA = json.loads((Path(__file__).parent / "data" / "chat_templates.json").read_text("utf-8"))
TEMPLATES: list[dict[str, str]] = DATA["templates"]


def _ids() -> list[str]:
    seen: Counter[str] = Counter()
    ids = []
    for entry in TEMPLATES:
        seen[entry["model"]] += 1
        count = seen[entry["model"]]
        ids.append(entry["model"] + (f"#{count}" if count > 1 else ""))
    return ids


CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "You check the weather for travellers."},
    {"role": "user", "content": "What is the weather in Paris today?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call12345",
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Lyon"}},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call12345", "name": "get_weather", "content": "18C, sunny"},
    {"role": "assistant", "content": "It is 18C and sunny in Paris."},
    {"role": "system", "content": "From now on, answer in French."},
    {"role": "user", "content": "And tomorrow?"},
]
TEXTS = (
    "You check the weather for travellers.",
    "What is the weather in Paris today?",
    "get_weather",
    "Lyon",
    "18C, sunny",
    "It is 18C and sunny in Paris.",
    "From now on, answer in French.",
    "And tomorrow?",
)

TEMPLATE_INPUTS: dict[str, dict[str, object]] = {
    # Firefunction's template reads two inputs of its own, which its callers pass.
    "firefunction-v2:70b": {"functions": "[]", "datetime": "2026-12-05"},
}

STRICT_FAMILIES = (
    "llama2",
    "mistral:",
    "mixtral",
    "gemma2",
    "gemma3",
    "command-r",
    "phi3",
    "olmo2",
    "tinyllama",
    "falcon2",
    "deepseek-coder",
    "deepseek-r1",
    "yi:",
)
"""The families the fidelity issue names: templates that need strict alternation, know no
tool role, or drop a system text."""


@pytest.fixture(scope="module")
def core() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.WordLevelTrainer(special_tokens=["[UNK]", "<s>", "</s>"])
    tokenizer.train_from_iterator(["a few words"], trainer)
    return tokenizer


class _WithInputs:
    """A tokenizer whose template also gets *inputs* (as a caller forwards them)."""

    def __init__(self, tokenizer: Any, inputs: dict[str, object]) -> None:
        self._tokenizer = tokenizer
        self._inputs = inputs

    def apply_chat_template(self, conversation: list[dict[str, Any]], **options: Any) -> Any:
        return self._tokenizer.apply_chat_template(conversation, **options, **self._inputs)


def _tokenizer(core: Any, entry: dict[str, str]) -> _WithInputs:
    """A tokenizer with *entry*'s chat template (and the inputs its callers pass it)."""
    from transformers import PreTrainedTokenizerFast

    return _WithInputs(
        PreTrainedTokenizerFast(
            tokenizer_object=core,
            chat_template=entry["chat_template"],
            unk_token="[UNK]",
            bos_token="<s>",
            eos_token="</s>",
        ),
        TEMPLATE_INPUTS.get(entry["model"], {}),
    )


def test_the_data_holds_every_family_the_issue_names() -> None:
    models = [entry["model"] for entry in TEMPLATES]
    assert len(TEMPLATES) >= 30
    for family in STRICT_FAMILIES:
        assert any(model.startswith(family) for model in models), family


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_the_conversation_renders_losslessly(core: Any, entry: dict[str, str]) -> None:
    tokenizer = _tokenizer(core, entry)
    flags = detect_template_flags(tokenizer)
    view = flatten(CONVERSATION, flags=flags)
    prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
    assert isinstance(prompt, str)
    assert [text for text in TEXTS if text not in prompt] == [], flags


PARALLEL: list[dict[str, Any]] = [
    {"role": "system", "content": "You plan trips."},
    {"role": "user", "content": "Compare Lyon and Nice."},
    {
        "role": "assistant",
        "content": "Let me look both up.",
        "tool_calls": [
            {
                "id": f"call{city}0",
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": city}},
            }
            for city in ("Lyon", "Nice")
        ],
    },
    {"role": "tool", "tool_call_id": "callLyon0", "name": "get_weather", "content": "18C, sunny"},
    {"role": "tool", "tool_call_id": "callNice0", "name": "get_weather", "content": "22C, windy"},
    {"role": "user", "content": "Which is warmer?"},
]
PARALLEL_TEXTS = (
    "You plan trips.",
    "Compare Lyon and Nice.",
    "Let me look both up.",
    "Lyon",
    "Nice",
    "18C, sunny",
    "22C, windy",
    "Which is warmer?",
)


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_text_beside_parallel_calls_renders_losslessly(core: Any, entry: dict[str, str]) -> None:
    """Two calls in one assistant turn, with text beside them: a template that drops that
    text or refuses a second call gets the tools folded."""
    tokenizer = _tokenizer(core, entry)
    flags = detect_template_flags(tokenizer)
    view = flatten(PARALLEL, flags=flags)
    prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
    assert isinstance(prompt, str)
    assert [text for text in PARALLEL_TEXTS if text not in prompt] == [], flags


def _bundle_messages() -> tuple[list[dict[str, Any]], list[str]]:
    """A shipped example's messages as ``Bundle.messages`` gives them (content as lists
    of parts, call arguments as JSON text) and a user's next question, and the texts
    its prompt must show."""
    import lmml_mdit

    with lmml_mdit.open(Path(__file__).parent.parent / "examples" / "weather-tools.lmml") as b:
        messages: list[dict[str, Any]] = b.messages("openai")
    # the model's next turn is asked for after a user turn (Mixtral's template shows the
    # system text only then)
    messages.append({"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]})
    shown: list[str] = []
    for message in messages:
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
        shown += [part["text"][:40] for part in parts if part.get("text")]
        for call in message.get("tool_calls") or []:
            shown += [call["function"]["name"], *json.loads(call["function"]["arguments"])]
    return messages, shown


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_a_bundles_own_messages_render_losslessly(core: Any, entry: dict[str, str]) -> None:
    """What ``Bundle.messages`` gives, through ``flatten`` with the detected flags: a
    template that takes no list of parts gets each content as one string, and every
    template gets call arguments as an object."""
    tokenizer = _tokenizer(core, entry)
    messages, shown = _bundle_messages()
    flags = detect_template_flags(tokenizer)
    view = flatten(messages, flags=flags)
    prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
    assert isinstance(prompt, str)
    assert [text for text in shown if text not in prompt] == [], flags
    assert "'type': 'text'" not in prompt, flags


def _transcript() -> Any:
    """The conversation above as a transcript, read from the OpenAI Chat body a user
    would import: the call is a fence in the assistant's text, the result a ``tool`` turn."""
    from lmml_mdit import import_messages
    from lmml_mdit.transcript import Transcript

    messages = copy.deepcopy(CONVERSATION)
    for message in messages:
        if message["role"] == "assistant" and message.get("tool_calls"):
            message["content"] = None
            for call in message["tool_calls"]:
                call["function"]["arguments"] = json.dumps(call["function"]["arguments"])
        if message["role"] == "tool":
            del message["name"]  # a Chat tool message has no name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Transcript.from_bundle(import_messages({"messages": messages}, "openai"))


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_a_transcript_renders_losslessly(core: Any, entry: dict[str, str]) -> None:
    """``Transcript.render_templated`` with the flags it detects: a template that does not
    show tool turns (or refuses them) gets each as a user turn, so every text is there."""
    tokenizer = _tokenizer(core, entry)
    prompt = _transcript().render_templated(
        pov="assistant", tokenizer=tokenizer, add_generation_prompt=True
    )
    assert isinstance(prompt, str)
    assert [text for text in TEXTS if text not in prompt] == []


def _dataset_conversations() -> list[tuple[str, list[dict[str, Any]]]]:
    """The ``messages`` of each shipped example's dataset row (as ``hf_rows`` gives it),
    ending on a user turn so that every template shows what came before."""
    from lmml_mdit.dataset import template_messages, to_arrow

    rows = to_arrow(Path(__file__).parent.parent / "examples").read_all().to_pylist()
    conversations = []
    for row in rows:
        messages: list[dict[str, Any]] = [dict(message) for message in template_messages(row)]
        if messages[-1]["role"] != "user":
            messages.append({"role": "user", "content": "And tomorrow?"})
        conversations.append((row["path"], messages))
    return conversations


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_a_dataset_rows_messages_render_losslessly(core: Any, entry: dict[str, str]) -> None:
    """A dataset row's ``messages`` through ``flatten`` with the detected flags, as the
    Datasets page shows: a preamble and a system turn are two leading system messages,
    and a template that keeps one system message (the first, or the last) must still
    show both texts."""
    tokenizer = _tokenizer(core, entry)
    flags = detect_template_flags(tokenizer)
    for path, messages in _dataset_conversations():
        view = flatten(messages, flags=flags)
        prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
        missing = [m["content"][:40] for m in messages if m["content"][:40] not in prompt]
        assert missing == [], (path, flags)


CALL_WITHOUT_TEXT: list[dict[str, Any]] = [
    {"role": "user", "content": "Find me a flight from Oslo to Rome."},
    {
        "role": "assistant",
        "content": None,  # as the OpenAI API writes a turn that only calls
        "tool_calls": [
            {
                "id": "call98765",
                "type": "function",
                "function": {
                    "name": "search_flights",
                    "arguments": '{"origin": "OSL", "destination": "FCO"}',
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call98765", "content": "SK4711 departs 09:40"},
]
CALL_WITHOUT_TEXT_SHOWN = (
    "Find me a flight from Oslo to Rome.",
    "search_flights",
    "OSL",
    "FCO",
    "SK4711 departs 09:40",
)


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_a_call_without_text_renders_losslessly(core: Any, entry: dict[str, str]) -> None:
    """An assistant turn that only calls, its content ``null`` as the OpenAI API writes it
    (and as ``Bundle.messages`` gives it): a template that reads the content as a string
    gets an empty one."""
    tokenizer = _tokenizer(core, entry)
    view = flatten(CALL_WITHOUT_TEXT, flags=detect_template_flags(tokenizer))
    prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
    assert isinstance(prompt, str)
    assert [text for text in CALL_WITHOUT_TEXT_SHOWN if text not in prompt] == []


TWO_SYSTEMS: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a patient maths tutor."},
    {"role": "system", "content": "Answer in at most three sentences."},
    {"role": "user", "content": "Why is 0.1 + 0.2 not 0.3 in floating point?"},
]


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_two_leading_system_messages_render_losslessly(core: Any, entry: dict[str, str]) -> None:
    """A system prompt then a developer message (imported as a second system turn): a
    template that keeps only one system message gets them joined."""
    tokenizer = _tokenizer(core, entry)
    view = flatten(TWO_SYSTEMS, flags=detect_template_flags(tokenizer))
    prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=True)
    assert isinstance(prompt, str)
    assert [m["content"] for m in TWO_SYSTEMS if m["content"] not in prompt] == []


ENDING_ON_THE_MODEL: list[dict[str, Any]] = [
    {"role": "system", "content": "You translate English into German."},
    {"role": "user", "content": "Good morning"},
    {"role": "assistant", "content": "Guten Morgen"},
]


@pytest.mark.parametrize("entry", TEMPLATES, ids=_ids())
def test_a_conversation_ending_on_the_model_renders_losslessly(
    core: Any, entry: dict[str, str]
) -> None:
    """A finished conversation (a training example) rendered without a generation prompt:
    a template that shows the system text only beside a last user turn gets it folded."""
    tokenizer = _tokenizer(core, entry)
    view = flatten(ENDING_ON_THE_MODEL, flags=detect_template_flags(tokenizer))
    prompt = tokenizer.apply_chat_template(view, tokenize=False, add_generation_prompt=False)
    assert isinstance(prompt, str)
    assert [m["content"] for m in ENDING_ON_THE_MODEL if m["content"] not in prompt] == []
