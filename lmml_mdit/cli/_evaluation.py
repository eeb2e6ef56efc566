"""``lmml eval PATH --cases CASES --target T...``: every case against every target, each
answer checked against its ``expect``; exit 1 when a check fails."""

from __future__ import annotations

import argparse
import asyncio
import os

from ._arguments import Arguments
from ._options import (
    add_base_dir,
    add_bundle,
    add_quiet,
    add_send_anyway,
    add_sending,
    add_settings,
    at_least_one,
)
from ._table import command

TYPE_CHECKING = False  # not typing's: parsing an eval command line imports this module
if TYPE_CHECKING:
    from ..eval import Summary, Target

__all__ = ["EvalArguments", "cmd_eval", "rate"]


def rate(text: str) -> tuple[str, float]:
    """``TARGET=N/min`` (or ``N/s``) as (target, requests per minute), for ``type=``.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    target, equals, amount = text.rpartition("=")
    number, slash, unit = amount.partition("/")
    per = {"min": 1.0, "s": 60.0}.get(unit.strip())
    try:
        value = float(number)
    except ValueError:
        value = 0.0
    if not equals or not target or not slash or per is None or not value > 0:
        raise argparse.ArgumentTypeError(f"a rate is TARGET=N/min or TARGET=N/s, not {text!r}")
    return target, value * per


def _settings(args: EvalArguments) -> dict[str, object] | None:
    """``--set``'s settings, None with none."""
    return dict(args.settings) if args.settings else None


def _on_ray(
    args: EvalArguments,
    targets: list[Target],
    out: str,
    cache: str,
    judge: Target | None,
    label: str,
) -> Summary:
    """The evaluation on the Ray cluster at ``--ray``."""
    from ._failure import CliError

    if not os.path.isfile(args.path) or args.cases is None:
        raise CliError(
            "lmml eval --ray: PATH is a template file and --cases a file every worker can read"
        )
    try:
        import ray
    except ImportError:
        raise CliError(
            "lmml eval --ray: install the ray extra (pip install 'lmml-mdit[ray]')"
        ) from None
    from ..eval import HF_PREFIX
    from ..ray import eval_batches

    # Every path made absolute, as each worker has a working folder of its own: a cases
    # file, an hf:FOLDER dataset's folder (a Hub name stays a name), and the folder a
    # case's paths are held in (default: the cases' own, for a Hub dataset this one).
    cases = os.path.abspath(args.cases)
    folder = os.path.dirname(cases)
    if args.cases.startswith(HF_PREFIX):
        named = args.cases[len(HF_PREFIX) :]
        folder = os.path.abspath(named if os.path.isdir(named) else "")
        cases = HF_PREFIX + (folder if os.path.isdir(named) else named)
    base_dir = folder if args.base_dir is None else os.path.abspath(args.base_dir)
    try:
        ray.init(address=args.ray, log_to_driver=False)
    except (ConnectionError, ValueError) as failure:
        raise CliError(
            f"lmml eval --ray {args.ray}: cannot join the cluster ({failure}); start one "
            "with `ray start --head` or give its address, HOST:6379"
        ) from None
    try:
        return eval_batches(
            os.path.abspath(args.path),
            cases,
            targets,
            out,
            cache=os.path.abspath(cache),
            refresh=args.no_cache,
            concurrency=args.concurrency,
            judge=judge,
            retries=args.retries,
            backoff=args.backoff,
            timeout=args.timeout,
            rates=dict(args.rates or []),
            conversations=(
                None
                if args.save_conversations is None
                else os.path.abspath(args.save_conversations)
            ),
            base_dir=base_dir,
            strict=not args.force,
            settings=_settings(args),
            label=label,
            cli=True,
        )
    finally:
        ray.shutdown()


class EvalArguments(Arguments):
    """``lmml eval``'s own options, typed (the parser sets each)."""

    targets: list[str]
    concurrency: int
    rates: list[tuple[str, float]] | None
    results: str | None
    report: str | None
    save_conversations: str | None
    cache: str | None
    no_cache: bool
    fail_under: float | None
    judge: str | None
    ray: str | None
    settings: list[tuple[str, object]] | None
    force: bool


def _eval_options(parser: argparse.ArgumentParser) -> None:
    """``lmml eval``'s own options."""
    add_bundle(parser)
    parser.add_argument(
        "--cases",
        metavar="CASES",
        help="the cases: a JSONL, CSV or Parquet file, or hf:NAME / hf:FOLDER "
        "(none: PATH is a folder of bundles, each one case)",
    )
    parser.add_argument(
        "--target",
        dest="targets",
        action="append",
        required=True,
        metavar="PROVIDER:MODEL[@URL]",
        help="where to send every case; repeatable",
    )
    parser.add_argument(
        "--concurrency",
        type=at_least_one,
        default=8,
        metavar="N",
        help="at most N requests in flight (default: 8)",
    )
    parser.add_argument(
        "--rate",
        dest="rates",
        action="append",
        type=rate,
        metavar="TARGET=N/min",
        help="at most N requests a minute to TARGET; repeatable",
    )
    parser.add_argument(
        "--out",
        dest="results",
        metavar="RESULTS",
        help="the results file, appended to and resumed (default: CASES' stem + .results.jsonl)",
    )
    parser.add_argument(
        "--report",
        metavar="REPORT.html",
        help="write a self-contained HTML page of the results: cases by this run's targets",
    )
    parser.add_argument(
        "--save-conversations",
        metavar="DIR",
        help="write each case's conversation with its answer appended, as a bundle in DIR",
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="the answer cache (default: .lmml-eval-cache beside CASES)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="send every case again, refreshing the cache"
    )
    parser.add_argument(
        "--fail-under",
        type=float,
        metavar="RATE",
        help="exit 1 for failed checks only when the pass rate (0 to 1) is under RATE "
        "(a case with no row still exits 1)",
    )
    parser.add_argument(
        "--judge", metavar="PROVIDER:MODEL[@URL]", help="the target of judge assertions"
    )
    add_sending(parser, "the limit for each request (a judge's too); a case over it gets no row")
    add_settings(
        parser,
        "a setting over every case's settings (its template's or bundle's), the value read "
        "as YAML (--set max_tokens=300); repeatable",
    )
    add_send_anyway(
        parser,
        "send even a case with an error-level defect (a missing reference, ...), reporting "
        "each as a warning",
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="evaluate on the Ray cluster at ADDRESS ('auto': the running one); "
        "--concurrency is then per target across the cluster",
    )
    add_base_dir(parser, values="--cases")
    add_quiet(parser)


@command(
    order=190,
    summary="send every case to every target and check the answers against their expect",
    example="lmml eval prompt.lmml --cases cases.jsonl --target openai:gpt-4o-mini",
    opens_bundles=True,
    options=_eval_options,
)
def cmd_eval(args: EvalArguments) -> int:
    """``lmml eval PATH``: see the module's docstring."""
    from ..bundle import Bundle
    from ..errors import DefectError, ExpectError
    from ..eval import HF_PREFIX, Target, aevaluate, check_targets, journal_path
    from ._failure import CliError
    from ._output import error, error_text, info, warn
    from ._progress import ProgressLine
    from ._sources import (
        Source,
        bundle_stem,
        checked_base_dir,
        located,
        open_source,
        refuse_over_input,
        same_file,
    )
    from ._templates import declared

    try:
        targets = [Target.parse(text) for text in args.targets]
        check_targets(targets)
        judge = None if args.judge is None else Target.parse(args.judge)
    except ValueError as bad:
        raise CliError(f"lmml eval: {bad}") from None
    if args.fail_under is not None and not 0.0 <= args.fail_under <= 1.0:
        raise CliError("lmml eval: --fail-under is a pass rate between 0 and 1")
    names = {str(target) for target in targets}
    for name, _ in args.rates or []:
        if name not in names:
            raise CliError(f"lmml eval: --rate names {name!r}, which is no --target")
    source: Source | None = None
    if args.cases is None:  # PATH is a folder (or Parquet file) of bundles, each one case
        checked_base_dir(args)  # every bare .lmml of the folder resolves against it
        template: Bundle | str = args.path
        beside = args.path
    else:
        source = open_source(args.path, args)
        declared(source)  # a front matter that does not parse: refused as render refuses it
        template = source.bundle
        beside = args.cases.removeprefix(HF_PREFIX)
        if args.cases.startswith(HF_PREFIX) and not os.path.isdir(beside):
            beside = os.path.basename(beside.partition(":")[0])  # a Hub name: here
    out = args.results or f"{bundle_stem(beside.rstrip('/' + os.sep))}.results.jsonl"
    # The report is written when the run is over: a file the run reads is refused now,
    # before anything is sent, rather than replaced then.
    another_report = "give another --report REPORT.html"
    refuse_over_input(
        args.report,
        [(args.path, "the source"), (args.cases, "the --cases file")],
        another_report,
    )
    if source is not None:
        source.refuse_over_folder_file(args.report, another_report)
    report = args.report
    made = ((out, "the results file"), (journal_path(out), "the results journal"))
    for path, what in made:
        if report is not None and same_file(report, path):  # before the run makes it too
            raise CliError(
                f"{report}: refusing to write over {what}, which this command reads "
                f"({another_report})"
            )
    # --no-cache sends everything again and stores the new answers over the old ones
    cache = args.cache or os.path.join(os.path.dirname(os.path.abspath(beside)), ".lmml-eval-cache")
    label = None if source is None else source.label
    try:
        if args.ray is not None:
            summary = _on_ray(args, targets, out, cache, judge, args.path)
        else:
            with ProgressLine("eval") as progress:
                summary = asyncio.run(
                    aevaluate(
                        template,
                        args.cases,
                        targets,
                        out,
                        cache=cache,
                        refresh=args.no_cache,
                        concurrency=args.concurrency,
                        rates=dict(args.rates or []),
                        judge=judge,
                        retries=args.retries,
                        backoff=args.backoff,
                        timeout=args.timeout,
                        progress=progress,
                        conversations=args.save_conversations,
                        base_dir=args.base_dir,
                        delimiters=args.delimiters,
                        references=args.references,
                        strict=not args.force,
                        settings=_settings(args),
                        label=label,
                        cli=True,
                    )
                )
    except DefectError as refused:  # the template's: every case would carry it
        assert source is not None
        raise source.refusal(refused) from None
    except ExpectError as malformed:  # the template's default expect: named as given
        if source is None or malformed.place()[0] != source.bundle.file_name:
            raise
        raise CliError(located(source.label, error_text(malformed), source.aliases)) from None
    for line in summary.warnings:
        warn(line)
    for line in summary.errors:
        error(line)
    if args.report is not None:
        from ..eval import write_report

        # The run's targets only, as its pass rate counts them: rows of others are left out.
        write_report(journal_path(out), args.report, targets=[str(t) for t in targets])
    failed = summary.failed
    earlier = summary.skipped - summary.skipped_passed
    # With no row at all (every case refused or failed to send) there is nothing to rate.
    rate = (
        f"pass rate {summary.pass_rate:.1%} over all rows"
        if summary.rows + summary.skipped
        else "no row to rate"
    )
    info(
        args,
        f"{summary.rows} row(s): {summary.passed} passed, {summary.rows - summary.passed} "
        f"failed, {summary.cached} from the cache; {summary.skipped} already in {out} "
        f"({earlier} failed); {rate}",
    )
    if summary.errors:
        return 1
    if args.fail_under is not None:
        return 1 if summary.pass_rate < args.fail_under else 0
    return 1 if failed else 0
