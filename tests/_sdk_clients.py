"""The asyncio SDK clients a test left open, found on the heap, and a fixture that keeps
those scans fast late in the suite."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


def open_clients() -> set[int]:
    """The ids of the asyncio OpenAI and Anthropic clients alive and open."""
    import anthropic
    import openai

    gc.collect()
    kinds = (openai.AsyncOpenAI, anthropic.AsyncAnthropic)
    return {
        id(found)
        for found in gc.get_objects()
        if isinstance(found, kinds) and not found.is_closed()
    }


@pytest.fixture
def only_this_tests_objects() -> Iterator[None]:
    """Set every object alive before the test aside from the collector (``gc.freeze``):
    collections and heap scans then see only what the test made, so they stay fast
    however large the heap of the suite around it has grown."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
