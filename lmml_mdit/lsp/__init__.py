"""The language server behind ``lmml lsp``: diagnostics, completion, hover, navigation, the
outline, quick fixes and the HTML preview of a narrative open in an editor.

It needs the optional ``lsp`` extra (pygls and lsprotocol). Every answer is read from the
library's one parse of the document and from :meth:`Bundle.validate
<lmml_mdit.bundle.bundle.Bundle.validate>`; nothing here parses LMML again. Its modules
(one feature each) are listed in docs/architecture.md; its use in docs/editors.md.
"""

from __future__ import annotations
