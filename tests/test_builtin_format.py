"""A built-in chat format is its module: the toy format planted as one more module of
``lmml_mdit.chat.providers`` (in a copy of the package, no other file changed) is listed by
the registry in its ``ORDER`` and works from the API and the command line."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from test_provider_plugins import TOY

from tests._planting import plant, run_python

CHECKS = textwrap.dedent(
    """
    import json, sys
    import lmml_mdit
    from lmml_mdit.chat import providers
    from lmml_mdit.cli import main

    assert providers.PROVIDER_NAMES == ("openai", "openai-responses", "anthropic", "gemini", "toy")
    assert providers.IMPORT_FORMATS == (*providers.PROVIDER_NAMES, "sharegpt")
    bundle = lmml_mdit.Bundle.from_zip("t", "## user\\nHello there.\\n\\n## assistant\\nHi.\\n", {})
    assert bundle.messages("toy") == [
        {"who": "user", "say": "Hello there."},
        {"who": "assistant", "say": "Hi."},
    ]
    assert bundle.to_request("toy", model="m")["lines"] == bundle.messages("toy")
    lines = {"lines": [{"who": "user", "say": "Hello there."}]}
    assert lmml_mdit.detect_format(lines) == "toy"
    assert lmml_mdit.import_messages(lines).narrative.turns[0].text == "Hello there."
    try:
        providers.sender("toy")
    except ValueError as error:
        assert "no sender for provider 'toy'" in str(error), error
    else:
        raise AssertionError("the toy format has no SENDER, so nothing sends to it")
    assert main(["import", "toy.json", "-o", "back.lmml"]) == 0
    assert main(["import", "toy.json", "--format", "toy", "-o", "named.lmml"]) == 0
    sys.exit(main(["render", "back.lmml", "--provider", "toy", "--request", "--model", "m1"]))
    """
)


def _plant(tmp_path: Path, *names: str) -> Path:
    """A copy of the package with the toy module added as *names*: its site folder."""
    return plant(tmp_path, {f"chat/providers/{name}": TOY + "\nORDER = 50\n" for name in names})


def test_a_format_module_planted_in_the_package_is_a_built_in_format(tmp_path: Path) -> None:
    site = _plant(tmp_path, "toy.py")
    (tmp_path / "toy.json").write_text(
        json.dumps(
            {"lines": [{"who": "user", "say": "Hello there."}, {"who": "assistant", "say": "Hi."}]}
        ),
        encoding="utf-8",
    )
    done = run_python(site, "-c", CHECKS, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "model": "m1",
        "lines": [{"who": "user", "say": "Hello there."}, {"who": "assistant", "say": "Hi."}],
    }
    assert "Hello there." in (tmp_path / "named.lmml").read_text(encoding="utf-8")
    # The command line offers it beside the others, in the registry's order.
    listed = run_python(site, "-m", "lmml_mdit", "render", "--help", cwd=tmp_path)
    assert "--provider {openai,openai-responses,anthropic,gemini,toy}" in listed.stdout


def test_two_format_modules_of_one_name_are_refused_on_import(tmp_path: Path) -> None:
    site = _plant(tmp_path, "toy.py", "toy_copy.py")
    done = run_python(site, "-c", "import lmml_mdit.chat.providers", cwd=tmp_path)
    assert done.returncode == 1
    assert "two format modules define the format named toy" in done.stderr
