"""The language server behind ``lmml lsp``: diagnostics, completion, hover, navigation, the
outline, quick fixes and the HTML preview of a narrative open in an editor.

It needs the optional ``lsp`` extra (pygls and lsprotocol). Every answer is read from the
library's one parse of the document and from :meth:`Bundle.validate
<lmml_mdit.bundle.Bundle.validate>`; nothing here parses LMML again. Its private
modules (one feature each) are listed in docs/architecture.md; its use in docs/editors.md.
Every name is imported from here, on first use, so pygls loads only with the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._actions import code_actions as code_actions
    from ._completion import TRIGGER_CHARACTERS as TRIGGER_CHARACTERS
    from ._completion import complete as complete
    from ._diagnostics import diagnostics as diagnostics
    from ._dimensions import image_dimensions as image_dimensions
    from ._document import Analysis as Analysis
    from ._document import analyse as analyse
    from ._document import path_of as path_of
    from ._hover import hover as hover
    from ._navigation import definition as definition
    from ._navigation import references as references
    from ._outline import FIRST_WORDS as FIRST_WORDS
    from ._outline import document_symbols as document_symbols
    from ._outline import first_words as first_words
    from ._outline import folding_ranges as folding_ranges
    from ._positions import Columns as Columns
    from ._positions import units as units
    from ._preview import PREVIEW_METHOD as PREVIEW_METHOD
    from ._preview import preview as preview
    from ._server import DEFAULT_DEBOUNCE as DEFAULT_DEBOUNCE
    from ._server import SERVER_NAME as SERVER_NAME
    from ._server import LmmlLanguageServer as LmmlLanguageServer
    from ._server import build_server as build_server
    from ._server import serve as serve

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_actions": ("code_actions",),
        "_completion": ("TRIGGER_CHARACTERS", "complete"),
        "_diagnostics": ("diagnostics",),
        "_dimensions": ("image_dimensions",),
        "_document": ("Analysis", "analyse", "path_of"),
        "_hover": ("hover",),
        "_navigation": ("definition", "references"),
        "_outline": ("FIRST_WORDS", "document_symbols", "first_words", "folding_ranges"),
        "_positions": ("Columns", "units"),
        "_preview": ("PREVIEW_METHOD", "preview"),
        "_server": (
            "DEFAULT_DEBOUNCE",
            "SERVER_NAME",
            "LmmlLanguageServer",
            "build_server",
            "serve",
        ),
    }.items()
    for name in names
}

__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
