"""The ``env`` keys the plugin's rules share while one parse runs.

They start with ``_lmml`` and are removed when the parse ends; the lasting results use the
keys in :mod:`.collect`.
"""

from __future__ import annotations

INLINE_PARENT_KEY = "_lmml_inline_parent"
"""The ``inline`` token whose content the inline rules are parsing."""
NEW_REFS_KEY = "_lmml_new_refs"
"""The ``lmml_ref`` tokens made while parsing that content."""
FENCE_TOKENS_KEY = "_lmml_fence_tokens"
"""Every ``lmml_embed`` token, in the order the block rule made them."""
ROLE_TOKENS_KEY = "_lmml_role_tokens"
"""Every ``lmml_role`` token, in the order the block rule made them."""
LINE_STARTS_KEY = "_lmml_line_starts"
"""The last source line :mod:`.positions` has reached, and its offset."""
LINE_CURSOR_KEY = "_lmml_line_cursor"
"""The last source line :mod:`.positions` searched, and how far."""

SCRATCH_KEYS = (
    INLINE_PARENT_KEY,
    NEW_REFS_KEY,
    FENCE_TOKENS_KEY,
    ROLE_TOKENS_KEY,
    LINE_STARTS_KEY,
    LINE_CURSOR_KEY,
)
