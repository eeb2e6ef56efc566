"""Where a text written into a turn may be parsed in pieces, with the same answer.

The importer escapes each message (:mod:`lmml_mdit.chat.escape`) and then reads what it
wrote back (:mod:`lmml_mdit.chat.writer`), both with the LMML parser. A parse holds the
tokens of all it is given, 30 to 300 times the text's size, so a long message is parsed
a piece at a time, cut only at a line where the parse of the text up to it cannot depend
on what follows it, nor the parse after it on what came before (a *reset point*).

A cut before line *m* is one of:

- a **block cut**: line *m - 1* is blank and line *m* begins with a character that
  starts a block of its own after a blank line (not a space, a tab, a digit, ``-``,
  ``+``, ``*`` or ``>``, which could continue a list, a block quote or an indented code
  block); a blank line ends every other open block, except those that run until their
  closing line (a code fence, an ``@@@`` fence, an HTML block such as ``<pre>`` or
  ``<!--``);
- a **line cut**: inside a run of non-blank *local lines*, between blank lines, where
  every line is local (:data:`LOCAL_LINE`): it starts no block and continues none in
  another way than as a paragraph line (no leading space, no ``#``, ``>``, list marker,
  thematic break, setext underline, table delimiter row, fence, HTML or link reference
  definition), and holds no character that opens an inline construct able to span lines
  (a code span, a link or image, raw HTML, an autolink). Such a paragraph is read line
  by line: its references, escapes and role headings (none) come out the same whether it
  is parsed whole or in runs of lines.

The blocks that run to a closing line are the one thing a cut cannot see. The caller
proves each piece closed by parsing it followed by a blank line and a role heading: when
that heading is read as a delimiter, nothing was open at the cut, and the text after the
cut starts fresh. A block's end is decided by the line that ends it (a table's by at most
the line after), so a piece parsed alone yields the same blocks as the whole text up to
the cut.
"""

from __future__ import annotations

import re

__all__ = ["LOCAL_LINE", "PIECE_CHARACTERS", "cut_offsets"]

PIECE_CHARACTERS = 16_384
"""The size of text (in characters) parsed at once when a text is parsed in pieces: a
parse costs up to about 300 times its input (one ``@name`` per line), so a piece keeps
a parse to a few megabytes, and a conversation of ordinary size is still one piece."""

LOCAL_LINE = re.compile(r"(?![\s\-+*>#=_`~<|\[:\d])(?!@@)[^`<\[\n]*")
"""A local line (matched in full): one a line cut may precede or follow (see above)."""

_BLOCK_CUT_LINE = re.compile(r"(?![\s\-+*>\d])")
"""The start of a line a block cut may precede (matched at the line's start)."""


def cut_offsets(text: str, start: int, end: int, spacing: int = PIECE_CHARACTERS) -> list[int]:
    """The offsets in ``text[start:end]`` (a region of whole lines) where the region may
    be cut: each the start of a line, after a block cut or inside a run of local lines,
    at least *spacing* characters after the previous one (or *start*).

    One pass over the lines, holding only the offsets it returns.

    :param text: the text, line endings as ``\\n``.
    :param start: the offset of the region's first line.
    :param end: the offset just past the region's last line (its newline excluded).
    """
    cuts: list[int] = []
    last = start  # the last cut kept, or the region's start
    tentative: list[int] = []  # line cuts in the current run, kept if the run is local
    run_local = True
    previous_blank = True  # the region starts as if after a blank line
    position = start
    while position <= end:
        line_end = text.find("\n", position, end)
        if line_end < 0:
            line_end = end
        blank = not text[position:line_end].strip()
        if blank:
            if run_local and tentative:
                cuts.extend(tentative)
            tentative = []
            run_local = True
        elif previous_blank:  # a run's first line: a block cut may precede it
            run_local = LOCAL_LINE.fullmatch(text, position, line_end) is not None
            eligible = _BLOCK_CUT_LINE.match(text, position) is not None
            if position > start and eligible and position - last >= spacing:
                cuts.append(position)
                last = position
        elif run_local:
            if LOCAL_LINE.fullmatch(text, position, line_end) is None:
                run_local = False
                last = cuts[-1] if cuts else start
                tentative = []
            elif position - last >= spacing:
                tentative.append(position)
                last = position
        previous_blank = blank
        position = line_end + 1
    if run_local:
        cuts.extend(tentative)
    return cuts
