"""The documented path ``lmml_mdit.cli.templates``, kept: its names, from
``lmml_mdit.cli``'s private module ``_templates`` (see docs/architecture.md)."""

from ._templates import *  # noqa: F403
from ._templates import __all__ as __all__
