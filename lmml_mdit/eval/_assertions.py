"""An ``expect`` list read into assertions, and an answer checked against them.

:func:`read_expect` checks the whole list before anything is sent: an unknown kind, a
value of the wrong shape, a regex that does not compile, a schema that is no schema or a
judge's target that is no target raises :class:`~lmml_mdit.errors.ExpectError` naming the
cases file and line. :func:`check` gives one :class:`Verdict` per assertion, in order;
only ``judge`` asks a model, through the :class:`Judge` the caller hands in.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..conversation import Call, ToolCall
from ..errors import ExpectError
from ..jsonio import parse_json
from ._targets import Target

__all__ = [
    "KINDS",
    "Answer",
    "Assertion",
    "Call",
    "Judge",
    "Verdict",
    "check",
    "judge_prompt",
    "judge_verdict",
    "read_expect",
]

KINDS = (
    "equals",
    "contains",
    "not-contains",
    "regex",
    "json",
    "json-schema",
    "tool-call",
    "max-latency",
    "max-tokens",
    "judge",
)
"""The assertion kinds, as an ``expect`` item names them."""

_HINT = "write expect as a list of one-key mappings, e.g. [{contains: Paris}]; see docs/eval.md"


@dataclass(frozen=True)
class Answer:
    """What a target answered, as the assertions see it.

    :ivar text: the answer's text (its text parts joined).
    :ivar calls: the tool calls it made, as the importer read them (arguments that are
        not a JSON object stay as they came, and fail a ``tool-call`` check).
    :ivar latency: seconds from sending to the whole answer.
    :ivar tokens: the output tokens the provider reported, if it did.
    """

    text: str
    calls: tuple[ToolCall, ...] = ()
    latency: float = 0.0
    tokens: int | None = None


@dataclass(frozen=True)
class Verdict:
    """One assertion's outcome: its kind, pass or fail, and why."""

    kind: str
    passed: bool
    reason: str


@dataclass(frozen=True)
class Assertion:
    """One checked ``expect`` item.

    :ivar kind: one of :data:`KINDS`.
    :ivar value: its argument as written (a string, a number, a schema, a mapping).
    :ivar target: for ``judge``, the target that judges (None: the run's judge target).
    """

    kind: str
    value: object
    target: str | None = None
    _pattern: re.Pattern[str] | None = field(default=None, repr=False, compare=False)


class Judge(Protocol):
    """Sends a judge's prompt to *target* (None: the default judge) and returns its text."""

    async def __call__(self, prompt: str, target: str | None) -> str: ...


def _fail(message: str, file: str | None, line: int | None) -> ExpectError:
    return ExpectError(message, name=file, line=line, hint=_HINT)


def _schema_checker(schema: object, file: str | None, line: int | None, kind: str) -> None:
    """Refuse *schema* unless it is a JSON Schema (checked with ``jsonschema``)."""
    try:
        import jsonschema
    except ImportError:
        raise ExpectError(
            f"{kind} needs the jsonschema package",
            name=file,
            line=line,
            hint="install it: pip install 'lmml-mdit[eval]'",
        ) from None
    if not isinstance(schema, (Mapping, bool)):
        raise _fail(f"{kind} wants a JSON Schema (a mapping), not {schema!r:.60}", file, line)
    validator = jsonschema.validators.validator_for(schema)
    try:
        validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        raise _fail(f"{kind}: not a valid JSON Schema: {error.message}", file, line) from None


def _read_one(item: object, file: str | None, line: int | None) -> Assertion:
    if not isinstance(item, Mapping) or len(item) != 1:
        raise _fail(f"an expect item is a mapping with one key, not {item!r:.60}", file, line)
    ((kind, value),) = item.items()
    if kind not in KINDS:
        raise _fail(f"unknown assertion {kind!r}; the kinds are {', '.join(KINDS)}", file, line)
    if kind in ("equals", "contains", "not-contains"):
        if not isinstance(value, str):
            raise _fail(f"{kind} wants a string, not {value!r:.60}", file, line)
        return Assertion(kind, value)
    if kind == "regex":
        if not isinstance(value, str):
            raise _fail(f"regex wants a pattern string, not {value!r:.60}", file, line)
        try:
            return Assertion(kind, value, _pattern=re.compile(value))
        except re.error as error:
            raise _fail(f"regex {value!r:.60} does not compile: {error}", file, line) from None
    if kind == "json":
        if value is not True:
            raise _fail("json takes true (the answer parses as JSON)", file, line)
        return Assertion(kind, value)
    if kind == "json-schema":
        _schema_checker(value, file, line, kind)
        return Assertion(kind, value)
    if kind == "tool-call":
        return _read_tool_call(value, file, line)
    if kind in ("max-latency", "max-tokens"):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value < 0:
            raise _fail(f"{kind} wants a number of at least 0, not {value!r:.60}", file, line)
        if kind == "max-tokens" and not isinstance(value, int):
            raise _fail(f"max-tokens wants a whole number, not {value!r:.60}", file, line)
        return Assertion(kind, value)
    return _read_judge(value, file, line)


def _read_tool_call(value: object, file: str | None, line: int | None) -> Assertion:
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        raise _fail("tool-call wants a name: {name: NAME, arguments: {...}}", file, line)
    extra = set(value) - {"name", "arguments", "schema"}
    if extra:
        raise _fail(f"tool-call takes name, arguments, schema; not {sorted(extra)}", file, line)
    if "arguments" in value and "schema" in value:
        raise _fail("tool-call takes arguments (values) or schema, not both", file, line)
    if "arguments" in value and not isinstance(value["arguments"], Mapping):
        raise _fail("tool-call's arguments is a mapping of argument values", file, line)
    if "schema" in value:
        _schema_checker(value["schema"], file, line, "tool-call's schema")
    return Assertion("tool-call", dict(value))


def _read_judge(value: object, file: str | None, line: int | None) -> Assertion:
    if isinstance(value, str):
        value = {"rubric": value}
    if not isinstance(value, Mapping) or not isinstance(value.get("rubric"), str):
        raise _fail("judge wants a rubric: {rubric: TEXT, target: PROVIDER:MODEL}", file, line)
    extra = set(value) - {"rubric", "target"}
    if extra:
        raise _fail(f"judge takes rubric and target; not {sorted(extra)}", file, line)
    target = value.get("target")
    if target is not None and not isinstance(target, str):
        raise _fail(f"judge's target is PROVIDER:MODEL, not {target!r:.60}", file, line)
    if target is not None:
        try:
            Target.parse(target)
        except ValueError as error:
            raise _fail(f"judge's target: {error}", file, line) from None
    return Assertion("judge", value["rubric"], target=target)


def read_expect(
    value: object, *, file: str | None = None, line: int | None = None
) -> tuple[Assertion, ...]:
    """Read an ``expect`` value (a list of one-key mappings) into assertions.

    :param file: the cases file (or template) it comes from, for the error.
    :param line: its line there.
    :raises ExpectError: an unknown kind or a malformed item.
    """
    if isinstance(value, Mapping):
        value = [{key: item} for key, item in value.items()]
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise _fail(f"expect is a list of assertions, not {value!r:.60}", file, line)
    return tuple(_read_one(item, file, line) for item in value)


def _schema_errors(value: object, schema: object) -> str | None:
    """The first way *value* breaks *schema*, or None."""
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{where or 'the value'}: {error.message}"


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _check_call(call: ToolCall, want: Mapping[str, object]) -> str | None:
    """Why *call* does not match *want*, or None when it does."""
    if call.name != want["name"]:
        return f"called {call.name!r}"
    if not isinstance(call.arguments, Mapping):
        raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
        return f"{call.name!r} arguments are not a JSON object: {_short(raw)}"
    if "schema" in want:
        problem = _schema_errors(call.arguments, want["schema"])
        return None if problem is None else f"{call.name!r} arguments: {problem}"
    wanted = want.get("arguments")
    if isinstance(wanted, Mapping):
        for key, item in wanted.items():
            if key not in call.arguments:
                return f"{call.name!r} has no argument {key!r}"
            if call.arguments[key] != item:
                return f"{call.name!r} {key}={call.arguments[key]!r}, not {item!r}"
    return None


def _check_local(assertion: Assertion, answer: Answer) -> Verdict:
    kind, value, text = assertion.kind, assertion.value, answer.text
    if kind == "equals":
        same = text.strip() == str(value).strip()
        return Verdict(kind, same, "equal" if same else f"answer is {_short(text)}")
    if kind == "contains":
        found = str(value) in text
        return Verdict(kind, found, f"{'found' if found else 'no'} {_short(str(value))}")
    if kind == "not-contains":
        found = str(value) in text
        return Verdict(kind, not found, f"{'found' if found else 'no'} {_short(str(value))}")
    if kind == "regex":
        assert assertion._pattern is not None
        match = assertion._pattern.search(text)
        reason = f"matched {_short(match[0])}" if match else f"no match for {_short(str(value))}"
        return Verdict(kind, match is not None, reason)
    if kind in ("json", "json-schema"):
        try:
            parsed = parse_json(text)
        except (ValueError, RecursionError) as error:
            return Verdict(kind, False, f"the answer is not JSON: {error}")
        if kind == "json":
            return Verdict(kind, True, "the answer parses as JSON")
        problem = _schema_errors(parsed, value)
        return Verdict(kind, problem is None, problem or "the answer matches the schema")
    if kind == "tool-call":
        assert isinstance(value, Mapping)
        if not answer.calls:
            return Verdict(kind, False, f"no tool call; wanted {value['name']!r}")
        reasons = [_check_call(call, value) for call in answer.calls]
        if None in reasons:
            return Verdict(kind, True, f"called {value['name']!r} as expected")
        return Verdict(kind, False, "; ".join(reason for reason in reasons if reason))
    if kind == "max-latency":
        assert isinstance(value, (int, float))
        fast = answer.latency <= value
        return Verdict(kind, fast, f"{answer.latency:.3f} s {'<=' if fast else '>'} {value} s")
    assert kind == "max-tokens" and isinstance(value, int)
    if answer.tokens is None:
        return Verdict(kind, False, "the provider reported no output token count")
    few = answer.tokens <= value
    return Verdict(kind, few, f"{answer.tokens} tokens {'<=' if few else '>'} {value}")


def judge_prompt(rubric: str, answer: str) -> str:
    """The message a judge receives: the rubric, the answer, and how to reply."""
    return (
        "You grade an answer against a rubric.\n\n"
        f"Rubric:\n{rubric}\n\n"
        f"Answer (between the markers):\n<<<ANSWER\n{answer}\nANSWER>>>\n\n"
        "Reply with PASS or FAIL on the first line, then one line saying why."
    )


def judge_verdict(reply: str) -> tuple[bool, str]:
    """A judge's reply as (passed, reason); a reply that opens with neither PASS nor FAIL
    fails, its text as the reason."""
    stripped = reply.strip()
    head, _, rest = stripped.partition("\n")
    word = re.match(r"[\W_]*(pass|fail)\b[\W_]*", head, re.IGNORECASE)
    if word is None:
        return False, f"the judge answered neither PASS nor FAIL: {_short(stripped)}"
    reason = (head[word.end() :] + " " + rest).strip() or "the judge gave no reason"
    return word[1].lower() == "pass", reason


async def check(
    assertions: Sequence[Assertion], answer: Answer, judge: Judge | None = None
) -> list[Verdict]:
    """One verdict per assertion, in order.

    :param judge: sends ``judge`` prompts; needed when *assertions* has a ``judge``.
    :raises ValueError: a ``judge`` assertion and no *judge*.
    """
    verdicts: list[Verdict] = []
    for assertion in assertions:
        if assertion.kind != "judge":
            verdicts.append(_check_local(assertion, answer))
            continue
        if judge is None:
            raise ValueError("a judge assertion needs a judge to send its rubric to")
        reply = await judge(judge_prompt(str(assertion.value), answer.text), assertion.target)
        passed, reason = judge_verdict(reply)
        verdicts.append(Verdict("judge", passed, reason))
    return verdicts
