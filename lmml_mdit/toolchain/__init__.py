"""The tool-chain layer: plugins that make LMML at home in the tools people already run on
Markdown (mdformat, Sphinx and MyST). Each module imports its tool only when used, from an
optional extra."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._config import MdformatConfig as MdformatConfig
    from ._config import mdformat_config as mdformat_config
    from ._formatter import format_text as format_text
    from ._formatter import outline as outline

# On first use: a Sphinx build loads its extension alone.
_NAMES = {
    "MdformatConfig": "._config",
    "format_text": "._formatter",
    "mdformat_config": "._config",
    "outline": "._formatter",
}
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
