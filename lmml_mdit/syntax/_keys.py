"""The ``env`` keys the plugin's rules share while one parse runs.

They start with ``_lmml`` and are removed when the parse ends; the lasting results use the
keys in :mod:`.collect`.
"""

from __future__ import annotations

INLINE_PARENT_KEY = "_lmml_inline_parent"
"""The ``inline`` token whose content the inline rules are parsing."""
NEW_REFS_KEY = "_lmml_new_refs"
"""The ``lmml_ref`` tokens made while parsing that content."""
FOUND_KEY = "_lmml_found"
"""Set in the fast parse only: the :class:`~.positions.FoundInline` in which the rules record
the references and LMML escapes of that content instead of making tokens for them."""
FENCE_TOKENS_KEY = "_lmml_fence_tokens"
"""Every ``lmml_embed`` token, in the order the block rule made them."""
ROLE_TOKENS_KEY = "_lmml_role_tokens"
"""Every ``lmml_role`` token, in the order the block rule made them."""
LINE_STARTS_KEY = "_lmml_line_starts"
"""The last source line :mod:`.positions` has reached, and its offset."""
LINE_CURSOR_KEY = "_lmml_line_cursor"
"""The last source line :mod:`.positions` searched, and how far."""
KNOWN_SCRATCH_KEY = "_lmml_known"
"""The names a reference without an extension may have: the caller's known asset names
and the document's fence names (see :mod:`.reference`)."""
OPENER_KEY = "_lmml_opener"
"""The token before the ``inline`` token being parsed (its block's opening token), so the
escape rule can tell a top-level paragraph (see :mod:`.escape`)."""

UNDERLINE_KEY = "_lmml_underline"
"""The ``inline`` token whose first escaped setext underline :mod:`.escape` has checked
(only the first one could have ended a setext heading; this keeps the check linear)."""

SCRATCH_KEYS = (
    UNDERLINE_KEY,
    KNOWN_SCRATCH_KEY,
    OPENER_KEY,
    INLINE_PARENT_KEY,
    NEW_REFS_KEY,
    FOUND_KEY,
    FENCE_TOKENS_KEY,
    ROLE_TOKENS_KEY,
    LINE_STARTS_KEY,
    LINE_CURSOR_KEY,
)
