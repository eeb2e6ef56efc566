"""Strict checks of payloads against the official SDKs' request types (pydantic)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, TypeAdapter


def materialize(value: Any) -> Any:
    """*value* with pydantic's lazy iterators (``Iterable`` fields) turned into lists, and
    a union member the SDK types as a response model (Anthropic takes a replayed
    ``ContentBlock`` beside its params) as the fields given."""
    if isinstance(value, BaseModel):
        return materialize(value.model_dump(exclude_unset=True))
    if isinstance(value, Iterator):
        return [materialize(item) for item in value]
    if isinstance(value, dict):
        return {key: materialize(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [materialize(item) for item in value]
    return value


@functools.cache
def adapter(request_type: Any) -> TypeAdapter[Any]:
    """The pydantic adapter of an SDK type, built once: building one for a request type
    takes pydantic a good part of a second, validating with it a millisecond."""
    return TypeAdapter(request_type)


def check_strict(adapter: TypeAdapter[Any], value: Any) -> None:
    """*value* validates strictly as the SDK type, with no field dropped or coerced."""
    validated = materialize(adapter.validate_python(copy.deepcopy(value), strict=True))
    assert validated == value, "the SDK type dropped or changed fields"
