"""lmml_mdit: LMML (Language Model Markup Language) for markdown-it-py."""

from __future__ import annotations

from .errors import LmmlError, LmmlSyntaxError
from .model import MESSAGE_ROLES, ROLES, Embed, Role, Turn
from .narrative import Narrative, parse
from .syntax import lmml_plugin

__version__ = "0.1.0"

__all__ = [
    "MESSAGE_ROLES",
    "ROLES",
    "Embed",
    "LmmlError",
    "LmmlSyntaxError",
    "Narrative",
    "Role",
    "Turn",
    "__version__",
    "lmml_plugin",
    "parse",
]
