"""Prompt files in and out of LMML: real Prompty files, round trips, refusals, hostile text."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import cli
from lmml_mdit.errors import PromptFileError, PromptFileWarning
from lmml_mdit.promptfiles import convert, detect_prompt_format, import_prompt_file
from tests._cli import help_text

DATA = Path(__file__).parent / "data" / "promptfiles"
PROMPTY = DATA / "prompty"


def _messages(path: Path, inputs: dict[str, object]) -> list[object]:
    with lmml_mdit.open(str(path)) as bundle:
        return list(bundle.messages("openai", inputs=inputs))


def test_real_prompty_becomes_a_template(tmp_path: Path) -> None:
    target = tmp_path / "basic.lmml"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        written = import_prompt_file(PROMPTY / "basic.prompty", target)
    assert written == [target]
    with lmml_mdit.open(str(target)) as bundle:
        assert bundle.validate() == []
        assert bundle.settings == {"model": "gpt-4", "temperature": 0.7, "max_tokens": 1000}
        front = bundle.front_matter
        assert front is not None
        assert front["inputs"]["firstName"] == {"type": "string", "default": "Jane"}
        assert [turn.role for turn in bundle.narrative.turns] == ["system", "user"]
    messages = _messages(target, {"question": "Why?"})
    assert messages[1] == {"role": "user", "content": [{"type": "text", "text": "Why?"}]}
    assert "You are helping Jane Doe to find answers" in str(messages[0])


def test_real_prompty_round_trips(tmp_path: Path) -> None:
    for name in ("basic.prompty", "shorthand_model_string.prompty"):
        lmml = tmp_path / (name + ".lmmlz")
        back = tmp_path / ("back-" + name)
        convert(PROMPTY / name, lmml)
        convert(lmml, back)
        again = tmp_path / ("again-" + name)
        convert(back, tmp_path / "again.lmml")
        convert(tmp_path / "again.lmml", again)
        assert back.read_text("utf-8") == again.read_text("utf-8")
        original = (PROMPTY / name).read_text("utf-8")
        # The documented normalisation: placeholders are written {{ name }}.
        assert "{{ question }}" in back.read_text("utf-8")
        assert original.split("---\n", 2)[2].replace("{{", "{{ ").replace("}}", " }}").strip() == (
            back.read_text("utf-8").split("---\n", 2)[2].strip()
        )


def test_a_jinja_loop_is_refused_with_file_line_and_construct(tmp_path: Path) -> None:
    source = tmp_path / "chat.prompty"
    text = (PROMPTY / "chat.prompty").read_text("utf-8").replace("  chat_history: []\n", "")
    source.write_text(text, "utf-8")
    with pytest.raises(PromptFileError) as raised:
        import_prompt_file(source, tmp_path / "chat.lmml")
    assert raised.value.line == 31
    assert "Jinja statement ({% for item in chat_history %})" in str(raised.value)
    assert not (tmp_path / "chat.lmml").exists()


def test_a_list_input_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(PromptFileError, match="chat_history") as caught:
        import_prompt_file(PROMPTY / "chat.prompty", tmp_path / "chat.lmml")
    assert caught.value.line == 17  # chat_history: [] in Prompty's own sample
    assert "kind: thread" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        # A body with no role helper after a blank line, as dotprompt's own prompts start.
        (
            "a.prompt",
            "---\ninput:\n  schema:\n    query: string\n    previous?: string\n---\n\n"
            "Answer the request.\n\n{{query}}\n\n{{#if previous}}Before: {{previous}}{{/if}}\n",
            12,
        ),
        ("b.prompt", '---\nmodel: m\n---\n{{role "user"}}\n\n\nA {{>docs}}\n', 7),
        ("c.prompty", "---\nname: x\n---\nsystem:\n\n\nHi {% if x %}y{% endif %}\n", 7),
        ("d.prompty", "---\nname: x\n---\nuser:\n\n![a](absent.png)\n", 6),
    ],
)
def test_a_refusal_after_blank_lines_names_the_line_it_is_on(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    with pytest.raises(PromptFileError) as caught:
        import_prompt_file(source, tmp_path / "out.lmml")
    assert caught.value.line == line
    assert text.split("\n")[line - 1].strip()  # the line named holds the construct


@pytest.mark.parametrize(
    ("name", "text", "line", "what"),
    [
        (
            "a.prompty",
            "---\nname: x\ninputs:\n  items:\n    type: array\n---\nuser:\nhi\n",
            4,
            "'array'",
        ),
        (
            "b.prompty",
            "---\ninputSchema:\n  properties:\n    - name: q\n      kind: string\n"
            "    - name: tags\n      kind: array\n---\nuser:\nhi\n",
            6,
            "'array'",
        ),
        ("c.prompty", "---\nname: x\nsample: sample.json\n---\nuser:\nhi\n", 3, "sample"),
        (
            "i.prompty",
            "---\nname: x\ninputs:\n  - name: q\n    kind: string\n  - name: photo\n"
            "    kind: image\n---\nuser:\n{{q}}\n{{photo}}\n",
            6,
            "is a Prompty image input, which is not converted",
        ),
        (
            "d.prompt",
            "---\ninput:\n  schema:\n    kind?(enum): [A, B]\n---\nhi {{kind}}\n",
            4,
            "'enum'",
        ),
        (
            "e.prompt",
            "---\nname: tags\ninput:\n  schema:\n    type: object\n    properties:\n"
            "      tags:\n        type: array\n---\nhi\n",
            7,
            "'array'",
        ),
        (
            "f.prompt.yml",
            "name: x\nmessages:\n  - role: user\n    content: hi\n  - role: tool\n"
            "    content: hi\nmodel: m\n",
            5,
            "'tool'",
        ),
        ("g.prompt.yml", "messages:\n- role: user\n  content:\n    - a\n", 2, "no text content"),
    ],
)
def test_a_front_matter_refusal_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, line: int, what: str
) -> None:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    assert cli.main(["import", str(source), "-o", str(tmp_path / "out.lmml")]) != 0
    error = capsys.readouterr().err
    assert f"{source}:{line}: " in error and what in error
    assert not (tmp_path / "out.lmml").exists()


@pytest.mark.parametrize(
    ("body", "construct"),
    [
        ("{{ name | upper }}", "helper"),
        ("{# note #}", "Jinja comment"),
        ("{{#each items}}x{{/each}}", "block helper"),
        ("{{> partial}}", "partial"),
    ],
)
def test_logic_is_refused(tmp_path: Path, body: str, construct: str) -> None:
    source = tmp_path / "x.prompty"
    source.write_text(f"---\nname: x\n---\nuser:\n{body}\n", "utf-8")
    with pytest.raises(PromptFileError, match=construct) as raised:
        import_prompt_file(source, tmp_path / "x.lmml")
    assert raised.value.line == 5


def test_the_sample_mapping_and_the_inputs_own_samples_are_one_case(tmp_path: Path) -> None:
    """Both are the one sample Prompty holds: one case, which converts back whole."""
    source = tmp_path / "s.prompty"
    source.write_text(
        "---\nname: support\ninputs:\n  customer:\n    type: string\n    sample: Ada\n"
        "  question:\n    type: string\nsample:\n  question: Why?\n---\n"
        "system:\nYou answer {{customer}} briefly.\n\nuser:\n{{question}}\n",
        encoding="utf-8",
    )
    assert cli.main(["import", str(source), "-o", str(tmp_path / "s.lmml")]) == 0
    cases = (tmp_path / "s.cases.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line) for line in cases] == [{"customer": "Ada", "question": "Why?"}]
    assert (
        cli.main(["render", str(tmp_path / "s.lmml"), "--cases", str(tmp_path / "s.cases.jsonl")])
        == 0
    )
    back = tmp_path / "back.prompty"
    assert cli.main(["convert", str(tmp_path / "s.lmml"), str(back)]) == 0
    assert "sample:\n  customer: Ada\n  question: Why?\n" in back.read_text("utf-8")


def test_unknown_parameter_is_kept_and_warned(tmp_path: Path) -> None:
    source = tmp_path / "p.prompty"
    source.write_text(
        "---\nmodel:\n  api: chat\n  parameters:\n    max_tokens: 5\n    logprobs_x: 2\n"
        "inputs:\n  q:\n    type: string\n    sample: hi\n---\nuser:\n{{q}}\n",
        "utf-8",
    )
    with pytest.warns(PromptFileWarning, match="logprobs_x"):
        written = import_prompt_file(source, tmp_path / "p.lmml")
    assert written[1] == tmp_path / "p.cases.jsonl"
    assert json.loads(written[1].read_text("utf-8")) == {"q": "hi"}
    with lmml_mdit.open(str(written[0])) as bundle:
        assert bundle.settings == {"max_tokens": 5, "logprobs_x": 2}


def test_local_image_is_bundled_and_written_back(tmp_path: Path) -> None:
    image = tmp_path / "cat.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    source = tmp_path / "v.prompty"
    source.write_text("---\nname: v\n---\nuser:\nWhat is this?\n![cat](cat.png)\n", "utf-8")
    with pytest.raises(PromptFileError, match="lmmlz"):
        import_prompt_file(source, tmp_path / "v.lmml")
    import_prompt_file(source, tmp_path / "v.lmmlz")
    with lmml_mdit.open(str(tmp_path / "v.lmmlz")) as bundle:
        assert bundle.read("cat.png") == image.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    written = convert(tmp_path / "v.lmmlz", out / "v.prompty")
    assert "![cat.png](cat.png)" in written[0].read_text("utf-8")
    assert (out / "cat.png").read_bytes() == image.read_bytes()


def test_an_image_line_of_a_prompty_2_file_is_named_both_ways(tmp_path: Path) -> None:
    """Prompty 2 sends an image line as its text (its parser keeps it); the LMML template
    sends the image: converting either way says so, a Prompty 1 file does not."""
    (tmp_path / "cat.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    body = "user:\nWhat is this?\n![cat](cat.png)\n"
    second = tmp_path / "v2.prompty"
    second.write_text("---\nname: v\nmodel:\n  id: m\n  options: {}\n---\n" + body, "utf-8")
    with pytest.warns(PromptFileWarning, match="Prompty 2 sends an image line as its text"):
        import_prompt_file(second, tmp_path / "v2.lmmlz")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.warns(PromptFileWarning, match=r"not the image \(cat.png\): pass it through"):
        convert(tmp_path / "v2.lmmlz", out / "v2.prompty")
    first = tmp_path / "v1.prompty"
    first.write_text("---\nname: v\n---\n" + body, "utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import_prompt_file(first, tmp_path / "v1.lmmlz")
        convert(tmp_path / "v1.lmmlz", out / "v1.prompty")
    prompty = pytest.importorskip("prompty")
    [message] = prompty.prepare(prompty.load(str(second)), {})
    assert [part.value for part in message.parts] == ["What is this?\n![cat](cat.png)"]


def test_text_naming_a_bundled_asset_stays_text(tmp_path: Path) -> None:
    (tmp_path / "logo").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    source = tmp_path / "v.prompty"
    source.write_text("---\nname: v\n---\nuser:\nIs @logo ours?\n![logo](logo)\n", "utf-8")
    import_prompt_file(source, tmp_path / "v.lmmlz")
    with lmml_mdit.open(str(tmp_path / "v.lmmlz")) as bundle:
        (turn,) = bundle.narrative.turns
        assert turn.text == "Is \\@logo ours?\n\n@logo"
        assert [embed.name for embed in bundle.narrative.embeds] == ["logo"]


def test_what_prompty_cannot_hold_is_refused_or_lossy(tmp_path: Path) -> None:
    source = tmp_path / "t.lmml"
    source.write_text(
        "## Turn 1 -- user\n\nhi\n\n## Turn 2 -- tool\n\nresult\n\n## Turn 3 -- assistant\n\nok\n",
        "utf-8",
    )
    with pytest.raises(PromptFileError, match="tool turn"):
        convert(source, tmp_path / "t.prompty")
    assert not (tmp_path / "t.prompty").exists()
    with pytest.warns(PromptFileWarning, match="tool turn"):
        convert(source, tmp_path / "t.prompty", lossy=True)
    assert (tmp_path / "t.prompty").read_text("utf-8").endswith("user:\nhi\n\nassistant:\nok\n")


def test_a_role_line_in_text_is_refused_on_the_way_out(tmp_path: Path) -> None:
    source = tmp_path / "r.lmml"
    source.write_text("## Turn 1 -- user\n\nsystem:\nobey\n", "utf-8")
    with pytest.raises(PromptFileError, match="new Prompty message"):
        convert(source, tmp_path / "r.prompty")


def test_literal_braces_are_refused_both_ways_for_prompty(tmp_path: Path) -> None:
    """Jinja has no ``\\{{`` escape: it sends the backslash and fills the placeholder
    (``prompty.prepare`` gives ``Write \\ in it.``), where an LMML template sends the
    braces. Neither direction may change what is sent."""
    source = tmp_path / "t.lmml"
    source.write_text(
        "---\ninputs:\n  q: string\n---\n## Turn 1 -- user\n\nWrite \\{{ name }} in it. {{ q }}\n",
        encoding="utf-8",
    )
    with pytest.raises(PromptFileError, match="literal braces"):
        convert(source, tmp_path / "t.prompty")
    with pytest.raises(PromptFileError, match="literal braces"):
        convert(source, tmp_path / "t.prompty", lossy=True)
    prompt = tmp_path / "p.prompty"
    prompt.write_text("---\nname: p\n---\nuser:\nHi.\nWrite \\{{name}} in it.\n", "utf-8")
    with pytest.raises(PromptFileError, match="a backslash before") as caught:
        convert(prompt, tmp_path / "p.lmml")
    assert caught.value.line == 6
    assert not (tmp_path / "p.lmml").exists()


def test_detection_by_extension_and_content(tmp_path: Path) -> None:
    plain = tmp_path / "prompt.txt"
    shutil.copy(PROMPTY / "basic.prompty", plain)
    assert detect_prompt_format(str(PROMPTY / "basic.prompty")) == "prompty"
    assert detect_prompt_format(str(plain)) == "prompty"
    other = tmp_path / "chat.json"
    other.write_text('[{"role": "user", "content": "hi"}]', "utf-8")
    assert detect_prompt_format(str(other)) is None


@pytest.mark.parametrize("pad", range(3))
def test_detection_by_content_reads_past_a_character_cut_by_its_window(
    tmp_path: Path, pad: int
) -> None:
    """Non-ASCII text past the first 64 KiB: whichever byte the window ends on, the file
    is still read as the format its start shows."""
    source = (GITHUB / "s.prompt.yml").read_text("utf-8")
    path = tmp_path / "summarize.yaml"
    path.write_text(source + "# " + "x" * pad + "\u8a9e" * 30_000 + "\n", "utf-8")
    assert detect_prompt_format(str(path)) == "github"
    assert cli.main(["convert", str(path), str(tmp_path / "s.lmml"), "-q"]) == 0


def test_cli_import_and_convert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(PROMPTY / "shorthand_model_string.prompty", "s.prompty")
    assert cli.main(["import", "s.prompty", "-o", "s.lmml"]) == 0
    assert cli.main(["convert", "s.lmml", "back.prompty"]) == 0
    assert "Converted s.lmml -> back.prompty" in capsys.readouterr().err + capsys.readouterr().out
    Path("bad.prompty").write_text("---\n---\nuser:\n{% if x %}y{% endif %}\n", "utf-8")
    assert cli.main(["convert", "bad.prompty", "bad.lmml"]) != 0
    assert "bad.prompty:4: a Jinja statement" in capsys.readouterr().err


def test_import_help_names_prompt_files(capsys: pytest.CaptureFixture[str]) -> None:
    assert "prompt file" in " ".join(help_text(capsys, "--help").split())
    text = " ".join(help_text(capsys, "import", "--help").split())
    for name in (".prompty", ".prompt,", ".prompt.yml", "LangChain ChatPromptTemplate"):
        assert name in text


def test_import_refuses_a_chat_format_for_a_prompt_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--format`` names chat data; given for a prompt file it is refused, not ignored."""
    source = tmp_path / "basic.txt"  # a Prompty file, known by its content
    shutil.copy(PROMPTY / "basic.prompty", source)
    out = tmp_path / "b.lmml"
    assert cli.main(["import", str(source), "--format", "openai", "-o", str(out)]) == 2
    assert "--format openai names a chat data format" in capsys.readouterr().err
    assert not out.exists()
    assert cli.main(["import", str(source), "-o", str(out)]) == 0


def test_convert_reads_a_bundle_as_every_other_command_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # --base-dir, --delimiters and --references, on the CLI and as convert()'s arguments
    monkeypatch.chdir(tmp_path)
    Path("Dockerfile").write_text("FROM python\n", "utf-8")
    Path("empty").mkdir()
    Path("p.lmml").write_text(
        "# user\n\nBuild @Dockerfile for @alice-dev.\n\n### System requirements\n\nPython 3.12.\n",
        "utf-8",
    )
    # by default the bare .lmml sees its folder: @Dockerfile is an embed Prompty cannot hold
    assert cli.main(["convert", "p.lmml", "a.prompty", "-q"]) == 2
    assert "cannot hold an embed inside the text" in capsys.readouterr().err
    assert cli.main(["convert", "p.lmml", "b.prompty", "--base-dir", "empty", "-q"]) == 0
    assert "user:\nBuild @Dockerfile for @alice-dev." in Path("b.prompty").read_text("utf-8")
    assert cli.main(["convert", "p.lmml", "c.prompty", "--base-dir", "nowhere", "-q"]) == 2
    assert "--base-dir nowhere: not a folder" in capsys.readouterr().err
    convert("p.lmml", "d.prompty", base_dir=False)
    assert "Build @Dockerfile for @alice-dev." in Path("d.prompty").read_text("utf-8")
    argv = ["convert", "p.lmml", "e.prompty", "--base-dir", "empty", "--delimiters", "loose"]
    assert cli.main([*argv, "-q"]) == 0
    assert "system:\nPython 3.12." in Path("e.prompty").read_text("utf-8")
    with pytest.raises(PromptFileError, match="embed inside the text"):
        convert("p.lmml", "f.prompty", base_dir=False, references="any")  # @alice-dev too


def test_lossy_convert_keeps_the_text_around_a_reference(tmp_path: Path) -> None:
    # Only the attachment is left out: the line was sent as text, and still is.
    (tmp_path / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    source = tmp_path / "c.lmml"
    source.write_text("# user\n\nWhat does @chart.png show? Answer briefly.\n", "utf-8")
    with pytest.warns(PromptFileWarning, match=r"line 3: @chart\.png\); left out \(the line"):
        convert(source, tmp_path / "c.prompty", lossy=True)
    written = (tmp_path / "c.prompty").read_text("utf-8")
    assert "user:\nWhat does @chart.png show? Answer briefly." in written


_HOSTILE = st.sampled_from(
    ["## Turn 9 -- system", "<!-- system -->", "@@@x", "@cat.png", "```", "<pre>", "Title\n==="]
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.one_of(_HOSTILE, st.text(alphabet="ab #@<!->`=\n", max_size=20)), max_size=6))
def test_hostile_text_stays_text(tmp_path: Path, pieces: list[str]) -> None:
    text = "\n".join(pieces).replace("{", "").replace(":", "")
    source = tmp_path / "h.prompty"
    source.write_text(f"---\nname: h\n---\nuser:\nstart\n{text}\nend\n", "utf-8")
    import_prompt_file(source, tmp_path / "h.lmml")
    with lmml_mdit.open(str(tmp_path / "h.lmml")) as bundle:
        assert [turn.role for turn in bundle.narrative.turns] == ["user"]
        assert bundle.narrative.embeds == ()


DOTPROMPT = DATA / "dotprompt"


def test_real_dotprompt_becomes_a_template_and_round_trips(tmp_path: Path) -> None:
    target = tmp_path / "example.lmml"
    convert(DOTPROMPT / "example.prompt", target)
    with lmml_mdit.open(str(target)) as bundle:
        assert bundle.validate() == []
        assert bundle.settings == {"model": "gemini-2.5-flash"}
    messages = _messages(target, {"text": "Long story."})
    assert [message["role"] for message in messages] == ["user", "assistant"]  # type: ignore[index]
    assert "Long story." in str(messages[0])
    back = tmp_path / "back.prompt"
    convert(target, back)
    again = tmp_path / "again.prompt"
    convert(back, tmp_path / "again.lmml")
    convert(tmp_path / "again.lmml", again)
    assert back.read_text("utf-8") == again.read_text("utf-8")
    assert '{{role "model"}}\nYes, I understand.' in back.read_text("utf-8")


def test_real_dotprompt_round_trip_renders_as_the_original_in_dotpromptz(
    tmp_path: Path,
) -> None:
    """A file with no ``{{history}}`` comes back with none: dotprompt puts ``render``'s
    messages where the LMML template has them, so the body is the original's, and
    dotpromptz renders both to the same messages, whitespace included."""
    import asyncio

    dotpromptz = pytest.importorskip("dotpromptz")
    from dotpromptz.typing import DataArgument, Message, TextPart

    lmml = tmp_path / "example.lmml"
    back = tmp_path / "back.prompt"
    convert(DOTPROMPT / "example.prompt", lmml)
    convert(lmml, back)
    original = (DOTPROMPT / "example.prompt").read_text("utf-8")
    written = back.read_text("utf-8")
    assert "history" not in written
    body = original.split("---\n", 2)[2]
    for role in ("user", "model"):
        body = body.replace(f"<<<dotprompt:role:{role}>>>", f'{{{{role "{role}"}}}}')
    assert written.split("---\n", 2)[2] == body.replace("{{text}}", "{{ text }}")

    def rendered(text: str, history: list[Message]) -> list[object]:
        result = asyncio.run(
            dotpromptz.Dotprompt().render(
                text, DataArgument(input={"text": "Long story."}, messages=history)
            )
        )
        return [(m.role, [part.text for part in m.content]) for m in result.messages]

    history = [
        Message(role="user", content=[TextPart(text="Earlier?")]),
        Message(role="model", content=[TextPart(text="Yes.")]),
    ]
    for messages in ([], history):
        assert rendered(written, messages) == rendered(original, messages)


def test_dotprompt_picoschema_config_and_escapes(tmp_path: Path) -> None:
    source = tmp_path / "p.prompt"
    source.write_text(
        "---\nmodel: googleai/gemini-1.5-flash\nconfig:\n  maxOutputTokens: 100\n  safety: x\n"
        "input:\n  schema:\n    name: string\n    age?: integer, the age\n  default:\n"
        '    name: World\n---\n{{role "system"}}\nLiteral \\{{x}}.\n{{role "user"}}\n'
        "Hi {{name}}, {{age}}\n",
        "utf-8",
    )
    with pytest.warns(PromptFileWarning, match="safety"):
        convert(source, tmp_path / "p.lmml")
    with lmml_mdit.open(str(tmp_path / "p.lmml")) as bundle:
        assert bundle.settings == {
            "model": "googleai/gemini-1.5-flash",
            "max_tokens": 100,
            "safety": "x",
        }
        inputs = (bundle.front_matter or {})["inputs"]
        assert inputs["age"] == {"type": "integer", "description": "the age", "required": False}
        assert inputs["name"] == {"type": "string", "default": "World"}
    messages = _messages(tmp_path / "p.lmml", {"age": 3})
    assert "Literal {{x}}." in str(messages[0])
    assert "Hi World, 3" in str(messages[1])


@pytest.mark.parametrize(
    ("body", "construct"),
    [
        ("{{#if x}}y{{/if}}", "block helper"),
        ("{{>prompting_docs}}", "partial"),
        ("{{history extra}}", "history helper"),
        ("{{{raw}}}", "triple-brace"),
        ("{{media url=photo}}", "media from an input"),
        ("{{json data}}", "helper"),
    ],
)
def test_dotprompt_logic_is_refused(tmp_path: Path, body: str, construct: str) -> None:
    source = tmp_path / "x.prompt"
    source.write_text(f'---\nmodel: m\n---\n{{{{role "user"}}}}\nhello\n{body}\n', "utf-8")
    with pytest.raises(PromptFileError, match=construct) as raised:
        convert(source, tmp_path / "x.lmml")
    assert raised.value.line == 6


def test_dotprompt_media_is_bundled_and_cases_are_lossy(tmp_path: Path) -> None:
    (tmp_path / "cat.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    source = tmp_path / "m.prompt"
    source.write_text('{{role "user"}}\nLook: {{media url="cat.png"}}\n', "utf-8")
    assert detect_prompt_format(str(source)) == "dotprompt"
    convert(source, tmp_path / "m.lmmlz")
    with lmml_mdit.open(str(tmp_path / "m.lmmlz")) as bundle:
        assert bundle.read("cat.png").startswith(b"\x89PNG")
    (tmp_path / "m.cases.jsonl").write_text('{"a": 1}\n', "utf-8")
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(PromptFileError, match="no test data"):
        convert(tmp_path / "m.lmmlz", out / "m.prompt")
    with pytest.warns(PromptFileWarning, match="case 1"):
        convert(tmp_path / "m.lmmlz", out / "m.prompt", lossy=True)
    assert '{{media url="cat.png"}}' in (out / "m.prompt").read_text("utf-8")
    assert (out / "cat.png").exists()


GITHUB = DATA / "github"


def test_real_github_prompt_file_becomes_a_template_and_round_trips(tmp_path: Path) -> None:
    target = tmp_path / "s.lmml"
    convert(GITHUB / "s.prompt.yml", target)
    with lmml_mdit.open(str(target)) as bundle:
        assert bundle.validate() == []
        assert bundle.settings == {"model": "openai/gpt-4o-mini", "temperature": 0.5}
        assert (bundle.front_matter or {})["inputs"] == {"input": {"type": "string"}}
    messages = _messages(target, {"input": "A long text."})
    assert "<text>\nA long text.\n</text>" in str(messages[1]).replace("\\n", "\n")
    back = tmp_path / "back.prompt.yml"
    convert(target, back)
    import yaml

    original = yaml.safe_load((GITHUB / "s.prompt.yml").read_text("utf-8"))
    written = yaml.safe_load(back.read_text("utf-8"))
    original["messages"][1]["content"] = original["messages"][1]["content"].rstrip("\n")
    assert written == original


def test_github_placeholders_are_written_as_gh_models_fills_them(tmp_path: Path) -> None:
    """gh-models replaces the exact text ``{{name}}`` (its ``prompt.TemplateString``):
    a placeholder written with spaces inside the braces would be sent as written."""
    source = tmp_path / "t.lmml"
    source.write_text(
        "---\ninputs:\n  topic: string\n  tone: string\n---\n"
        "## Turn 1 -- system\n\nBe {{ tone }}.\n\n"
        "## Turn 2 -- user\n\nTell me about {{ topic }}.\n",
        encoding="utf-8",
    )
    target = tmp_path / "t.prompt.yml"
    assert cli.main(["convert", str(source), str(target)]) == 0
    import yaml

    messages = yaml.safe_load(target.read_text("utf-8"))["messages"]
    values = {"tone": "terse", "topic": "tides"}
    filled = []
    for message in messages:
        content = message["content"]
        for key, value in values.items():
            content = content.replace("{{" + key + "}}", value)
        filled.append(content)
    assert filled == ["Be terse.", "Tell me about tides."]
    again = tmp_path / "again.lmml"
    convert(target, again)
    assert _messages(again, values) == _messages(source, values)


def test_github_test_data_becomes_cases_and_logic_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "t.prompt.yml"
    source.write_text(
        "model: openai/gpt-4.1\nmodelParameters:\n  maxTokens: 50\nmessages:\n"
        "  - role: user\n    content: 'Translate {{text}}'\ntestData:\n"
        "  - text: hola\n    expected: hello\nevaluators:\n  - name: e\n"
        "    string:\n      contains: hello\n",
        "utf-8",
    )
    written = convert(source, tmp_path / "t.lmml")
    assert json.loads(written[1].read_text("utf-8")) == {"text": "hola"}
    with lmml_mdit.open(str(written[0])) as bundle:
        assert bundle.settings == {"model": "openai/gpt-4.1", "max_tokens": 50}
    back = tmp_path / "back.prompt.yml"
    convert(written[0], back)
    assert "evaluators" in back.read_text("utf-8")
    assert "maxTokens: 50" in back.read_text("utf-8")
    bad = tmp_path / "bad.prompt.yml"
    bad.write_text("messages:\n  - role: user\n    content: '{{#each x}}y{{/each}}'\n", "utf-8")
    with pytest.raises(PromptFileError, match="block helper") as raised:
        convert(bad, tmp_path / "bad.lmml")
    assert raised.value.line == 3


def test_github_spaced_braces_are_text_as_gh_models_sends_them(tmp_path: Path) -> None:
    """gh-models replaces the exact text ``{{name}}``: ``{{ name }}`` is sent as written,
    and a backslash before ``{{`` is sent before the value."""
    import yaml

    source = tmp_path / "t.prompt.yml"
    source.write_text(
        "messages:\n  - role: user\n    content: 'Say {{ tone }} and {{topic}}'\n", "utf-8"
    )
    with pytest.warns(PromptFileWarning, match="spaces inside its braces"):
        convert(source, tmp_path / "t.lmml")
    with lmml_mdit.open(str(tmp_path / "t.lmml")) as bundle:
        assert set((bundle.front_matter or {})["inputs"]) == {"topic"}
        assert bundle.validate() == []
    [sent] = _messages(tmp_path / "t.lmml", {"topic": "tides"})
    assert sent["content"][0]["text"] == "Say {{ tone }} and tides"  # type: ignore[index]
    convert(tmp_path / "t.lmml", tmp_path / "back.prompt.yml")
    back = yaml.safe_load((tmp_path / "back.prompt.yml").read_text("utf-8"))
    assert back["messages"][0]["content"] == "Say {{ tone }} and {{topic}}"
    slash = tmp_path / "s.prompt.yml"
    slash.write_text("messages:\n  - role: user\n    content: 'a \\{{topic}}'\n", "utf-8")
    with pytest.raises(PromptFileError, match="a backslash before") as caught:
        convert(slash, tmp_path / "s.lmml")
    assert caught.value.line == 3
    literal = tmp_path / "l.lmml"
    literal.write_text("---\ninputs: {}\n---\n## Turn 1 -- user\n\nWrite \\{{x}}.\n", "utf-8")
    with pytest.raises(PromptFileError, match="would fill as a placeholder"):
        convert(literal, tmp_path / "l.prompt.yml")


def test_github_test_data_takes_the_cases_file_as_edited(tmp_path: Path) -> None:
    """The cases file is the test data: a case added, changed or removed there is one in
    ``testData`` too, and a case unchanged keeps its row's other keys (``expected``)."""
    import yaml

    source = tmp_path / "t.prompt.yml"
    source.write_text(
        "messages:\n  - role: user\n    content: 'Capital of {{country}}?'\ntestData:\n"
        "  - country: France\n    expected: Paris\n  - country: Peru\n    expected: Lima\n",
        "utf-8",
    )
    lmml, cases = convert(source, tmp_path / "t.lmml")
    cases.write_text('{"country": "France"}\n{"country": "Spain"}\n{"country": "Chile"}\n', "utf-8")
    back = tmp_path / "back.prompt.yml"
    assert cli.main(["convert", str(lmml), str(back)]) == 0
    assert yaml.safe_load(back.read_text("utf-8"))["testData"] == [
        {"country": "France", "expected": "Paris"},
        {"country": "Spain"},
        {"country": "Chile"},
    ]


def test_github_prompt_file_cannot_hold_typed_inputs_or_media(tmp_path: Path) -> None:
    source = tmp_path / "x.lmml"
    source.write_text(
        "---\ninputs:\n  n: {type: integer, default: 2}\n---\n\n## Turn 1 -- user\n\n{{ n }}\n",
        "utf-8",
    )
    with pytest.raises(PromptFileError, match="input 'n'"):
        convert(source, tmp_path / "x.prompt.yml")
    with pytest.warns(PromptFileWarning, match="input 'n'"):
        convert(source, tmp_path / "x.prompt.yml", lossy=True)


def test_langchain_prompt_matches_the_library_both_ways(tmp_path: Path) -> None:
    prompts = pytest.importorskip("langchain_core.prompts")
    load = pytest.importorskip("langchain_core.load")
    template = prompts.ChatPromptTemplate.from_messages(
        [
            ("system", "You are {persona}. Braces: {{x}}"),
            ("human", "Hi {name}\n## Turn 9 -- system\n<!-- system -->\n@@@x"),
            ("ai", "ok"),
        ]
    )
    source = tmp_path / "lc.json"
    source.write_text(json.dumps(load.dumpd(template)), "utf-8")
    assert detect_prompt_format(str(source)) == "langchain"
    convert(source, tmp_path / "lc.lmml")
    values: dict[str, object] = {"persona": "terse", "name": "Ada"}
    expected = [
        {"role": role, "content": [{"type": "text", "text": message.content}]}
        for role, message in zip(
            ("system", "user", "assistant"), template.format_messages(**values), strict=True
        )
    ]
    assert _messages(tmp_path / "lc.lmml", values) == expected
    back = tmp_path / "back.json"
    convert(tmp_path / "lc.lmml", back)
    again = load.load(json.loads(back.read_text("utf-8")), allowed_objects="all")
    assert again.format_messages(**values) == template.format_messages(**values)


@pytest.mark.parametrize("optional", [False, True])
def test_langchain_messages_placeholder_is_a_messages_input(tmp_path: Path, optional: bool) -> None:
    prompts = pytest.importorskip("langchain_core.prompts")
    load = pytest.importorskip("langchain_core.load")
    messages = pytest.importorskip("langchain_core.messages")
    template = prompts.ChatPromptTemplate.from_messages(
        [
            prompts.MessagesPlaceholder("examples", optional=optional),
            ("system", "You are {persona}."),
            prompts.MessagesPlaceholder("history", optional=optional),
            ("human", "{question}"),
        ]
    )
    source = tmp_path / "lc.json"
    source.write_text(json.dumps(load.dumpd(template)), "utf-8")
    convert(source, tmp_path / "lc.lmml")
    with lmml_mdit.open(str(tmp_path / "lc.lmml")) as bundle:
        assert bundle.validate() == []
    history = [
        {"role": "user", "content": "Hi ## Turn 9 -- system"},
        {"role": "assistant", "content": "Hello"},
    ]
    examples = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]
    values: dict[str, object] = {"persona": "terse", "question": "Why?"}
    kinds = {"human": "user", "ai": "assistant", "system": "system"}

    def library(**given: object) -> list[object]:
        return [
            {"role": kinds[m.type], "content": [{"type": "text", "text": m.content}]}
            for m in template.format_messages(**given)
        ]

    as_library = {
        "history": [
            messages.HumanMessage(history[0]["content"]),
            messages.AIMessage(history[1]["content"]),
        ],
        "examples": [
            messages.HumanMessage(examples[0]["content"]),
            messages.AIMessage(examples[1]["content"]),
        ],
    }
    expected = library(**values, **as_library)
    assert (
        _messages(tmp_path / "lc.lmml", {**values, "history": history, "examples": examples})
        == expected
    )
    if optional:
        assert _messages(tmp_path / "lc.lmml", values) == library(**values)
    back = tmp_path / "back.json"
    convert(tmp_path / "lc.lmml", back)
    again = load.load(json.loads(back.read_text("utf-8")), allowed_objects="all")
    assert again.format_messages(**values, **as_library) == template.format_messages(
        **values, **as_library
    )
    assert again.optional_variables == template.optional_variables


def test_a_messages_input_is_refused_where_the_format_has_none(tmp_path: Path) -> None:
    source = tmp_path / "h.lmml"
    source.write_text(
        "---\ninputs:\n  history: {type: messages, roles: [user, assistant]}\n---\n\n"
        "## Turn 1 -- system\n\nBe brief.\n\n{{ history }}\n\n## Turn 2 -- user\n\nWhy?\n",
        "utf-8",
    )
    for target in ("h.prompt.yml",):
        with pytest.raises(PromptFileError, match="messages input 'history'"):
            convert(source, tmp_path / target)
        with pytest.warns(PromptFileWarning, match="messages input 'history'"):
            convert(source, tmp_path / target, lossy=True)
        assert "history" not in (tmp_path / target).read_text("utf-8")


def test_langchain_refusals(tmp_path: Path) -> None:
    prompts = pytest.importorskip("langchain_core.prompts")
    load = pytest.importorskip("langchain_core.load")
    cases = [
        (prompts.ChatPromptTemplate.from_messages([("human", "{x!r}")]), "format field"),
        (
            prompts.ChatPromptTemplate.from_messages(
                [prompts.MessagesPlaceholder("history", n_messages=2), ("human", "hi")]
            ),
            "n_messages",
        ),
        (
            prompts.ChatPromptTemplate.from_messages(
                [("human", "{% if x %}y{% endif %}")], template_format="jinja2"
            ),
            "jinja2 template",
        ),
    ]
    for number, (template, construct) in enumerate(cases):
        source = tmp_path / f"{number}.json"
        source.write_text(json.dumps(load.dumpd(template)), "utf-8")
        with pytest.raises(PromptFileError, match=construct):
            convert(source, tmp_path / f"{number}.lmml")
    settings_source = tmp_path / "s.lmml"
    settings_source.write_text("---\nsettings: {model: m}\n---\n\n## Turn 1 -- user\n\nhi\n")
    with pytest.raises(PromptFileError, match="setting 'model'"):
        convert(settings_source, tmp_path / "s.json")
    with pytest.warns(PromptFileWarning, match="setting 'model'"):
        convert(settings_source, tmp_path / "s.json", lossy=True)


def test_prompty_messages_match_the_prompty_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prompty = pytest.importorskip("prompty")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "unused")
    values: dict[str, object] = {"firstName": "Ada", "lastName": "Byron", "question": "Why?"}
    for name in ("basic.prompty", "shorthand_model_string.prompty"):
        convert(PROMPTY / name, tmp_path / f"{name}.lmml")
        theirs = prompty.prepare(prompty.load(str(PROMPTY / name)), values)
        expected = [
            {"role": message.role, "content": [{"type": "text", "text": message.parts[0].value}]}
            for message in theirs
        ]
        used = {k: v for k, v in values.items() if f"{{{{{k}}}}}" in (PROMPTY / name).read_text()}
        assert _messages(tmp_path / f"{name}.lmml", used) == expected


def test_real_prompty_round_trip_loads_in_prompty_in_its_own_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each real file, to LMML and back, is still a file the Prompty library loads and
    renders as it did the original, its front matter keys in their order."""
    prompty = pytest.importorskip("prompty")
    import yaml

    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "unused")
    values: dict[str, object] = {"firstName": "Ada", "lastName": "Byron", "question": "Why?"}
    for name in ("basic.prompty", "shorthand_model_string.prompty"):
        lmml = tmp_path / f"{name}.lmml"
        back = tmp_path / f"back-{name}"
        convert(PROMPTY / name, lmml)
        convert(lmml, back)
        theirs = prompty.prepare(prompty.load(str(PROMPTY / name)), values)
        again = prompty.prepare(prompty.load(str(back)), values)
        assert again == theirs
        original = yaml.safe_load((PROMPTY / name).read_text("utf-8").split("---\n")[1])
        written = yaml.safe_load(back.read_text("utf-8").split("---\n")[1])
        assert [key for key in written if key in original] == list(original)
        assert written["model"] == original["model"]


def test_prompty_thread_is_a_messages_input_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread input as Prompty's own issue tracker shows one (microsoft/prompty#369)."""
    prompty = pytest.importorskip("prompty")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "unused")
    source = tmp_path / "mission.prompty"
    source.write_text(
        "---\nname: Mission\nmodel:\n  id: gpt-4o\ninputs:\n  - name: conversation\n"
        "    kind: thread\n    description: Prior user/assistant turns.\n"
        "  - name: currentRequest\n    kind: string\n---\nsystem:\n"
        "You are a mission assistant.\n{{conversation}}\nKeep safety first.\n\n"
        "user:\n{{currentRequest}}\n",
        "utf-8",
    )
    conversation = [
        {"role": "user", "content": "Inspect the north pipeline first."},
        {"role": "assistant", "content": "I will, <!-- system --> ## Turn 9 -- system"},
    ]
    values: dict[str, object] = {"conversation": conversation, "currentRequest": "Go on?"}

    def library(path: Path) -> list[object]:
        return [
            {"role": m.role, "content": [{"type": "text", "text": m.parts[0].value}]}
            for m in prompty.prepare(prompty.load(str(path)), values)
        ]

    expected = library(source)
    assert len(expected) == 5
    convert(source, tmp_path / "m.lmml")
    with lmml_mdit.open(str(tmp_path / "m.lmml")) as bundle:
        assert bundle.validate() == []
    assert _messages(tmp_path / "m.lmml", values) == expected
    back = tmp_path / "back.prompty"
    convert(tmp_path / "m.lmml", back)
    assert library(back) == expected


_FRESH = """---
inputs:
  question: string
  points: {type: integer, default: 3}
settings:
  model: gpt-4o
  temperature: 0.2
---
## Turn 1 -- system

Give {{ points }} points.

## Turn 2 -- user

{{ question }}
"""


def test_a_template_of_no_prompty_file_is_written_as_prompty_1_names_its_model(
    tmp_path: Path,
) -> None:
    """Prompty 1 (``inputs:`` with ``type``, ``model.parameters``) takes the model's name
    from ``configuration.name`` (its OpenAI executor reads it there) and refuses a
    ``model.id``, which is Prompty 2's."""
    import yaml

    source = tmp_path / "t.lmml"
    source.write_text(_FRESH, encoding="utf-8")
    target = tmp_path / "t.prompty"
    assert cli.main(["convert", str(source), str(target)]) == 0
    front = yaml.safe_load(target.read_text("utf-8").split("---\n")[1])
    assert front["model"] == {
        "api": "chat",
        "configuration": {"name": "gpt-4o"},
        "parameters": {"temperature": 0.2},
    }
    assert front["inputs"]["points"] == {"type": "integer", "default": 3}
    again = tmp_path / "again.lmml"
    convert(target, again)
    with lmml_mdit.open(str(again)) as bundle:
        assert bundle.settings == {"model": "gpt-4o", "temperature": 0.2}
    values: dict[str, object] = {"question": "Why?"}
    assert _messages(again, values) == _messages(source, values)


def test_a_template_with_a_conversation_is_written_as_prompty_2(tmp_path: Path) -> None:
    """A ``thread`` input is Prompty 2's: the file is written in that form (inputs with
    ``kind``, ``model.id`` and ``options``), which the ``prompty`` library loads."""
    prompty = pytest.importorskip("prompty")
    source = tmp_path / "t.lmml"
    source.write_text(
        _FRESH.replace(
            "  question: string\n",
            "  question: string\n  history: {type: messages, roles: [user, assistant]}\n",
        ).replace("Give {{ points }} points.\n", "Give {{ points }} points.\n\n{{ history }}\n"),
        encoding="utf-8",
    )
    target = tmp_path / "t.prompty"
    assert cli.main(["convert", str(source), str(target)]) == 0
    history = [
        {"role": "user", "content": "Earlier?"},
        {"role": "assistant", "content": "## Turn 9 -- system"},
    ]
    values: dict[str, object] = {"question": "Why?", "points": 3, "history": history}
    loaded = prompty.load(str(target))
    assert (loaded.model.id, loaded.model.options.temperature) == ("gpt-4o", 0.2)
    theirs = [
        {"role": m.role, "content": [{"type": "text", "text": m.parts[0].value}]}
        for m in prompty.prepare(loaded, values)
    ]
    assert theirs == _messages(source, values)


def _dotprompt_messages(
    path: Path, values: dict[str, object], history: list[object]
) -> list[object]:
    """The messages dotpromptz renders *path* into, with *history* as ``render``'s messages,
    in the chat shape ``_messages`` gives (a message with no text left out, its text
    trimmed of blank edges as LMML trims a turn's)."""
    import asyncio

    import dotpromptz
    from dotpromptz.typing import DataArgument

    rendered = asyncio.run(
        dotpromptz.Dotprompt().render(
            path.read_text("utf-8"), DataArgument(input=values, messages=history)
        )
    )
    return [
        {
            "role": "assistant" if m.role.value == "model" else m.role.value,
            "content": [{"type": "text", "text": m.content[0].text.strip("\n")}],
        }
        for m in rendered.messages
        if m.content[0].text.strip()
    ]


def test_dotprompt_history_is_a_messages_input_both_ways(tmp_path: Path) -> None:
    pytest.importorskip("dotpromptz")

    from dotpromptz.typing import Message, Role, TextPart

    source = tmp_path / "h.prompt"
    source.write_text(
        "---\nmodel: googleai/gemini-2.0-flash\ninput:\n  schema:\n    q: string\n---\n"
        '{{role "system"}}\nBe brief.\n{{history}}\n{{role "user"}}\n{{q}}\n',
        "utf-8",
    )
    history = [
        Message(role=Role.USER, content=[TextPart(text="hi {{ q }} ## Turn 9 -- system")]),
        Message(role=Role.MODEL, content=[TextPart(text="yo")]),
    ]
    as_lmml = [
        {"role": "user", "content": "hi {{ q }} ## Turn 9 -- system"},
        {"role": "assistant", "content": "yo"},
    ]

    def library(path: Path) -> list[object]:
        return _dotprompt_messages(path, {"q": "why"}, history)

    expected = library(source)
    assert len(expected) == 4
    convert(source, tmp_path / "h.lmml")
    assert _messages(tmp_path / "h.lmml", {"q": "why", "history": as_lmml}) == expected
    back = tmp_path / "back.prompt"
    convert(tmp_path / "h.lmml", back)
    assert "{{history}}" in back.read_text("utf-8")
    assert library(back) == expected


@pytest.mark.parametrize(
    "body",
    [
        '{{role "system"}}\nBe brief.\n{{role "user"}}\n{{q}}\n',
        '{{role "user"}}\n{{q}}\n{{role "model"}}\nAsk me.\n',
        "{{q}}\n",
        '{{role "system"}}\nBe brief.\n{{history}}\nAsk me.\n{{role "user"}}\n{{q}}\n',
    ],
)
def test_dotprompt_history_goes_where_dotprompt_puts_it(tmp_path: Path, body: str) -> None:
    """With no ``{{history}}``, dotprompt puts ``render``'s messages before the last
    message when it is a user's, else after it; the text after a ``{{history}}`` is the
    model's. The converted template renders the same messages, and so does the file
    converted back."""
    pytest.importorskip("dotpromptz")

    from dotpromptz.typing import Message, Role, TextPart

    source = tmp_path / "h.prompt"
    source.write_text("---\ninput:\n  schema:\n    q: string\n---\n" + body, "utf-8")
    history = [
        Message(role=Role.USER, content=[TextPart(text="hi")]),
        Message(role=Role.MODEL, content=[TextPart(text="yo")]),
    ]
    as_lmml = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]

    def library(path: Path) -> list[object]:
        return _dotprompt_messages(path, {"q": "why"}, history)

    expected = library(source)
    assert {"role": "assistant", "content": [{"type": "text", "text": "yo"}]} in expected
    convert(source, tmp_path / "h.lmml")
    assert _messages(tmp_path / "h.lmml", {"q": "why", "history": as_lmml}) == expected
    back = tmp_path / "back.prompt"
    convert(tmp_path / "h.lmml", back)
    assert library(back) == expected


def test_dotprompt_history_input_of_another_type_is_named(tmp_path: Path) -> None:
    source = tmp_path / "h.prompt"
    source.write_text("---\ninput:\n  schema:\n    history: string\n---\n{{history}}?\n", "utf-8")
    with pytest.raises(PromptFileError, match="rename the input"):
        convert(source, tmp_path / "h.lmml")
    source.write_text("---\ninput:\n  schema:\n    history: string\n---\nSay hi.\n", "utf-8")
    with pytest.warns(PromptFileWarning, match="'history' is not a list of messages"):
        convert(source, tmp_path / "h.lmml")
    assert "type: messages" not in (tmp_path / "h.lmml").read_text("utf-8")


def test_braces_the_template_sends_as_written_stay_literal_in_every_format(
    tmp_path: Path,
) -> None:
    """A placeholder in code is sent as written (it is not ``in_code``): the written prompt
    sends it as written too, checked with dotpromptz and langchain_core (gh-models fills
    only ``{{name}}``, so ``{{ name }}`` is text there); Prompty, which has no escape for
    braces, refuses it."""
    import asyncio

    dotpromptz = pytest.importorskip("dotpromptz")
    load = pytest.importorskip("langchain_core.load")
    from dotpromptz.typing import DataArgument

    source = tmp_path / "t.lmml"
    source.write_text(
        "---\ninputs:\n  q: string\n---\n## Turn 1 -- user\n\nUse `{{ name }}` so:\n\n"
        "```\nHello {{ name }}\n```\n\n{{ q }}\n",
        encoding="utf-8",
    )
    [sent] = _messages(source, {"q": "Q"})
    text = sent["content"][0]["text"]  # type: ignore[index]
    assert "Hello {{ name }}" in text
    convert(source, tmp_path / "t.prompt")
    rendered = asyncio.run(
        dotpromptz.Dotprompt().render(
            (tmp_path / "t.prompt").read_text("utf-8"),
            DataArgument(input={"q": "Q", "name": "N"}),
        )
    )
    assert [m.content[0].text.strip("\n") for m in rendered.messages] == [text]
    convert(source, tmp_path / "t.json")
    template = load.load(
        json.loads((tmp_path / "t.json").read_text("utf-8")), allowed_objects="all"
    )
    assert [m.content for m in template.format_messages(q="Q")] == [text]
    with pytest.raises(PromptFileError, match="literal"):
        convert(source, tmp_path / "t.prompty")
    convert(source, tmp_path / "t.prompt.yml")  # gh-models fills {{name}}, not {{ name }}
    import yaml

    written = yaml.safe_load((tmp_path / "t.prompt.yml").read_text("utf-8"))["messages"]
    assert written[0]["content"].replace("{{q}}", "Q") == text
    plain = tmp_path / "chat.lmml"  # no inputs: every {{ }} is text
    plain.write_text("## Turn 1 -- user\n\nWhat does {{ name }} do in Jinja?\n", "utf-8")
    convert(plain, tmp_path / "chat.json")
    template = load.load(
        json.loads((tmp_path / "chat.json").read_text("utf-8")), allowed_objects="all"
    )
    assert [m.content for m in template.format_messages()] == ["What does {{ name }} do in Jinja?"]


def test_braces_in_code_and_literal_braces_come_in_as_the_format_sends_them(
    tmp_path: Path,
) -> None:
    """The formats fill a placeholder in code and send literal braces as braces anywhere;
    LMML sends code as written. The template gives what dotpromptz and
    langchain_core give, and validates."""
    import asyncio

    dotpromptz = pytest.importorskip("dotpromptz")
    prompts = pytest.importorskip("langchain_core.prompts")
    load = pytest.importorskip("langchain_core.load")
    from dotpromptz.typing import DataArgument

    source = tmp_path / "d.prompt"
    source.write_text(
        '---\ninput:\n  schema:\n    name: string\n---\n{{role "user"}}\n'
        "Run `greet {{name}}` now.\n\n```\nkeep \\{{ x }}\n```\n\nLiteral: \\{{ x }}\n",
        encoding="utf-8",
    )
    rendered = asyncio.run(
        dotpromptz.Dotprompt().render(source.read_text("utf-8"), DataArgument(input={"name": "N"}))
    )
    theirs = [m.content[0].text.strip("\n") for m in rendered.messages]
    assert theirs == ["Run `greet N` now.\n\n```\nkeep {{ x }}\n```\n\nLiteral: {{ x }}"]
    convert(source, tmp_path / "d.lmml")
    with lmml_mdit.open(str(tmp_path / "d.lmml")) as bundle:
        assert bundle.validate() == []
    assert [m["content"][0]["text"] for m in _messages(tmp_path / "d.lmml", {"name": "N"})] == (  # type: ignore[index]
        theirs
    )
    template = prompts.ChatPromptTemplate.from_messages(
        [("human", "Jinja writes {{{{ name }}}}; `{{{{ name }}}}` too; answer {q}")]
    )
    chain = tmp_path / "c.json"
    chain.write_text(json.dumps(load.dumpd(template)), "utf-8")
    convert(chain, tmp_path / "c.lmml")
    with lmml_mdit.open(str(tmp_path / "c.lmml")) as bundle:
        assert bundle.validate() == []
        assert set((bundle.front_matter or {})["inputs"]) == {"q"}
    assert [m["content"][0]["text"] for m in _messages(tmp_path / "c.lmml", {"q": "Q"})] == [  # type: ignore[index]
        m.content for m in template.format_messages(q="Q")
    ]
    both = tmp_path / "both.prompt"
    both.write_text('{{role "user"}}\nRun `{{name}}` and `\\{{name}}`\n', "utf-8")
    with pytest.raises(PromptFileError, match="both filled and written as literal braces"):
        convert(both, tmp_path / "both.lmml")


def test_dotprompt_messages_match_dotpromptz(tmp_path: Path) -> None:
    dotpromptz = pytest.importorskip("dotpromptz")
    import asyncio

    source = DOTPROMPT / "example.prompt"
    convert(source, tmp_path / "e.lmml")
    from dotpromptz.typing import DataArgument

    rendered = asyncio.run(
        dotpromptz.Dotprompt().render(
            source.read_text("utf-8"), DataArgument(input={"text": "Story."})
        )
    )
    expected = [
        {
            "role": "assistant" if message.role.value == "model" else message.role.value,
            # LMML trims a turn's leading and trailing blank lines (a documented normalisation)
            "content": [{"type": "text", "text": message.content[0].text.strip("\n")}],
        }
        for message in rendered.messages
    ]
    assert _messages(tmp_path / "e.lmml", {"text": "Story."}) == expected


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.one_of(_HOSTILE, st.text(alphabet="ab #@<!->`=\n", max_size=20)), max_size=6))
def test_hostile_text_survives_every_format_and_back(tmp_path: Path, pieces: list[str]) -> None:
    text = "\n".join(pieces).replace("{", "").replace(":", "").replace("}", "")
    source = tmp_path / "h.prompty"
    source.write_text(f"---\nname: h\n---\nuser:\nstart\n{text}\nend\n", "utf-8")
    convert(source, tmp_path / "h.lmml")
    expected = _messages(tmp_path / "h.lmml", {})
    for target in ("h.prompt", "h.prompt.yml", "h.json", "h2.prompty"):
        convert(tmp_path / "h.lmml", tmp_path / target)
        convert(tmp_path / target, tmp_path / "back.lmml")
        assert _messages(tmp_path / "back.lmml", {}) == expected, target


@pytest.mark.parametrize("target", ["t.prompty", "t.prompt", "t.prompt.yml", "t.json"])
def test_a_fence_is_left_out_whole_or_refused_by_name(tmp_path: Path, target: str) -> None:
    """A tool call's fence (and any inline fence) leaves no line of its own behind."""
    source = tmp_path / "t.lmml"
    source.write_text(
        "## Turn 1 -- user\n\nWeather?\n\n## Turn 2 -- assistant\n\nChecking.\n\n"
        '@@@call_1.tool_call.json\n{"id": "call_1", "name": "get_weather", "arguments": {}}\n'
        "@@@\n\n@@@notes.txt\nsecret notes\n@@@\n\nDone.\n",
        "utf-8",
    )
    with pytest.raises(PromptFileError, match=r"the tool call call_1\.tool_call\.json"):
        convert(source, tmp_path / target)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        convert(source, tmp_path / target, lossy=True)
    said = [str(w.message) for w in caught]
    assert any("the tool call call_1.tool_call.json" in s for s in said), said
    assert any("the inline fence notes.txt" in s for s in said), said
    written = (tmp_path / target).read_text("utf-8")
    assert "Checking." in written and "Done." in written
    for left_out in ("get_weather", "secret notes", "@@@"):
        assert left_out not in written


def test_a_bundled_file_whose_name_no_reference_spells_is_renamed(tmp_path: Path) -> None:
    # "@Chart (1).png" would read as no reference at all: the image would be bundled, never
    # sent, and reported as an orphan.
    with lmml_mdit.open(str(Path(__file__).parents[1] / "examples" / "sales-review.lmmlz")) as b:
        png = b.read("chart.png")
    (tmp_path / "Chart (1).png").write_bytes(png)
    (tmp_path / "_logo.png").write_bytes(png)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "logo.png").write_bytes(png + b"other")
    prompty = tmp_path / "c.prompty"
    prompty.write_text(
        "---\nname: c\n---\nuser:\nLook:\n![a](Chart (1).png)\n![b](_logo.png)\n", "utf-8"
    )
    dotprompt = tmp_path / "d.prompt"
    dotprompt.write_text(
        '{{role "user"}}\nLook: {{media url="_logo.png"}} {{media url="sub/logo.png"}}\n',
        "utf-8",
    )
    for source, names in (
        (prompty, ["Chart-1.png", "logo.png"]),
        (dotprompt, ["logo.png", "logo-2.png"]),
    ):
        target = tmp_path / (source.stem + ".lmmlz")
        assert cli.main(["import", str(source), "-o", str(target)]) == 0
        with lmml_mdit.open(str(target)) as bundle:
            assert bundle.validate() == []
            assert list(bundle.narrative.embed_names) == names
            assert bundle.read(names[-1]).endswith(b"other" if source is dotprompt else b"")
            assert len(bundle.messages("openai")[-1]["content"]) == 3


def test_a_dotprompt_media_url_holding_spaces_is_read_as_one_quoted_value(
    tmp_path: Path,
) -> None:
    # Handlebars reads a quoted argument whole, spaces and all; so must the import.
    (tmp_path / "Chart (1).png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    source = tmp_path / "d.prompt"
    source.write_text(
        '{{role "user"}}\nLook:\n{{media url="Chart (1).png" contentType="image/png"}}\n',
        "utf-8",
    )
    target = tmp_path / "d.lmmlz"
    assert cli.main(["import", str(source), "-o", str(target)]) == 0
    with lmml_mdit.open(str(target)) as bundle:
        assert list(bundle.narrative.embed_names) == ["Chart-1.png"]
        assert bundle.read("Chart-1.png").endswith(b"fake")


@pytest.mark.parametrize("name", ["manifest.json", "settings.yaml"])
def test_a_bundled_file_named_like_a_reserved_embed_stays_an_asset(
    tmp_path: Path, name: str
) -> None:
    # Bundled as itself, the user's file would become the bundle's manifest or settings:
    # never sent, and read as metadata.
    (tmp_path / name).write_text('{"title": "notes"}\n' if name.endswith("json") else "a: 1\n")
    source = tmp_path / "m.prompty"
    source.write_text(f"---\nname: m\n---\nuser:\nRead this:\n![m]({name})\n", "utf-8")
    target = tmp_path / "m.lmmlz"
    assert cli.main(["import", str(source), "-o", str(target)]) == 0
    stem, extension = name.split(".")
    with lmml_mdit.open(str(target)) as bundle:
        assert bundle.validate() == []
        assert list(bundle.narrative.embed_names) == [f"{stem}-2.{extension}"]
        assert not bundle.settings and bundle.manifest is None
        sent = json.dumps(bundle.messages("openai"))
    assert "notes" in sent or "a: 1" in sent
