"""The ``lmml`` command line, the top layer: it reads every layer below and nothing reads it."""

from __future__ import annotations

from .commands import main

__all__ = ["main"]
