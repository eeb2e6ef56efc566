"""The narrative layer: one parse of a narrative, read into embeds, turns and their
positions; the Markdown images and tool-call fences it holds. Below the bundle: it knows
nothing of files. The modules are private; every name is imported from here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "CONTEXT_TURN_NUMBER",
    "FULL_PARSE_VARIABLE",
    "GFM_RULES",
    "NATIVE_PROVIDERS",
    "OPEN",
    "PARSE_CACHE_BYTES",
    "TOOL_CALL_SUFFIX",
    "UNSENT_IMAGE",
    "AssetLookup",
    "AttachmentParagraph",
    "Block",
    "Delimiter",
    "Fence",
    "MarkdownImage",
    "Narrative",
    "Parsed",
    "Placeholder",
    "PlaceholderContext",
    "PlaceholderEscape",
    "Placeholders",
    "Records",
    "StructureIndex",
    "Tracked",
    "call_slug",
    "decode_narrative",
    "default_parser",
    "find_placeholders",
    "image_asset_name",
    "is_native_name",
    "is_structure_name",
    "is_tool_call_name",
    "markdown_images",
    "native_fence",
    "native_name",
    "numbered_turns",
    "parse",
    "parse_native",
    "parse_shared",
    "parse_tool_call",
    "parse_tracked",
    "placeholder_spans",
    "reparse",
    "tool_call_fence",
    "tool_call_issues",
    "tool_calls",
    "tool_result_call",
    "tool_result_reference",
    "turn_label",
    "unsent_image_issues",
    "unsent_image_message",
    "url_scheme",
]

if TYPE_CHECKING:
    from ._images import (
        UNSENT_IMAGE,
        AssetLookup,
        MarkdownImage,
        image_asset_name,
        markdown_images,
        unsent_image_issues,
        unsent_image_message,
        url_scheme,
    )
    from ._incremental import (
        Tracked,
        parse_tracked,
        reparse,
    )
    from ._index import (
        AttachmentParagraph,
        Block,
        Delimiter,
        Fence,
        Records,
        StructureIndex,
    )
    from ._narrative import (
        CONTEXT_TURN_NUMBER,
        FULL_PARSE_VARIABLE,
        GFM_RULES,
        PARSE_CACHE_BYTES,
        Narrative,
        decode_narrative,
        default_parser,
        numbered_turns,
        parse,
        parse_shared,
        turn_label,
    )
    from ._native import (
        NATIVE_PROVIDERS,
        is_native_name,
        is_structure_name,
        native_fence,
        native_name,
        parse_native,
    )
    from ._placeholders import (
        OPEN,
        Parsed,
        Placeholder,
        PlaceholderContext,
        PlaceholderEscape,
        Placeholders,
        find_placeholders,
        placeholder_spans,
    )
    from ._toolcalls import (
        TOOL_CALL_SUFFIX,
        call_slug,
        is_tool_call_name,
        parse_tool_call,
        tool_call_fence,
        tool_call_issues,
        tool_calls,
        tool_result_call,
        tool_result_reference,
    )

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_images": (
            "UNSENT_IMAGE",
            "AssetLookup",
            "MarkdownImage",
            "image_asset_name",
            "markdown_images",
            "unsent_image_issues",
            "unsent_image_message",
            "url_scheme",
        ),
        "_incremental": (
            "Tracked",
            "parse_tracked",
            "reparse",
        ),
        "_index": (
            "AttachmentParagraph",
            "Block",
            "Delimiter",
            "Fence",
            "Records",
            "StructureIndex",
        ),
        "_narrative": (
            "CONTEXT_TURN_NUMBER",
            "FULL_PARSE_VARIABLE",
            "GFM_RULES",
            "PARSE_CACHE_BYTES",
            "Narrative",
            "decode_narrative",
            "default_parser",
            "numbered_turns",
            "parse",
            "parse_shared",
            "turn_label",
        ),
        "_native": (
            "NATIVE_PROVIDERS",
            "is_native_name",
            "is_structure_name",
            "native_fence",
            "native_name",
            "parse_native",
        ),
        "_placeholders": (
            "OPEN",
            "Parsed",
            "Placeholder",
            "PlaceholderContext",
            "PlaceholderEscape",
            "Placeholders",
            "find_placeholders",
            "placeholder_spans",
        ),
        "_toolcalls": (
            "TOOL_CALL_SUFFIX",
            "call_slug",
            "is_tool_call_name",
            "parse_tool_call",
            "tool_call_fence",
            "tool_call_issues",
            "tool_calls",
            "tool_result_call",
            "tool_result_reference",
        ),
    }.items()
    for name in names
}

# Each on first use: validating loads the parse, its index and the images, not the
# tool-call, native-item or placeholder readers.
__getattr__ = lazy_attributes(__name__, _NAMES)
