"""The documented path ``lmml_mdit.chat.template``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_template`` (see docs/architecture.md)."""

from ._template import *  # noqa: F403
from ._template import __all__ as __all__
