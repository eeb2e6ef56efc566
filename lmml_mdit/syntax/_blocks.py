"""markdown-it's block parse, trying at each line only the rules that can start there.

:class:`DispatchingBlockParser` keeps markdown-it's loop and rules and skips only a call
to one of markdown-it's own rules that cannot succeed on the line's first character; the
tokens are those of markdown-it's loop. Only the parser :func:`lmml_mdit.parse` builds for
itself uses it. See docs/performance.md, "Block rules tried only where they can start".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markdown_it import rules_block
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block import StateBlock

__all__ = ["STARTS", "DispatchingBlockParser"]

Rule = Callable[[StateBlock, int, int, bool], bool]

STARTS: dict[Rule, frozenset[str]] = {
    rules_block.fence: frozenset("`~"),
    rules_block.blockquote: frozenset(">"),
    rules_block.hr: frozenset("*-_"),
    rules_block.list_block: frozenset("*-+0123456789"),
    rules_block.reference: frozenset("["),
    rules_block.html_block: frozenset("<"),
    rules_block.heading: frozenset("#"),
}
"""markdown-it's block rules that fail on a line whose first character (after its
indentation) is not one of these."""

_UNDERLINES = frozenset("-=")


class DispatchingBlockParser(ParserBlock):
    """markdown-it's block parser, trying at each line only the rules that can start there."""

    def __init__(self, ruler_from: ParserBlock) -> None:
        super().__init__()
        self.ruler = ruler_from.ruler  # the same rules, enabled and added as before
        self._plans: tuple[object, dict[str, list[Rule]], list[Rule]] | None = None

    def _plan(self, rules: Sequence[Rule]) -> tuple[dict[str, list[Rule]], list[Rule]]:
        """For each first character a rule of :data:`STARTS` takes, the rules to try on a
        line starting with it; and the rules for any other first character."""
        plans = self._plans
        if plans is not None and plans[0] is rules:
            return plans[1], plans[2]
        by_start: dict[str, list[Rule]] = {}
        for start in {char for rule in rules for char in STARTS.get(rule, ())}:
            by_start[start] = [rule for rule in rules if start in STARTS.get(rule, (start,))]
        other = [rule for rule in rules if rule not in STARTS]
        self._plans = (rules, by_start, other)
        return by_start, other

    def tokenize(self, state: StateBlock, startLine: int, endLine: int) -> None:
        """markdown-it's loop over the lines of the range, with the rules planned by the
        line's first character."""
        rules = self.ruler.getRules("")
        by_start, other = self._plan(rules)
        lheading = rules_block.lheading
        line = startLine
        maxNesting = state.md.options.maxNesting
        hasEmptyLines = False
        # Where the last underline scan stopped and what it found: every line before the
        # stop has the same answer, so a run of paragraphs cut short by headings or
        # comments with no blank line between is scanned once, not once per paragraph.
        underline_stop = -1
        underline_found = False
        src = state.src
        bMarks = state.bMarks
        tShift = state.tShift
        sCount = state.sCount

        while line < endLine:
            state.line = line = state.skipEmptyLines(line)
            if line >= endLine:
                break
            if sCount[line] < state.blkIndent:
                break
            if state.level >= maxNesting:
                state.line = endLine
                break

            candidates = by_start.get(src[bMarks[line] + tShift[line]], other)
            ok = False
            for rule in candidates:
                if rule is lheading:
                    if line >= underline_stop:
                        underline_stop, underline_found = _next_underline(state, line, endLine)
                    if not underline_found:
                        continue
                ok = rule(state, line, endLine, False)
                if ok:
                    if state.line <= line:
                        raise RuntimeError("block rule didn't increment state.line")
                    break
            if not ok:
                raise RuntimeError("none of the block rules matched")

            state.tight = not hasEmptyLines
            line = state.line
            if (line - 1) < endLine and state.isEmpty(line - 1):
                hasEmptyLines = True
            if line < endLine and state.isEmpty(line):
                hasEmptyLines = True
                line += 1
                state.line = line


def _next_underline(state: StateBlock, start: int, end: int) -> tuple[int, bool]:
    """The first line after *start* that is blank or where markdown-it's ``lheading`` rule
    could find a setext underline (it finds none elsewhere), and whether it is the latter.
    Every line from *start* up to the one returned has the same answer."""
    src = state.src
    bMarks = state.bMarks
    tShift = state.tShift
    eMarks = state.eMarks
    sCount = state.sCount
    indent = state.blkIndent
    line = start + 1
    while line < end:
        first = bMarks[line] + tShift[line]
        if first >= eMarks[line]:
            return line, False  # a blank line ends the paragraph
        if indent <= sCount[line] <= indent + 3 and src[first] in _UNDERLINES:
            return line, True
        line += 1
    return end, False
