"""The bridge between chat-API payloads and LMML bundles.

Import: :func:`import_messages` reads one conversation (OpenAI Chat Completions, OpenAI
Responses, Anthropic Messages, Gemini or ShareGPT) into a bundle; :func:`import_path` does
it for a ``.json`` file or a ``.jsonl`` dataset. Export: the messages module gives the
provider payloads (``bundle.messages(provider)``); :func:`export_sharegpt` adds ShareGPT,
and :func:`export_folder` turns a folder of bundles into a JSONL dataset on all cores.
"""

from __future__ import annotations

from .detect import FORMATS, detect_format
from .export import EXPORT_PROVIDERS, ExportReport, export_bundle, export_folder
from .importer import import_messages, import_path, read_conversation
from .sharegpt import export_sharegpt

__all__ = [
    "EXPORT_PROVIDERS",
    "FORMATS",
    "ExportReport",
    "detect_format",
    "export_bundle",
    "export_folder",
    "export_sharegpt",
    "import_messages",
    "import_path",
    "read_conversation",
]
