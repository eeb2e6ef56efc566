"""Default HTML for the plugin's tokens; each can be replaced with ``md.add_render_rule``.

- ``lmml_ref``: ``<span class="lmml-ref" data-lmml-name="NAME">@NAME</span>``
- ``lmml_embed``: ``<figure class="lmml-embed" data-lmml-name="NAME"><figcaption>NAME
  </figcaption><pre><code>CONTENT</code></pre></figure>`` (class ``lmml-unclosed`` added for a
  fence without its closing ``@@@``)
- ``lmml_role``: ``<div class="lmml-role" data-lmml-role="ROLE">ROLE</div>``

Every name and all content is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict


def render_reference(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an ``lmml_ref`` token."""
    name = escapeHtml(tokens[idx].content)
    return f'<span class="lmml-ref" data-lmml-name="{name}">@{name}</span>'


def render_embed(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an ``lmml_embed`` token."""
    token = tokens[idx]
    name = escapeHtml(token.info)
    classes = "lmml-embed" if token.meta.get("closed", True) else "lmml-embed lmml-unclosed"
    return (
        f'<figure class="{classes}" data-lmml-name="{name}">'
        f"<figcaption>{name}</figcaption>"
        f"<pre><code>{escapeHtml(token.content)}</code></pre></figure>\n"
    )


def render_role(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an ``lmml_role`` token."""
    role = escapeHtml(tokens[idx].info)
    return f'<div class="lmml-role" data-lmml-role="{role}">{role}</div>\n'
