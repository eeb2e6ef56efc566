"""The documented path ``lmml_mdit.chat.handlers``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_handlers`` (see docs/architecture.md)."""

from __future__ import annotations

from ._handlers import (
    Asset,
    AudioPart,
    Base64Cache,
    DocumentPart,
    Handler,
    ImagePart,
    Part,
    RemotePart,
    TextFilePart,
    TextPart,
    VideoPart,
    build_parts,
    register_handler,
    registered_handlers,
    unregister_handler,
)

__all__ = [
    "Asset",
    "AudioPart",
    "Base64Cache",
    "DocumentPart",
    "Handler",
    "ImagePart",
    "Part",
    "RemotePart",
    "TextFilePart",
    "TextPart",
    "VideoPart",
    "build_parts",
    "register_handler",
    "registered_handlers",
    "unregister_handler",
]
