"""Default HTML for the plugin's tokens; each can be replaced with ``md.add_render_rule``.

``lmml_ref`` renders as a ``span``, ``lmml_embed`` as a ``figure`` (``lmml-unclosed`` for a
fence without its closing ``@@@``) and ``lmml_role`` as a ``div``, every name and all
content escaped and another plugin's attributes kept. The markup: docs/syntax.md,
"Rendering".
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererProtocol
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict


def _attributes(token: Token, classes: str, data: str, value: str) -> str:
    """The escaped attribute list of a tag: *classes* plus the token's own ``class``, the
    ``data-lmml-*`` attribute *data* = *value*, then the token's other attributes."""
    extra_class = token.attrs.get("class")
    if extra_class:
        classes = f"{classes} {extra_class}"
    parts = [f'class="{escapeHtml(classes)}"', f'{data}="{escapeHtml(value)}"']
    for key, attr_value in token.attrs.items():
        if key not in ("class", data):
            parts.append(f'{escapeHtml(key)}="{escapeHtml(str(attr_value))}"')
    return " ".join(parts)


def render_reference(
    self: RendererProtocol, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an ``lmml_ref`` token."""
    token = tokens[idx]
    attributes = _attributes(token, "lmml-ref", "data-lmml-name", token.content)
    return f"<span {attributes}>@{escapeHtml(token.content)}</span>"


def render_embed(
    self: RendererProtocol, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an ``lmml_embed`` token."""
    token = tokens[idx]
    name = escapeHtml(token.info)
    classes = "lmml-embed" if token.meta.get("closed", True) else "lmml-embed lmml-unclosed"
    attributes = _attributes(token, classes, "data-lmml-name", token.info)
    return (
        f"<figure {attributes}>"
        f"<figcaption>{name}</figcaption>"
        f"<pre><code>{escapeHtml(token.content)}</code></pre></figure>\n"
    )


def render_role(
    self: RendererProtocol, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Render an ``lmml_role`` token."""
    token = tokens[idx]
    attributes = _attributes(token, "lmml-role", "data-lmml-role", token.info)
    return f"<div {attributes}>{escapeHtml(token.info)}</div>\n"
