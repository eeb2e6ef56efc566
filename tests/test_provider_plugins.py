"""Third-party chat formats: a package installed with an entry point in the group
``lmml_mdit.providers`` is a provider of the command line and the API like a built-in one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TOY = '''
"""A toy chat format: a list of {"who": role, "say": text} lines."""

from lmml_mdit.conversation import TextPart
from lmml_mdit.conversation import ChatTurn, ImportedConversation, Text
from lmml_mdit.chat.providers import Detection, Payload, Provider
from lmml_mdit.errors import ImportFormatError


def write(conversation, options):
    lines = []
    for message in conversation.messages:
        said = "".join(item.text for item in message.items if isinstance(item, TextPart))
        lines.append({"who": message.role, "say": said})
    return Payload("toy", lines, warnings=list(conversation.warnings))


def request(payload, model, parameters):
    return {"model": model, "lines": payload.messages, **parameters}


def read(data):
    lines = data.get("lines") if isinstance(data, dict) else data
    if not isinstance(lines, list):
        raise ImportFormatError("a toy chat is a list of lines", hint="give a list")
    return ImportedConversation([ChatTurn(line["who"], [Text(line["say"])]) for line in lines])


PROVIDER = Provider(
    name="toy",
    title="Toy Lines",
    description="a toy chat",
    read=read,
    write=write,
    request=request,
    settings={"temperature": "temperature"},
    native_settings=frozenset(),
    detection=Detection(body_keys=frozenset({"lines"}), messages_key="lines"),
)

BROKEN = 42
'''


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The toy package pip-installed into a folder of its own (never the test venv), and the
    environment a subprocess sees it in."""
    base = tmp_path_factory.mktemp("toy")
    source = base / "source"
    (source / "lmml_toy").mkdir(parents=True)
    (source / "lmml_toy" / "__init__.py").write_text(TOY, encoding="utf-8")
    (source / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "lmml-toy"
            version = "1.0"

            [project.entry-points."lmml_mdit.providers"]
            toy = "lmml_toy:PROVIDER"
            openai = "lmml_toy:PROVIDER"
            broken = "lmml_toy:BROKEN"
            missing = "lmml_toy_gone:PROVIDER"
            """
        ),
        encoding="utf-8",
    )
    target = base / "site"
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"),
            *("--no-index", "--target", str(target), str(source)),
        ],
        check=True,
        capture_output=True,
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT)])
    return env


def _lmml(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lmml_mdit", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_installed_provider_renders_and_imports_from_the_command_line(
    installed: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "chat.lmml").write_text(
        "## Turn 1 -- user\n\nHello there.\n\n## Turn 2 -- assistant\n\nHi.\n", encoding="utf-8"
    )
    rendered = _lmml(
        installed,
        "render",
        "chat.lmml",
        "--provider",
        "toy",
        "--request",
        "--model",
        "m1",
        cwd=tmp_path,
    )
    assert rendered.returncode == 0, rendered.stderr
    body = json.loads(rendered.stdout)
    assert body == {
        "model": "m1",
        "lines": [{"who": "user", "say": "Hello there."}, {"who": "assistant", "say": "Hi."}],
    }
    (tmp_path / "toy.json").write_text(json.dumps(body), encoding="utf-8")
    imported = _lmml(
        installed, "import", "toy.json", "--format", "toy", "-o", "back.lmml", cwd=tmp_path
    )
    assert imported.returncode == 0, imported.stderr
    text = (tmp_path / "back.lmml").read_text(encoding="utf-8")
    assert "Hello there." in text and "Hi." in text
    # Its own detection: the body's "lines" name it without --format.
    detected = _lmml(installed, "import", "toy.json", "-o", "detected.lmml", cwd=tmp_path)
    assert detected.returncode == 0, detected.stderr
    assert (tmp_path / "detected.lmml").read_text(encoding="utf-8") == text


def test_broken_and_conflicting_plugins_are_named_in_a_warning_not_a_traceback(
    installed: dict[str, str], tmp_path: Path
) -> None:
    code = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from lmml_mdit.chat.providers import FORMATS, PROVIDERS\n"
        "from lmml_mdit.errors import ProviderPluginWarning\n"
        "assert all(issubclass(w.category, ProviderPluginWarning) for w in caught)\n"
        "from lmml_mdit.chat import FORMAT_DESCRIPTIONS\n"
        "assert FORMAT_DESCRIPTIONS['toy'] == 'a toy chat', FORMAT_DESCRIPTIONS\n"
        "print(PROVIDERS['openai'].title, 'toy' in FORMATS)\n"
        "for w in sorted(str(w.message) for w in caught): print(w)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env=installed,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "OpenAI Chat Completions True"
    assert len(lines) == 4
    broken, missing, taken = lines[1:]
    assert "broken = lmml_toy:BROKEN" in broken and "not a ChatFormat" in broken
    assert "missing = lmml_toy_gone:PROVIDER" in missing and "ModuleNotFoundError" in missing
    assert "openai = lmml_toy:PROVIDER" in taken and "is taken" in taken


def test_an_unknown_name_is_still_refused_by_the_command_line(
    installed: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "chat.lmml").write_text("Hello.\n", encoding="utf-8")
    run = _lmml(installed, "render", "chat.lmml", "--provider", "nope", cwd=tmp_path)
    assert run.returncode == 2
    assert "invalid choice: 'nope'" in run.stderr and "toy" in run.stderr


def test_a_left_out_plugin_is_one_warning_line_and_its_name_an_unknown_choice(
    installed: dict[str, str], tmp_path: Path
) -> None:
    # docs/providers.md: the plugin left out is named in one `lmml: warning:` line, and
    # asking for its name is the usual unknown-provider error (never an internal error).
    (tmp_path / "chat.lmml").write_text("## user\n\nHello.\n", encoding="utf-8")
    run = _lmml(installed, "render", "chat.lmml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 3, lines  # broken, missing and the taken name openai
    assert all(line.startswith("lmml: warning: the chat format plugin ") for line in lines)
    assert (
        "lmml: warning: the chat format plugin broken = lmml_toy:BROKEN (lmml_mdit.providers)"
        " was left out: it is of type int, not a ChatFormat"
    ) in lines
    for argv in (
        ("render", "chat.lmml", "--provider", "broken"),
        ("render", "chat.lmml", "--provider", "missing"),
        ("import", "chat.json", "--format", "broken", "-o", "out.lmml"),
    ):
        refused = _lmml(installed, *argv, cwd=tmp_path)
        assert refused.returncode == 2, argv
        assert f"invalid choice: '{argv[3]}'" in refused.stderr, refused.stderr
        assert "internal error" not in refused.stderr
        assert "toy" in refused.stderr.splitlines()[-1]  # the usable plugin is still offered
