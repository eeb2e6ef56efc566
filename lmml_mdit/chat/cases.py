"""Eval cases: one template bundle rendered once per set of input values, in order.

:func:`render_cases` parses nothing per case: the bundle's narrative, its structure and
its placeholders are read once, and each case only checks its values and writes the
edited lines (:mod:`lmml_mdit.chat.inputs`). A case that fails (a missing or mistyped
value, an unreadable image) gives a :class:`CaseResult` holding its error, and the next
case goes on.

With ``processes`` above 1 the cases are rendered in a pool of worker processes, each
holding one copy of the bundle (its narrative and entries, read once), a bounded window of
cases in flight: results still come out one by one, streaming, in the order the cases
went in.
"""

from __future__ import annotations

import collections
import concurrent.futures
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..bundle.bundle import Bundle
from ..bundle.source import BundleSource
from ..errors import LmmlError
from .outgoing import messages as render_messages
from .outgoing import to_request

__all__ = ["UNREAD_CASE", "CaseInput", "CaseResult", "UnreadCase", "render_case", "render_cases"]

_CHUNK = 16
"""Cases sent to a worker at a time: enough to pay for the trip, few enough to stream."""

_WINDOW = 4
"""Chunks in flight per worker process."""


@dataclass(frozen=True)
class CaseResult:
    """One case rendered, or why it was not.

    :ivar number: the case's 1-based position among the cases (its line in a JSONL file,
        when the cases are its lines).
    :ivar value: the request body (``request=True``) or the messages list; None when the
        case failed.
    :ivar error: the failure as one line (``FILE:LINE:COL: kind: message (hint)``), or
        None.
    :ivar kind: the failure's kind (``missing_input``, ``invalid_input``, ...), if it has
        one.
    :ivar warnings: what rendering the case warned about, one line each.
    :ivar cli_error: :attr:`error` as the command line words it.
    """

    number: int
    value: dict[str, Any] | list[dict[str, Any]] | None = None
    error: str | None = None
    kind: str | None = None
    warnings: tuple[str, ...] = field(default=())
    cli_error: str | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """Whether the case rendered."""
        return self.error is None


UNREAD_CASE = "unread_case"
"""The :attr:`CaseResult.kind` of a case that could not be read."""


@dataclass(frozen=True)
class UnreadCase:
    """A case that could not be read (a line that is no JSON object), and why.

    :ivar reason: what is wrong with it, in one line.
    """

    reason: str


CaseInput = Mapping[str, object] | UnreadCase
"""A case's values, or why they could not be read."""


def render_case(
    bundle: BundleSource,
    number: int,
    case: CaseInput,
    provider: str,
    request: bool,
    model: str | None,
    options: Mapping[str, object],
) -> CaseResult:
    """Render one case; an :class:`~lmml_mdit.errors.LmmlError` becomes the result's error."""
    if isinstance(case, UnreadCase):
        return CaseResult(number, error=case.reason, kind=UNREAD_CASE, cli_error=case.reason)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value: dict[str, Any] | list[dict[str, Any]]
            if request:
                value = to_request(bundle, provider, model=model, inputs=case, **options)
            else:
                value = list(render_messages(bundle, provider, inputs=case, **options))
        except LmmlError as error:
            error.locate(bundle.file_name)
            return CaseResult(
                number, error=error.format(), kind=error.kind, cli_error=error.format(cli=True)
            )
        except TypeError as error:  # a case that is not a mapping of names to values
            return CaseResult(number, error=str(error), cli_error=str(error))
    return CaseResult(number, value, warnings=tuple(str(w.message) for w in caught))


def render_cases(
    bundle: BundleSource,
    cases: Iterable[CaseInput],
    provider: str = "openai",
    *,
    request: bool = True,
    model: str | None = None,
    processes: int = 1,
    **options: object,
) -> Iterator[CaseResult]:
    """Render *bundle* once per case, yielding a :class:`CaseResult` per case in the order
    the cases come (a generator: cases are read as results are taken).

    :param cases: each case's input values, by name (see :doc:`/templates`).
    :param provider: one of the chat formats, as for ``to_request``.
    :param request: True (default) renders each case's whole request body
        (``to_request``); False its messages list (``messages``).
    :param model: the model, for a request.
    :param processes: how many worker processes share the work; 1 (default) renders in
        this process. A pool holds a copy of the bundle per worker, opened from its
        narrative and entries with the default parse options.
    :param options: the options of ``messages()``/``to_request()`` (not ``inputs``).
    :raises TypeError: for ``inputs`` among *options*, or a *processes* below 1.
    :raises ValueError: for an unknown provider.
    """
    if "inputs" in options:
        raise TypeError("render_cases() takes the inputs from the cases, not inputs=")
    if not isinstance(processes, int) or isinstance(processes, bool) or processes < 1:
        raise TypeError(f"processes must be a positive int, not {processes!r}")
    from .providers import provider as find_provider

    find_provider(provider)  # an unknown provider fails before any case
    numbered = enumerate(cases, 1)
    if processes == 1:
        for number, case in numbered:
            yield render_case(bundle, number, case, provider, request, model, options)
        return
    recipe = _BundleCopy.of(bundle)
    settings = (provider, request, model, dict(options))
    with concurrent.futures.ProcessPoolExecutor(
        processes, initializer=_start_worker, initargs=(recipe, settings)
    ) as pool:
        pending: collections.deque[concurrent.futures.Future[list[CaseResult]]]
        pending = collections.deque()
        chunk: list[tuple[int, CaseInput]] = []
        for number, case in numbered:
            chunk.append((number, case))
            if len(chunk) == _CHUNK:
                pending.append(pool.submit(_render_chunk, chunk))
                chunk = []
                while len(pending) >= processes * _WINDOW:
                    yield from pending.popleft().result()
        if chunk:
            pending.append(pool.submit(_render_chunk, chunk))
        while pending:
            yield from pending.popleft().result()


@dataclass(frozen=True)
class _BundleCopy:
    """What a worker process needs to make its own copy of a bundle."""

    kind: str
    name: str
    text: str
    entries: dict[str, bytes]
    base_dir: str | None

    @classmethod
    def of(cls, bundle: BundleSource) -> _BundleCopy:
        entries = {name: bundle.read(name) for name in bundle.entries}
        return cls(bundle.kind, bundle.name, bundle.narrative.text, entries, bundle.base_dir)

    def open(self) -> Bundle:
        if self.kind == "zip":
            return Bundle.from_zip(self.name, self.text, self.entries)
        return Bundle.from_text(self.name, self.text, base_dir=self.base_dir)


_WORKER: dict[str, Any] = {}
"""The worker process's bundle and rendering settings, set once by :func:`_start_worker`."""


def _start_worker(recipe: _BundleCopy, settings: tuple[Any, ...]) -> None:
    _WORKER["bundle"] = recipe.open()
    _WORKER["settings"] = settings


def _render_chunk(chunk: list[tuple[int, CaseInput]]) -> list[CaseResult]:
    bundle = _WORKER["bundle"]
    provider, request, model, options = _WORKER["settings"]
    return [
        render_case(bundle, number, case, provider, request, model, options)
        for number, case in chunk
    ]
