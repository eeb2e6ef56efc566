"""The documented path ``lmml_mdit.bundle.setting_values``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_setting_values`` (see docs/architecture.md)."""

from ._setting_values import *  # noqa: F403
from ._setting_values import __all__ as __all__
