"""The documented path ``lmml_mdit.run.api``, kept: its names, from ``lmml_mdit.run``'s
private module ``_api`` (see docs/architecture.md)."""

from ._api import *  # noqa: F403
from ._api import __all__ as __all__
