"""Fuzzing every public entry point: hostile or random input fails only with an LmmlError.

Each property feeds mutated real archives, random text or random JSON-ish data to the API
and checks that what escapes is an :class:`~lmml_mdit.LmmlError` subclass (the library's
documented errors), never another exception. Every bundle that opens is then driven through
the whole API (validation, the four providers, previews, exports, pack/inline, transcripts,
save). Examples are bounded so the file runs in well under a minute; speed on pathological
input is measured by ``benchmarks/bench_hostile.py``, not here (no timed tests).
"""

from __future__ import annotations

import io
import json
import os
import socket
import stat
import sys
import tempfile
import unicodedata
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import Bundle, LmmlError, Transcript

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ARCHIVE = (EXAMPLES / "sales-review.lmmlz").read_bytes()
TEXT_BUNDLE = (EXAMPLES / "sales-review.lmml").read_text(encoding="utf-8")
TOOLS_BUNDLE = (EXAMPLES / "weather-tools.lmml").read_text(encoding="utf-8")

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")
IMPORT_FORMATS = (None, "openai", "openai-responses", "anthropic", "gemini", "sharegpt")
# LMML_FUZZ_EXAMPLES=2000 runs a deeper search (the default keeps the file under a minute).
FUZZ = settings(
    max_examples=int(os.environ.get("LMML_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# Random JSON-ish values built from the keys and words chat payloads use.
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20)
)
json_keys = st.sampled_from(
    [
        "role",
        "content",
        "type",
        "text",
        "parts",
        "messages",
        "contents",
        "input",
        "system",
        "tool_calls",
        "tool_call_id",
        "id",
        "name",
        "arguments",
        "function",
        "image_url",
        "url",
        "source",
        "data",
        "media_type",
        "inline_data",
        "mime_type",
        "from",
        "value",
        "conversations",
        "call_id",
        "output",
        "tool_use_id",
        "functionCall",
        "functionResponse",
        "args",
        "response",
        "model",
        "user",
        "assistant",
        "tool",
        "input_text",
        "image",
    ]
)
json_values = st.recursive(
    json_scalars
    | st.sampled_from(
        [
            "user",
            "assistant",
            "system",
            "tool",
            "model",
            "text",
            "image_url",
            "tool_use",
            "tool_result",
            "human",
            "gpt",
        ]
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_keys, inner, max_size=5),
    max_leaves=25,
)


def _step(action: Any, *args: Any, **kwargs: Any) -> Any:
    """Run one API call; an LmmlError is an allowed outcome (returns None)."""
    try:
        return action(*args, **kwargs)
    except LmmlError:
        return None


def exercise(bundle: Bundle) -> None:
    """Drive one opened bundle through every public operation."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # omission/system warnings are documented outcomes
        issues = bundle.validate()
        assert isinstance(issues, list)
        for provider in PROVIDERS:
            _step(bundle.messages, provider)
            _step(bundle.to_request, provider, model="m", settings={"max_tokens": 5})
        _step(lmml_mdit.render_turns, bundle)
        html = _step(lmml_mdit.render_html, bundle)
        assert html is None or isinstance(html, str)
        _step(lmml_mdit.to_markdown, bundle)
        _step(lambda: bundle.pack().validate())
        _step(lambda: bundle.inline().validate())
        _step(Transcript.from_bundle, bundle)
        with tempfile.TemporaryDirectory() as folder:
            suffix = ".lmmlz" if bundle.kind == "zip" else ".lmml"
            target = Path(folder) / f"out{suffix}"
            if _step(bundle.save, target) is None and target.exists():
                _step(lambda: lmml_mdit.open(target).validate())


def open_and_exercise(source: bytes | str, **kwargs: Any) -> None:
    try:
        bundle = lmml_mdit.open(
            source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source, **kwargs
        )
    except LmmlError:
        return
    exercise(bundle)


# -- mutated archives -----------------------------------------------------------------------

flip = st.tuples(st.integers(0, len(ARCHIVE) - 1), st.integers(1, 255))
mutations = st.one_of(
    st.lists(flip, min_size=1, max_size=8).map(lambda flips: ("flip", flips)),
    st.integers(0, len(ARCHIVE)).map(lambda cut: ("truncate", cut)),
    st.tuples(st.integers(0, len(ARCHIVE)), st.binary(min_size=1, max_size=64)).map(
        lambda insert: ("insert", insert)
    ),
)


def mutate(data: bytes, mutation: tuple[str, Any]) -> bytes:
    kind, value = mutation
    if kind == "truncate":
        return data[:value]
    if kind == "insert":
        at, extra = value
        return data[:at] + extra + data[at:]
    buffer = bytearray(data)
    for at, mask in value:
        buffer[at] ^= mask
    return bytes(buffer)


@FUZZ
@given(mutations)
def test_mutated_archive(mutation: tuple[str, Any]) -> None:
    open_and_exercise(mutate(ARCHIVE, mutation))


# Mutating the narrative inside a well-formed archive reaches the layers above the zip.
narrative_bytes = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.lists(flip.map(lambda f: (f[0] % 800, f[1])), min_size=1, max_size=6).map(
        lambda flips: mutate(TEXT_BUNDLE.encode()[:800].ljust(800, b"\n"), ("flip", flips))
    ),
)


def _rezip(narrative: bytes, extra: dict[str, bytes]) -> bytes:
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("fuzz.lmml", narrative)
        for name, data in extra.items():
            archive.writestr(name, data)
    return buffer.getvalue()


entry_names = st.sampled_from(
    [
        "a.png",
        "sales.csv",
        "chart.png",
        "settings.yaml",
        "settings.json",
        "manifest.json",
        "x.tool_call.json",
        "notes.txt",
        "d/e.md",
    ]
)


@FUZZ
@given(narrative_bytes, st.dictionaries(entry_names, st.binary(max_size=80), max_size=4))
def test_zip_with_random_narrative_and_entries(narrative: bytes, extra: dict[str, bytes]) -> None:
    open_and_exercise(_rezip(narrative, extra))


# -- random text bundles --------------------------------------------------------------------

_PIECES = [
    "@@@",
    "@@@a.txt",
    "@@@settings.yaml",
    "@@@manifest.json",
    "@@@c_1.tool_call.json",
    '{"id": "c1", "name": "f", "arguments": {}}',
    "temperature: 2",
    "max_tokens: -1",
    "[1, 2",
    "{",
    "@a.txt",
    "@c_1.tool_call.json",
    "@missing.png",
    "## user",
    "## assistant",
    "# system",
    "## tool",
    "<!-- tool -->",
    "> ",
    "- ",
    "```",
    "| @a.txt | b |",
    "x@@@",
    "\ufeff",
    "\0",
    "\udcff",
    "    @x",
    "![i](@a.txt)",
    "[l](javascript:x)",
    "<script>",
]
lmml_text = st.lists(
    st.tuples(
        st.lists(st.sampled_from(_PIECES), max_size=3).map("".join),
        st.sampled_from(["\n", "\n", "\r\n", "\r"]),
    ),
    max_size=25,
).map(lambda lines: "".join(text + newline for text, newline in lines))


@FUZZ
@given(st.one_of(st.text(max_size=200), lmml_text, st.binary(max_size=200)))
def test_random_text_bundle(source: str | bytes) -> None:
    open_and_exercise(source)


@FUZZ
@given(lmml_text)
def test_text_bundle_with_base_dir(source: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "a.txt").write_text("asset @x\n", encoding="utf-8")
        Path(folder, "missing.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 8)
        open_and_exercise(source, base_dir=folder)


settings_keys = st.sampled_from(
    [
        "temperature",
        "top_p",
        "max_tokens",
        "stop",
        "seed",
        "model",
        "tools",
        "tool_choice",
        "response_format",
        "system",
        "n",
        "presence_penalty",
        "stream",
        "metadata",
        "thinking",
    ]
)
reserved_fences = st.one_of(
    st.dictionaries(settings_keys, json_values, max_size=4).map(
        lambda value: "@@@settings.json\n" + json.dumps(value) + "\n@@@\n"
    ),
    st.dictionaries(settings_keys, json_values, max_size=4).map(
        lambda value: "@@@settings.yaml\n" + json.dumps(value) + "\n@@@\n"
    ),
    st.text(max_size=60).map(lambda text: "@@@settings.yaml\n" + text + "\n@@@\n"),
    json_values.map(lambda value: "@@@manifest.json\n" + json.dumps(value) + "\n@@@\n"),
)
tool_turns = st.tuples(json_values, st.sampled_from(["c1", "c 1", "", "../x"])).map(
    lambda pair: (
        "## assistant\n@@@c1.tool_call.json\n"
        + json.dumps(pair[0])
        + "\n@@@\n\n## tool\n@"
        + pair[1]
        + ".tool_call.json\nresult @a.txt\n"
    )
)
bundle_texts = st.lists(
    st.one_of(reserved_fences, tool_turns, lmml_text, st.just("@@@a.txt\nhello\n@@@\n")),
    min_size=1,
    max_size=5,
).map("".join)


@FUZZ
@given(bundle_texts)
def test_bundles_with_random_settings_manifest_and_tool_calls(text: str) -> None:
    open_and_exercise(text)
    entries = {"a.txt": b"text", "b.png": b"\x89PNG\r\n\x1a\n" + b"\0" * 20}
    _step(lambda: exercise(Bundle.from_zip("z", text, entries)))


# -- parse ----------------------------------------------------------------------------------

nested = st.tuples(
    st.sampled_from([">", "> ", "- ", "  - ", "1. ", "* ", "> - "]),
    st.integers(1, 400),
    st.sampled_from(["# user @a", "@@@f\nx", "@x @y", "```\n@z", "<!-- tool -->", "text"]),
).map(lambda t: t[0] * t[1] + t[2] + "\n")
long_line = st.tuples(
    st.sampled_from(["a ", "@", "@a ", "| @a ", "x@@@", "`"]), st.integers(1, 20_000)
).map(lambda t: t[0] * t[1])


@FUZZ
@given(st.one_of(nested, long_line, lmml_text, st.lists(nested, max_size=5).map("".join)))
def test_parse_hostile_text(text: str) -> None:
    narrative = _step(lmml_mdit.parse, text)
    if narrative is not None:
        assert narrative.source.count("\n") + 1 >= len(narrative.turns)


# -- import_messages ------------------------------------------------------------------------


def _as_wire(value: Any, form: int) -> Any:
    if form == 0:
        return value
    try:
        text = json.dumps(value)
    except (ValueError, TypeError):  # pragma: no cover - strategies make JSON-able values
        return value
    return text if form == 1 else text.encode("utf-8")


@FUZZ
@given(json_values, st.sampled_from(IMPORT_FORMATS), st.integers(0, 2))
def test_import_messages(data: Any, format: str | None, form: int) -> None:
    bundle = _step(lmml_mdit.import_messages, _as_wire(data, form), format)
    if bundle is not None:
        exercise(bundle)


@FUZZ
@given(st.one_of(st.text(max_size=100), st.binary(max_size=100)), st.sampled_from(IMPORT_FORMATS))
def test_import_messages_random_text(data: str | bytes, format: str | None) -> None:
    _step(lmml_mdit.import_messages, data, format)


# Real payloads of every format with one value or subtree swapped for a hostile one.
CORPUS = sorted((Path(__file__).resolve().parent / "bridge_corpus").glob("*/*.json"))
HOSTILE_JSON = [None, 5, -1, 1.5, True, "", "x", "\udcff", [], [1], {}, {"a": 1}, [{"type": [1]}]]


def _places(value: Any, place: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [place]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _places(child, (*place, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _places(child, (*place, index))
    return found


def _swapped(value: Any, place: tuple[Any, ...], new: Any) -> Any:
    if not place:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[place[0]] = _swapped(value[place[0]], place[1:], new)
    return copy


@st.composite
def corpus_mutants(draw: st.DrawFn) -> tuple[Any, str | None]:
    path = draw(st.sampled_from(CORPUS))
    payload = json.loads(path.read_text(encoding="utf-8"))
    place = draw(st.sampled_from(_places(payload)))
    format = path.parent.name if path.parent.name in IMPORT_FORMATS else None
    return _swapped(payload, place, draw(st.sampled_from(HOSTILE_JSON))), draw(
        st.sampled_from([format, None])
    )


@FUZZ
@given(corpus_mutants())
def test_import_mutated_corpus(case: tuple[Any, str | None]) -> None:
    data, format = case
    bundle = _step(lmml_mdit.import_messages, data, format)
    if bundle is not None:
        exercise(bundle)


# -- Transcript.load ------------------------------------------------------------------------

transcript_like = st.fixed_dictionaries(
    {"version": st.sampled_from([1, 2, "1", None]), "messages": json_values}
).map(json.dumps)


@FUZZ
@given(
    st.one_of(st.binary(max_size=200), transcript_like.map(str.encode), st.just(ARCHIVE)),
    st.sampled_from([".json", ".lmml", ".lmmlz", ""]),
)
def test_transcript_load(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "t" + suffix)
        path.write_bytes(data)
        transcript = _step(Transcript.load, path)
        if transcript is not None:
            _step(transcript.save, Path(folder, "again.json"))
            _step(transcript.save, Path(folder, "again.lmmlz"))


# -- writes ---------------------------------------------------------------------------------

# File names a caller may pass: control characters, other scripts and forms, drive-like and
# reserved-looking names, names of the kinds of file a write must never replace.
hostile_name_characters = st.sampled_from(
    [
        *"aZ._- ",
        *("\x1b", "\x07", "\n", "\r", "\t", "\x7f", "\x85", "\u2028", "\u202e"),
        *("\u00e9", "e\u0301", "\u00df", "\u0130", "\u03aa\u0301", "\u0390", ":", "C:"),
        *("*", "?", "\udcff", "@", "%"),
    ]
)
hostile_file_names = st.lists(hostile_name_characters, min_size=1, max_size=12).map("".join)
destination_kinds = st.sampled_from(
    ["missing", "file", "link-to-file", "dangling-link", "folder", "link-to-folder", "fifo"]
)
WRITERS = ("save-zip", "save-text", "preview", "transcript", "transcript-lmmlz", "export")
_TEMPORARY_MARKS = (".lmml-tmp", ".tmp")


def _prepare_destination(folder: Path, name: str, kind: str) -> Path:
    target = folder / name
    real = folder / "real-target"
    if kind == "file":
        target.write_bytes(b"old")
    elif kind == "link-to-file":
        real.write_bytes(b"old")
        target.symlink_to(real)
    elif kind == "dangling-link":
        target.symlink_to(real)
    elif kind == "folder":
        target.mkdir()
    elif kind == "link-to-folder":
        real.mkdir()
        target.symlink_to(real)
    elif kind == "fifo":
        os.mkfifo(target)
    return target


def _write(writer: str, target: Path, source_folder: Path) -> None:
    if writer == "save-zip":
        Bundle.from_zip("w", "## user\n\n@a.txt\n", {"a.txt": b"asset\n"}).save(target)
    elif writer == "save-text":
        Bundle.from_text("w", "## user\n\nhi\n").save(target)
    elif writer == "preview":
        lmml_mdit.write_preview(Bundle.from_text("w", "## user\n\nhi\n"), target)
    elif writer.startswith("transcript"):
        chat = Transcript()
        chat.append("user", "hi")
        chat.save(target if writer == "transcript" else target.with_name(target.name + ".lmmlz"))
    else:
        from lmml_mdit import export_folder

        export_folder(source_folder, "openai", target, workers=1)


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and symbolic links")
@FUZZ
@given(hostile_file_names, destination_kinds, st.sampled_from(WRITERS))
def test_writes_to_hostile_destinations(name: str, kind: str, writer: str) -> None:
    """Any file name and whatever lies at the destination: the write succeeds and leaves a
    regular file (a link kept, pointing at it), or fails with an LmmlError leaving what
    was there as it was; never a temporary file left behind, never another exception."""
    if "/" in name or name in (".", ".."):
        return
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work, "out")
        folder.mkdir()
        sources = Path(work, "bundles")
        sources.mkdir()
        (sources / "a.lmml").write_text("## user\n\nhi\n", encoding="utf-8")
        try:
            target = _prepare_destination(folder, name, kind)
        except (OSError, UnicodeError):
            return  # a name this file system cannot hold: nothing to write over
        was_link = target.is_symlink()
        before = os.lstat(target).st_mode if os.path.lexists(target) else None
        try:
            _write(writer, target, sources)
        except LmmlError:
            after = os.lstat(target).st_mode if os.path.lexists(target) else None
            assert after == before  # a refused write changes nothing
        else:
            if writer != "transcript-lmmlz":
                assert target.is_symlink() == was_link
                assert os.path.isfile(target)
        leftovers = [p.name for p in folder.iterdir() if p.name.endswith(_TEMPORARY_MARKS)]
        leftovers += [p.name for p in folder.iterdir() if ".lmml-tmp" in p.name]
        assert leftovers == []


# -- the command line ------------------------------------------------------------------------

_CLI_WORDS = [
    *("new", "validate", "render", "turns", "ls", "cat", "pack", "inline", "to-md"),
    *("preview", "info", "import", "export", "-", "--json", "--request", "--in-place"),
    *("--force", "-o", "--output", "--jsonl", "--workers", "--set", "--base-dir", "-q"),
    *("--provider", "anthropic", "gemini", "--format", "sharegpt", "--orphans", "error"),
    *("--max-embed-bytes", "0", "-1", "99999999999999999999999", "--system", "separate"),
    *("src.lmml", "src.lmmlz", "chat.json", "bundles", "out.lmmlz", "out.lmml", "out.md"),
    *("socket", "folder", "link.lmmlz", "missing.lmml", "a.txt", "src.lmml", "x=2020-01-01"),
    *("x=&a [*a]", "x=" + "[" * 200 + "]" * 200, "k=v", "=", "\x1b[2J", "a\x07b", "\udcff"),
    *("C:x", "../up.lmml", "--", "-x", "--help-me", "\n", "é\u0301", "x" * 300),
]
cli_arguments = st.lists(
    st.one_of(st.sampled_from(_CLI_WORDS), st.text(max_size=8)), min_size=1, max_size=6
)


class _Stream(io.TextIOWrapper):
    """A standard stream backed by bytes, as the CLI uses them (``.buffer`` included)."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="backslashreplace")

    def captured(self) -> bytes:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        return raw.getvalue()


def _cli_folder(folder: Path) -> None:
    (folder / "src.lmml").write_text(
        "## user\n\n@@@a.txt\nhello\n@@@\n\nsee @a.txt\n", encoding="utf-8"
    )
    Bundle.from_zip("src", "## user\n\n@a.txt\n", {"a.txt": b"x\n"}).save(folder / "src.lmmlz")
    (folder / "chat.json").write_text(
        json.dumps({"messages": [{"role": "user", "content": "hi \x1b[2J"}]}), encoding="utf-8"
    )
    (folder / "bundles").mkdir()
    (folder / "bundles" / "b.lmml").write_text("## user\n\nhi\n", encoding="utf-8")
    (folder / "folder").mkdir()
    if os.name == "posix":
        # A socket, not a FIFO: reading a FIFO waits for a writer, as it should.
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind("socket")  # relative: the folder's path may be too long for AF_UNIX
        server.close()
        (folder / "link.lmmlz").symlink_to(folder / "src.lmmlz")


def _run_cli(arguments: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    from lmml_mdit import cli

    out, err = _Stream(), _Stream()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _Stream(stdin), out, err
    try:
        try:
            status = cli.main(arguments)
        except SystemExit as stop:  # --help, --version
            status = stop.code if isinstance(stop.code, int) else 0
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return status, out.captured(), err.captured()


_TABLE_COMMANDS = ("validate", "turns", "ls", "info")


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and symbolic links")
@FUZZ
@given(cli_arguments, st.sampled_from([b"", b"## user\n\nhi\n", ARCHIVE[:200], b"\xff\xfe"]))
def test_hostile_command_lines(arguments: list[str], stdin: bytes) -> None:
    """Whatever the arguments: exit status 0, 1 or 2, messages only as ``lmml:`` lines,
    never a traceback or an internal error, and no control character on the terminal."""
    if any(word.startswith("-") and word in ("--help", "-h") for word in arguments):
        return
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            _cli_folder(folder)
            status, out, err = _run_cli(arguments, stdin)
        finally:
            os.chdir(cwd)
        message = err.decode("utf-8")
        assert status in (0, 1, 2), (arguments, status, message)
        assert "Traceback" not in message and "internal error" not in message, message
        controls = [c for c in message if unicodedata.category(c) == "Cc" and c != "\n"]
        assert controls == [], (arguments, message)
        errors = [line for line in message.splitlines() if line.startswith("lmml: error:")]
        if status == 2 and arguments[0] not in ("validate", "export"):
            assert len(errors) == 1, message
        if arguments[0] in _TABLE_COMMANDS and "--json" not in arguments:
            text = out.decode("utf-8")
            assert [c for c in text if unicodedata.category(c) == "Cc" and c != "\n"] == []
        assert not [p for p in folder.rglob("*") if ".lmml-tmp" in p.name]
        if os.name == "posix":
            assert stat.S_ISSOCK(os.lstat(folder / "socket").st_mode)  # never replaced
            assert (folder / "link.lmmlz").is_symlink()


# -- documented argument errors -------------------------------------------------------------


@pytest.mark.parametrize("provider", ["", "OpenAI", "claude", "x" * 1000])
def test_unknown_provider_is_a_value_error(provider: str) -> None:
    bundle = Bundle.from_text("b", "# user\nhi\n")
    with pytest.raises(ValueError):
        bundle.messages(provider)


def test_real_examples_survive_the_whole_api() -> None:
    for path in sorted(EXAMPLES.iterdir()):
        exercise(lmml_mdit.open(path))
    assert os.path.exists(EXAMPLES / "weather-tools.lmml") and TOOLS_BUNDLE


# -- regressions found by the properties above ----------------------------------------------


def test_settings_yaml_with_a_control_character() -> None:
    bundle = Bundle.from_text("b", "intro\n\n@@@settings.yaml\ntop_p: 0.9\n\x0cax: 1\n@@@\n")
    with pytest.raises(lmml_mdit.InvalidSettingsError) as caught:
        _ = bundle.settings
    assert caught.value.name == "settings.yaml" and caught.value.line == 5
    assert caught.value.hint and "0xc" in caught.value.message
    assert [issue.kind for issue in bundle.validate()] != []


@pytest.mark.parametrize("data", [[{"parts": None}], [{"parts": 5}], [{"parts": "x"}]])
def test_gemini_contents_with_parts_not_a_list(data: Any) -> None:
    with pytest.raises(lmml_mdit.ImportFormatError):
        lmml_mdit.import_messages(data, "gemini")
    with pytest.raises(lmml_mdit.ImportFormatError):
        lmml_mdit.import_messages(data)


@pytest.mark.parametrize(
    "data",
    [
        [{"role": "user", "type": ["message"], "content": "x"}],
        [{"role": "user", "content": [{"type": {"a": 1}}]}],
        {"messages": [{"role": "user", "content": [{"type": [1]}]}]},
    ],
)
def test_detect_format_with_unhashable_types(data: Any) -> None:
    try:
        lmml_mdit.import_messages(data)
    except lmml_mdit.ImportFormatError as error:
        assert error.hint


@pytest.mark.parametrize(
    ("data", "place"),
    [
        ([{"role": "user", "content": "a\udcffb"}], "[0].content"),
        (
            '[{"role": "user", "content": [{"type": "text", "text": "\\udcff"}]}]',
            "[0].content[0].text",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "model": "\udcff"}, "model"),
        ({"messages": [{"role": "user", "content": "x"}], "\udcff": 1}, "the payload"),
    ],
)
def test_import_refuses_lone_surrogates(data: Any, place: str) -> None:
    for format in (None, "openai", "anthropic"):
        with pytest.raises(lmml_mdit.ImportFormatError) as caught:
            lmml_mdit.import_messages(data, format)
        assert caught.value.name == place and caught.value.hint


def _nested_list(depth: int) -> list[Any]:
    root: list[Any] = []
    level = root
    for _ in range(depth):
        level.append([])
        level = level[0]
    return root


@pytest.mark.parametrize("format", IMPORT_FORMATS)
def test_import_refuses_deep_python_payloads(format: str | None) -> None:
    from lmml_mdit.chat import MAX_DEPTH

    bodies = [
        {"messages": [{"role": "user", "content": "hi"}], "metadata": _nested_list(100_000)},
        {"contents": [{"role": "user", "parts": [{"text": "x"}]}], "tools": _nested_list(5_000)},
        {"conversations": [{"from": "human", "value": "x"}], "extra": _nested_list(MAX_DEPTH)},
    ]
    for body in bodies:
        with pytest.raises(lmml_mdit.ImportFormatError):
            lmml_mdit.import_messages(body, format)
    ok = {"messages": [{"role": "user", "content": "hi"}], "metadata": _nested_list(20)}
    assert lmml_mdit.import_messages(ok, "openai").settings == {"metadata": ok["metadata"]}


def test_to_markdown_with_many_references_on_one_line() -> None:
    # Found by benchmarks/bench_hostile.py: each reference used to copy the whole line.
    row = "| @a.png | `@a.png` | @b.txt |" * 2_000
    bundle = Bundle.from_text("t", "## user\n" + row + "\n")
    out = lmml_mdit.to_markdown(bundle)
    cell = "| [Image: a.png] | `@a.png` | [Attachment: b.txt] |"
    assert out == "## user\n" + cell * 2_000 + "\n"


def test_inline_and_pack_many_entries_in_one_pass() -> None:
    # Found by benchmarks/bench_hostile.py: placing each fence scanned every embed and
    # block, and each splice copied the line list (quadratic in the number of entries).
    count = 1_500
    text = "## user\n" + "".join(f"@e{i}.txt\nsee @e{i}.txt again\n\n" for i in range(count))
    entries = {f"e{i}.txt": f"entry {i}\n".encode() for i in range(count)}
    inlined = Bundle.from_zip("z", text, entries).inline()
    fences = [embed for embed in inlined.narrative.embeds if embed.kind == "inline"]
    assert [embed.name for embed in fences] == list(entries)
    assert all(inlined.embed(name) == data for name, data in entries.items())
    packed = inlined.pack()
    assert packed.narrative.source == text and packed.validate() == []


def test_inline_fence_after_a_heading_next_to_a_standalone_reference() -> None:
    bundle = Bundle.from_zip(
        "z", "## user see @b.txt\n@a.txt\n", {"a.txt": b"A\n", "b.txt": b"B\n"}
    )
    inlined = bundle.inline()
    assert inlined.narrative.source == (
        "## user see @b.txt\n\n@@@b.txt\nB\n@@@\n\n@@@a.txt\nA\n@@@\n"
    )
    # The heading holds more than a role, so (strict rule) the text has no turns.
    assert [issue.kind for issue in inlined.validate()] == ["no_turns"]


_HEAD = '{"format": "lmml_mdit.transcript", "schema_version": 1, "assets": %s, "messages": [%s]}'
_MESSAGE = '{"author": %s, "content": %s, "metadata": %s}'


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000, "nests too deeply"),
        (_HEAD % ("{}", _MESSAGE % ('"u"', '"x"', '{"n": ' + "9" * 5_000 + "}")), "JSON"),
        (_HEAD % ("{}", _MESSAGE % ('"u"', '"\\udcff"', "{}")), "message 0 content"),
        (_HEAD % ("{}", _MESSAGE % ('"\\udcff"', '"x"', "{}")), "message 0 author"),
        (_HEAD % ("{}", _MESSAGE % ('"u"', '"x"', '{"\\udcff": 1}')), "a key of message 0"),
        (_HEAD % ("{}", _MESSAGE % ('"u"', '"x"', '{"a": ["\\udcff"]}')), "['a'][0]"),
        (
            _HEAD % ("{}", _MESSAGE % ('"u"', '"x"', '{"a": ' + "[" * 900 + "]" * 900 + "}")),
            "nests",
        ),
        (_HEAD % ('{"\\udcff.png": "AAAA"}', _MESSAGE % ('"u"', '"x"', "{}")), "surrogate"),
    ],
)
def test_transcript_load_refuses_what_it_could_not_save(text: str, words: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "t.json")
        path.write_text(text, encoding="utf-8")
        with pytest.raises(lmml_mdit.TranscriptFormatError) as caught:
            Transcript.load(path)
    assert words in caught.value.message and caught.value.name == str(path)
    assert caught.value.hint


def test_transcript_refuses_lone_surrogates_and_deep_metadata_before_saving() -> None:
    from lmml_mdit.transcript import MAX_METADATA_DEPTH

    deep: list[Any] = _nested_list(MAX_METADATA_DEPTH)
    for author, content, metadata in [
        ("u\udcff", "x", {}),
        ("u", "x\udcff", {}),
        ("u", "x", {"k": "\udcff"}),
        ("u", "x", {"k": deep}),
    ]:
        transcript = Transcript()
        transcript.append(author, content, metadata=metadata)
        with tempfile.TemporaryDirectory() as folder:
            for suffix in (".json", ".lmmlz", ".lmml"):
                with pytest.raises(lmml_mdit.TranscriptFormatError):
                    transcript.save(Path(folder, "t" + suffix))
            assert os.listdir(folder) == []
    shallow = Transcript()
    shallow.append("u", "x", metadata={"k": _nested_list(MAX_METADATA_DEPTH - 2)})
    with tempfile.TemporaryDirectory() as folder:
        shallow.save(Path(folder, "t.json"))
        assert Transcript.load(Path(folder, "t.json")).to_dict() == shallow.to_dict()
    with pytest.raises(lmml_mdit.TranscriptError):
        Transcript().add_asset("a\udcff.png", b"x")


def test_inline_a_long_line_of_references() -> None:
    # Found by benchmarks/bench_hostile.py: each reference sliced and stripped its whole
    # line while looking for a reference standing alone (quadratic on a long table row).
    row = "| @cell.txt " * 5_000 + "|"
    bundle = Bundle.from_zip("z", "## user\n| a |\n| - |\n" + row + "\n", {"cell.txt": b"x\n"})
    inlined = bundle.inline()
    assert inlined.narrative.source == (
        "## user\n| a |\n| - |\n" + row + "\n\n@@@cell.txt\nx\n@@@\n"
    )
    assert inlined.embed("cell.txt") == b"x\n"


def test_from_zip_refuses_an_entry_name_with_a_lone_surrogate() -> None:
    with pytest.raises(lmml_mdit.UnsafeEntryError) as caught:
        Bundle.from_zip("z", "## user\nhi\n", {"a\udcff.txt": b"x"})
    assert "surrogate" in caught.value.message and caught.value.hint


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"title": 5}, TypeError),
        ({"title": "x\udcff"}, ValueError),
        ({"max_text_bytes": "x"}, TypeError),
        ({"max_image_bytes": -1}, ValueError),
    ],
)
def test_render_html_refuses_wrong_arguments_plainly(
    options: dict[str, Any], error: type[Exception]
) -> None:
    bundle = Bundle.from_text("b", "# user\nhi\n")
    with pytest.raises(error, match=r"title|max_"):
        lmml_mdit.render_html(bundle, **options)
