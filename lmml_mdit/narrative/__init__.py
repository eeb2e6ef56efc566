"""The narrative layer: one parse of a narrative, read into embeds, turns and their
positions; the Markdown images and tool-call fences it holds. Below the bundle: it knows
nothing of files. The modules are private; every name is imported from here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._images import UNSENT_IMAGE as UNSENT_IMAGE
    from ._images import AssetLookup as AssetLookup
    from ._images import MarkdownImage as MarkdownImage
    from ._images import image_asset_name as image_asset_name
    from ._images import markdown_images as markdown_images
    from ._images import unsent_image_issues as unsent_image_issues
    from ._images import unsent_image_message as unsent_image_message
    from ._images import url_scheme as url_scheme
    from ._incremental import Tracked as Tracked
    from ._incremental import parse_tracked as parse_tracked
    from ._incremental import reparse as reparse
    from ._index import AttachmentParagraph as AttachmentParagraph
    from ._index import Block as Block
    from ._index import ContentFence as ContentFence
    from ._index import Delimiter as Delimiter
    from ._index import Fence as Fence
    from ._index import Records as Records
    from ._index import StructureIndex as StructureIndex
    from ._narrative import CONTEXT_TURN_NUMBER as CONTEXT_TURN_NUMBER
    from ._narrative import FULL_PARSE_VARIABLE as FULL_PARSE_VARIABLE
    from ._narrative import GFM_RULES as GFM_RULES
    from ._narrative import PARSE_CACHE_BYTES as PARSE_CACHE_BYTES
    from ._narrative import Narrative as Narrative
    from ._narrative import decode_narrative as decode_narrative
    from ._narrative import default_parser as default_parser
    from ._narrative import numbered_turns as numbered_turns
    from ._narrative import parse as parse
    from ._narrative import parse_shared as parse_shared
    from ._narrative import turn_label as turn_label
    from ._native import NATIVE_PROVIDERS as NATIVE_PROVIDERS
    from ._native import is_native_name as is_native_name
    from ._native import is_structure_name as is_structure_name
    from ._native import native_fence as native_fence
    from ._native import native_name as native_name
    from ._native import parse_native as parse_native
    from ._placeholders import OPEN as OPEN
    from ._placeholders import Parsed as Parsed
    from ._placeholders import Placeholder as Placeholder
    from ._placeholders import PlaceholderContext as PlaceholderContext
    from ._placeholders import PlaceholderEscape as PlaceholderEscape
    from ._placeholders import Placeholders as Placeholders
    from ._placeholders import find_placeholders as find_placeholders
    from ._placeholders import placeholder_spans as placeholder_spans
    from ._toolcalls import TOOL_CALL_SUFFIX as TOOL_CALL_SUFFIX
    from ._toolcalls import ToolCall as ToolCall
    from ._toolcalls import call_slug as call_slug
    from ._toolcalls import is_tool_call_name as is_tool_call_name
    from ._toolcalls import parse_tool_call as parse_tool_call
    from ._toolcalls import tool_call_fence as tool_call_fence
    from ._toolcalls import tool_call_issues as tool_call_issues
    from ._toolcalls import tool_calls as tool_calls
    from ._toolcalls import tool_result_call as tool_result_call
    from ._toolcalls import tool_result_reference as tool_result_reference

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
            "ContentFence",
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
            "ToolCall",
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

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
