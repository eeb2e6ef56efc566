"""Fixtures shared by the test modules."""

from _wire_server import server, wire_server
from test_preview_browser import browser

__all__ = ["browser", "server", "wire_server"]
