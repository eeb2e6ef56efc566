"""The evaluation: every case of a template against every target, checked, cached and
resumable.

Cases stream from their source twice: once to check every ``expect``, then to send, at
most ``concurrency`` in flight. Each answer goes to the cache before its row goes to the
results file, so a rerun of a killed run sends nothing twice. See docs/eval.md.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..atomic import check_destination
from ..bundle import Bundle
from ..chat import CaseResult, Progress, Rendering, read_conversation, write_bundle
from ..chat.providers import FORMATS
from ..conversation import TextPart, ToolCall
from ..errors import LmmlError
from ..jsonio import escaped_surrogates
from ..jsontypes import JSONObject
from ..run import BodySender, RunOptions
from ..syntax import DelimiterMode, ReferenceMode
from ..templates import CaseValues, InputDeclarations, declared_inputs
from ..transcript import Transcript
from ._assertions import Answer, Verdict, check
from ._cache import AnswerCache, request_key
from ._cases import cases_folder
from ._jobs import Job, Summary, bundle_place, check_template, count_cases, plan_jobs
from ._results import ResultsWriter, done_rows, journal_path, write_parquet_results
from ._targets import Target, check_targets

__all__ = ["Evaluator", "Pace", "Summary", "Waits", "aevaluate"]

_OWN_PLACE = re.compile(r"(![^:!]+)?(:\d+(:\d+)?)?")
"""What follows a bundle's name in a place inside it: ``!ENTRY``, ``:LINE``, ``:LINE:COL``."""


class Waits(Protocol):
    """What spaces one target's requests: ``wait`` returns when the next may start."""

    async def wait(self) -> None: ...


class Pace:
    """Spaces the starts of one target's requests to at most *per_minute*."""

    def __init__(self, per_minute: float) -> None:
        self.gap = 60.0 / per_minute
        self.next = 0.0
        self.lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self.lock:
            now = time.monotonic()
            if self.next > now:
                await asyncio.sleep(self.next - now)
            self.next = max(now, self.next) + self.gap


class _JudgeFailed(Exception):
    """A judge's send failed: its case gets no row, the reason in its error."""


def _answer(payload: JSONObject, provider: str, latency: float, tokens: int | None) -> Answer:
    conversation = FORMATS[provider].read(payload)  # the SDK's reply, read as it came
    parts = [part for turn in conversation.messages for part in turn.parts]
    text = "".join(part.text for part in parts if isinstance(part, TextPart))
    calls = tuple(part for part in parts if isinstance(part, ToolCall))
    return Answer(text, calls, latency, tokens)


@dataclass
class Evaluator:
    """Evaluates one :class:`~lmml_mdit.eval.Job` into its results row: the request
    rendered, answered from the cache or sent (paced, retried), checked, and the
    conversation saved when asked; a case that gets no row goes to the summary's errors.

    :ivar cases_path: the cases file (or folder), named in errors.
    :ivar judge: the target of ``judge`` assertions naming none.
    :ivar paces: what spaces each target's requests, by target text.
    :ivar conversations: a folder to write each case's conversation to, or None.
    :ivar base_dir: the folder each case's ``image``, ``file`` and ``messages`` paths are
        held inside; None: the cases' own folder (a cases file's folder).
    :ivar timeout: the limit in seconds for each request (None: the SDK's own).
    :ivar backoff: the first retry's delay in seconds, doubled for each next one.
    :ivar strict: False sends a case with an error-level defect anyway, warning it.
    :ivar settings: settings over every case's own, as ``messages()`` takes them.
    :ivar label: how errors and warnings name the template (None: its file name).
    :ivar cli: word errors and warnings as the command line does (its flags).
    """

    cases_path: str
    cache: AnswerCache | None
    refresh: bool
    retries: int
    judge: Target
    summary: Summary
    paces: Mapping[str, Waits]
    conversations: str | None = None
    base_dir: str | None = None
    timeout: float | None = None
    backoff: float = RunOptions.backoff
    strict: bool = True
    settings: Mapping[str, object] | None = None
    label: str | None = None
    cli: bool = False
    _senders: dict[str, BodySender] = field(default_factory=dict, init=False, repr=False)
    _renderings: dict[str, Rendering] = field(default_factory=dict, init=False, repr=False)
    _declared: tuple[Bundle, InputDeclarations | None] | None = field(
        default=None, init=False, repr=False
    )

    def _held(self, job: Job, inputs: JSONObject) -> Mapping[str, object]:
        """*job*'s *inputs* with each ``image``, ``file`` or ``messages`` path held inside
        the cases' folder (:attr:`base_dir` when given), as ``lmml render --cases`` holds
        them: a path leading out is refused, naming the cases file and the case's line."""
        if not inputs:
            return inputs
        if self._declared is None or self._declared[0] is not job.bundle:
            declared = declared_inputs(job.bundle)
            # None: no input of this bundle takes a path, so there is nothing to hold.
            held = any(spec.is_part for spec in declared.specs.values())
            self._declared = job.bundle, declared if held else None
        declarations = self._declared[1]
        if declarations is None:
            return inputs
        folder = cases_folder(self.cases_path) if self.base_dir is None else self.base_dir
        case = CaseValues(job.number, inputs, file=self.cases_path, folder=folder)
        return case.held(declarations)

    def _sender(self, target: Target, text: str | None = None) -> BodySender:
        """The sender of *target*'s requests (and of its judge prompts), made on first use;
        *text* is the target's text, when the caller has made it."""
        text = str(target) if text is None else text
        sender = self._senders.get(text)
        if sender is None:
            options = RunOptions(
                target.provider,
                base_url=target.base_url,
                timeout=self.timeout,
                retries=self.retries,
                backoff=self.backoff,
            )
            # Its errors name no file: _failed says the case's place.
            sender = self._senders[text] = BodySender(options)
        return sender

    async def _send(self, body: JSONObject, target: Target, text: str) -> tuple[JSONObject, bool]:
        """The stored answer for *body* at *target* (written *text*), sent for when not
        cached."""
        key = "" if self.cache is None else request_key(body, target)
        if self.cache is not None and not self.refresh:
            found = self.cache.get(key)
            if found is not None:
                return found, True
        # The client is made before the pace: the wait ends in the send.
        sender = self._sender(target, text)
        pace = self.paces.get(text)
        if pace is not None:
            await pace.wait()
        exchange, latency = await sender.send(body)
        stored: JSONObject = {
            "payload": exchange.payload,
            "latency": latency,
            "input_tokens": exchange.input_tokens,
            "output_tokens": exchange.output_tokens,
        }
        if self.cache is not None:
            self.cache.put(key, stored)
        return stored, False

    def _save(self, number: int, target: Target, body: JSONObject, payload: JSONObject) -> None:
        """Write the case's conversation, its answer appended, as a bundle."""
        assert self.conversations is not None
        conversation = read_conversation(body, target.provider)
        answer = escaped_surrogates(payload)  # a bundle holds text: UTF-8 with no lone surrogate
        conversation.messages.extend(read_conversation(answer, target.provider).messages)
        slug = "".join(c if c.isalnum() or c in "-." else "_" for c in str(target))
        name = f"case-{number}-{slug}"
        bundle = write_bundle(conversation, name=name)
        os.makedirs(self.conversations, exist_ok=True)
        bundle.save(os.path.join(self.conversations, f"{name}.lmmlz"))

    async def _judge(self, prompt: str, target: str | None) -> str:
        """The judge's reply to *prompt*, from *target* (None: :attr:`judge`): sent as a
        case's request is (paced, retried, within the timeout) and cached the same way, so
        a rerun answered from the cache asks no judge again.

        :raises _JudgeFailed: the judge could not be asked (its send failed).
        """
        chosen = Target.parse(target) if target else self.judge
        transcript = Transcript()
        transcript.append("user", prompt)
        body = transcript.to_bundle().to_request(chosen.provider, model=chosen.model)
        try:
            stored, _ = await self._send(body, chosen, str(chosen))
        except LmmlError as error:
            said = error.format(hint=False, place=False)
            raise _JudgeFailed(f"the judge {chosen} was not answered: {said}") from None
        payload = stored["payload"]
        assert isinstance(payload, dict)
        return _answer(payload, chosen.provider, 0.0, None).text

    def _place(self, job: Job) -> str:
        """Where *job*'s errors are said: ``CASES:N``, its cases file and line; with no
        cases, its bundle's path under the folder (in a Parquet file of bundles, the row
        and the row's bundle)."""
        if job.name is None:
            return f"{self.cases_path}:{job.number}"
        return bundle_place(self.cases_path, job.name, job.number)

    def _failed(self, job: Job, reason: str) -> str:
        """Why *job* gets no row: ``PLACE: TARGET: reason``."""
        return f"{self._place(job)}: {job.target}: {reason}"

    def _render_failed(self, job: Job, failure: CaseResult) -> str:
        """*job*'s render *failure*, its place said once: the case's line of its
        cases file (a path there refused), or a line of the case's own bundle (with no
        cases, as ``BUNDLE:LINE:COL``); a failure elsewhere (the template's line) whole."""
        where, place = self._place(job), failure._at
        problem = failure.cli_problem if self.cli else failure.problem
        if job.name is None:
            own = failure.lies_at(self.cases_path, job.number)
        else:
            own = place is not None and place.file == job.bundle.file_name
            if place is not None and own:
                where = place.said_as(where)
        if own:
            reason = problem
        elif job.name is None and place is not None and place.file == job.bundle.file_name:
            reason = f"{place.said_as(self.label or place.file)}: {problem}"  # the template's
        else:
            reason = (failure.cli_error if self.cli else failure.error) or ""
        return f"{where}: {job.target}: {reason}"

    def _warned_at(self, job: Job, warning: str) -> tuple[str, str]:
        """Where *warning* about *job* is said, and what is said there. With no cases (each
        bundle of a folder a case), a warning located in the case's own bundle has its
        place said once, as an error's is (``BUNDLE:LINE:COL: TARGET: kind: ...``, as
        ``lmml render --force`` says it), not the bundle's path then its bare name."""
        where = self._place(job)
        if job.name is None:
            return where, self._named(job, warning)
        own = job.bundle.file_name
        head, said, rest = warning.partition(": ")
        if said and head.startswith(own) and _OWN_PLACE.fullmatch(head[len(own) :]):
            return where + head[len(own) :], rest
        return where, warning

    def _named(self, job: Job, text: str) -> str:
        """*text* with the template's file name at its start as :attr:`label` says it."""
        own = job.bundle.file_name
        if self.label is None or job.name is not None or not text.startswith(own + ":"):
            return text
        return self.label + text[len(own) :]

    async def aclose(self) -> None:
        """Close the clients of the targets sent to and of the judges asked, their
        connections with them: once every job is done, before the event loop ends (a
        client the loop's other runs or senders still hold a share of is left to them, and
        closed as the loop ends; see :meth:`lmml_mdit.run.BodySender.aclose`)."""
        senders = list(self._senders.values())
        self._senders.clear()
        for sender in senders:
            await sender.aclose()

    async def row(self, job: Job) -> JSONObject | None:
        """*job*'s results row, or None (the error is in the summary)."""
        outcome = await self.outcome(job)
        if isinstance(outcome, str):
            self.summary.errors.append(outcome)
            return None
        return outcome

    async def outcome(self, job: Job) -> JSONObject | str:
        """*job*'s results row, or the error saying why it gets none (not in the summary:
        for a caller running jobs at once that hands each job's error on by itself)."""
        number, target, inputs = job.number, job.target, job.inputs
        text = str(target)
        rendering = self._renderings.get(text)
        if rendering is None:
            options: dict[str, object] = {"strict": self.strict}
            if self.settings:
                options["settings"] = dict(self.settings)
            rendering = Rendering.of(target.provider, True, target.model, options)
            self._renderings[text] = rendering
        rendered = rendering.case(job.bundle, number, self._held(job, inputs))
        if not isinstance(rendered.value, dict):
            return self._render_failed(job, rendered)
        said = rendered.cli_warnings if self.cli else rendered.warnings
        for warning in said:
            place, warning = self._warned_at(job, warning)
            self.summary.warn(place, text, warning, number, own=job.name is not None)
        try:
            stored, cached = await self._send(rendered.value, target, text)
        except LmmlError as error:
            return self._failed(job, error.format(hint=False))
        payload = stored["payload"]
        latency, tokens = stored["latency"], stored["output_tokens"]
        assert isinstance(payload, dict) and isinstance(latency, (int, float))
        answer = _answer(
            payload, target.provider, float(latency), tokens if isinstance(tokens, int) else None
        )
        try:
            verdicts: list[Verdict] = await check(job.expect, answer, self._judge)
        except _JudgeFailed as failed:  # the answer is cached: a rerun asks the judge again
            return self._failed(job, str(failed))
        passed = all(verdict.passed for verdict in verdicts)
        row: JSONObject = {
            "case": number,
            "bundle": job.name,
            "target": text,
            "inputs": inputs,
            "request": rendered.value,
            "answer": answer.text,
            "calls": [{"name": c.name, "arguments": c.arguments} for c in answer.calls],
            "assertions": [
                {"kind": v.kind, "passed": v.passed, "reason": v.reason} for v in verdicts
            ],
            "passed": passed,
            "input_tokens": stored["input_tokens"],
            "output_tokens": tokens,
            "latency": latency,
            "cached": cached,
        }
        if self.conversations is not None:
            self._save(number, target, rendered.value, payload)
        return row


@dataclass
class _Run:
    """The jobs of one :func:`aevaluate`: each evaluated, its row written and counted, and
    the progress reported."""

    evaluator: Evaluator
    writer: ResultsWriter
    progress: Progress | None = None
    total: int = 0
    done: int = 0
    started: float = field(default_factory=time.monotonic)

    async def one(self, job: Job) -> None:
        try:
            row = await self.evaluator.outcome(job)  # as Evaluator.row, one await fewer
            summary = self.evaluator.summary
            if isinstance(row, str):
                summary.errors.append(row)
            else:
                self.writer.write(row)
                summary.add(row)
        finally:
            self.step()

    def step(self) -> None:
        """One case and target finished: report it."""
        self.done += 1
        if self.progress is None:
            return
        summary = self.evaluator.summary
        rate = self.done / max(time.monotonic() - self.started, 1e-9)
        left = (self.total - self.done) / rate
        detail = (
            f"{summary.rows - summary.passed} failed, {len(summary.errors)} errors, "
            f"{summary.cached} cached, ETA {left:.0f} s"
        )
        self.progress(self.done, self.total, detail)


async def _drain(run: _Run, jobs: Iterator[Job], concurrency: int) -> None:
    """Evaluate *jobs* with *concurrency* workers taking the next job as each finishes one
    (the iterator never awaits, so they share it safely); the first error stops them all."""

    async def worker() -> None:
        for job in jobs:
            await run.one(job)

    workers = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for started in workers:
            started.cancel()
        raise


async def aevaluate(
    bundle: Bundle | str | os.PathLike[str],
    cases: str | os.PathLike[str] | None,
    targets: Sequence[Target],
    out: str | os.PathLike[str],
    *,
    cache: str | os.PathLike[str] | None = None,
    refresh: bool = False,
    concurrency: int = 8,
    rates: Mapping[str, float] | None = None,
    judge: Target | None = None,
    retries: int = RunOptions.retries,
    backoff: float = RunOptions.backoff,
    timeout: float | None = None,
    progress: Progress | None = None,
    conversations: str | os.PathLike[str] | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
    strict: bool = True,
    settings: Mapping[str, object] | None = None,
    label: str | None = None,
    cli: bool = False,
) -> Summary:
    """Send every case of *cases* rendered from *bundle* to every target, check the
    answers, append a row per case and target to *out*; rows already in *out* are skipped.
    For a ``.parquet`` *out* the rows go to its journal (``OUT.journal.jsonl``) and *out*
    is written whole from it at the end.

    :param cases: a JSONL, CSV or Parquet file, or ``hf:NAME`` / ``hf:FOLDER`` (see
        :func:`~lmml_mdit.eval.iter_cases`); None: *bundle* is the path of a folder
        of bundles (or a Parquet file of them), each bundle one case.

    :param cache: the answer cache's folder (None: no cache).
    :param refresh: send again even when cached (the new answer replaces the old).
    :param rates: requests per minute (over 0), by target text (one of *targets*).
    :param judge: the target of ``judge`` assertions naming none (default: the first).
    :param retries: retries of a 429 or 5xx answer, as :func:`lmml_mdit.run.send` makes
        them; *backoff* is the first one's delay in seconds, doubled for each next one.
    :param timeout: the limit in seconds for each request, a judge's too (None: the SDK's
        own); a request over it is that case's error.
    :param conversations: a folder to write each case's conversation to, its answer
        appended, as ``case-N-TARGET.lmmlz``.
    :param progress: called after each case and target (done, total, detail).
    :param base_dir: the folder each case's ``image``, ``file`` and ``messages`` paths name
        files inside (default: the cases file's folder; an ``hf:FOLDER`` dataset's folder,
        the working directory for a Hub dataset); a path leading out is that case's error.
        With no *cases*, the folder every bare ``.lmml`` of the folder resolves its
        references against (default: each file's own folder), as for
        :func:`lmml_mdit.open`.
    :param delimiters: with no *cases*, how each bundle of the folder is parsed, as for
        :func:`lmml_mdit.open` (*bundle*, a template, was opened already).
    :param references: likewise.
    :param strict: False sends a case with an error-level defect anyway, its rendering
        warning it; True (default) refuses it: a template's defect before anything is
        sent, a bundle's (with no cases) as that case's error.
    :param settings: settings over each case's own (its template's or bundle's), as
        ``messages(settings=...)`` takes them.
    :param label: how the summary's lines name the template (such as its path as the
        user gave it; default: its file name).
    :param cli: word the summary's lines as the command line does (naming its flags).
    :raises ExpectError: a malformed ``expect`` (before anything is sent).
    :raises DefectError: an error-level defect of the template (before anything is sent),
        unless not *strict*.
    :raises ValueError: no target, one given twice, a *concurrency* under 1, or a rate
        naming no target or not over 0.
    """
    check_targets(targets, rates)
    if concurrency < 1:
        raise ValueError("concurrency is at least 1")
    source: Bundle | str
    if cases is None:
        if isinstance(bundle, Bundle):
            raise ValueError("with no cases, give the path of a folder of bundles")
        path = source = os.fspath(bundle)
    else:
        if not isinstance(bundle, Bundle):
            raise ValueError("with cases, give the template bundle")
        source, path = bundle, os.fspath(cases)
        if strict:
            check_template(bundle)
    given = None if cases is None else path
    folder = None if cases is not None or base_dir is None else os.fspath(base_dir)
    count = count_cases(  # every expect checked first
        source, given, base_dir=folder, delimiters=delimiters, references=references
    )
    summary = Summary()
    journal = journal_path(out)
    if journal != os.fspath(out):
        check_destination(out)  # the Parquet file, written at the end: refused up front
    done = done_rows(journal)
    names = {str(target) for target in targets}
    # Only this run's rows are skipped: an earlier run's rows for other targets (or cases
    # past the end of the file) are no case this run sends.
    total = count * len(targets) - sum(
        1 for number, target in done if target in names and 1 <= number <= count
    )
    evaluator = Evaluator(
        path,
        None if cache is None else AnswerCache(cache),
        refresh,
        retries,
        judge or targets[0],
        summary,
        {name: Pace(rate) for name, rate in (rates or {}).items()},
        None if conversations is None else os.fspath(conversations),
        None if cases is None or base_dir is None else os.fspath(base_dir),
        timeout,
        backoff,
        strict,
        settings,
        label,
        cli,
    )
    with ResultsWriter(journal) as writer:
        run = _Run(evaluator, writer, progress, total)
        jobs = plan_jobs(
            source,
            given,
            targets,
            done,
            summary,
            base_dir=folder,
            delimiters=delimiters,
            references=references,
        )
        try:
            await _drain(run, jobs, concurrency)
        finally:
            await evaluator.aclose()
    if journal != os.fspath(out):
        write_parquet_results(journal, out)
    return summary
