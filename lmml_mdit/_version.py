"""The package's version: the one place it is written (``pyproject.toml`` reads it here)."""

from __future__ import annotations

__version__ = "0.3.0"

VERSION_LINE = f"lmml {__version__}"
"""What ``lmml --version`` prints."""
