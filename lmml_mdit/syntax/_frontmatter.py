"""Front matter: a leading ``---`` … ``---`` block is LMML metadata, in any pipeline.

:func:`add_front_matter` installs ``mdit_py_plugins.front_matter`` unless the parser has it,
with a render rule that writes nothing and a core rule that puts the block's decoded
mapping in ``env["lmml_front_matter"]`` (:data:`FRONT_MATTER_KEY`). See docs/syntax.md,
"Front matter" and "Results in env".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.front_matter import front_matter_plugin

from ..errors import LmmlError
from ..jsontypes import JSONObject

__all__ = ["FRONT_MATTER_KEY", "FRONT_MATTER_TOKEN", "add_front_matter", "decode_front_matter"]

FRONT_MATTER_KEY = "lmml_front_matter"
"""The ``env`` key of the decoded front matter mapping."""

FRONT_MATTER_TOKEN = "front_matter"
"""The token type of a leading metadata block."""

FRONT_MATTER_MARKER = "---"
"""The first line of front matter (white space after it allowed)."""

BlockRule = Callable[[StateBlock, int, int, bool], bool]


def add_front_matter(md: MarkdownIt) -> None:
    """Recognise front matter on *md* (unless a plugin already does) and record its
    mapping in ``env`` after the block pass."""
    if FRONT_MATTER_TOKEN not in md.block.ruler.get_all_rules():
        md.use(front_matter_plugin)
        ruler = md.block.ruler
        [installed] = [rule for rule in ruler.__rules__ if rule.name == FRONT_MATTER_TOKEN]
        ruler.at(FRONT_MATTER_TOKEN, _at_the_top(installed.fn), {"alt": list(installed.alt)})
        md.add_render_rule(FRONT_MATTER_TOKEN, _render_nothing)
    md.core.ruler.after("block", "lmml_front_matter", _record_front_matter)


def _at_the_top(rule: BlockRule) -> BlockRule:
    """*rule* (``mdit_py_plugins``' front matter rule) tried only at the document's top
    level and only on a first line that is ``---`` alone (white space after it allowed).

    Alone, the rule also takes the first line of a block nested in a container on the
    first line (``- 2. \\--`` over a less indented line), counting the character before
    the dashes as one, and it opens on any line starting with three dashes (a ``-----``
    thematic break, ``--- draft ---``): the text up to the next such line vanished."""

    def front_matter(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        return (
            state.parentType == "root"
            and start_line == 0
            and _is_opening(state.src[state.bMarks[0] : state.eMarks[0]])
            and rule(state, start_line, end_line, silent)
        )

    return front_matter


def _is_opening(line: str) -> bool:
    """Whether *line* opens front matter: ``---`` then nothing but spaces and tabs."""
    return line.rstrip(" \t") == FRONT_MATTER_MARKER


def _render_nothing(
    self: object, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return ""


def decode_front_matter(text: str) -> JSONObject | None:
    """The mapping of the front matter *text*, or None when it does not decode."""
    # The one loader of front matter is the bundle layer's (settings' limits and types);
    # imported here, in the one delegation of the syntax layer, so plain Markdown never
    # loads it.
    from ..bundle import load_front_matter

    try:
        return load_front_matter(text)
    except LmmlError:
        return None


def _record_front_matter(state: StateCore) -> None:
    tokens = state.tokens
    if tokens and tokens[0].type == FRONT_MATTER_TOKEN:
        state.env[FRONT_MATTER_KEY] = decode_front_matter(tokens[0].content)
    else:
        state.env.pop(FRONT_MATTER_KEY, None)
