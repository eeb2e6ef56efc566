"""The language server behind ``lmml lsp``: diagnostics, completion, hover, navigation, the
outline, quick fixes and the HTML preview of a narrative open in an editor.

It needs the optional ``lsp`` extra (``pip install 'lmml-mdit[lsp]'``: pygls and lsprotocol).
Every answer is read from the library's one parse of the document
(:class:`~lmml_mdit.narrative.narrative.Narrative` and its
:attr:`~lmml_mdit.narrative.narrative.Narrative.index`) and from
:meth:`Bundle.validate <lmml_mdit.bundle.bundle.Bundle.validate>`; nothing here parses LMML
again.

- :mod:`.positions`: columns in code points to the client's units and back;
- :mod:`.document`: one document's text opened as a bundle, with its issues;
- :mod:`.diagnostics`: issues and open failures as LSP diagnostics;
- :mod:`.targets`: the reference or fence name under the cursor;
- :mod:`.assets`: what an asset name resolves to, described for a person;
- :mod:`.dimensions`: an image's pixel size, read from its header;
- :mod:`.completion`, :mod:`.hover`, :mod:`.navigation`, :mod:`.outline`, :mod:`.actions`:
  one feature each;
- :mod:`.preview`: the ``lmml/preview`` request;
- :mod:`.server`: the pygls server that ties them together (:func:`~.server.serve`).
"""

from __future__ import annotations
