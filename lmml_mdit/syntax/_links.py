"""Link destinations normalized without a URL parse where the parse changes nothing.

:func:`normalize_link` returns a *simple URL* as it is (markdown-it's answer for it is the
URL itself) and hands every other one to markdown-it's ``normalizeLink``;
:class:`LinkParser`, the parser :func:`lmml_mdit.parse` builds for itself, uses it. The
grammar and why it is safe: docs/performance.md, "Link destinations: normalized without a
URL parse".
"""

from __future__ import annotations

import functools
import re

from markdown_it import MarkdownIt
from markdown_it.common.normalize_url import normalizeLink as markdown_normalize_link

__all__ = ["LinkParser", "normalize_link"]

_PCHAR = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})"
_LABEL = r"[A-Za-z0-9-]{1,63}"


@functools.cache
def _simple_url() -> re.Pattern[str]:
    """The grammar above: a URL markdown-it's normalization returns unchanged (compiled
    at the first link, not when a command that reads none starts)."""
    return re.compile(
        rf"""
        (?:
            https?://(?P<host>{_LABEL}(?:\.{_LABEL})*)(?::[0-9]{{1,5}})?(?:/(?:{_PCHAR}|/)*)?
          | (?:{_PCHAR}(?:{_PCHAR}|/)*|/(?:{_PCHAR}(?:{_PCHAR}|/)*)?)?
        )
        (?:\?(?:{_PCHAR}|[/?])*)?
        (?:\#(?:{_PCHAR}|[/?])*)?
        """,
        re.VERBOSE,
    )


_MAX_HOST = 255
"""The longest host name ``mdurl.parse`` keeps (a longer one is dropped)."""


def normalize_link(url: str) -> str:
    """What markdown-it's ``normalizeLink`` makes of *url*: *url* itself when it is a simple
    URL (see the module's grammar), else markdown-it's own answer."""
    simple = _simple_url().fullmatch(url)
    if simple is not None:
        host = simple.group("host")
        if host is None or len(host) <= _MAX_HOST:
            return url
    return markdown_normalize_link(url)


class LinkParser(MarkdownIt):
    """markdown-it's parser, normalizing link destinations with :func:`normalize_link`:
    the same tokens and HTML, with no URL parse for a simple URL."""

    def normalizeLink(self, url: str) -> str:
        """:func:`normalize_link` of *url*."""
        return normalize_link(url)
