"""Fixtures shared by the test modules."""

from _wire_server import server, wire_server

__all__ = ["server", "wire_server"]
