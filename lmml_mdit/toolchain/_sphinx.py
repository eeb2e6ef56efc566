"""The Sphinx extension: the ``lmml`` directive, and the ``lmml`` lexer for code blocks.

Add ``"lmml_mdit.toolchain.sphinx"`` to ``extensions`` in ``conf.py``. The directive shows
a conversation, from a file or its own content, as the preview's turn cards
(:func:`lmml_mdit.render_html` with ``fragment=True``) and reports each defect ``lmml
validate`` finds at the directive, with its severity. See docs/toolchain.md, "Sphinx and
MyST: the lmml directive".
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.directives.code import container_wrapper
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from .._version import __version__
from ..bundle import SETTINGS_NAMES, Bundle, DefectWarning, path_under, unsafe_reason
from ..chat import open as open_bundle
from ..errors import LmmlError, location
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from ..preview import LEXER_ALIAS, LmmlLexer, render_html

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.util.typing import ExtensionMetadata

__all__ = ["DIRECTIVE_NAME", "LmmlDirective", "setup"]

DIRECTIVE_NAME = "lmml"
"""The directive's name: ``.. lmml::`` and ``{lmml}``."""

_INLINE_NAME = "conversation"
_LOGGER = logging.getLogger(__name__)


class LmmlDirective(SphinxDirective):
    """``.. lmml:: [FILE]``: a conversation as the preview's turn cards."""

    has_content = True
    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Callable[[str], object]]] = {
        "title": directives.unchanged,
        "no-highlight": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        """The cards as raw HTML (the source as a literal block for other builders)."""
        if self.arguments and self.content:
            raise self.error(f"{DIRECTIVE_NAME}: give a file or inline content, not both")
        if not self.arguments and not self.content:
            raise self.error(
                f"{DIRECTIVE_NAME}: give a file (.. {DIRECTIVE_NAME}:: path.lmml) or the "
                "narrative as the directive's content"
            )
        try:
            bundle = self._bundle()
            try:
                self._note_files(bundle)
                self._report_issues(bundle)
                with warnings.catch_warnings():
                    # Reported above, with the severity of each: not again as a warning.
                    warnings.simplefilter("ignore", DefectWarning)
                    page = render_html(
                        bundle,
                        title=self.options.get("title"),
                        fragment=True,
                        highlight="no-highlight" not in self.options,
                    )
                source = bundle.narrative.text
            finally:
                bundle.close()
        except LmmlError as error:
            raise self.error(f"{DIRECTIVE_NAME}: {error}") from None
        html = nodes.raw("", page, format="html")
        others = addnodes.only(expr="not html")
        others += self._source_block(source)
        self.set_source_info(html)
        return [html, others]

    def _source_block(self, source: str) -> nodes.Element:
        """The narrative as a literal block for builders other than HTML: captioned with
        ``:title:`` when given, as a ``code-block`` with ``:caption:`` is."""
        block = nodes.literal_block(source, source, language=LEXER_ALIAS)
        self.set_source_info(block)
        title = self.options.get("title")
        if not title:
            return block
        return container_wrapper(self, block, title)

    def _note_files(self, bundle: Bundle) -> None:
        """Make each file *bundle* reads beside it (the assets its references find there,
        a settings file) a dependency of the page, so that changing one rebuilds it."""
        folder = bundle.base_dir
        if bundle.kind != "text" or folder is None:
            return
        root = os.path.realpath(folder)
        fences = bundle.fences
        names = {embed.name for embed in bundle.narrative.embeds if not embed.is_inline}
        for name in sorted(names.union(SETTINGS_NAMES).difference(fences)):
            if unsafe_reason(name) is not None:
                continue
            path = path_under(root, name)
            if path is not None and os.path.isfile(path):
                self.env.note_dependency(path)

    def _report_issues(self, bundle: Bundle) -> None:
        """Each defect of *bundle*, located at the directive: an error-level one as a build
        error, a warning as a build warning (as ``lmml validate`` judges them); Sphinx
        fails the build on either only with ``-W``."""
        directive = (self.env.docname, self.lineno)
        for issue in bundle.validate():
            where = location(bundle.location(issue), issue.line, issue.column)
            text = f"{DIRECTIVE_NAME}: {where}: {issue.kind}: {issue.message}"
            if issue.severity == "error":
                _LOGGER.error(text, location=directive)
            else:
                _LOGGER.warning(text, location=directive)

    def _bundle(self) -> Bundle:
        if self.arguments:
            relative, path = self.env.relfn2path(self.arguments[0], self.env.docname)
            self.env.note_dependency(relative)
            if os.path.isdir(path):
                raise self.error(
                    f"{DIRECTIVE_NAME}: {self.arguments[0]}: is a folder, not a "
                    f"{NARRATIVE_SUFFIX} or {ARCHIVE_SUFFIX} file"
                )
            if not os.path.isfile(path):
                raise self.error(f"{DIRECTIVE_NAME}: {self.arguments[0]}: no such file")
            return open_bundle(path)
        text = "\n".join(self.content) + "\n"
        folder = os.path.dirname(self.env.doc2path(self.env.docname))
        return Bundle.from_text(_INLINE_NAME, text, base_dir=folder)


def setup(app: Sphinx) -> ExtensionMetadata:
    """Sphinx's hook: register the directive and the lexer.

    :param app: the Sphinx application.
    """
    app.add_directive(DIRECTIVE_NAME, LmmlDirective)
    app.add_lexer(LEXER_ALIAS, LmmlLexer)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
