"""The Sphinx extension: a real ``sphinx-build -W`` of a sample project using the ``lmml``
directive from reStructuredText and from MyST Markdown."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _installed import ROOT, subprocess_env

CONF = (
    'extensions = ["myst_parser", "lmml_mdit.toolchain.sphinx"]\n'
    'source_suffix = {".rst": "restructuredtext", ".md": "markdown"}\n'
    'html_theme = "alabaster"\n'
)

INDEX_RST = """\
Sample
======

.. toctree::

   myst

.. lmml:: chat.lmml
   :title: From a file

.. lmml::

   ## Turn 1 -- user

   Inline in rST, see @note.txt.

   ## Turn 2 -- assistant

   Done.

.. code-block:: lmml

   # user
   See @chart.png.
"""

MYST_MD = """\
# MyST page

```{lmml} chat.lmml
```

```{lmml} /archive.lmmlz
:no-highlight:
```

```{lmml}
:title: Inline in MyST

# user

Hello from MyST.

@@@settings.yaml
temperature: 0.2
@@@
```
"""

CHAT = "## Turn 1 -- user\n\nLook at @note.txt.\n\n## Turn 2 -- assistant\n\nRead it.\n"


def build(
    source: Path,
    out: Path,
    builder: str = "html",
    *,
    strict: bool = True,
    keep_going: bool = True,
) -> subprocess.CompletedProcess[str]:
    """``sphinx-build -q`` (with ``-W --keep-going`` when *strict*) of *source* into *out*.

    Sphinx 8.1 and newer keep going under ``-W`` by default; Sphinx 7 stops at the first
    warning, printed without its level, unless given ``--keep-going``.
    """
    fail_on_warning = (["-W", "--keep-going"] if keep_going else ["-W"]) if strict else []
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            *fail_on_warning,
            "-b",
            builder,
            str(source),
            str(out),
        ],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text(CONF)
    (source / "index.rst").write_text(INDEX_RST)
    (source / "myst.md").write_text(MYST_MD)
    (source / "chat.lmml").write_text(CHAT)
    (source / "note.txt").write_text("a note\n")
    shutil.copy2(ROOT / "examples" / "sales-review.lmmlz", source / "archive.lmmlz")
    return source


def previews(html: str) -> list[str]:
    """Each preview fragment of a page (from its div to the end of its main)."""
    return re.findall(r'<div class="lmml-preview">.*?</main>', html, re.DOTALL)


def test_the_directive_renders_turn_cards_in_rst_and_myst(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = build(project, out)
    assert run.returncode == 0, run.stderr
    index = (out / "index.html").read_text(encoding="utf-8")
    myst = (out / "myst.html").read_text(encoding="utf-8")
    assert len(previews(index)) == 2
    assert len(previews(myst)) == 3
    for fragment in previews(index) + previews(myst):
        assert "<style>" in fragment
        assert "<script" not in fragment
        assert 'class="lmml-turn' in fragment
    assert "From a file" in index and "Look at" in index and "a note" in index
    assert "Inline in rST" in index
    assert "Inline in MyST" in myst and "temperature" in myst
    assert "Quarterly sales review" in myst  # the archive, its image as a data: URI
    assert 'src="data:image/png;base64,' in myst
    # The lexer is registered for code blocks.
    assert '<span class="kp">user</span>' in index


def test_other_builders_get_the_narrative_as_text(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "text"
    run = build(project, out, "text")
    assert run.returncode == 0, run.stderr
    index = (out / "index.txt").read_text(encoding="utf-8")
    assert "Look at @note.txt." in index and "Inline in rST, see @note.txt." in index
    assert "lmml-preview" not in index


def test_other_builders_keep_the_title(project: Path, tmp_path: Path) -> None:
    for builder, suffix in (("text", "txt"), ("latex", "tex")):
        out = tmp_path / builder
        run = build(project, out, builder)
        assert run.returncode == 0, run.stderr
        pages = "".join(page.read_text(encoding="utf-8") for page in out.glob(f"*.{suffix}"))
        assert "From a file" in pages and "Inline in MyST" in pages, builder


def test_a_changed_asset_rebuilds_the_pages_showing_it(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert build(project, out).returncode == 0
    note = project / "note.txt"
    note.write_text("a rewritten note\n")
    # Newer than the pages' last read, whatever the file system's clock resolution.
    later = note.stat().st_mtime + 60
    os.utime(note, (later, later))
    run = build(project, out)
    assert run.returncode == 0, run.stderr
    for page in ("index.html", "myst.html"):
        assert "a rewritten note" in (out / page).read_text(encoding="utf-8"), page


def test_a_missing_file_is_an_error_at_the_directive(project: Path, tmp_path: Path) -> None:
    (project / "index.rst").write_text("Sample\n======\n\n.. lmml:: gone.lmml\n")
    (project / "myst.md").unlink()
    run = build(project, tmp_path / "out")
    assert run.returncode != 0  # -W
    assert "index.rst:4: ERROR: lmml: gone.lmml: no such file" in run.stderr
    # Plain -W fails too; Sphinx 7 stops at the first message and leaves its level out.
    stopped = build(project, tmp_path / "stopped", keep_going=False)
    assert stopped.returncode != 0
    assert re.search(r"index\.rst:4:(?: ERROR: )?lmml: gone\.lmml: no such file", stopped.stderr)
    # Without -W, Sphinx counts the error among its warnings and the build succeeds, the
    # directive left out of the page (docs/toolchain.md says so).
    lenient = build(project, tmp_path / "lenient", strict=False)
    assert lenient.returncode == 0, lenient.stderr
    assert "index.rst:4: ERROR: lmml: gone.lmml: no such file" in lenient.stderr
    assert "lmml-preview" not in (tmp_path / "lenient" / "index.html").read_text("utf-8")


def test_a_folder_is_named_a_folder(project: Path, tmp_path: Path) -> None:
    (project / "chats").mkdir()
    (project / "index.rst").write_text("Sample\n======\n\n.. lmml:: chats\n")
    (project / "myst.md").unlink()
    run = build(project, tmp_path / "out")
    assert run.returncode != 0
    assert "index.rst:4: ERROR: lmml: chats: is a folder, not a .lmml or .lmmlz file" in run.stderr


def test_file_and_content_together_are_refused(project: Path, tmp_path: Path) -> None:
    (project / "index.rst").write_text("Sample\n======\n\n.. lmml:: chat.lmml\n\n   # user\n")
    (project / "myst.md").unlink()
    run = build(project, tmp_path / "out")
    assert run.returncode != 0
    assert "not both" in run.stderr


def test_myst_has_no_configuration_for_a_markdown_it_plugin(project: Path, tmp_path: Path) -> None:
    # MyST builds its parser from a fixed list of extensions: naming the plugin there is a
    # configuration warning, and the -W build fails (docs/toolchain.md says why).
    (project / "conf.py").write_text(CONF + 'myst_enable_extensions = ["lmml"]\n')
    run = build(project, tmp_path / "out")
    assert run.returncode != 0
    assert "'enable_extensions' items not recognised: {'lmml'}" in run.stderr


def test_this_projects_docs_show_the_examples() -> None:
    page = (ROOT / "docs" / "examples.md").read_text(encoding="utf-8")
    assert "```{lmml} ../examples/sales-review.lmmlz" in page
    assert "```{lmml} ../examples/weather-tools.lmml" in page
    # every shipped conversation (the archive and the .lmml of one count as one), the ones
    # added since included
    shown = {
        Path(name).stem for name in re.findall(r"^```\{lmml\} \.\./examples/(\S+)$", page, re.M)
    }
    shipped = {path.stem for path in (ROOT / "examples").iterdir() if path.suffix == ".lmml"}
    assert shipped and sorted(shipped - shown) == []
    assert "extensions" in (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    assert '"lmml_mdit.toolchain.sphinx"' in (ROOT / "docs" / "conf.py").read_text()


def test_defects_are_reported_at_the_directive_with_the_tables_severity(
    project: Path, tmp_path: Path
) -> None:
    # The same verdict as lmml validate (issue 26): a warning is a build warning, an error a
    # build error, each located at the directive and naming its kind.
    (project / "myst.md").unlink()
    (project / "index.rst").write_text(
        "Sample\n======\n\n.. lmml::\n\n   ## Turn 1 -- user\n\n   hi\n\n   **Assistant:**\n\n"
        "   hello\n"
    )
    run = build(project, tmp_path / "warned")
    assert run.returncode != 0  # -W
    assert re.search(r"index\.rst:4: WARNING: lmml: .*suspicious_delimiter: ", run.stderr)
    (project / "index.rst").write_text(
        "Sample\n======\n\n.. lmml::\n\n   ## Turn 1 -- user\n\n   see @gone.png\n"
    )
    run = build(project, tmp_path / "refused")
    assert re.search(r"index\.rst:4: ERROR: lmml: .*missing_reference: ", run.stderr), run.stderr


def test_myst_content_with_front_matter_needs_an_empty_options_block(
    project: Path, tmp_path: Path
) -> None:
    # MyST reads a leading "---" block of a directive's content as its options.
    narrative = "---\ntemperature: 0.3\n---\n## user\n\nHello\n"
    (project / "myst.md").write_text(f"# Page\n\n```{{lmml}}\n{narrative}```\n")
    eaten = build(project, tmp_path / "eaten", "text")
    # myst-parser 5 says "Unknown option key: 'temperature'"; 4 "keys: ['temperature']"
    assert eaten.returncode != 0
    assert re.search(r"Unknown option keys?: \[?'temperature'", eaten.stderr), eaten.stderr
    (project / "myst.md").write_text(f"# Page\n\n```{{lmml}}\n---\n---\n{narrative}```\n")
    kept = build(project, tmp_path / "kept", "text")
    assert kept.returncode == 0, kept.stderr
    assert "temperature: 0.3" in (tmp_path / "kept" / "myst.txt").read_text(encoding="utf-8")


def test_the_docs_name_the_sphinx_extras_floor() -> None:
    # The floor is written once, in pyproject.toml (pinned in .ci/oldest.txt, checked by
    # test_oldest_versions); the pages that state it follow it.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^sphinx = \["sphinx>=([0-9.]+)"\]$', pyproject, re.M)
    assert found, "the sphinx extra has no floor"
    floor = found[1]
    toolchain = " ".join((ROOT / "docs" / "toolchain.md").read_text(encoding="utf-8").split())
    assert f"Supported: Sphinx {floor} or newer, the `sphinx` extra's floor." in toolchain
    assert f"with the oldest: Sphinx {floor} and" in toolchain
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert f"(the Sphinx extension's: Sphinx {floor}, so Jupyter Book 1 installs it;" in readme
