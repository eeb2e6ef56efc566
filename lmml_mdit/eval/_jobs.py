"""The jobs of an evaluation and its tally: each case against each target, the rows
already written left out (:func:`plan_jobs`), each case's ``expect`` read or its bundle's
default (:func:`case_expect`), and what the run did (:class:`Summary`).

:func:`~lmml_mdit.eval.aevaluate` and :func:`~lmml_mdit.ray.eval_batches` both plan with
these, so a resumed run skips, counts and reports the same on one machine and on a cluster.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import yaml

from .._place import Place
from ..bundle import Bundle, ParseOptions
from ..errors import DefectWarning, ExpectError, LmmlError
from ..jsontypes import JSONMapping, JSONObject
from ..syntax import DelimiterMode, ReferenceMode
from ..templates import declared_inputs
from ._assertions import Assertion, read_expect
from ._cases import BundleFailure, iter_bundle_cases, iter_cases, iter_expect_cases
from ._targets import Target

__all__ = [
    "Job",
    "Summary",
    "case_expect",
    "check_template",
    "count_cases",
    "default_expect",
    "plan_jobs",
]


@dataclass
class Summary:
    """What a run did: rows written, passed, answered from the cache, rows already in the
    results (and how many of those passed), the cases that got no row (a render or send
    error), one line each, and what rendering the cases warned about (a setting left out,
    as ``lmml render --cases`` says it), each warning once a target, at the first case
    that gave it: ``PLACE: TARGET: warning``."""

    rows: int = 0
    passed: int = 0
    cached: int = 0
    skipped: int = 0
    skipped_passed: int = 0
    errors: list[str] = field(default_factory=list)
    warned: list[tuple[str, str, str]] = field(default_factory=list, repr=False)
    """What rendering the cases warned about, as ``(place, target, warning)``."""
    _cases: dict[tuple[str, str, str], tuple[int, int]] = field(
        default_factory=dict, repr=False, compare=False
    )  # (scope, target, warning): the case that gave it, and its index in warned
    _keys: list[tuple[str, str, str]] = field(default_factory=list, repr=False, compare=False)
    # the key of each of warned

    @property
    def warnings(self) -> list[str]:
        """Each of :attr:`warned` as one line: ``PLACE: TARGET: warning``."""
        return [f"{place}: {target}: {warning}" for place, target, warning in self.warned]

    def warned_cases(self) -> list[tuple[str, str, str, int]]:
        """:attr:`warned`, each with the number of its case."""
        return [
            (place, target, warning, self._cases[key][0])
            for (place, target, warning), key in zip(self.warned, self._keys, strict=True)
        ]

    def warn(
        self, place: str, target: str, warning: str, case: int = 0, *, own: bool = False
    ) -> None:
        """Note *warning*, given rendering the case at *place* (numbered *case*) for
        *target*: once a target, at the lowest-numbered case that gave it, whatever order
        the cases were rendered in. A warning about the case's *own* bundle (a folder of
        bundles, each a case) is noted once a place instead: two bundles with the same
        defect each have it said."""
        key = (place if own else "", target, warning)
        found = self._cases.get(key)
        if found is None:
            self._cases[key] = (case, len(self.warned))
            self.warned.append((place, target, warning))
            self._keys.append(key)
        elif case < found[0]:
            self._cases[key] = (case, found[1])
            self.warned[found[1]] = (place, target, warning)

    @property
    def failed(self) -> int:
        """Failed rows of the whole results: this run's and those already there."""
        return self.rows - self.passed + self.skipped - self.skipped_passed

    @property
    def pass_rate(self) -> float:
        """Passed rows over every row of the results, this run's and those already there
        (1.0 with none)."""
        total = self.rows + self.skipped
        return (self.passed + self.skipped_passed) / total if total else 1.0

    def add(self, row: JSONMapping) -> None:
        """Count a results *row* this run wrote."""
        self.rows += 1
        self.passed += row["passed"] is True
        self.cached += row["cached"] is True


@dataclass(frozen=True)
class Job:
    """One case against one target.

    :ivar number: the case's number (its line, row or bundle).
    :ivar bundle: the template (or, with no cases, the case's own bundle).
    :ivar values: the case as read, its ``expect`` included.
    :ivar expect: the assertions its answer is checked against.
    :ivar target: where it is sent.
    :ivar name: the bundle's name when each bundle of a folder is a case.
    """

    number: int
    bundle: Bundle
    values: JSONObject
    expect: tuple[Assertion, ...]
    target: Target
    name: str | None = None

    @property
    def inputs(self) -> JSONObject:
        """The case's values but its ``expect``: what fills the template."""
        return {key: value for key, value in self.values.items() if key != "expect"}


def case_expect(
    values: Mapping[str, object], default: tuple[Assertion, ...], path: str, number: int
) -> tuple[Assertion, ...]:
    """The assertions of case *number* of *path*: its own ``expect``, or *default*.

    :raises ExpectError: a malformed ``expect``, naming *path* and the case's line.
    """
    if "expect" not in values:
        return default
    return read_expect(values["expect"], file=path, line=number)


def default_expect(bundle: Bundle) -> tuple[Assertion, ...]:
    """The ``expect`` of *bundle*'s front matter: the default of its cases.

    :raises ExpectError: a malformed one, at the ``expect:`` key's line and column.
    """
    front = bundle.front_matter or {}
    if "expect" not in front:
        return ()
    try:
        return read_expect(front["expect"], file=bundle.file_name)
    except ExpectError as error:
        raise _at_expect(error, bundle) from None


def _at_expect(error: ExpectError, bundle: Bundle) -> ExpectError:
    """*error* (about *bundle*'s front matter ``expect``) located at the ``expect:`` key's
    line and column in the narrative, when it names no line."""
    text = bundle.narrative.front_matter
    if error.line is not None or text is None:
        return error
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:  # pragma: no cover - the front matter was read already
        return error
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "expect":
                error.line = key.start_mark.line + 2  # the block starts below its ---
                error.column = key.start_mark.column + 1
                error.locate(bundle.file_name)  # its text now starts FILE:LINE:COL
                break
    return error


_T = TypeVar("_T")

READ_AHEAD = 64
"""Cases of a cases file read at a time while sending: read together, between the sends,
they take less time than read one between each two sends."""

_Case = tuple[int, Bundle | None, JSONObject | str, tuple[Assertion, ...], str | None]
"""A case: its number, its bundle, its values (or why it has none), its default ``expect``
and, when the case is a bundle of a folder, that bundle's name."""


def _cases(
    bundle: Bundle | str,
    cases: str | None,
    base_dir: str | os.PathLike[str] | None,
    syntax: ParseOptions,
) -> Iterator[_Case]:
    """Each case of *cases* rendered from *bundle*; with no cases, each bundle under the
    folder (or Parquet file) *bundle* names, parsed as *syntax* says, a bare ``.lmml``
    resolving its references against *base_dir* (None: its own folder)."""
    if cases is None:
        assert isinstance(bundle, str)
        found = iter_bundle_cases(
            bundle,
            base_dir=base_dir,
            delimiters=syntax.delimiters,
            references=syntax.references,
        )
        for number, name, opened in found:
            if isinstance(opened, BundleFailure):
                yield number, None, opened, (), name
                continue
            try:
                default = default_expect(opened)
            except ExpectError as error:  # this bundle's error: the others still run
                yield number, None, BundleFailure(error), (), name
                continue
            except LmmlError as error:
                if error.kind != "invalid_front_matter":
                    raise
                # a front matter that does not parse: the bundle's defect, refused (or sent
                # with --force) as rendering the case says, as every other defect is
                default = ()
            yield number, opened, {}, default, name
        return
    assert isinstance(bundle, Bundle)
    default = default_expect(bundle)
    for number, case in iter_cases(cases, declared_inputs(bundle)):
        yield number, bundle, case, default, None


def _read_ahead(items: Iterator[_T], size: int) -> Iterator[_T]:
    """*items* as they come, read *size* at a time; an error reading one is raised after
    the items read before it are yielded, as it would be without reading ahead."""
    while True:
        batch: list[_T] = []
        try:
            for item in items:
                batch.append(item)
                if len(batch) == size:
                    break
        except Exception:
            yield from batch
            raise
        yield from batch
        if len(batch) < size:
            return


def bundle_path(folder: str, name: str) -> str:
    """The path of the bundle *name* (``sub/b.lmml``) of *folder*, as its walk spells it."""
    return os.path.join(folder, *name.split("/"))


def bundle_place(source: str, name: str, number: int) -> str:
    """Where the bundle *name*, case *number* of *source*, is said in errors: its path as
    the walk of the folder *source* spells it (``runs/sub/b.lmml``); in a Parquet file of
    bundles, the row and the row's bundle (``bundles.parquet:3: runs/b.lmml``)."""
    if os.path.isdir(source):
        return bundle_path(source, name)
    return f"{source}:{number}: {name}"


def said_at(where: str, error: LmmlError, own: str) -> str:
    """*error* said once at *where*, the place of a bundle whose errors name it *own*
    (its file name): ``WHERE:LINE:COL: problem (hint)`` when the error lies in that
    bundle (an entry of it as ``WHERE!ENTRY:LINE``), else ``WHERE: error`` whole."""
    place = Place.of(error)
    if place.file and os.path.basename(place.file) != os.path.basename(own):
        return f"{where}: {error.format()}"
    return f"{place.said_as(where)}: {error.format(place=False)}"


def check_template(template: Bundle) -> None:
    """Refuse *template* when it has an error-level defect, before anything is sent: every
    case rendered from it would carry the defect (a case sent anyway, ``strict=False``,
    warns it instead, as its rendering does).

    :raises DefectError: the first error-level defect, as :meth:`Bundle.check_sendable`
        raises it.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefectWarning)  # each case's rendering says them
        template.check_sendable()


def _path(bundle: Bundle | str, cases: str | os.PathLike[str] | None) -> str:
    if cases is not None:
        return os.fspath(cases)
    assert isinstance(bundle, str), "with no cases, the path of a folder of bundles"
    return bundle


def count_cases(
    bundle: Bundle | str,
    cases: str | os.PathLike[str] | None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
) -> int:
    """The number of cases, every ``expect`` read (so a malformed one stops the run before
    anything is sent; with no cases, a bundle's malformed front matter ``expect`` is that
    bundle's error, as one that does not open). The arguments are as :func:`plan_jobs`
    takes them.

    :raises ExpectError: a malformed ``expect`` of a case.
    """
    path = _path(bundle, cases)
    count = 0
    if cases is not None:  # a JSONL line holding no expect is counted, not read
        assert isinstance(bundle, Bundle)
        default = default_expect(bundle)
        for found in iter_expect_cases(path, declared_inputs(bundle)):
            count += 1
            if found is not None and isinstance(found[1], dict):
                case_expect(found[1], default, path, found[0])
        return count
    syntax = ParseOptions(delimiters, references)
    for number, _, case, default, _ in _cases(bundle, None, base_dir, syntax):
        count += 1
        if isinstance(case, dict):
            case_expect(case, default, path, number)
    return count


def plan_jobs(
    bundle: Bundle | str,
    cases: str | os.PathLike[str] | None,
    targets: Sequence[Target],
    done: Mapping[tuple[int, str], bool],
    summary: Summary,
    *,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
) -> Iterator[Job]:
    """Each case of *cases* (rendered from the template *bundle*) against each of
    *targets*, streamed; with no *cases*, *bundle* is the path of a folder (or Parquet
    file) of bundles, each one case, a bare ``.lmml`` of it resolving its references
    against *base_dir* (None: its own folder) and parsed with *delimiters* and
    *references* (as for :func:`lmml_mdit.open`). A case that cannot be read (with no
    cases, a bundle that does not open or whose front matter ``expect`` is malformed,
    said at its own path, line and column) goes to *summary*'s errors; a pair in *done*
    (the rows already written, each with whether it passed) to its skipped.

    :raises ExpectError: a malformed ``expect`` of a case, when its case is reached.
    """
    path = _path(bundle, cases)
    given = None if cases is None else path
    syntax = ParseOptions(delimiters, references)
    named = [(target, str(target)) for target in targets]  # each target's text, once
    found = _cases(bundle, given, base_dir, syntax)
    if given is not None:  # a template's cases (not bundles, which may be large) read ahead
        found = _read_ahead(found, READ_AHEAD)
    for number, opened, case, default, name in found:
        if isinstance(case, BundleFailure) and name is not None:
            where = bundle_place(path, name, number)
            summary.errors.append(said_at(where, case.error, name))
            continue
        if isinstance(case, str) or opened is None:
            summary.errors.append(f"{path}:{number}: {case}")
            continue
        expect = case_expect(case, default, path, number)
        for target, text in named:
            earlier = done.get((number, text))
            if earlier is not None:
                summary.skipped += 1
                summary.skipped_passed += earlier
                continue
            yield Job(number, opened, case, expect, target, name)
