"""The chat layer: both directions of every chat format. Out: assets become content parts
(_handlers), turns become neutral messages (_content, _outgoing), each provider writes its
JSON (providers). In: a payload is detected, read into a neutral conversation and written as
a bundle (_detect, _importer, _writer); a folder of bundles becomes a dataset (_export). The
modules are private; every name is imported from here, on first use. The registry of chat
formats, :mod:`lmml_mdit.chat.providers`, stays a public package: each public module in it
is a format."""

from __future__ import annotations

from ..lazy import lazy_attributes

# Not ``typing.TYPE_CHECKING``: the CLI's help imports this package for its format names.
TYPE_CHECKING = False

# ``open`` is left out, as in the top-level package: ``import *`` keeps the builtin. Written
# out (not computed from _NAMES below) so that type checkers leave it out too.
__all__ = [
    "CHOICE_MODES",
    "DEFAULT_OUTPUT_NAME",
    "DEFAULT_PROVIDER",
    "FORMAT_DESCRIPTIONS",
    "HASH_DIGITS",
    "LOCAL_LINE",
    "MAX_DEPTH",
    "MESSAGES_SUFFIXES",
    "MIDWAY_SYSTEM_MARKER",
    "OPENAI",
    "OPENING_USER_PLACEHOLDER",
    "PIECE_CHARACTERS",
    "PLUGIN_GROUP",
    "READ_CHUNK",
    "SEPARATOR",
    "SETTINGS_ENTRY",
    "UNREAD_CASE",
    "AssetNamer",
    "BodyWriter",
    "BundleState",
    "CaseInput",
    "CaseResult",
    "ChatMessage",
    "ChatTokenizer",
    "Cut",
    "EmbedSegment",
    "ExportReport",
    "FlattenFlags",
    "Handler",
    "MessageList",
    "NativeTool",
    "Options",
    "OutputSchema",
    "Piece",
    "Progress",
    "ReadTurn",
    "Rendering",
    "RequestOptions",
    "Segment",
    "TextSegment",
    "Tool",
    "ToolChoice",
    "ToolSpec",
    "UnknownSettings",
    "asset_name",
    "build_conversation",
    "build_parts",
    "bundle_state",
    "bundle_template",
    "chat_payload_error",
    "choice_from_native",
    "choice_owner",
    "choice_to_native",
    "cut_offsets",
    "decode_base64",
    "decode_data_uri",
    "detect_format",
    "detect_template_flags",
    "ensure_user_first",
    "escape_parsed",
    "escape_text",
    "expect",
    "expect_items",
    "export_bundle",
    "export_folder",
    "flatten",
    "fold_system",
    "fold_tools",
    "from_native",
    "import_messages",
    "import_path",
    "is_audio_or_video",
    "iter_bundles",
    "keep_native",
    "merge_same_role",
    "message_keys",
    "message_list",
    "messages",
    "messages_issues",
    "normalize_text",
    "output_from_native",
    "output_to_native",
    "place_midway_system",
    "place_native",
    "portable_choice",
    "portable_output",
    "portable_settings",
    "portable_tools",
    "provider_settings",
    "read_conversation",
    "read_file_id",
    "read_in_pieces",
    "read_messages",
    "read_turns",
    "read_url",
    "refuse_remote",
    "register_handler",
    "registered_handlers",
    "reject_unknown_keys",
    "render_cases",
    "render_payload",
    "render_turns",
    "request_body",
    "request_params",
    "save_conversation",
    "sendable_settings",
    "split_body",
    "to_native",
    "to_request",
    "tools_listed",
    "turn_heading",
    "turn_segments",
    "turns_of_message",
    "unregister_handler",
    "usable_cores",
    "without_escapes",
    "without_results",
    "write_bundle",
    "write_narrative",
]

if TYPE_CHECKING:
    from ._cases import (
        UNREAD_CASE,
        CaseInput,
        CaseResult,
        Rendering,
        render_cases,
    )
    from ._content import (
        BundleState,
        EmbedSegment,
        Options,
        RequestOptions,
        Segment,
        TextSegment,
        UnknownSettings,
        build_conversation,
        bundle_state,
        bundle_template,
        turn_segments,
        without_escapes,
    )
    from ._detect import (
        FORMAT_DESCRIPTIONS,
        detect_format,
    )
    from ._escape import (
        escape_parsed,
        escape_text,
        normalize_text,
    )
    from ._export import (
        ExportReport,
        export_bundle,
        export_folder,
        iter_bundles,
        usable_cores,
    )
    from ._format_names import (
        DEFAULT_PROVIDER,
        OPENAI,
        PLUGIN_GROUP,
    )
    from ._handlers import (
        Handler,
        build_parts,
        register_handler,
        registered_handlers,
        unregister_handler,
    )
    from ._imported import (
        decode_base64,
        decode_data_uri,
        expect,
        expect_items,
        reject_unknown_keys,
        split_body,
        tools_listed,
        turns_of_message,
        without_results,
    )
    from ._importer import (
        MAX_DEPTH,
        READ_CHUNK,
        Progress,
        import_messages,
        import_path,
        read_conversation,
    )
    from ._messages_input import (
        MESSAGES_SUFFIXES,
        messages_issues,
        read_messages,
    )
    from ._midway import (
        MIDWAY_SYSTEM_MARKER,
        place_midway_system,
    )
    from ._native import (
        keep_native,
        message_keys,
        place_native,
    )
    from ._opening import (
        chat_payload_error,
    )
    from ._opening import (
        open as open,
    )
    from ._outgoing import (
        MessageList,
        message_list,
        messages,
        render_payload,
        render_turns,
        request_body,
        request_params,
        sendable_settings,
        to_request,
    )
    from ._pieces import (
        LOCAL_LINE,
        PIECE_CHARACTERS,
        Cut,
        Piece,
        cut_offsets,
        read_in_pieces,
    )
    from ._reader import (
        ReadTurn,
        read_turns,
    )
    from ._remote import (
        is_audio_or_video,
        read_file_id,
        read_url,
        refuse_remote,
    )
    from ._template import (
        OPENING_USER_PLACEHOLDER,
        SEPARATOR,
        ChatMessage,
        ChatTokenizer,
        FlattenFlags,
        detect_template_flags,
        ensure_user_first,
        flatten,
        fold_system,
        fold_tools,
        merge_same_role,
    )
    from ._tool_model import (
        DEFAULT_OUTPUT_NAME,
        NativeTool,
        OutputSchema,
        Tool,
        ToolChoice,
        ToolSpec,
        portable_output,
    )
    from ._tools import (
        CHOICE_MODES,
        choice_from_native,
        choice_owner,
        choice_to_native,
        from_native,
        output_from_native,
        output_to_native,
        portable_choice,
        portable_settings,
        portable_tools,
        provider_settings,
        to_native,
    )
    from ._writer import (
        HASH_DIGITS,
        SETTINGS_ENTRY,
        AssetNamer,
        BodyWriter,
        asset_name,
        save_conversation,
        turn_heading,
        write_bundle,
        write_narrative,
    )

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_cases": (
            "UNREAD_CASE",
            "CaseInput",
            "CaseResult",
            "Rendering",
            "render_cases",
        ),
        "_content": (
            "BundleState",
            "EmbedSegment",
            "Options",
            "RequestOptions",
            "Segment",
            "TextSegment",
            "UnknownSettings",
            "build_conversation",
            "bundle_state",
            "bundle_template",
            "turn_segments",
            "without_escapes",
        ),
        "_detect": (
            "FORMAT_DESCRIPTIONS",
            "detect_format",
        ),
        "_escape": (
            "escape_parsed",
            "escape_text",
            "normalize_text",
        ),
        "_export": (
            "ExportReport",
            "export_bundle",
            "export_folder",
            "iter_bundles",
            "usable_cores",
        ),
        "_format_names": (
            "DEFAULT_PROVIDER",
            "OPENAI",
            "PLUGIN_GROUP",
        ),
        "_handlers": (
            "Handler",
            "build_parts",
            "register_handler",
            "registered_handlers",
            "unregister_handler",
        ),
        "_imported": (
            "decode_base64",
            "decode_data_uri",
            "expect",
            "expect_items",
            "reject_unknown_keys",
            "split_body",
            "tools_listed",
            "turns_of_message",
            "without_results",
        ),
        "_importer": (
            "MAX_DEPTH",
            "READ_CHUNK",
            "Progress",
            "import_messages",
            "import_path",
            "read_conversation",
        ),
        "_messages_input": (
            "MESSAGES_SUFFIXES",
            "messages_issues",
            "read_messages",
        ),
        "_midway": (
            "MIDWAY_SYSTEM_MARKER",
            "place_midway_system",
        ),
        "_native": (
            "keep_native",
            "message_keys",
            "place_native",
        ),
        "_opening": (
            "chat_payload_error",
            "open",
        ),
        "_outgoing": (
            "MessageList",
            "message_list",
            "messages",
            "render_payload",
            "render_turns",
            "request_body",
            "request_params",
            "sendable_settings",
            "to_request",
        ),
        "_pieces": (
            "LOCAL_LINE",
            "PIECE_CHARACTERS",
            "Cut",
            "Piece",
            "cut_offsets",
            "read_in_pieces",
        ),
        "_reader": (
            "ReadTurn",
            "read_turns",
        ),
        "_remote": (
            "is_audio_or_video",
            "read_file_id",
            "read_url",
            "refuse_remote",
        ),
        "_template": (
            "OPENING_USER_PLACEHOLDER",
            "SEPARATOR",
            "ChatMessage",
            "ChatTokenizer",
            "FlattenFlags",
            "detect_template_flags",
            "ensure_user_first",
            "flatten",
            "fold_system",
            "fold_tools",
            "merge_same_role",
        ),
        "_tool_model": (
            "DEFAULT_OUTPUT_NAME",
            "NativeTool",
            "OutputSchema",
            "Tool",
            "ToolChoice",
            "ToolSpec",
            "portable_output",
        ),
        "_tools": (
            "CHOICE_MODES",
            "choice_from_native",
            "choice_owner",
            "choice_to_native",
            "from_native",
            "output_from_native",
            "output_to_native",
            "portable_choice",
            "portable_settings",
            "portable_tools",
            "provider_settings",
            "to_native",
        ),
        "_writer": (
            "HASH_DIGITS",
            "SETTINGS_ENTRY",
            "AssetNamer",
            "BodyWriter",
            "asset_name",
            "save_conversation",
            "turn_heading",
            "write_bundle",
            "write_narrative",
        ),
    }.items()
    for name in names
}

# Each on first use: ``import lmml_mdit.chat`` loads none of its modules, and the CLI's help
# only the format names.
__getattr__ = lazy_attributes(__name__, _NAMES)
