"""Link destinations normalized without a URL parse where the parse changes nothing.

markdown-it normalizes every link, image and link-definition destination
(``MarkdownIt.normalizeLink``): it parses the URL (``mdurl.parse``), re-encodes a
non-ASCII host name, formats the parts back together and percent-encodes what is left. That
is about ten microseconds a link, a fifth of a whole parse of a chat that links in every
turn, and for the URLs chats are made of it returns the URL it was given.
:func:`normalize_link` returns a *simple URL* as it is and hands every other one to
markdown-it:

.. code-block:: text

   simple-url = absolute / relative
   absolute   = ( "http:" / "https:" ) "//" host [ ":" 1*5DIGIT ] [ "/" path ] [ tail ]
   relative   = [ pchar path / "/" [ pchar path ] ] [ tail ]   ; never starts with "//"
   host       = label *( "." label )           ; at most 255 characters
   label      = 1*63( ALPHA / DIGIT / "-" )
   path       = *( pchar / "/" )
   tail       = [ "?" *( pchar / "/" / "?" ) ] [ "#" *( pchar / "/" / "?" ) ]
   pchar      = ALPHA / DIGIT / "-" / "." / "_" / "~" / "!" / "$" / "&" / "'" / "(" / ")"
              / "*" / "+" / "," / ";" / "=" / "%" HEXDIG HEXDIG

Such a URL reads back from ``mdurl.parse`` part for part (no ``:`` or ``@`` outside the
scheme, so no other scheme, user or port is found; a host markdown-it accepts label by
label and keeps whole), its host is ASCII (nothing to re-encode), and each of its characters
is one ``mdurl.encode`` keeps, so markdown-it's answer is the URL itself. A property test
holds the two equal on generated URLs.

:class:`LinkParser` is markdown-it's parser with this normalization; the parser
:func:`lmml_mdit.parse` builds for itself is one (a parser of the user's own keeps its
``normalizeLink``).
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
