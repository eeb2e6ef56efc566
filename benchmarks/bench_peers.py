"""Benchmark: lmml_mdit against the prompt-file libraries on the same conversation.

Each tool turns the same conversation, read from its own file on disk, into an OpenAI Chat
Completions request body (model, messages with their images as base64 data URLs, and a
temperature), each in its own idiom:

- **lmml_mdit**: ``lmml_mdit.to_request(lmml_mdit.open("chat.lmmlz"), "openai")``, the
  bundle holding the narrative, the images and ``settings.yaml``;
- **dotprompt** (``dotpromptz``): a ``.prompt`` file (front matter with the model and
  ``config.temperature``, ``{{role "..."}}`` blocks, ``{{media url=picN}}``) rendered by
  ``Dotprompt().render`` with each image read from its file as a data URL;
- **Prompty 2** (``prompty``): a ``.prompty`` file (``model.options.temperature``,
  ``kind: image`` inputs, ``user:``/``assistant:`` sections), ``prompty.load`` +
  ``prompty.prepare``, and the OpenAI executor's own wire form of the messages;
- **LangChain core**: a ``ChatPromptTemplate`` in its serialized JSON form
  (``langchain_core.load.dumps``; the model and temperature in its ``metadata``, where
  LangChain has no place for them in a prompt), loaded with ``langchain_core.load.loads``,
  invoked with the images as data URLs and converted with ``convert_to_openai_messages``;
- **banks**: a ``DirectoryPromptRegistry`` prompt (a ``{% chat %}`` block per turn, the
  images through banks' ``image`` filter, which reads the file; model and temperature in
  the prompt's metadata).

Sizes: 3 turns with one image; 200 and 2,000 turns with an image every tenth user turn.
Before timing, every tool's body is checked to hold the same model, temperature, messages
and images as lmml_mdit's (a text content and a one-text-part list count as the same).
Each round times every tool once (CPU time, collector paused, the order rotating); the
ratio printed is the median peer time ÷ the median lmml_mdit time (below 1: the peer is
faster), with its goal (≥ 1.0); the script exits 1 when one is missed.

The peers are in the ``bench`` extra: ``pip install -e '.[bench]'``.

lmml_mdit keeps the parse of an archive's narrative for the next open of the same bytes
(``lmml_mdit.narrative.parse_shared``), as an application that reads its prompt
file for each request would; ``--parse-anew`` parses it on every open instead, to see the
figures without that.

Run: ``python benchmarks/bench_peers.py [--rounds 45] [--sizes 3,200,2000] [--only NAME]
[--parse-anew]``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import importlib.util
import os
import statistics
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_messages import _png
from bench_parse import timed
from goals import exit_status

import lmml_mdit
from lmml_mdit.bundle import Bundle
from lmml_mdit.narrative._narrative import _parsed

MODEL = "gpt-4o"
TEMPERATURE = 0.2
GOAL = 1.0

Turn = tuple[str, str, "str | None"]  # role, text, image name


def conversation(turns: int) -> tuple[list[Turn], dict[str, bytes]]:
    """*turns* alternating user/assistant turns; the 3-turn one has one image, longer ones
    an image every tenth user turn."""
    out: list[Turn] = []
    images: dict[str, bytes] = {}
    for index in range(turns):
        role = "user" if index % 2 == 0 else "assistant"
        text = (
            f"This is turn {index + 1}. It has *emphasis*, `code`, a [link](https://example.com)"
            " and a list:\n\n- first item\n- second item with more words in it\n\n"
            "A closing paragraph, long enough to look like a real message body."
        )
        image = None
        first = index == 0 if turns <= 3 else (index // 2) % 10 == 0
        if role == "user" and first:
            image = f"img/pic{len(images)}.png"
            images[image] = _png(len(images))
        out.append((role, text, image))
    return out, images


def _var(image: str) -> str:
    return Path(image).stem  # img/pic3.png -> pic3


def _data_url(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


# -- the files, one per tool ----------------------------------------------------------------


def write_files(folder: Path, turns: list[Turn], images: dict[str, bytes]) -> dict[str, Path]:
    """Write each tool's file (and the images beside the peers' files); return their paths."""
    for name, data in images.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    paths: dict[str, Path] = {}

    # lmml_mdit: one .lmmlz bundle.
    narrative = []
    for index, (role, text, image) in enumerate(turns):
        narrative.append(f"## Turn {index + 1} -- {role}\n\n{text}\n")
        if image:
            narrative.append(f"@{image}\n")
    entries = dict(images)
    entries["settings.yaml"] = f"model: {MODEL}\ntemperature: {TEMPERATURE}\n".encode()
    paths["lmml_mdit"] = folder / "chat.lmmlz"
    Bundle.from_zip("chat", "\n".join(narrative), entries).save(paths["lmml_mdit"])

    # dotprompt
    lines = ["---", f"model: openai/{MODEL}", "config:", f"  temperature: {TEMPERATURE}", "---"]
    for role, text, image in turns:
        lines.append(f'{{{{role "{"model" if role == "assistant" else role}"}}}}')
        lines.append(text)
        if image:
            lines.append(f"{{{{media url={_var(image)}}}}}")
    paths["dotprompt"] = folder / "chat.prompt"
    paths["dotprompt"].write_text("\n".join(lines) + "\n")

    # Prompty 2
    head = [
        "---",
        "name: chat",
        "model:",
        f"  id: {MODEL}",
        "  provider: openai",
        "  apiType: chat",
        "  options:",
        f"    temperature: {TEMPERATURE}",
        "inputs:",
    ]
    body: list[str] = []
    for role, text, image in turns:
        body += [f"{role}:", text, ""]
        if image:
            head += [f"  - name: {_var(image)}", "    kind: image"]
            body[-1:] = ["", f"{{{{{_var(image)}}}}}", ""]
    paths["prompty"] = folder / "chat.prompty"
    paths["prompty"].write_text("\n".join([*head, "---", *body]))

    # LangChain core: a ChatPromptTemplate in its serialized form.
    from langchain_core.load import dumps
    from langchain_core.prompts import ChatPromptTemplate

    messages: list[Any] = []
    for role, text, image in turns:
        kind = "human" if role == "user" else "ai"
        if image:
            url = "{" + _var(image) + "}"
            content = [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": url}},
            ]
            messages.append((kind, content))
        else:
            messages.append((kind, text))
    template = ChatPromptTemplate.from_messages(messages)
    template.metadata = {"model": MODEL, "temperature": TEMPERATURE}
    paths["langchain"] = folder / "chat.json"
    paths["langchain"].write_text(dumps(template, pretty=True))

    # banks: a prompt registry folder.
    from banks import Prompt
    from banks.registries.directory import DirectoryPromptRegistry

    blocks = []
    for role, text, image in turns:
        filtered = f"\n\n{{{{ {_var(image)} | image }}}}" if image else ""
        blocks.append(f'{{% chat role="{role}" %}}\n{text}{filtered}\n{{% endchat %}}')
    registry_path = folder / "banks"
    registry_path.mkdir()
    registry = DirectoryPromptRegistry(registry_path)
    registry.set(
        prompt=Prompt(
            "\n".join(blocks),
            name="chat",
            metadata={"model": MODEL, "temperature": TEMPERATURE},
        )
    )
    paths["banks"] = registry_path
    return paths


# -- each tool's request, from its file -------------------------------------------------------


def lmml_request(path: Path, images: list[str]) -> dict[str, Any]:
    return lmml_mdit.to_request(lmml_mdit.open(path), "openai")


def lmml_request_unshared(path: Path, images: list[str]) -> dict[str, Any]:
    """:func:`lmml_request` with the narrative parsed anew (no parse kept from before)."""
    _parsed.clear()
    return lmml_request(path, images)


def dotprompt_request(path: Path, images: list[str]) -> dict[str, Any]:
    from dotpromptz import DataArgument, Dotprompt

    folder = path.parent
    inputs = {_var(name): _data_url(folder / name) for name in images}
    rendered = asyncio.run(Dotprompt().render(path.read_text(), DataArgument(input=inputs)))
    messages = []
    for message in rendered.messages:
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if hasattr(part, "media"):
                parts.append({"type": "image_url", "image_url": {"url": part.media.url}})
            elif part.text.strip():
                parts.append({"type": "text", "text": part.text.strip()})
        role = "assistant" if message.role.value == "model" else message.role.value
        messages.append({"role": role, "content": parts})
    model = (rendered.model or "").removeprefix("openai/")
    return {"model": model, "messages": messages, **(rendered.config or {})}


def prompty_request(path: Path, images: list[str]) -> dict[str, Any]:
    import prompty
    from prompty.providers.openai.executor import OpenAIExecutor

    folder = path.parent
    agent = prompty.load(str(path))
    inputs = {_var(name): _data_url(folder / name) for name in images}
    messages = prompty.prepare(agent, inputs)
    return OpenAIExecutor()._build_chat_args(agent, messages)


def langchain_request(path: Path, images: list[str]) -> dict[str, Any]:
    from langchain_core.load import loads
    from langchain_core.messages import convert_to_openai_messages

    folder = path.parent
    template = loads(path.read_text(), allowed_objects="core")
    inputs = {_var(name): _data_url(folder / name) for name in images}
    messages = convert_to_openai_messages(template.invoke(inputs).to_messages())
    return {**template.metadata, "messages": messages}


def banks_request(path: Path, images: list[str]) -> dict[str, Any]:
    from banks.registries.directory import DirectoryPromptRegistry

    prompt = DirectoryPromptRegistry(path).get(name="chat")
    inputs = {_var(name): str(path.parent / name) for name in images}
    messages = [message.model_dump(exclude_none=True) for message in prompt.chat_messages(inputs)]
    return {**prompt.metadata, "messages": messages}


class Peer(NamedTuple):
    """A peer measured: its name in the table, its import name (the ``bench`` extra
    installs it), and how it builds the request from its file."""

    title: str
    module: str
    request: Callable[[Path, list[str]], dict[str, Any]]


PEERS = {
    "dotprompt": Peer("dotprompt (dotpromptz)", "dotpromptz", dotprompt_request),
    "prompty": Peer("Prompty 2", "prompty", prompty_request),
    "langchain": Peer("LangChain core", "langchain_core", langchain_request),
    "banks": Peer("banks", "banks", banks_request),
}
TOOLS: dict[str, Callable[[Path, list[str]], dict[str, Any]]] = {
    "lmml_mdit": lmml_request,
    **{name: peer.request for name, peer in PEERS.items()},
}


def normalized(body: dict[str, Any]) -> dict[str, Any]:
    """The body's model, temperature and messages, each content a list of parts."""
    messages = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts = []
        for part in content:
            if part["type"] == "text":
                parts.append(("text", part["text"]))
            else:
                parts.append(("image", part["image_url"]["url"]))
        messages.append((message["role"], parts))
    return {
        "model": body.get("model"),
        "temperature": body.get("temperature"),
        "messages": messages,
    }


def check_same(name: str, body: dict[str, Any], expected: dict[str, Any]) -> None:
    got = normalized(body)
    if got != expected:
        pairs = zip(expected["messages"], got["messages"], strict=False)
        for index, (ours, theirs) in enumerate(pairs):
            if ours != theirs:
                raise SystemExit(f"{name}: message {index} differs:\n  {ours!r}\n  {theirs!r}")
        raise SystemExit(
            f"{name}: the request differs: {len(got['messages'])} messages, model "
            f"{got['model']!r}, temperature {got['temperature']!r}"
        )


def measure(size: int, rounds: int, only: list[str]) -> dict[str, float]:
    """The ratio peer ÷ lmml_mdit (medians) of each peer at *size* turns, each peer's
    request checked first against ours (with no *rounds*, only that: no ratio)."""
    turns, images = conversation(size)
    with tempfile.TemporaryDirectory() as scratch:
        paths = write_files(Path(scratch), turns, images)
        os.environ["BANKS_MEDIA_ROOT"] = scratch  # banks reads media under this folder only
        names = list(images)
        reference = lmml_request(paths["lmml_mdit"], names)
        expected = normalized(reference)
        assert expected["temperature"] == TEMPERATURE and expected["model"] == MODEL
        sent = sum(part[0] == "image" for _, parts in expected["messages"] for part in parts)
        assert sent == len(images), (sent, len(images))
        tools = ["lmml_mdit", *[name for name in PEERS if not only or name in only]]
        for name in tools[1:]:
            check_same(name, TOOLS[name](paths[name], names), expected)
        if not rounds:
            return {}  # --check: the requests compared, nothing timed
        times: dict[str, list[float]] = {name: [] for name in tools}
        for round_index in range(rounds):
            shift = round_index % len(tools)
            for name in tools[shift:] + tools[:shift]:
                times[name].append(timed(lambda: TOOLS[name](paths[name], names)))  # noqa: B023
    ours = statistics.median(times["lmml_mdit"])
    print(
        f"{size} turns, {len(images)} images: lmml_mdit {ours * 1000:.2f} ms "
        f"(quartiles {_quartiles(times['lmml_mdit'])})"
    )
    ratios = {}
    for name in tools[1:]:
        theirs = statistics.median(times[name])
        ratios[name] = theirs / ours
        print(
            f"  {PEERS[name].title:<24} {theirs * 1000:9.2f} ms "
            f"(quartiles {_quartiles(times[name])})  ratio {ratios[name]:.2f}"
        )
    return ratios


def _quartiles(values: list[float]) -> str:
    first, _, third = statistics.quantiles(values, n=4)
    return f"{first * 1000:.2f}-{third * 1000:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=45)
    parser.add_argument("--sizes", default="3,200,2000")
    parser.add_argument("--only", default="", help="comma-separated peers (default: all)")
    parser.add_argument(
        "--parse-anew",
        action="store_true",
        help="parse the narrative on every open (keep no parse from one open to the next)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only check that every peer builds the request lmml_mdit builds, at each size "
        "(what CI runs with the peers at their lowest supported versions); time nothing",
    )
    args = parser.parse_args(argv)
    absent = [p.module for p in PEERS.values() if importlib.util.find_spec(p.module) is None]
    if absent:
        print(
            f"bench_peers: the peers {', '.join(absent)} are not installed; install the "
            "bench extra: pip install -e '.[bench]'",
            file=sys.stderr,
        )
        return 2
    if args.parse_anew:
        TOOLS["lmml_mdit"] = lmml_request_unshared
    warnings.filterwarnings("ignore", message="The function `loads` is in beta")
    sizes = [int(size) for size in args.sizes.split(",")]
    only = [name for name in args.only.split(",") if name]
    if args.check:
        for size in sizes:
            measure(size, 0, only)
        print(f"every peer builds the same request at {args.sizes} turns")
        return 0
    table = {size: measure(size, args.rounds, only) for size in sizes}
    print()
    print("| peer | " + " | ".join(f"{size:,} turns" for size in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    missed = []
    for name in table[sizes[0]]:
        cells = []
        for size in sizes:
            ratio = table[size][name]
            ok = ratio >= GOAL
            cells.append(f"{ratio:.2f}{'' if ok else ' (missed)'}")
            if not ok:
                missed.append(f"{name} at {size} turns")
        print(f"| {PEERS[name].title} | " + " | ".join(cells) + " |")
    print(f"(ratio = peer ÷ lmml_mdit, CPU time, median of {args.rounds} rounds; goal >= {GOAL})")
    return exit_status(missed, "every ratio meets its goal")


if __name__ == "__main__":
    sys.exit(main())
