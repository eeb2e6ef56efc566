"""``lmml eval`` over a Ray Data dataset: :func:`eval_batches`.

The driver checks every ``expect`` first, leaves out the rows already written, and makes
one row per case and target; a bounded pool of actors evaluates the batches as
:func:`~lmml_mdit.eval.aevaluate` does, one actor per target holding its concurrency, and
the driver writes the rows back in case order. See docs/eval.md.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..bundle import Bundle
from ..eval import (
    AnswerCache,
    Evaluator,
    Job,
    Pace,
    ResultsWriter,
    Summary,
    Target,
    case_expect,
    check_targets,
    check_template,
    default_expect,
    done_rows,
    journal_path,
    plan_jobs,
    write_parquet_results,
)
from ..jsonio import unicode_json
from ..jsontypes import JSONObject
from ..run import RunOptions
from ._batches import Template, _template

__all__ = ["eval_batches"]


class _Gate:
    """At most *size* holders at once, their starts spaced to *per_minute* when given (a
    Ray async actor: one per target, so one clock paces the whole cluster)."""

    def __init__(self, size: int, per_minute: float | None = None) -> None:
        self.free = asyncio.Semaphore(size)
        self.pace = None if per_minute is None else Pace(per_minute)

    async def acquire(self) -> None:
        await self.free.acquire()

    async def wait(self) -> None:
        """Return when the next request may start (at once with no rate)."""
        if self.pace is not None:
            await self.pace.wait()

    def release(self) -> None:
        self.free.release()


class _RemotePace:
    """A target's pace kept by its gate actor: the worker asks it right before a send."""

    def __init__(self, gate: Any) -> None:
        self.gate = gate

    async def wait(self) -> None:
        await self.gate.wait.remote()


class _Evaluator:
    """A worker: the template opened once, each batch of (case, target) rows evaluated."""

    def __init__(
        self,
        template: Template,
        cases: str,
        gates: dict[str, Any],
        cache: str | None,
        refresh: bool,
        retries: int,
        judge: str,
        conversations: str | None = None,
        paced: Sequence[str] = (),
        base_dir: str | None = None,
        timeout: float | None = None,
        backoff: float = RunOptions.backoff,
        strict: bool = True,
        settings: Mapping[str, object] | None = None,
        label: str | None = None,
        cli: bool = False,
    ) -> None:
        self.bundle: Bundle = _template(template, None, None)
        self.strict = strict
        self.settings = settings
        self.label = label
        self.cli = cli
        self.conversations = conversations
        self.base_dir = base_dir
        self.cases = cases
        self.gates = gates
        self.paced = {name: gates[name] for name in paced}
        self.cache = None if cache is None else AnswerCache(cache)
        self.refresh = refresh
        self.retries = retries
        self.timeout = timeout
        self.backoff = backoff
        self.judge = Target.parse(judge)
        self.default = default_expect(self.bundle)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[str | None]]:
        return asyncio.run(self._batch(batch))

    async def _batch(self, batch: dict[str, Any]) -> dict[str, list[str | None]]:
        targets = [Target.parse(str(text)) for text in batch["target"]]
        summary = Summary()
        evaluator = Evaluator(  # rows go back to the driver
            self.cases,
            self.cache,
            self.refresh,
            self.retries,
            self.judge,
            summary,
            {name: _RemotePace(gate) for name, gate in self.paced.items()},
            self.conversations,
            self.base_dir,
            self.timeout,
            self.backoff,
            self.strict,
            self.settings,
            self.label,
            self.cli,
        )

        async def one(number: int, case: str, target: Target) -> tuple[str | None, str | None, str]:
            values: JSONObject = json.loads(case)
            expect = case_expect(values, self.default, self.cases, number)
            job = Job(number, self.bundle, values, expect, target)
            gate = self.gates[str(target)]
            await gate.acquire.remote()
            try:
                # the job's own error: other jobs of the batch add theirs meanwhile
                outcome = await evaluator.outcome(job)
            finally:
                gate.release.remote()
            # what rendering warned about, with the case that gave it: the driver says each
            # once, at its lowest-numbered case, whichever batch or job noted it first
            warnings = unicode_json(summary.warned_cases())
            if isinstance(outcome, str):
                return None, outcome, warnings
            return unicode_json(outcome), None, warnings

        try:
            done = await asyncio.gather(
                *(
                    one(int(number), str(case), target)
                    for number, case, target in zip(
                        batch["case"], batch["inputs"], targets, strict=True
                    )
                )
            )
        finally:
            await evaluator.aclose()  # the batch's loop ends here
        return {
            "row": [row for row, _, _ in done],
            "error": [error for _, error, _ in done],
            "warnings": [warnings for _, _, warnings in done],
        }


def _written(journal: str, out: str | os.PathLike[str]) -> None:
    """A ``.parquet`` *out* written whole from its *journal*, as
    :func:`~lmml_mdit.eval.aevaluate` writes it at the end of every run."""
    if journal != os.fspath(out):
        ResultsWriter(journal).close()  # made when no row was written yet
        write_parquet_results(journal, out)


def eval_batches(
    template: str | os.PathLike[str],
    cases: str | os.PathLike[str],
    targets: Sequence[Target],
    out: str | os.PathLike[str],
    *,
    cache: str | os.PathLike[str] | None = None,
    refresh: bool = False,
    concurrency: int = 8,
    workers: int = 2,
    batch_size: int = 16,
    judge: Target | None = None,
    retries: int = RunOptions.retries,
    backoff: float = RunOptions.backoff,
    timeout: float | None = None,
    rates: Mapping[str, float] | None = None,
    conversations: str | os.PathLike[str] | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    strict: bool = True,
    settings: Mapping[str, object] | None = None,
    label: str | None = None,
    cli: bool = False,
) -> Summary:
    """:func:`~lmml_mdit.eval.aevaluate` on the Ray cluster ``ray.init`` joined: every case
    of *cases* (any it reads, read by the driver) rendered from *template* (a path every
    worker reads) against every target, at most *concurrency* requests in flight per
    target across the cluster, rows appended to *out* in case order; rows already in *out*
    are skipped. For a ``.parquet``
    *out* the rows go to its journal (``OUT.journal.jsonl``) and *out* is written whole
    from it at the end, as :func:`~lmml_mdit.eval.aevaluate` does.

    :param cache: the answer cache's folder; every worker must see the same folder (a
        shared file system), or each node keeps a cache of its own.
    :param workers: the actors evaluating batches (each opens the template once).
    :param rates: requests per minute, by target text: the starts of a target's requests
        across the whole cluster are spaced by its one gate actor.
    :param conversations: a folder every worker can write to (a shared file system), where
        each case's conversation is written with its answer appended, as
        ``case-N-TARGET.lmmlz``.
    :param base_dir: the folder each case's ``image``, ``file`` and ``messages`` paths name
        files inside, one every worker can read (default: the cases file's folder).
    :param strict: as :func:`~lmml_mdit.eval.aevaluate` takes it; so are *settings*,
        *label* and *cli*.
    :raises ExpectError: a malformed ``expect`` (before anything is sent).
    :raises DefectError: an error-level defect of the template (before anything is sent),
        unless not *strict*.
    :raises ValueError: no target, one given twice, a *concurrency* or *workers* under 1,
        or a rate naming no target or not over 0.
    """
    import ray

    check_targets(targets, rates)
    if concurrency < 1 or workers < 1:
        raise ValueError("concurrency and workers are at least 1")
    path = os.fspath(cases)
    source = os.fspath(template)
    bundle = _template(source, None, None)
    if strict:
        check_template(bundle)
    summary = Summary()
    journal = journal_path(out)  # a .parquet out: its journal, out written whole at the end
    # every expect checked before anything is sent
    items = [
        {"case": job.number, "inputs": json.dumps(job.values), "target": str(job.target)}
        for job in plan_jobs(bundle, path, targets, done_rows(journal), summary)
    ]
    if not items:
        _written(journal, out)
        return summary
    gate = ray.remote(_Gate)
    paced = rates or {}
    gates = {str(target): gate.remote(concurrency, paced.get(str(target))) for target in targets}
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # rows come back in case order
    dataset = ray.data.from_items(items).map_batches(
        _Evaluator,
        batch_size=batch_size,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=workers),
        fn_constructor_kwargs={
            "template": source,
            "cases": path,
            "gates": gates,
            "cache": None if cache is None else os.fspath(cache),
            "refresh": refresh,
            "retries": retries,
            "backoff": backoff,
            "timeout": timeout,
            "judge": str(judge or targets[0]),
            "conversations": None if conversations is None else os.fspath(conversations),
            "base_dir": None if base_dir is None else os.fspath(base_dir),
            "paced": [name for name in gates if name in paced],
            "strict": strict,
            "settings": None if settings is None else dict(settings),
            "label": label,
            "cli": cli,
        },
    )
    with ResultsWriter(journal) as writer:
        for batch in dataset.iter_batches(batch_format="numpy"):
            for row, error, warned in zip(
                batch["row"], batch["error"], batch["warnings"], strict=True
            ):
                for place, target, warning, case in json.loads(str(warned)):
                    summary.warn(place, target, warning, case)
                if row is None:
                    summary.errors.append(str(error))
                    continue
                value: JSONObject = json.loads(str(row))
                writer.write(value)
                summary.add(value)
    _written(journal, out)
    return summary
