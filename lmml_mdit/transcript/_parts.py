"""A transcript message's Markdown as content parts (``render_roles(..., parts=True)``).

The content is parsed once; its text stays as written, cut right after the first reference
to each asset the transcript carries, where that asset's parts go (built by
:mod:`lmml_mdit.chat`, in the OpenAI Chat part shape). See docs/transcript.md,
"Rendering from a point of view".
"""

from __future__ import annotations

from collections.abc import Mapping

from ..chat import Handler, build_parts
from ..conversation import Asset, Base64Cache, TextPart
from ..jsontypes import JSONObject
from ..media import media_type_for
from ..narrative import parse

__all__ = ["content_parts"]


def content_parts(
    content: str,
    assets: Mapping[str, bytes],
    *,
    handlers: Mapping[str, Handler] | None = None,
    cache: Base64Cache | None = None,
) -> list[JSONObject]:
    """Cut *content* into text parts and the parts of the carried assets it references.

    :param content: the message's Markdown.
    :param assets: the transcript's assets.
    :param handlers: per-call handlers, keyed by extension or media type.
    :param cache: a base64 cache shared by the messages of one render.
    :raises UnsupportedContentError: when no handler takes an asset's bytes.
    """
    from ..chat import Options
    from ..chat.providers.openai import content_part

    options = Options.from_kwargs({"handlers": dict(handlers or {})})
    cache = cache if cache is not None else Base64Cache()
    narrative = parse(content, known_names=assets)
    source = narrative.source
    line_starts = [0]
    for line in narrative.lines:
        line_starts.append(line_starts[-1] + len(line) + 1)

    parts: list[JSONObject] = []
    done = 0
    seen: set[str] = set()
    for embed in narrative.embeds:
        if embed.is_inline or embed.name in seen or embed.name not in assets:
            continue
        seen.add(embed.name)
        end = line_starts[embed.line - 1] + embed.column - 1 + 1 + len(embed.name)
        if end > done:
            parts.append(content_part(TextPart(source[done:end]), options))
            done = end
        data = assets[embed.name]
        asset = Asset(embed.name, data, media_type_for(embed.name, data), embed, cache)
        parts.extend(content_part(part, options) for part in build_parts(asset, options.handlers))
    if done < len(source) or not parts:
        parts.append(content_part(TextPart(source[done:]), options))
    return parts
