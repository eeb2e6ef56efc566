"""The documented path ``lmml_mdit.narrative.images``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_images`` (see docs/architecture.md)."""

from ._images import *  # noqa: F403
from ._images import __all__ as __all__
