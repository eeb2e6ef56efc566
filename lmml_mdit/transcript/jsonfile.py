"""The documented path ``lmml_mdit.transcript.jsonfile``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_jsonfile`` (see docs/architecture.md)."""

from __future__ import annotations

from ._jsonfile import (
    FORMAT_NAME,
    SCHEMA_VERSION,
    dump_data,
    load_data,
    read_file,
    write_file,
)

__all__ = ["FORMAT_NAME", "SCHEMA_VERSION", "dump_data", "load_data", "read_file", "write_file"]
