"""lmml_mdit: LMML (Language Model Markup Language) for markdown-it-py.

The layers, each reading only from the ones above it in this list:

- :func:`lmml_plugin` — the syntax as markdown-it rules;
- :func:`parse` / :class:`Narrative` — one parse read into embeds and turns;
- :func:`open` / :class:`Bundle` — ``.lmml`` and ``.lmmlz`` files and their assets;
- :func:`render_turns` / :meth:`Bundle.messages` / :meth:`Bundle.to_request` — chat-API payloads;
- :func:`render_html` — the HTML preview;
- :class:`Transcript` — conversations edited in code, with :func:`flatten` for strict chat
  templates;
- :func:`import_messages` / :func:`export_folder` — the bridge to provider chat formats.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    BundleError,
    BundleNotFoundError,
    CaseCollisionError,
    ChatTemplateError,
    ConflictingEmbedError,
    DefectError,
    DuplicateEntryError,
    EmbedBudgetError,
    EncryptedEntryError,
    ImportFormatError,
    InvalidManifestError,
    InvalidSettingsError,
    InvalidToolCallError,
    InvalidZipError,
    LimitExceededError,
    LmmlError,
    LmmlSyntaxError,
    MessageNotFoundError,
    MissingEntryError,
    MissingNarrativeError,
    MissingPluginError,
    NotInlinableError,
    NotLmmlError,
    ReadOnlyTranscriptError,
    SymlinkEntryError,
    TranscriptError,
    TranscriptFormatError,
    TranscriptIndexError,
    TranscriptTypeError,
    UnresolvableReferenceError,
    UnsafeEntryError,
    UnsupportedContentError,
    WriteError,
)

# Eager, since the submodule lmml_mdit.flatten would otherwise shadow the function.
from .flatten import FlattenFlags, detect_template_flags, flatten
from .model import (
    ERROR_KINDS,
    MESSAGE_ROLES,
    ROLES,
    Embed,
    Issue,
    Role,
    Turn,
)

if TYPE_CHECKING:
    from .bridge import (
        ExportReport,
        detect_format,
        export_folder,
        export_sharegpt,
        import_messages,
        import_path,
    )
    from .bundle import (
        Bundle,
        DefectWarning,
        Limits,
        open,
    )
    from .content import (
        EmbedOmittedWarning,
        SystemContentWarning,
        UnknownSettingWarning,
    )
    from .export_md import (
        to_markdown,
    )
    from .handlers import (
        Asset,
        AudioPart,
        DocumentPart,
        ImagePart,
        TextFilePart,
        TextPart,
        register_handler,
        unregister_handler,
    )
    from .messages import (
        MessageList,
        render_payload,
        render_turns,
        to_request,
    )
    from .narrative import (
        Narrative,
        parse,
    )
    from .packing import (
        InlineReport,
        OrphanedEntryWarning,
    )
    from .preview import (
        render_html,
        write_preview,
    )
    from .syntax import (
        lmml_plugin,
    )
    from .toolcalls import (
        ToolCall,
        tool_call_fence,
        tool_call_issues,
    )
    from .transcript import (
        Message,
        MessageRef,
        Transcript,
    )

# The rest of the API is imported on first use (PEP 562), so ``import lmml_mdit`` and the
# ``lmml`` command stay quick: a command loads only the layers it needs.
_LAZY: dict[str, str] = {
    "ExportReport": ".bridge",
    "detect_format": ".bridge",
    "export_folder": ".bridge",
    "export_sharegpt": ".bridge",
    "import_messages": ".bridge",
    "import_path": ".bridge",
    "Bundle": ".bundle",
    "DefectWarning": ".bundle",
    "Limits": ".bundle",
    "open": ".bundle",
    "EmbedOmittedWarning": ".content",
    "SystemContentWarning": ".content",
    "UnknownSettingWarning": ".content",
    "to_markdown": ".export_md",
    "Asset": ".handlers",
    "AudioPart": ".handlers",
    "DocumentPart": ".handlers",
    "ImagePart": ".handlers",
    "TextFilePart": ".handlers",
    "TextPart": ".handlers",
    "register_handler": ".handlers",
    "unregister_handler": ".handlers",
    "MessageList": ".messages",
    "render_payload": ".messages",
    "render_turns": ".messages",
    "to_request": ".messages",
    "Narrative": ".narrative",
    "parse": ".narrative",
    "InlineReport": ".packing",
    "OrphanedEntryWarning": ".packing",
    "render_html": ".preview",
    "write_preview": ".preview",
    "lmml_plugin": ".syntax",
    "ToolCall": ".toolcalls",
    "tool_call_fence": ".toolcalls",
    "tool_call_issues": ".toolcalls",
    "Message": ".transcript",
    "MessageRef": ".transcript",
    "Transcript": ".transcript",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__version__ = "0.1.0"

__all__ = [
    "ERROR_KINDS",
    "MESSAGE_ROLES",
    "ROLES",
    "Asset",
    "AudioPart",
    "Bundle",
    "BundleError",
    "BundleNotFoundError",
    "CaseCollisionError",
    "ChatTemplateError",
    "ConflictingEmbedError",
    "DefectError",
    "DefectWarning",
    "DocumentPart",
    "DuplicateEntryError",
    "Embed",
    "EmbedBudgetError",
    "EmbedOmittedWarning",
    "EncryptedEntryError",
    "ExportReport",
    "FlattenFlags",
    "ImagePart",
    "ImportFormatError",
    "InlineReport",
    "InvalidManifestError",
    "InvalidSettingsError",
    "InvalidToolCallError",
    "InvalidZipError",
    "Issue",
    "LimitExceededError",
    "Limits",
    "LmmlError",
    "LmmlSyntaxError",
    "Message",
    "MessageList",
    "MessageNotFoundError",
    "MessageRef",
    "MissingEntryError",
    "MissingNarrativeError",
    "MissingPluginError",
    "Narrative",
    "NotInlinableError",
    "NotLmmlError",
    "OrphanedEntryWarning",
    "ReadOnlyTranscriptError",
    "Role",
    "SymlinkEntryError",
    "SystemContentWarning",
    "TextFilePart",
    "TextPart",
    "ToolCall",
    "Transcript",
    "TranscriptError",
    "TranscriptFormatError",
    "TranscriptIndexError",
    "TranscriptTypeError",
    "Turn",
    "UnknownSettingWarning",
    "UnresolvableReferenceError",
    "UnsafeEntryError",
    "UnsupportedContentError",
    "WriteError",
    "__version__",
    "detect_format",
    "detect_template_flags",
    "export_folder",
    "export_sharegpt",
    "flatten",
    "import_messages",
    "import_path",
    "lmml_plugin",
    "open",
    "parse",
    "register_handler",
    "render_html",
    "render_payload",
    "render_turns",
    "to_markdown",
    "to_request",
    "tool_call_fence",
    "tool_call_issues",
    "unregister_handler",
    "write_preview",
]
