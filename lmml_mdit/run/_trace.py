"""Spans for sends and tool calls, named as the OpenTelemetry GenAI conventions name them.

Tracing is on when OpenTelemetry is already loaded (the application set up a tracer
provider, or ``lmml run --trace`` did): nothing of OpenTelemetry is imported otherwise. A
send is a ``chat {model}`` client span, a tool call an ``execute_tool {name}`` span, and a
whole run an ``invoke_agent lmml`` span around them.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, Protocol

from ..jsontypes import JSONMapping

__all__ = ["Span", "enabled", "setup_console", "setup_otlp", "span"]

TRACER_NAME = "lmml_mdit"


class Span(Protocol):
    """What a run records on a span."""

    def set_attribute(self, key: str, value: object) -> object: ...

    def fail(self, error_type: str, message: str) -> None:
        """Mark the operation failed: ``error.type`` and an error status."""
        ...


class _Off:
    def set_attribute(self, key: str, value: object) -> object:
        return None

    def fail(self, error_type: str, message: str) -> None:
        return None


class _Live:
    """A recording span: a None value is left out, as the conventions leave it."""

    def __init__(self, span: Any) -> None:
        self._span = span

    def set_attribute(self, key: str, value: object) -> object:
        if value is not None:
            self._span.set_attribute(key, value)
        return None

    def fail(self, error_type: str, message: str) -> None:
        from opentelemetry import trace

        self._span.set_attribute("error.type", error_type)
        self._span.set_status(trace.Status(trace.StatusCode.ERROR, message[:200]))


def enabled() -> bool:
    """Whether spans are recorded: OpenTelemetry's API is loaded."""
    return "opentelemetry.trace" in sys.modules


@contextlib.contextmanager
def span(name: str, attributes: JSONMapping, *, client: bool = False) -> Iterator[Span]:
    """A span named *name* around the block (a do-nothing one when tracing is off); an
    exception leaving the block marks it failed, with ``error.type``."""
    if not enabled():
        yield _Off()
        return
    from opentelemetry import trace

    tracer = trace.get_tracer(TRACER_NAME)
    kind = trace.SpanKind.CLIENT if client else trace.SpanKind.INTERNAL
    values = {key: value for key, value in attributes.items() if value is not None}
    with tracer.start_as_current_span(name, kind=kind, attributes=values) as current:
        live = _Live(current)
        try:
            yield live
        except BaseException as error:
            live.fail(type(error).__name__, str(error))
            raise


def setup_console() -> None:
    """Print every span to stderr as it ends (``lmml run --trace console``)."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    trace.set_tracer_provider(provider)


def setup_otlp() -> None:
    """Send spans to the OTLP collector the standard ``OTEL_EXPORTER_OTLP_*`` variables
    name (``lmml run --trace otlp``)."""
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[import-not-found,unused-ignore]
        OTLPSpanExporter,
    )
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
