"""A reserved embed is its declaration: a toy embed planted as one more module of
:mod:`lmml_mdit.bundle.reserved_embeds` (in a copy of the package, no other file changed) is
left out of the conversation, decoded, and validated with its own issue kinds, whose
severities every command reads, from the API and the command line."""

from __future__ import annotations

import json
import os
import textwrap
import zipfile
from pathlib import Path

from tests._planting import differences, plant, run_python

TOY = textwrap.dedent(
    '''
    """``toy.json``: how loud the conversation may be, a JSON object."""

    from __future__ import annotations

    import json

    from ...errors import BundleError
    from ...jsonio import parse_json
    from ...jsontypes import JSONObject
    from ...model import Issue
    from .base import ReservedEmbed


    class InvalidToyError(BundleError):
        """A toy.json that is not a JSON object."""


    def _decode(data: bytes, name: str, line: int | None) -> JSONObject:
        try:
            value = parse_json(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            value = None
        if not isinstance(value, dict):
            raise InvalidToyError("not a JSON object", name=name, line=line, hint="write {}")
        return value


    def _check(bundle: object, value: JSONObject | None) -> list[Issue]:
        volume = (value or {}).get("volume", 0)
        if isinstance(volume, int) and volume > 10:
            return [Issue("toy_too_loud", "toy.json", None, None, f"volume {volume} > 10")]
        return []


    EMBED = ReservedEmbed(
        name="toy.json",
        order=40,
        entry_names=("toy.json",),
        kinds={"invalid_toy": ("error", "refused"), "toy_too_loud": ("warning", "validated")},
        invalid_kind="invalid_toy",
        error=InvalidToyError,
        decode=_decode,
        check=_check,
    )
    '''
)

CHECKS = textwrap.dedent(
    """
    import contextlib, io, json
    import lmml_mdit
    from lmml_mdit.bundle.reserved_embeds import RESERVED_EMBEDS, RESERVED_NAMES
    from lmml_mdit.cli import main
    from lmml_mdit.severity import KIND_RULES

    def run(*argv):
        out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8") for _ in range(2))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
        out.flush(), err.flush()
        return [status, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()]

    loud = lmml_mdit.open("loud.lmml")
    broken = lmml_mdit.open("broken.lmmlz")
    toy = next(embed for embed in RESERVED_EMBEDS if embed.name == "toy.json")
    try:
        broken.messages("openai")
    except lmml_mdit.DefectError as error:
        refused = str(error)
    else:
        refused = None
    runs = {
        "names": list(RESERVED_NAMES),
        "rules": {kind: list(KIND_RULES[kind]) for kind in ("invalid_toy", "toy_too_loud")},
        "error_kinds": sorted({"invalid_toy", "toy_too_loud"} & lmml_mdit.ERROR_KINDS),
        "decoded": toy.read(loud),
        "loud": [[issue.record(), issue.severity] for issue in loud.validate()],
        "broken": [[issue.record(), issue.severity] for issue in broken.validate()],
        "messages": loud.messages("openai"),
        "refused": refused,
        "validate_loud": run("validate", "loud.lmml"),
        "validate_broken": run("validate", "--json", "broken.lmmlz"),
    }
    print(json.dumps(runs))
    """
)


def test_a_reserved_embed_planted_as_one_module_works_end_to_end(tmp_path: Path) -> None:
    site = plant(tmp_path, {"bundle/reserved_embeds/toy.py": TOY})
    # The one file planted: every other file of the copy is the package's own.
    assert differences(site) == ["bundle/reserved_embeds/toy.py (only in the copy)"]

    (tmp_path / "loud.lmml").write_text(
        '## user\n\nHello.\n\n@@@toy.json\n{"volume": 11}\n@@@\n', encoding="utf-8"
    )
    with zipfile.ZipFile(tmp_path / "broken.lmmlz", "w") as archive:
        archive.writestr("broken.lmml", "## user\n\nHi.\n")
        archive.writestr("toy.json", "[1, 2]")
    done = run_python(site, "-c", CHECKS, cwd=tmp_path, environ={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)
    assert runs["names"] == [
        "manifest.json",
        "settings.yaml",
        "settings.yml",
        "settings.json",
        "toy.json",
    ]
    assert runs["rules"] == {
        "invalid_toy": ["error", "refused"],
        "toy_too_loud": ["warning", "validated"],
    }
    assert runs["error_kinds"] == ["invalid_toy"]
    assert runs["decoded"] == {"volume": 11}
    # Validated by its own check, with its own kind and severity.
    loud = {
        "kind": "toy_too_loud",
        "severity": "warning",
        "name": "toy.json",
        "line": None,
        "column": None,
        "file": None,
        "message": "volume 11 > 10",
    }
    assert runs["loud"] == [[loud, "warning"]]
    # Left out of the conversation: the fence is no part of the message.
    assert runs["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hello."}]}]
    # An entry that does not decode is its invalid_kind (an error: no send), not an
    # orphaned entry: its name is reserved.
    invalid = {
        "kind": "invalid_toy",
        "severity": "error",
        "name": "toy.json",
        "line": None,
        "column": None,
        "file": "toy.json",
        "message": "not a JSON object (write {})",
    }
    assert runs["broken"] == [[invalid, "error"]]
    assert runs["refused"] is not None and "invalid_toy" in runs["refused"]
    # The command line: a warning is shown and passes, an error fails.
    assert runs["validate_loud"] == [
        0,
        "loud.lmml: toy_too_loud: volume 11 > 10\n",
        "1 issue(s) found in 1 file(s)\n",
    ]
    status, out, _ = runs["validate_broken"]
    assert status == 1
    assert json.loads(out) == [{"path": "broken.lmmlz", "error": None, "issues": [invalid]}]


def test_two_declarations_of_one_name_are_refused_on_import(tmp_path: Path) -> None:
    site = plant(
        tmp_path, {f"bundle/reserved_embeds/{name}": TOY for name in ("toy.py", "toy_copy.py")}
    )
    done = run_python(site, "-c", "import lmml_mdit.bundle.reserved_embeds", cwd=tmp_path)
    assert done.returncode == 1
    assert "two reserved embeds declare the name toy.json" in done.stderr
