"""Property: every turn's text and every non-reserved embed reaches the payload exactly once,
in source order.

Each generated paragraph carries a unique marker (``t-N-``), each inline fence a unique
content marker (``c-N-``) and each image unique bytes; markers use ``-``, which base64 never
does, so they cannot hide inside encoded data.
"""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

from _messages_support import png, zip_bundle
from hypothesis import given, settings
from hypothesis import strategies as st

from lmml_mdit import SystemContentWarning, to_request
from lmml_mdit.chat import messages

Block = tuple[str, list[int]]  # ("para", images referenced) or ("fence", [])

blocks = st.lists(
    st.one_of(
        st.tuples(st.just("para"), st.lists(st.integers(0, 5), max_size=2)),
        st.tuples(st.just("fence"), st.just([])),
    ),
    min_size=0,
    max_size=4,
)
turns = st.lists(
    st.tuples(st.sampled_from(["user", "assistant", "system"]), blocks), min_size=1, max_size=6
)


def _build(preamble: bool, spec: list[tuple[str, list[Block]]]) -> tuple[Any, list[str]]:
    """The bundle and the markers/base64 strings expected, in source order."""
    lines: list[str] = []
    expected: list[str] = []
    sent_images: set[int] = set()
    counter = 0
    if preamble:
        lines += ["Preamble t-p-.", "", "@@@settings.yaml", "temperature: 0.5", "@@@", ""]
        expected.append("t-p-")
    for index, (role, turn_blocks) in enumerate(spec):
        lines += [f"## Turn {index} -- {role}", ""]
        for kind, images in turn_blocks:
            counter += 1
            if kind == "fence":
                lines += [f"@@@n{counter}.txt", f"c-{counter}-", "@@@", ""]
                expected.append(f"c-{counter}-")
                continue
            if role != "user":
                images = []  # only user turns may carry images for every provider
            refs = " ".join(f"@img{i}.png" for i in images)
            lines += [f"Some words t-{counter}- {refs}".rstrip(), ""]
            expected.append(f"t-{counter}-")
            for image in images:
                if image not in sent_images:
                    sent_images.add(image)
                    expected.append(base64.b64encode(png(seed=image + 1)).decode())
    entries = {f"img{i}.png": png(seed=i + 1) for i in range(6)}
    return zip_bundle("\n".join(lines) + "\n", entries), expected


def _positions(dumped: str, expected: list[str]) -> list[int]:
    found = []
    for needle in expected:
        assert dumped.count(needle) == 1, f"{needle[:20]!r} appears {dumped.count(needle)} times"
        found.append(dumped.index(needle))
    return found


@settings(max_examples=60, deadline=None)
@given(st.booleans(), turns)
def test_everything_appears_once_in_order(preamble: bool, spec: list[Any]) -> None:
    bundle, expected = _build(preamble, spec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no omissions without a budget
        chat = json.dumps(messages(bundle, "openai"), ensure_ascii=False)
        responses = json.dumps(messages(bundle, "openai-responses"), ensure_ascii=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        anthropic = to_request(
            bundle, "anthropic", model="m", settings={"max_tokens": 5}, unknown_settings="pass"
        )
        gemini = to_request(bundle, "gemini", model="m")
    # The one report: a system turn after the start, sent at its place as user text.
    assert all(isinstance(w.message, SystemContentWarning) for w in caught)
    for dumped in (chat, responses):
        positions = _positions(dumped, expected)
        assert positions == sorted(positions)
        assert "temperature" not in dumped  # the reserved settings fence is never sent
    # Anthropic and Gemini lift leading system text to the top level and send a later
    # system turn as user text at its place: exactly once, order aside.
    for request in (anthropic, gemini):
        dumped = json.dumps(request, ensure_ascii=False)
        _positions(dumped, expected)
        assert "temperature: 0.5" not in dumped
    for provider in ("anthropic", "gemini"):
        # messages() with the default system="separate": the list and its system attribute.
        listed = messages(bundle, provider, system="separate")
        _positions(json.dumps([listed.system, listed], ensure_ascii=False), expected)
        # system="user": everything in the list, in source order.
        dumped = json.dumps(messages(bundle, provider, system="user"), ensure_ascii=False)
        positions = _positions(dumped, expected)
        assert positions == sorted(positions)
