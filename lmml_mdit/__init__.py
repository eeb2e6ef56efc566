"""lmml_mdit: LMML (Language Model Markup Language) for markdown-it-py.

Start with :func:`lmml_plugin` (the syntax as markdown-it rules), :func:`parse` (one parse
read into embeds and turns), :func:`open` / :class:`Bundle` (``.lmml`` and ``.lmmlz``
files), :meth:`Bundle.messages` / :func:`import_messages` (chat payloads, both ways) and
:class:`Transcript`. :data:`API` is the table of the public surface: it drives the imports
on first use, and a test keeps it, the type checkers' imports and ``__all__`` equal. The
layers are drawn in docs/architecture.md.
"""

from __future__ import annotations

from ._version import __version__
from .lazy import lazy_attributes

# Not ``typing.TYPE_CHECKING``: importing typing costs ``lmml --version`` a tenth of its time.
TYPE_CHECKING = False

if TYPE_CHECKING:  # the same names as API below; tests/test_package.py keeps them equal
    from typing import Final

    from .bundle import Bundle, InlineReport, Limits
    from .chat.cases import (
        CaseResult,
        render_cases,
    )
    from .chat.detect import detect_format
    from .chat.export import (
        ExportReport,
        export_folder,
    )
    from .chat.handlers import (
        register_handler,
        unregister_handler,
    )
    from .chat.importer import (
        import_messages,
        import_path,
    )
    from .chat.opening import open as open
    from .chat.outgoing import (
        MessageList,
        render_payload,
        render_turns,
        to_request,
    )
    from .chat.providers.sharegpt import export_sharegpt
    from .chat.template import (
        FlattenFlags,
        detect_template_flags,
        flatten,
    )
    from .conversation import (
        Asset,
        AudioPart,
        ChatConversation,
        ChatMessage,
        DocumentPart,
        ImagePart,
        RemotePart,
        TextFilePart,
        TextPart,
        ToolCall,
        VideoPart,
    )
    from .errors import (
        BundleError,
        BundleNotFoundError,
        CaseCollisionError,
        ChatTemplateError,
        ConflictingEmbedError,
        DefectError,
        DefectWarning,
        DuplicateEntryError,
        EmbedBudgetError,
        EmbedOmittedWarning,
        EncryptedEntryError,
        ExpectError,
        FormatError,
        ImportFormatError,
        InputError,
        InvalidManifestError,
        InvalidSettingsError,
        InvalidToolCallError,
        InvalidZipError,
        LimitExceededError,
        LmmlError,
        LmmlSyntaxError,
        LmmlWarning,
        MessageNotFoundError,
        MissingCredentialsError,
        MissingEntryError,
        MissingNarrativeError,
        MissingPluginError,
        MissingSettingWarning,
        NativeItemDroppedWarning,
        NotInlinableError,
        NotLmmlError,
        OrphanedEntryWarning,
        PromptFileError,
        PromptFileWarning,
        ProviderConnectionError,
        ProviderError,
        ProviderPluginWarning,
        ReadOnlyTranscriptError,
        RunError,
        SettingRangeWarning,
        StreamCutError,
        SymlinkEntryError,
        SystemContentWarning,
        ToolLoadError,
        TranscriptError,
        TranscriptFormatError,
        TranscriptIndexError,
        TranscriptTypeError,
        UnknownSettingWarning,
        UnresolvableReferenceError,
        UnsafeEntryError,
        UnsupportedContentError,
        WriteError,
    )
    from .jsontypes import JSONMapping, JSONObject
    from .model import (
        ERROR_KINDS,
        MESSAGE_ROLES,
        ROLES,
        Embed,
        Issue,
        Role,
        Turn,
    )
    from .narrative import (
        Narrative,
        parse,
        tool_call_fence,
        tool_call_issues,
    )
    from .preview import (
        render_html,
        to_markdown,
        write_preview,
    )
    from .run import AsyncReplyStream, Reply, ReplyStream
    from .syntax import lmml_plugin
    from .transcript import (
        Message,
        MessageRef,
        Transcript,
    )

API: Final[dict[str, tuple[str, ...]]] = {
    ".errors": (
        "BundleError",
        "BundleNotFoundError",
        "CaseCollisionError",
        "ChatTemplateError",
        "ConflictingEmbedError",
        "DefectError",
        "DefectWarning",
        "DuplicateEntryError",
        "EmbedBudgetError",
        "EmbedOmittedWarning",
        "EncryptedEntryError",
        "ExpectError",
        "FormatError",
        "ImportFormatError",
        "InputError",
        "InvalidManifestError",
        "InvalidSettingsError",
        "InvalidToolCallError",
        "InvalidZipError",
        "LimitExceededError",
        "LmmlError",
        "LmmlSyntaxError",
        "LmmlWarning",
        "MessageNotFoundError",
        "MissingCredentialsError",
        "MissingEntryError",
        "MissingNarrativeError",
        "MissingPluginError",
        "MissingSettingWarning",
        "PromptFileError",
        "PromptFileWarning",
        "NativeItemDroppedWarning",
        "NotInlinableError",
        "NotLmmlError",
        "OrphanedEntryWarning",
        "ProviderConnectionError",
        "ProviderError",
        "ProviderPluginWarning",
        "ReadOnlyTranscriptError",
        "RunError",
        "SettingRangeWarning",
        "StreamCutError",
        "SymlinkEntryError",
        "SystemContentWarning",
        "ToolLoadError",
        "TranscriptError",
        "TranscriptFormatError",
        "TranscriptIndexError",
        "TranscriptTypeError",
        "UnknownSettingWarning",
        "UnresolvableReferenceError",
        "UnsafeEntryError",
        "UnsupportedContentError",
        "WriteError",
    ),
    ".jsontypes": (
        "JSONMapping",
        "JSONObject",
    ),
    ".model": (
        "ERROR_KINDS",
        "MESSAGE_ROLES",
        "ROLES",
        "Embed",
        "Issue",
        "Role",
        "Turn",
    ),
    ".syntax": ("lmml_plugin",),
    ".conversation": (
        "Asset",
        "AudioPart",
        "ChatConversation",
        "ChatMessage",
        "DocumentPart",
        "ImagePart",
        "RemotePart",
        "TextFilePart",
        "TextPart",
        "VideoPart",
        "ToolCall",
    ),
    ".narrative": (
        "Narrative",
        "parse",
        "tool_call_fence",
        "tool_call_issues",
    ),
    ".bundle": (
        "Bundle",
        "InlineReport",
        "Limits",
    ),
    ".chat.handlers": (
        "register_handler",
        "unregister_handler",
    ),
    ".chat.outgoing": (
        "MessageList",
        "render_payload",
        "render_turns",
        "to_request",
    ),
    ".chat.template": (
        "FlattenFlags",
        "detect_template_flags",
        "flatten",
    ),
    ".chat.detect": ("detect_format",),
    ".chat.importer": (
        "import_messages",
        "import_path",
    ),
    ".chat.opening": ("open",),
    ".chat.export": (
        "ExportReport",
        "export_folder",
    ),
    ".chat.providers.sharegpt": ("export_sharegpt",),
    ".chat.cases": (
        "CaseResult",
        "render_cases",
    ),
    ".preview": (
        "render_html",
        "to_markdown",
        "write_preview",
    ),
    ".transcript": (
        "Message",
        "MessageRef",
        "Transcript",
    ),
    ".run": ("AsyncReplyStream", "Reply", "ReplyStream"),
}
"""Each public name by the module that defines it: the public surface, in layer order."""

# Every name is imported on first use (PEP 562), so ``import lmml_mdit`` and the ``lmml``
# command stay quick: a command loads only the layers it needs.
_LAZY: Final[dict[str, str]] = {name: module for module, names in API.items() for name in names}


__getattr__ = lazy_attributes(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


# Written out (not computed) so that type checkers read it; tests/test_package.py keeps it equal
# to API less ``open``.
__all__ = [
    "ERROR_KINDS",
    "MESSAGE_ROLES",
    "ROLES",
    "Asset",
    "AsyncReplyStream",
    "AudioPart",
    "Bundle",
    "BundleError",
    "BundleNotFoundError",
    "CaseCollisionError",
    "CaseResult",
    "ChatConversation",
    "ChatMessage",
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
    "ExpectError",
    "ExportReport",
    "FlattenFlags",
    "FormatError",
    "ImagePart",
    "ImportFormatError",
    "InlineReport",
    "InputError",
    "InvalidManifestError",
    "InvalidSettingsError",
    "InvalidToolCallError",
    "InvalidZipError",
    "Issue",
    "JSONMapping",
    "JSONObject",
    "LimitExceededError",
    "Limits",
    "LmmlError",
    "LmmlSyntaxError",
    "LmmlWarning",
    "Message",
    "MessageList",
    "MessageNotFoundError",
    "MessageRef",
    "MissingCredentialsError",
    "MissingEntryError",
    "MissingNarrativeError",
    "MissingPluginError",
    "MissingSettingWarning",
    "Narrative",
    "NativeItemDroppedWarning",
    "NotInlinableError",
    "NotLmmlError",
    "OrphanedEntryWarning",
    "PromptFileError",
    "PromptFileWarning",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderPluginWarning",
    "ReadOnlyTranscriptError",
    "RemotePart",
    "Reply",
    "ReplyStream",
    "Role",
    "RunError",
    "SettingRangeWarning",
    "StreamCutError",
    "SymlinkEntryError",
    "SystemContentWarning",
    "TextFilePart",
    "TextPart",
    "ToolCall",
    "ToolLoadError",
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
    "VideoPart",
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
    "parse",
    "register_handler",
    "render_cases",
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
