"""Eval cases: one template bundle rendered once per set of input values, in order.

:func:`render_cases` reads the narrative, its structure and its placeholders once; each
case only checks its values and writes the edited lines (:mod:`lmml_mdit.templates`), and
a failed case gives a :class:`CaseResult` holding its error. With ``processes`` above 1 a
pool of workers renders them, streaming results in order. See docs/templates.md, "Where to
call it".
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._place import Place
from ..bundle import Bundle, BundleSource
from ..errors import InputError, LmmlError
from ..jsontypes import JSONObject
from ..templates import UnreadCase, held_in_folder
from ..warn import cli_wording
from ..workers import process_pool
from ._content import Options, bundle_state, bundle_template
from ._format_names import DEFAULT_PROVIDER
from ._outgoing import message_list, request_body
from .providers import Provider
from .providers import provider as find_provider

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..syntax import DelimiterMode, ReferenceMode
    from ._content import RequestOptions

__all__ = ["UNREAD_CASE", "CaseInput", "CaseResult", "Rendering", "UnreadCase", "render_cases"]

_CHUNK = 16
"""Cases sent to a worker at a time: enough to pay for the trip, few enough to stream."""

_WINDOW = 4
"""Chunks in flight per worker process."""


@dataclass(frozen=True)
class CaseResult:
    """One case rendered, or why it was not.

    :ivar number: the case's 1-based position among the cases (its line in a JSONL file,
        when the cases are its lines).
    :ivar value: the request body (``request=True``) or the messages list, as
        :func:`~lmml_mdit.chat.messages` gives it (Anthropic's and Gemini's system content
        on its ``system`` attribute); None when the case failed.
    :ivar error: the failure as one line (``FILE:LINE:COL: kind: message (hint)``), or
        None.
    :ivar kind: the failure's kind (``missing_input``, ``invalid_input``, ...), if it has
        one.
    :ivar warnings: what rendering the case warned about, one line each.
    :ivar cli_error: :attr:`error` as the command line words it.
    :ivar cli_warnings: :attr:`warnings` as the command line words them (naming flags such
        as ``--set max_tokens=N`` where a warning has such a wording).
    :ivar place: where the failure lies, ``(FILE, LINE, COL)`` as
        :meth:`~lmml_mdit.errors.LmmlError.place` gives it: a line of the template, or the
        case's own cases file and line (a case that could not be read, a path in its values
        refused); None when the failure names no place.
    :ivar problem: :attr:`error` without its place, for a caller that says the place.
    :ivar cli_problem: :attr:`problem` as the command line words it.
    """

    number: int
    value: JSONObject | list[JSONObject] | None = None
    error: str | None = None
    kind: str | None = None
    warnings: tuple[str, ...] = field(default=())
    cli_error: str | None = field(default=None, repr=False)
    cli_warnings: tuple[str, ...] = field(default=(), repr=False)
    place: tuple[str, int | None, int | None] | None = None
    problem: str | None = None
    cli_problem: str | None = field(default=None, repr=False)
    # place as data (an archive's entry apart from the archive), for the eval's report
    _at: Place | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._at is None and self.place is not None:
            object.__setattr__(self, "_at", Place(*self.place))

    @property
    def ok(self) -> bool:
        """Whether the case rendered."""
        return self.error is None

    def lies_at(self, file: str, line: int | None) -> bool:
        """Whether the failure lies at *line* of *file* (the case's own place in its cases
        file), so that :attr:`problem` is what to say after it."""
        return self.place is not None and self.place[:2] == (file, line)

    def record(self) -> JSONObject:
        """The case as one JSON object, what ``lmml render --cases`` writes as its line:
        ``{"case": N, "request": body}`` (or ``"messages": list``, after ``"system"`` when
        the list has system content beside it, as Anthropic and Gemini keep it), or for a
        failed case ``{"case": N, "error": line, "kind": kind}``."""
        if self.error is not None:
            return {"case": self.number, "error": self.error, "kind": self.kind}
        if isinstance(self.value, dict):
            return {"case": self.number, "request": self.value}
        system = getattr(self.value, "system", None)
        if system:
            return {"case": self.number, "system": system, "messages": self.value}
        return {"case": self.number, "messages": self.value}


UNREAD_CASE = "unread_case"
"""The :attr:`CaseResult.kind` of a case that could not be read."""


CaseInput = Mapping[str, object] | UnreadCase
"""A case's values, or why they could not be read (:class:`~lmml_mdit.templates.UnreadCase`,
which a cases file gives for a line that does not read)."""


@dataclass(frozen=True)
class Rendering:
    """How every case is rendered: the provider found and the options checked once.

    :ivar provider: the chat format.
    :ivar options: the checked options, without inputs.
    :ivar request: whether a case gives its request body (else its messages list).
    :ivar model: the model, for a request.
    :ivar asset_inputs: the ``image`` and ``file`` inputs, whose path values name files
        inside :attr:`folder`.
    :ivar folder: the folder a case's paths lie in.
    """

    provider: Provider
    options: Options
    request: bool = True
    model: str | None = None
    asset_inputs: frozenset[str] = frozenset()
    folder: str = ""

    @classmethod
    def of(
        cls, provider: str, request: bool, model: str | None, options: Mapping[str, object]
    ) -> Rendering:
        """Check *options* (the keyword options of ``messages()``) once.

        :raises ValueError: for an unknown provider or an option value out of its choices.
        :raises TypeError: for an unknown option.
        """
        return cls(find_provider(provider), Options.from_kwargs(options), request, model)

    def holding_paths(
        self, bundle: BundleSource, base_dir: str | os.PathLike[str] | None = None
    ) -> Rendering:
        """This rendering with each case's ``image`` or ``file`` path of *bundle* held inside
        *base_dir* (by default the bundle's folder, or the working directory)."""
        specs = bundle_template(bundle, bundle_state(bundle), values_given=True).declarations.specs
        assets = frozenset(name for name, spec in specs.items() if spec.is_part)
        folder = os.fspath(base_dir) if base_dir is not None else bundle.base_dir or ""
        return dataclasses.replace(self, asset_inputs=assets, folder=folder)

    def case(self, bundle: BundleSource, number: int, case: CaseInput) -> CaseResult:
        """Render one case; an :class:`~lmml_mdit.errors.LmmlError` becomes the result's
        error."""
        if isinstance(case, UnreadCase):
            reason = case.reason
            place = (case.file, case.number, None) if case.file else None
            return CaseResult(
                number,
                error=reason,
                kind=UNREAD_CASE,
                cli_error=reason,
                place=place,
                problem=reason,
                cli_problem=reason,
            )
        if not isinstance(case, Mapping):
            reason = f"a case is a mapping of input names to values, not {type(case).__name__}"
            return CaseResult(
                number, error=reason, cli_error=reason, problem=reason, cli_problem=reason
            )
        options = _with_inputs(self.options, self._contained(case))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                value: JSONObject | list[JSONObject]
                if self.request:
                    value = request_body(bundle, self.provider, options, model=self.model)
                else:
                    value = message_list(bundle, self.provider, options)
            except LmmlError as error:
                error.locate(bundle.file_name)
                where = Place.of(error)
                if isinstance(error, InputError) and error.file is None:
                    where = Place("")  # its name is an input's, no file: no place
                return CaseResult(
                    number,
                    error=error.format(),
                    kind=error.kind,
                    cli_error=error.format(cli=True),
                    place=where.as_tuple() if where.file else None,
                    problem=error.format(place=False),
                    cli_problem=error.format(cli=True, place=False),
                    _at=where if where.file else None,
                )
        return CaseResult(
            number,
            value,
            warnings=tuple(str(w.message) for w in caught),
            cli_warnings=tuple(cli_wording(w.message) for w in caught),
        )

    def _contained(self, case: Mapping[str, object]) -> Mapping[str, object]:
        """*case* with each path of an asset input held inside :attr:`folder`."""
        return held_in_folder(case, self.asset_inputs, self.folder)


def _with_inputs(options: Options, inputs: Mapping[str, object]) -> Options:
    """*options* with these *inputs*: ``dataclasses.replace`` without its per-call field
    introspection, which would cost a case more than its own values do."""
    copied = object.__new__(Options)
    copied.__dict__.update(options.__dict__)
    object.__setattr__(copied, "inputs", inputs)
    return copied


def render_cases(
    bundle: BundleSource,
    cases: Iterable[CaseInput],
    provider: str = DEFAULT_PROVIDER,
    *,
    request: bool = True,
    model: str | None = None,
    processes: int = 1,
    base_dir: str | os.PathLike[str] | None = None,
    **options: Unpack[RequestOptions],
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
        narrative and entries with the bundle's own parse options (``delimiters``,
        ``references``). The cases go to the pool in chunks, and the first result comes
        once about 64 cases per process are read: for cases that arrive slowly, keep 1.
    :param base_dir: the folder a case's ``image`` or ``file`` path names a file inside,
        under the rules of a bundle's references (relative, no ``..``, no link leading
        out, a regular file); by default the bundle's folder, or the working directory.
        Bytes and ``data:`` URIs are taken as they are.
    :param options: the options of ``messages()``/``to_request()`` (not ``inputs``).
    :raises TypeError: for ``inputs`` among *options*, or a *processes* below 1.
    :raises ValueError: for an unknown provider.
    """
    if "inputs" in options:
        raise TypeError("render_cases() takes the inputs from the cases, not inputs=")
    if not isinstance(processes, int) or isinstance(processes, bool) or processes < 1:
        raise TypeError(f"processes must be a positive int, not {processes!r}")
    rendering = Rendering.of(provider, request, model, options).holding_paths(bundle, base_dir)
    numbered = enumerate(cases, 1)
    if processes == 1:
        for number, case in numbered:
            yield rendering.case(bundle, number, case)
        return
    recipe = _BundleCopy.of(bundle)
    settings = (provider, request, model, dict(options))
    paths = (rendering.asset_inputs, rendering.folder)
    with process_pool(processes, _start_worker, (recipe, settings, paths)) as pool:
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
    delimiters: DelimiterMode = "strict"
    references: ReferenceMode = "assets"

    @classmethod
    def of(cls, bundle: BundleSource) -> _BundleCopy:
        entries = {name: bundle.read(name) for name in bundle.entries}
        narrative = bundle.narrative
        return cls(
            bundle.kind,
            bundle.name,
            narrative.text,
            entries,
            bundle.base_dir,
            narrative.delimiters,
            narrative.references,
        )

    def open(self) -> Bundle:
        delimiters, references = self.delimiters, self.references
        if self.kind == "zip":
            return Bundle.from_zip(
                self.name, self.text, self.entries, delimiters=delimiters, references=references
            )
        return Bundle.from_text(
            self.name,
            self.text,
            base_dir=self.base_dir,
            delimiters=delimiters,
            references=references,
        )


_WORKER: dict[str, Any] = {}  # a worker process's bundle and rendering
"""The worker process's bundle and rendering settings, set once by :func:`_start_worker`."""


def _start_worker(
    recipe: _BundleCopy, settings: tuple[Any, ...], paths: tuple[frozenset[str], str]
) -> None:
    _WORKER["bundle"] = recipe.open()
    _WORKER["rendering"] = dataclasses.replace(
        Rendering.of(*settings), asset_inputs=paths[0], folder=paths[1]
    )


def _render_chunk(chunk: list[tuple[int, CaseInput]]) -> list[CaseResult]:
    bundle = _WORKER["bundle"]
    rendering: Rendering = _WORKER["rendering"]
    return [rendering.case(bundle, number, case) for number, case in chunk]
