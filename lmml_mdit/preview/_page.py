"""A self-contained, safe HTML preview of an LMML bundle.

:func:`render_html` turns a bundle into one page (a header, then one card per turn) that
needs no network and no JavaScript. It renders the narrative's own tokens
(:attr:`Narrative.tokens <lmml_mdit.narrative.Narrative.tokens>`), parsing
nothing again, and treats the transcript as untrusted: raw HTML shown as text, links
through :func:`is_safe_url`, a Content-Security-Policy. See docs/preview.md, "Safety" and
"How it works".
"""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import re
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict
from urllib.parse import unquote

from markdown_it.presets import commonmark
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from ..atomic import atomic_write_bytes
from ..bundle import BundleSource, is_remote_name, link_target, parse_remote
from ..bundle.reserved_embeds import RESERVED_NAMES
from ..errors import LimitExceededError, LmmlError
from ..formats import NARRATIVE_SUFFIX, ZIP_SIGNATURES
from ..jsontypes import JSONMapping
from ..media import (
    OCTET_STREAM,
    PLAIN_TEXT,
    SHOWN_IMAGE_TYPES,
    SVG_TYPE,
    ZIP_TYPE,
    guess_type,
    is_image_type,
    is_text_type,
    sniff,
)
from ..model import Turn
from ..narrative import (
    Narrative,
    image_asset_name,
    is_structure_name,
    numbered_turns,
    unsent_image_message,
    url_scheme,
)
from ..syntax import FRONT_MATTER_TOKEN, LATER_LABELS, SUSPICIOUS_KEY, marks_near_miss, reference
from ..text import is_unicode
from ._inputs import InputView
from ._style import PREVIEW_CSS

try:  # Pygments is optional (extra "highlight"); without it code is plain escaped text.
    from pygments import highlight as _pygments_highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from pygments.util import ClassNotFound
except ImportError:  # pragma: no cover - exercised by monkeypatching PYGMENTS_AVAILABLE
    PYGMENTS_AVAILABLE = False
else:
    PYGMENTS_AVAILABLE = True

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11 on

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DEFAULT_MAX_EMBEDDED_BYTES",
    "DEFAULT_MAX_IMAGE_BYTES",
    "DEFAULT_MAX_TEXT_BYTES",
    "MAX_HIGHLIGHT_CHARS",
    "SAFE_URL_SCHEMES",
    "PreviewOptions",
    "PreviewSource",
    "is_safe_url",
    "render_html",
    "sniff_media_type",
    "write_preview",
]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "base-uri 'none'; form-action 'none'"
)
"""The policy in the page's ``<meta http-equiv="Content-Security-Policy">``: no scripts, no
fetches, images only from ``data:`` URIs, styles only inline."""

SAFE_URL_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
"""The URL schemes a link in the narrative may use; scheme-less (relative) URLs pass too."""

DEFAULT_MAX_IMAGE_BYTES = 8 * 1024 * 1024
"""Images larger than this are shown as a chip instead of being embedded."""

DEFAULT_MAX_TEXT_BYTES = 512 * 1024
"""Text assets larger than this are shown as a chip instead of being expanded."""

DEFAULT_MAX_EMBEDDED_BYTES = 64 * 1024 * 1024
"""The page's budget for asset bytes copied into it (images, each time one is shown, and
text expansions). Without it, one large image referenced thousands of times would make a
page of gigabytes; once it is spent, further assets are shown as chips."""

_OPEN_LINE_LIMIT = 40
"""A text expansion with at most this many lines starts open; longer ones start folded."""

_CONTEXT_KEY = "lmml_preview"
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f]")
_PLAIN_HEADING_WORD = re.compile(r"[^\W\d_]+")
_PLAIN_HEADING_WORDS = frozenset({"turn", "user", "assistant", "system", "tool"})
_HEADING_NUMBER = re.compile(r"\d+")
_LINK_REL = "nofollow noopener noreferrer"


PreviewSource = BundleSource
"""What the preview reads from a bundle: the bundle layer's
:class:`~lmml_mdit.bundle.BundleSource` (:class:`lmml_mdit.Bundle` provides all of it)."""


# --------------------------------------------------------------------------- URL safety


def is_safe_url(url: str) -> bool:
    """Whether a link or image destination from the narrative may appear in the page.

    Browsers ignore ASCII whitespace and control characters inside a scheme
    (``java\\tscript:``), so they are dropped before the scheme is read; percent-escapes
    are decoded first, so ``java%09script:`` is refused too (stricter than a browser).

    :param url: the destination, entities already decoded (as markdown-it passes it).
    :return: True for scheme-less URLs and for the schemes in :data:`SAFE_URL_SCHEMES`.
    """
    scheme = url_scheme(_IGNORED_IN_URL.sub("", unquote(url)).lower())
    return scheme is None or scheme in SAFE_URL_SCHEMES


# --------------------------------------------------------------------------- media types


def sniff_media_type(data: bytes, name: str = "") -> str:
    """The media type of *data*: image formats by their signature, then text or binary.

    Images are recognised by content only (PNG, JPEG, GIF, WebP, SVG; see
    :func:`lmml_mdit.media.sniff`), never by name, so a mislabelled file is never shown as
    an image. Other types fall back to the name's extension (:func:`lmml_mdit.media.guess_type`),
    then to what the signature names (a PDF, a BMP image the page does not show, audio,
    video), then to ``application/zip`` by signature, then to ``text/plain`` for UTF-8
    without NUL bytes, else ``application/octet-stream``.

    :param data: the asset's bytes.
    :param name: the asset's name, used for non-image types.
    """
    sniffed = sniff(data)
    if sniffed in SHOWN_IMAGE_TYPES:
        return sniffed
    guessed = guess_type(name)
    if guessed is not None and not is_image_type(guessed):
        return guessed
    if sniffed is not None:
        return sniffed
    if data.startswith(ZIP_SIGNATURES):
        return ZIP_TYPE
    return PLAIN_TEXT if _as_text(data) is not None else OCTET_STREAM


def _as_text(data: bytes) -> str | None:
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None


def _format_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"


# --------------------------------------------------------------------------- highlighting


MAX_HIGHLIGHT_CHARS = 8 * 1024
"""The longest code (a fence, or a text asset) the preview colours, in characters; longer
code is shown escaped but uncoloured. Some Pygments lexers take time quadratic in their
input on ordinary text (Java's spends seconds on a few dozen kilobytes of words), so the
bound keeps a page's rendering time linear in its size."""


def _highlight(code: str, *, filename: str | None, language: str | None, enabled: bool) -> str:
    """Escaped HTML for *code*, coloured by Pygments when enabled, installed and *code* is at
    most :data:`MAX_HIGHLIGHT_CHARS` long."""
    if enabled and PYGMENTS_AVAILABLE and len(code) <= MAX_HIGHLIGHT_CHARS:
        lexer = _lexer(filename, language, code)
        if lexer is not None:
            return str(_pygments_highlight(code, lexer, _formatter()))
    return html.escape(code, quote=False)


@functools.cache
def _formatter() -> HtmlFormatter:  # type: ignore[type-arg]
    """The one formatter every highlight shares (making one builds its style table)."""
    return HtmlFormatter(nowrap=True)


def _lexer(filename: str | None, language: str | None, code: str) -> Lexer | None:
    # LMML source (an ``lmml`` code fence, a ``.lmml`` asset) gets the package's own lexer,
    # installed entry point or not.
    from ._lexer import LEXER_ALIAS, LmmlLexer

    try:
        if language:
            if language.lower() == LEXER_ALIAS:
                return LmmlLexer()
            return get_lexer_by_name(language)
        if filename:
            if filename.lower().endswith(NARRATIVE_SUFFIX):
                return LmmlLexer()
            return get_lexer_for_filename(filename, code)
    except ClassNotFound:
        return None
    return None


@functools.cache
def _pygments_css() -> str:
    """Pygments' token colours, scoped to the preview (its full stylesheet also styles bare
    ``pre`` and ``td`` elements, which would leak into a host page)."""
    if not PYGMENTS_AVAILABLE:
        return ""
    formatter = HtmlFormatter(style="default")
    rules = formatter.get_token_style_defs(".lmml-preview .highlight")  # type: ignore[no-untyped-call]
    return "\n".join(str(rule) for rule in rules) + "\n"


def _code_block(code: str, *, filename: str | None, language: str | None, enabled: bool) -> str:
    body = _highlight(code, filename=filename, language=language, enabled=enabled)
    return f'<pre class="highlight"><code>{body}</code></pre>'


# --------------------------------------------------------------------------- page state


@dataclass
class _ShownAsset:
    """What one embed name resolved to, computed once per page."""

    name: str
    media_type: str = ""
    size: int = 0
    data: bytes | None = None
    error: str | None = None
    too_large: bool = False
    expansion_id: str | None = None


@dataclass
class _Page:
    """Per-render state, reachable from render rules through ``env["lmml_preview"]``."""

    bundle: PreviewSource
    highlight: bool
    max_image_bytes: int
    max_text_bytes: int
    max_embedded_bytes: int = DEFAULT_MAX_EMBEDDED_BYTES
    assets: dict[str, _ShownAsset] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)
    expansions: int = 0
    embedded_bytes: int = 0
    links: list[str | None] = field(default_factory=list)
    """One entry per link being rendered: None for an ``<a>`` written, else the text that
    closes a refused link (its destination, shown as text)."""
    known: dict[str, bool] = field(default_factory=dict)
    inputs: InputView | None = None
    """How the template's placeholders are shown; None for a narrative without any."""
    tasks: _Tasks | None = None
    """Where the GFM task items and their lists stand in the token list being rendered
    (a turn's body, or part of it), found on its first list."""

    def spend(self, size: int) -> bool:
        """Take *size* bytes from the page's embedding budget; False when it is spent."""
        if self.embedded_bytes + size > self.max_embedded_bytes:
            return False
        self.embedded_bytes += size
        return True

    def asset(self, name: str) -> _ShownAsset:
        cached = self.assets.get(name)
        if cached is None:
            cached = self.assets[name] = self._resolve(name)
        return cached

    def _resolve(self, name: str) -> _ShownAsset:
        asset = _ShownAsset(name)
        limit = max(self.max_image_bytes, self.max_text_bytes)
        bundle = self.bundle
        try:
            # An archive entry or a file beside a bare narrative (not an inline fence, which
            # wins over both): its size first, so a large one is a chip, never read whole.
            if name not in bundle.fences and (
                name in bundle.entries or (bundle.kind == "text" and bundle.base_dir is not None)
            ):
                asset.size = bundle.entry_size(name)
                if asset.size > limit:
                    asset.too_large = True
                    asset.media_type = guess_type(name) or OCTET_STREAM
                    return asset
            data = bundle.embed(name)
        except LimitExceededError:  # the file is there, larger than the bundle's Limits
            asset.too_large = True
            asset.media_type = guess_type(name) or OCTET_STREAM
            return asset
        except LmmlError as error:
            asset.error = str(error)
            return asset
        asset.size = len(data)
        asset.media_type = sniff_media_type(data, name)
        asset.data = data
        if asset.media_type in SHOWN_IMAGE_TYPES:
            asset.too_large = asset.size > self.max_image_bytes
        elif is_text_type(asset.media_type):
            asset.too_large = asset.size > self.max_text_bytes
        return asset

    def has_asset(self, name: str) -> bool:
        """Whether the bundle resolves *name* (asked once per name and page)."""
        found = self.known.get(name)
        if found is None:
            found = self.known[name] = self.bundle.has_asset(name)
        return found

    def next_expansion_id(self) -> str:
        self.expansions += 1
        return f"lmml-asset-{self.expansions}"

    def flush(self) -> str:
        if not self.pending:
            return ""
        out = "".join(self.pending)
        self.pending.clear()
        return out


def _page_of(env: EnvType) -> _Page:
    page = env[_CONTEXT_KEY]
    assert isinstance(page, _Page)
    return page


# --------------------------------------------------------------------------- render rules


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _chip(
    name: str,
    meta: str,
    *,
    classes: str = "",
    label: str = "",
    label_class: str = "lmml-missing-label",
    title: str = "",
    at: bool = True,
) -> str:
    extra = f" {classes}" if classes else ""
    title_attr = f' title="{_attr(title)}"' if title else ""
    shown = reference(name) if at else name
    label_html = f'<span class="{label_class}">{html.escape(label)}</span>' if label else ""
    meta_html = f'<span class="lmml-chip-meta">{html.escape(meta)}</span>' if meta else ""
    return (
        f'<span class="lmml-chip{extra}" data-lmml-name="{_attr(name)}"{title_attr}>'
        f'<span class="lmml-chip-name">{html.escape(shown)}</span>{meta_html}{label_html}</span>'
    )


def _data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


_OVER_BUDGET = "not embedded: the page's budget for embedded assets (max_embedded_bytes) is spent"


def _budget_chip(asset: _ShownAsset, *, at: bool = True) -> str:
    meta = f"{asset.media_type} · {_format_size(asset.size)}"
    return _chip(asset.name, meta, classes="lmml-ref lmml-too-large", title=_OVER_BUDGET, at=at)


def _place_image(page: _Page, asset: _ShownAsset, *, caption: str, at: bool = True) -> str:
    """The image where it is referenced, or a chip once the page's budget is spent."""
    if not page.spend(asset.size):
        return _budget_chip(asset, at=at)
    return _image_html(asset, caption=caption)


def _image_html(asset: _ShownAsset, *, caption: str) -> str:
    assert asset.data is not None
    describe = f"{asset.name} ({asset.media_type}, {_format_size(asset.size)})"
    return (
        f'<span class="lmml-asset-image" data-lmml-name="{_attr(asset.name)}">'
        f'<img src="{_data_uri(asset.media_type, asset.data)}" alt="{_attr(asset.name)}"'
        f' title="{_attr(describe)}">'
        f'<span class="lmml-caption">{html.escape(caption)}</span></span>'
    )


def _line_count(text: str) -> int:
    """The lines *text* shows: a final newline ends its last line, it opens no other."""
    return text.count("\n") + (not text.endswith("\n"))


def _expansion(
    page: _Page,
    asset: _ShownAsset,
    text: str,
    *,
    open_: bool,
    note: str = "",
    filled: str | None = None,
) -> str:
    """The asset's text in a ``<details>`` block; *filled*: its HTML with a template's
    ``in_code`` placeholders shown (not highlighted), for an embed fence holding some."""
    expansion_id = page.next_expansion_id()
    asset.expansion_id = expansion_id
    lines = _line_count(text)
    opened = " open" if open_ and lines <= _OPEN_LINE_LIMIT else ""
    meta = f"{asset.media_type} · {_format_size(asset.size)} · {lines} line{'s' * (lines != 1)}"
    classes = "lmml-expansion"
    note_html = ""
    if note:
        classes += " lmml-unclosed"
        note_html = f'<span class="lmml-note">{html.escape(note)}</span>'
    if filled is not None:
        code = f'<pre class="highlight"><code>{filled}</code></pre>'
    else:
        code = _code_block(text, filename=asset.name, language=None, enabled=page.highlight)
    return (
        f'<details class="{classes}" id="{expansion_id}" data-lmml-name="{_attr(asset.name)}"'
        f"{opened}><summary>{_chip(asset.name, meta, at=False)}{note_html}</summary>"
        f"{code}</details>\n"
    )


def _render_reference(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    page = _page_of(env)
    name = tokens[idx].content
    asset = page.asset(name)
    if asset.error is not None:
        return _chip(name, "", classes="lmml-ref lmml-missing", label="missing", title=asset.error)
    if is_remote_name(name) and asset.data is not None:
        # Inside a link the remote asset is text: an <a> inside an <a> is invalid.
        return _remote_html(name, asset.data, linked=None not in page.links)
    meta = f"{asset.media_type} · {_format_size(asset.size)}"
    if asset.too_large:
        return _chip(name, meta, classes="lmml-ref lmml-too-large", title="too large to preview")
    if asset.media_type in SHOWN_IMAGE_TYPES and asset.data is not None:
        return _place_image(page, asset, caption=reference(name))
    text = _as_text(asset.data) if asset.data is not None else None
    if text is not None and is_text_type(asset.media_type):
        if asset.expansion_id is None:
            if not page.spend(asset.size):
                return _budget_chip(asset)
            page.pending.append(_expansion(page, asset, text, open_=True))
        return _chip(name, meta, classes="lmml-ref lmml-asset-text")
    return _chip(name, meta, classes="lmml-ref lmml-asset-binary")


_SHOWN_URL_CHARACTERS = 200
"""How much of a remote asset's URL or id the page shows (the link goes to all of it)."""


def _remote_html(name: str, data: bytes, *, linked: bool = True) -> str:
    """A remote asset (see :mod:`lmml_mdit.bundle._remote`): a link to an ``https``/``http``
    URL, anything else (a file id, another scheme) its text; never fetched. *linked*
    False: its text even for a URL (the reference sits inside a link already)."""
    try:
        remote = parse_remote(data, name=name)
    except LmmlError as error:
        return _chip(name, "", classes="lmml-ref lmml-missing", label="invalid", title=str(error))
    where = remote.url if remote.url is not None else f"{remote.provider} file {remote.file_id}"
    shown = where if len(where) <= _SHOWN_URL_CHARACTERS else where[:_SHOWN_URL_CHARACTERS] + "…"
    label = f"[remote {remote.kind}: {html.escape(shown)}]"
    target = link_target(remote.url) if remote.url is not None else None
    attributes = f'class="lmml-remote" data-lmml-name="{_attr(name)}"'
    if target is None or not linked:
        return f"<span {attributes}>{label}</span>"
    return f'<a {attributes} href="{_attr(target)}" rel="{_LINK_REL}">{label}</a>'


def _render_fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    page = _page_of(env)
    token = tokens[idx]
    name = token.info
    data = token.content.encode("utf-8")
    asset = _ShownAsset(name, media_type=sniff_media_type(data, name), size=len(data), data=data)
    if not is_text_type(asset.media_type) and asset.media_type not in SHOWN_IMAGE_TYPES:
        asset.media_type = PLAIN_TEXT  # a fence's content is always text
    note = "" if token.meta.get("closed", True) else "unclosed: runs to the end of its block"
    out = ""
    if asset.media_type == SVG_TYPE and asset.size <= page.max_image_bytes:
        image = _place_image(page, asset, caption=name, at=False)
        out = f'<div class="lmml-fence-image">{image}</div>\n'
    if is_remote_name(name):
        out = f'<div class="lmml-fence-remote">{_remote_html(name, data)}</div>\n'
    page.assets.setdefault(name, asset)
    # An in_code input fills an embed fence's text when it renders, so the page shows it
    # filled too (a fence read as structure takes no value: validate reports it).
    filled = None
    if page.inputs is not None and not is_structure_name(name) and name not in RESERVED_NAMES:
        filled = page.inputs.code(token.content)
    return out + _expansion(page, asset, token.content, open_=True, note=note, filled=filled)


def _render_code_fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    enabled = _page_of(env).highlight
    language = token.info.split(maxsplit=1)[0] if token.info.strip() else None
    code = token.content
    classes = f' class="language-{_attr(language)}"' if language else ""
    inputs = _page_of(env).inputs
    filled = inputs.code(code) if inputs is not None else None  # in_code inputs' values
    if filled is not None:
        body = filled
    else:
        body = _highlight(code, filename=None, language=language, enabled=enabled)
    return f'<pre class="highlight"><code{classes}>{body}</code></pre>\n'


def _render_image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Markdown images: never sent to the model (only their text is), so one with a
    relative destination is a "not sent" chip, never the image, even when it names a
    bundle asset; a remote one becomes a link, since the page fetches nothing; one with
    any other destination stays visible as its Markdown."""
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env)
    page = _page_of(env)
    name = image_asset_name(src)
    if name is not None:
        if page.has_asset(name):
            title = unsent_image_message(name)
        else:
            title = f"no asset {name!r} in the bundle; a Markdown image is not sent either way"
        return _chip(
            name,
            alt,
            classes="lmml-unsent",
            label="not sent",
            label_class="lmml-unsent-label",
            title=title,
            at=False,
        )
    if not is_safe_url(src):  # refused, and visible as written, as a refused link is
        return html.escape(f"![{alt}]({src})")
    label = f"[image: {html.escape(alt or src)}]"
    if None in page.links:  # an <a> inside an <a> is invalid; the outer link stays
        return f'<span class="lmml-remote">{label}</span>'
    return f'<a class="lmml-remote" href="{_attr(src)}" rel="{_LINK_REL}">{label}</a>'


def _render_link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A link to a safe destination, with ``rel``; any other stays visible as text. The
    shared tokens are read, never changed."""
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    page = _page_of(env)
    autolink = token.markup == "autolink"
    if not is_safe_url(href):
        page.links.append("&gt;" if autolink else f"]({html.escape(href)})")
        return "&lt;" if autolink else "["
    page.links.append(None)
    return f'<a href="{_attr(href)}"{_kept_attributes(token)} rel="{_LINK_REL}">'


_KEPT_ATTRIBUTES = frozenset({"class", "title", "start", "lang", "dir", "colspan", "rowspan"})
"""The attributes a token of the narrative keeps on the page. markdown-it sets few
(``start`` on a list, a table cell's alignment, a link's ``title``); a parser of your own
may set any (mdit-py-plugins' attrs: ``{#id style=...}``), and an ``id`` would clobber the
page's own, a ``style`` fetch a ``url()``, an event handler run."""

_CELL_ALIGNMENT = re.compile(r"text-align:(?:left|right|center)")


def _kept_attributes(token: Token) -> str:
    """*token*'s attributes as HTML, only those in :data:`_KEPT_ATTRIBUTES` and a table
    cell's ``text-align`` style; a link's ``href`` is written by its rule, once checked."""
    if not token.attrs:
        return ""
    return "".join(
        f' {key}="{_attr(str(value))}"'
        for key, value in token.attrs.items()
        if key in _KEPT_ATTRIBUTES or (key == "style" and _CELL_ALIGNMENT.fullmatch(str(value)))
    )


def _render_text(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Text, with a template's placeholders highlighted (see ``_inputs``)."""
    content = tokens[idx].content
    inputs = _page_of(env).inputs
    shown = inputs.text(content) if inputs is not None else None
    return shown if shown is not None else html.escape(content)


def _render_code_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A code span, with the placeholders of ``in_code`` inputs highlighted."""
    token = tokens[idx]
    inputs = _page_of(env).inputs
    shown = inputs.code(token.content) if inputs is not None else None
    if shown is None:
        return str(RendererHTML.code_inline(self, tokens, idx, options, env))
    return f"<code{self.renderAttrs(token)}>{shown}</code>"


def _render_link_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    links = _page_of(env).links
    if not links:  # a close without its open (tokens not from a parse): nothing to close
        return ""
    closing = links.pop()
    return "</a>" if closing is None else closing


_TASK = re.compile(r"\[[ xX]\][ \t\n\v\f\r]")
"""A GFM task item's opening: ``[ ]``, ``[x]`` or ``[X]``, then whitespace."""


@dataclass
class _Tasks:
    """The token indices of the task items (``- [x] done``) and of the lists holding one,
    in *tokens*."""

    tokens: Sequence[Token]
    items: set[int]
    lists: set[int]


def _find_tasks(tokens: Sequence[Token]) -> _Tasks:
    """The task items of *tokens* (a list item whose first paragraph opens with a task
    box, as GitHub reads it) and the lists holding them, in one pass."""
    tasks = _Tasks(tokens, set(), set())
    open_lists: list[int] = []
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            open_lists.append(index)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            if open_lists:
                open_lists.pop()
        elif (
            kind == "list_item_open"
            and index + 2 < len(tokens)
            and tokens[index + 1].type == "paragraph_open"
            and tokens[index + 2].type == "inline"
            and _TASK.match(tokens[index + 2].content)
        ):
            tasks.items.add(index)
            if open_lists:
                tasks.lists.add(open_lists[-1])
    return tasks


def _tasks_of(page: _Page, tokens: Sequence[Token]) -> _Tasks:
    """The tasks of *tokens*: each turn's body (or part of one) is its own list, with its
    own indices, so the ones found are kept only while that list is rendered (it is held,
    so its identity cannot pass to another list)."""
    if page.tasks is None or page.tasks.tokens is not tokens:
        page.tasks = _find_tasks(tokens)
    return page.tasks


def _render_list_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A list, marked ``contains-task-list`` when an item of it is a task."""
    opened = self.renderToken(tokens, idx, options, env)
    if idx in _tasks_of(_page_of(env), tokens).lists:
        opened = opened.replace(">", ' class="contains-task-list">', 1)
    return opened


def _render_list_item_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A list item, marked ``task-list-item`` when it is a task."""
    opened = self.renderToken(tokens, idx, options, env)
    if idx in _tasks_of(_page_of(env), tokens).items:
        opened = opened.replace(">", ' class="task-list-item">', 1)
    return opened


def _task_inline(
    renderer: RendererHTML, children: list[Token], options: OptionsDict, env: EnvType
) -> str:
    """A task item's text: a disabled checkbox (checked for ``[x]``), then the text after
    the box. The shared tokens are read, never changed: the first is copied, cut."""
    first = children[0]
    checked = ' checked="checked"' if first.content[1] in "xX" else ""
    box = f'<input class="task-list-item-checkbox"{checked} disabled="disabled" type="checkbox">'
    rest = first.copy(content=first.content[3:])
    return box + renderer.renderInline([rest, *children[1:]], options, env)


def _render_html_block(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Raw HTML is text to the model, and shown as text: escaped, never live markup."""
    content = html.escape(tokens[idx].content, quote=False)
    return f'<pre class="lmml-raw-html"><code>{content}</code></pre>\n'


def _render_html_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    content = html.escape(tokens[idx].content, quote=False)
    return f'<span class="lmml-raw-html">{content}</span>'


def _render_block_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Close the block, then place the expansions of the text assets it referenced: a
    ``<details>`` cannot sit inside a paragraph or heading."""
    return self.renderToken(tokens, idx, options, env) + _page_of(env).flush()


def _render_nothing(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Front matter is metadata, never sent and never a turn's text."""
    return ""


_OPTIONS = OptionsDict(commonmark.make()["options"])
"""The render options: the ``commonmark`` preset's (XHTML-style void elements, no
``breaks``); ``html`` is moot, since raw HTML has rules of its own."""

_RULES: dict[str, Callable[..., str]] = {
    "lmml_ref": _render_reference,
    "lmml_embed": _render_fence,
    "fence": _render_code_fence,
    "code_block": _render_code_fence,
    "image": _render_image,
    "link_open": _render_link_open,
    "link_close": _render_link_close,
    "text": _render_text,
    "code_inline": _render_code_inline,
    "html_block": _render_html_block,
    "html_inline": _render_html_inline,
    FRONT_MATTER_TOKEN: _render_nothing,
    "bullet_list_open": _render_list_open,
    "ordered_list_open": _render_list_open,
    "list_item_open": _render_list_item_open,
    "paragraph_close": _render_block_close,
    "heading_close": _render_block_close,
    "th_close": _render_block_close,
    "td_close": _render_block_close,
}


class _PageRenderer(RendererHTML):
    """markdown-it's HTML renderer, the same output with less work per token: a token's
    rule is looked up once, and a tag without attributes skips the attribute loop. A page
    renders every token of the narrative, and this saves about a tenth of its rendering."""

    @staticmethod
    def renderAttrs(token: Token) -> str:
        return RendererHTML.renderAttrs(token) if token.attrs else ""

    def render(self, tokens: Sequence[Token], options: OptionsDict, env: EnvType) -> str:
        rules = self.rules
        render_inline = self.renderInline
        out: list[str] = []
        for index, token in enumerate(tokens):
            token_type = token.type
            if token_type == "inline":
                children = token.children
                if not children:
                    continue
                if (
                    index >= 2
                    and tokens[index - 2].type == "list_item_open"
                    and children[0].type == "text"
                    and _TASK.match(children[0].content + " ") is not None
                    and index - 2 in _tasks_of(_page_of(env), tokens).items
                ):
                    out.append(_task_inline(self, children, options, env))
                else:
                    out.append(render_inline(children, options, env))
                continue
            rule = rules.get(token_type)
            if rule is None:
                out.append(self.renderToken(tokens, index, options, env))
            else:
                out.append(rule(tokens, index, options, env))
        return "".join(out)

    def renderInline(self, tokens: Sequence[Token], options: OptionsDict, env: EnvType) -> str:
        rules = self.rules
        out: list[str] = []
        for index, token in enumerate(tokens):
            rule = rules.get(token.type)
            if rule is None:
                out.append(self.renderToken(tokens, index, options, env))
            else:
                out.append(rule(tokens, index, options, env))
        return "".join(out)


class _PreviewRenderer(_PageRenderer):
    """The page's renderer: of a token's attributes it writes only the harmless ones
    (:func:`_kept_attributes`), whatever parser made the tokens."""

    @staticmethod
    def renderAttrs(token: Token) -> str:
        return _kept_attributes(token)

    def renderToken(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        """A token with no rule. markdown-it's own all have a tag and no text of their own;
        a plugin's (a parser of your own: footnotes, math) may have no tag, or hold its text:
        it shows that text, escaped, in its element if it has one, never an empty tag."""
        token = tokens[idx]
        if token.nesting == 0 and token.content and not token.children:
            text = html.escape(token.content)
            if not token.tag:
                return text
            return f"<{token.tag}{self.renderAttrs(token)}>{text}</{token.tag}>" + (
                "\n" if token.block else ""
            )
        if not token.tag:
            return ""
        return str(super().renderToken(tokens, idx, options, env))


@functools.cache
def _preview_renderer() -> RendererHTML:
    """The renderer of the narrative's tokens: markdown-it's HTML renderer with the rules
    above. Shared and stateless: per-page state lives in ``env["lmml_preview"]``."""
    renderer = _PreviewRenderer()
    for token_type, rule in _RULES.items():
        renderer.rules[token_type] = types.MethodType(rule, renderer)
    return renderer


# --------------------------------------------------------------------------- page


def _turn_slices(
    narrative: Narrative,
) -> Iterator[tuple[int, Turn, int | None, list[Token]]]:
    """Each turn with its number, its delimiter token's index and the tokens of its body
    (the delimiters' token positions come from the narrative's structure index)."""
    tokens = narrative.tokens
    delimiters = narrative.index.delimiters
    numbered = list(numbered_turns(narrative.turns))
    if numbered and numbered[0][1].delimiter_line is None:
        end = delimiters[0].token if delimiters else len(tokens)
        number, turn = numbered.pop(0)
        yield number, turn, None, tokens[:end]
    for index, ((number, turn), delimiter) in enumerate(zip(numbered, delimiters, strict=True)):
        # A heading's body starts after its inline and heading_close tokens.
        start = delimiter.token + (3 if delimiter.kind == "heading" else 1)
        end = delimiters[index + 1].token if index + 1 < len(delimiters) else len(tokens)
        yield number, turn, delimiter.token, tokens[start:end]


def _read_heading(text: str) -> tuple[bool, str | None]:
    """Whether a delimiter heading is plain (only its role, maybe "Turn", and at most one
    number), and the number it states, if any."""
    words = _PLAIN_HEADING_WORD.findall(text)
    numbers = _HEADING_NUMBER.findall(text)
    plain = len(numbers) <= 1 and all(word.lower() in _PLAIN_HEADING_WORDS for word in words)
    return plain, (numbers[0] if plain and numbers else None)


def _same_number(stated: str, number: int) -> bool:
    # int() of an arbitrarily long digit run may be refused; no turn number is that long.
    return len(stated) <= 18 and int(stated) == number


def _numbers_agree(narrative: Narrative) -> bool:
    """Whether every plain heading that states a number states the turn's own number, so
    that the page may show its own numbers without contradicting the author's."""
    for number, turn in numbered_turns(narrative.turns):
        if turn.heading is not None:
            _, stated = _read_heading(turn.heading)
            if stated is not None and not _same_number(stated, number):
                return False
    return True


def _render_turn(
    page: _Page,
    env: EnvType,
    turn: Turn,
    number: int,
    show_number: bool,
    delimiter: int | None,
    body: list[Token],
    tokens: Sequence[Token],
) -> str:
    """One card. Its header shows the role and, when *show_number*, the turn's number
    (:func:`~lmml_mdit.narrative.numbered_turns`); the heading's own text is shown when it
    says more than that: words beyond the role, or a number the page does not show."""
    renderer = _preview_renderer()
    role = turn.role
    title = ""
    if delimiter is not None and tokens[delimiter].type == "heading_open":
        inline = tokens[delimiter + 1]
        plain, stated = _read_heading(inline.content)
        if not plain or (stated is not None and not show_number):
            rendered = renderer.renderInline(inline.children or [], _OPTIONS, env)
            title = f'<span class="lmml-turn-title">{rendered}</span>'
    context = role == "context"
    number_html = ""
    if show_number and not context:
        number_html = f'<span class="lmml-turn-number">Turn {number}</span>'
    if turn.delimiter_line is not None:
        lines = f"line {turn.delimiter_line}"
    else:
        lines = f"lines {turn.start_line}–{turn.end_line}"
    header = (
        f'<header class="lmml-turn-header"><h2>'
        f'<span class="lmml-role-badge">{html.escape(role)}</span>{number_html}{title}</h2>'
        f'<span class="lmml-turn-lines">{html.escape(lines)}</span></header>\n'
    )
    after_header = page.flush()
    content = _render_body(renderer, body, env) if body else ""
    content += page.flush()
    if not content.strip():
        content = '<p class="lmml-empty">(empty turn)</p>\n'
    anchor = "turn-context" if context else f"turn-{number}"
    return (
        f'<section class="lmml-turn lmml-turn-{html.escape(role)}" id="{anchor}"'
        f' data-lmml-role="{html.escape(role)}">\n{header}{after_header}'
        f'<div class="lmml-turn-body">\n{content}</div>\n</section>\n'
    )


def _render_body(renderer: RendererHTML, body: list[Token], env: EnvType) -> str:
    """A turn's blocks as HTML, each top-level block shaped like a delimiter that is none
    (``meta["lmml_suspicious"]``, see :mod:`lmml_mdit.syntax`) preceded by a visible
    mark saying why, at its line."""
    marked = [index for index, token in enumerate(body) if marks_near_miss(token)]
    if not marked:
        return renderer.render(body, _OPTIONS, env)
    parts: list[str] = []
    start = 0
    for index in marked:
        parts.append(renderer.render(body[start:index], _OPTIONS, env))
        token = body[index]
        first = token.meta.get(SUSPICIOUS_KEY)
        # A paragraph's label lines after its first are marked before it too, each with
        # its own line.
        said = [] if first is None else [(0, *first)]
        for offset, _, message in (*said, *token.meta.get(LATER_LABELS, ())):
            line = token.map[0] + 1 + offset if token.map else 0
            parts.append(
                f'<p class="lmml-suspicious" role="note" data-lmml-line="{line}">'
                '<span class="lmml-suspicious-label">suspicious delimiter</span> '
                f"{html.escape(f'line {line}: {message}')}</p>\n"
            )
        start = index
    parts.append(renderer.render(body[start:], _OPTIONS, env))
    return "".join(parts)


def _summary_value(value: object, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _meta_section(title: str, read: Callable[[], JSONMapping | None]) -> str:
    try:
        values = read()
    except LmmlError as error:
        return (
            f'<section class="lmml-meta lmml-{title.lower()}"><h2>{title}</h2>'
            f'<p class="lmml-meta-error">invalid: {html.escape(str(error))}</p></section>\n'
        )
    if not values:
        return ""
    items = list(values.items())
    shown = items[:50]
    rows = "".join(
        f"<dt>{html.escape(_summary_value(key, 80))}</dt>"
        f"<dd>{html.escape(_summary_value(value))}</dd>"
        for key, value in shown
    )
    if len(items) > len(shown):
        rows += f"<dt>…</dt><dd>{len(items) - len(shown)} more</dd>"
    return (
        f'<section class="lmml-meta lmml-{title.lower()}"><h2>{title}</h2>'
        f"<dl>{rows}</dl></section>\n"
    )


def _page_header(bundle: PreviewSource, narrative: Narrative, title: str) -> str:
    counts: dict[str, int] = {}
    for turn in narrative.turns:
        counts[turn.role] = counts.get(turn.role, 0) + 1
    by_role = ", ".join(f"{role} {count}" for role, count in counts.items())
    turns = len(narrative.turns)
    assets = [name for name in bundle.entries if name not in bundle.RESERVED_NAMES]
    count = f"{len(assets)} asset{'s' * (len(assets) != 1)}"
    if bundle.kind == "text" and bundle.base_dir is not None:
        # A bare narrative has no entries: its assets are the files beside it it references.
        files = [
            name
            for name, embed in narrative.first_embeds.items()
            if not embed.is_inline and bundle.has_asset(name)
        ]
        count = f"{len(files)} file{'s' * (len(files) != 1)} from its folder"
    parts = [
        f"{bundle.kind} bundle",
        _named(bundle.narrative_name),
        f"{turns} turn{'s' * (turns != 1)}" + (f" ({by_role})" if by_role else ""),
        count,
    ]
    summary = " · ".join(html.escape(part) for part in parts)
    return (
        f'<header class="lmml-page-header">\n<h1>{html.escape(title)}</h1>\n'
        f'<p class="lmml-summary">{summary}</p>\n'
        + _meta_section("Manifest", lambda: bundle.manifest)
        + _meta_section("Settings", lambda: bundle.settings)
        + "</header>\n"
    )


def _assets_footer(bundle: PreviewSource) -> str:
    reserved = bundle.RESERVED_NAMES
    chips = []
    for name in bundle.entries:
        if name in reserved:
            continue
        try:
            size = _format_size(bundle.entry_size(name))
        except LmmlError:
            size = "size unknown"
        media_type = guess_type(name) or OCTET_STREAM
        chips.append(f"<li>{_chip(name, f'{media_type} · {size}', at=False)}</li>")
    if not chips:
        return ""
    return (
        '<section class="lmml-assets"><h2>Archive entries</h2>\n<ul>'
        + "".join(chips)
        + "</ul></section>\n"
    )


def _check_arguments(title: object, *budgets: object) -> None:
    """Refuse a wrong argument at once, with a plain message, rather than deep inside."""
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str or None, not {type(title).__name__}")
    if isinstance(title, str) and not is_unicode(title):
        raise ValueError("title holds a lone surrogate, which the UTF-8 page cannot hold")
    for budget in budgets:
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise TypeError(
                "max_image_bytes, max_text_bytes and max_embedded_bytes must be ints, "
                f"not {type(budget).__name__}"
            )
        if budget < 0:
            raise ValueError(
                "max_image_bytes, max_text_bytes and max_embedded_bytes must not be negative"
            )


def render_html(
    bundle: PreviewSource,
    *,
    title: str | None = None,
    fragment: bool = False,
    highlight: bool = True,
    max_image_bytes: int = DEFAULT_MAX_IMAGE_BYTES,
    max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES,
    max_embedded_bytes: int = DEFAULT_MAX_EMBEDDED_BYTES,
    inputs: Mapping[str, object] | None = None,
) -> str:
    """Render *bundle* as one self-contained, script-free HTML page.

    :param bundle: the bundle (:class:`lmml_mdit.Bundle` or anything with its attributes).
    :param title: the page title and heading; defaults to the bundle's name.
    :param fragment: return only the ``<div class="lmml-preview">`` (with its scoped
        ``<style>``) for embedding in another page, instead of a whole document.
    :param highlight: colour code with Pygments when it is installed.
    :param max_image_bytes: images larger than this are shown as a chip, not embedded.
    :param max_text_bytes: text assets larger than this are shown as a chip, not expanded.
    :param max_embedded_bytes: the page's budget for asset bytes it copies in (every image
        shown, counted each time, and every text expansion); once spent, further assets
        are chips. The text of inline fences is part of the narrative and is not counted.
    :param inputs: a template's input values (see :doc:`/templates`): each placeholder
        is shown highlighted with its value, its default, or marked unfilled (without
        values, defaults and unfilled marks only).
    :raises InputError: for a value no input declares, or one its declaration refuses.
    :raises ValueError: for a negative size limit, or a title holding a lone surrogate.
    :raises TypeError: for a title that is not a str, or a size limit that is not an int.
    :raises LmmlError: only if the narrative itself cannot be read (assets that cannot be
        resolved are marked "missing" in the page instead).
    """
    _check_arguments(title, max_image_bytes, max_text_bytes, max_embedded_bytes)
    narrative = bundle.narrative
    bundle.warn_defects()
    page = _Page(
        bundle=bundle,
        highlight=highlight,
        max_image_bytes=max_image_bytes,
        max_text_bytes=max_text_bytes,
        max_embedded_bytes=max_embedded_bytes,
    )
    if inputs is not None and not isinstance(inputs, Mapping):
        raise TypeError(f"inputs must be a mapping, not {type(inputs).__name__}")
    if narrative.placeholders.found or inputs:
        page.inputs = InputView(bundle, inputs, spend=page.spend, max_image_bytes=max_image_bytes)
    env: EnvType = {_CONTEXT_KEY: page}
    heading = _named(title if title is not None else bundle.name)
    cards: list[str] = []
    show_numbers = _numbers_agree(narrative)
    tokens = narrative.tokens
    for number, turn, delimiter, body in _turn_slices(narrative):
        cards.append(_render_turn(page, env, turn, number, show_numbers, delimiter, body, tokens))
    if not cards:
        cards.append('<p class="lmml-empty">(the narrative is empty)</p>\n')
    style = PREVIEW_CSS + (_pygments_css() if highlight else "")
    body_html = (
        f'<div class="lmml-preview">\n<style>{style}</style>\n'
        + _page_header(bundle, narrative, heading)
        + '<main class="lmml-turns">\n'
        + "".join(cards)
        + "</main>\n"
        + _assets_footer(bundle)
        + "</div>\n"
    )
    if fragment:
        return body_html
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n"
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(heading)} · LMML preview</title>\n"
        "</head>\n<body>\n" + body_html + "</body>\n</html>\n"
    )


def _named(name: str) -> str:
    """*name* as a page can hold it: a lone surrogate (a file name that is not UTF-8) is
    written as its escape, ``\\xff`` for an undecodable byte, as the command line shows it."""
    if is_unicode(name):
        return name
    return "".join(
        char
        if not 0xD800 <= ord(char) <= 0xDFFF
        else f"\\x{ord(char) - 0xDC00:02x}"
        if 0xDC80 <= ord(char) <= 0xDCFF
        else f"\\u{ord(char):04x}"
        for char in name
    )


class PreviewOptions(TypedDict, total=False):
    """The keyword options of :func:`render_html`, as :func:`write_preview` passes them on
    (a test keeps the two lists equal)."""

    title: str | None
    fragment: bool
    highlight: bool
    max_image_bytes: int
    max_text_bytes: int
    max_embedded_bytes: int
    inputs: Mapping[str, object] | None


def write_preview(
    bundle: PreviewSource, path: str | os.PathLike[str], **options: Unpack[PreviewOptions]
) -> None:
    """Write :func:`render_html` of *bundle* to *path* atomically (see
    :func:`lmml_mdit.atomic.atomic_write`: a temporary file in the same folder, flushed and
    synced, then renamed over *path*; a symbolic link is written through).

    :param options: passed to :func:`render_html`.
    :raises WriteError: (an :class:`OSError`) when *path* is not a regular file (a folder, a
        device, a FIFO) or the folder cannot be written.
    """
    atomic_write_bytes(path, render_html(bundle, **options).encode("utf-8"))
