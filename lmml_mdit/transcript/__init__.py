"""The transcript layer: a conversation record edited in code, and its lossless LMML form.

Bottom to top: the message and its checks (_message); how an author and a content are
spelled in LMML (_encoding); which lines are each message's (_regions); the file a
transcript was read from (_source); planning, writing and checking the text (_plans,
_readback); the manifest record (_record); LMML read and written (_reading, _writing); the
JSON format (_jsonfile); content parts and rendering from a point of view (_parts,
_rendering); and the Transcript class on top (_transcript). The modules are private; every
name is imported from here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "CONTENT_FENCE_INFO",
    "ENCODINGS",
    "FORMAT_NAME",
    "FRESH_STYLE",
    "MANIFEST_KEY",
    "MAX_METADATA_DEPTH",
    "NUMBERED_HEADING",
    "PINNED_ROLES",
    "SCHEMA_VERSION",
    "TRANSCRIPT_LMML_VERSION",
    "Encoding",
    "Fault",
    "Message",
    "MessageRef",
    "Origin",
    "Placement",
    "Plan",
    "Pov",
    "Renderable",
    "Resolves",
    "SourceNarrative",
    "Style",
    "Transcript",
    "TranscriptContents",
    "base_column",
    "check_asset",
    "check_message",
    "check_metadata",
    "check_saveable",
    "check_text",
    "content_parts",
    "decode_author",
    "decode_content",
    "digest",
    "dump_data",
    "encode_author",
    "escalate",
    "escape_content",
    "fence_content",
    "fence_owners",
    "insert_backslashes",
    "load_data",
    "manifest_data",
    "message_turns",
    "narrative_text",
    "pinned_role",
    "plan_messages",
    "pov_roles",
    "raw_lines",
    "read_bundle",
    "record_entries",
    "record_of",
    "recorded_content",
    "reference_owners",
    "render_plans",
    "save_file",
    "settle",
    "source_of",
    "style_of",
    "styled_delimiter",
    "turn_text",
    "write_bundle",
]

if TYPE_CHECKING:
    from ._encoding import (
        CONTENT_FENCE_INFO,
        ENCODINGS,
        Encoding,
        base_column,
        decode_author,
        decode_content,
        digest,
        encode_author,
        escape_content,
        fence_content,
        insert_backslashes,
    )
    from ._jsonfile import (
        FORMAT_NAME,
        SCHEMA_VERSION,
        dump_data,
        load_data,
    )
    from ._message import (
        MAX_METADATA_DEPTH,
        PINNED_ROLES,
        Message,
        MessageRef,
        Pov,
        check_asset,
        check_message,
        check_metadata,
        check_saveable,
        check_text,
        pinned_role,
        pov_roles,
    )
    from ._parts import (
        content_parts,
    )
    from ._plans import (
        Fault,
        Placement,
        Plan,
        Resolves,
        escalate,
        plan_messages,
        render_plans,
        styled_delimiter,
    )
    from ._readback import (
        settle,
    )
    from ._reading import (
        TranscriptContents,
        read_bundle,
    )
    from ._record import (
        MANIFEST_KEY,
        TRANSCRIPT_LMML_VERSION,
        manifest_data,
        record_entries,
        record_of,
        recorded_content,
    )
    from ._regions import (
        fence_owners,
        message_turns,
        reference_owners,
        turn_text,
    )
    from ._rendering import (
        Renderable,
    )
    from ._source import (
        FRESH_STYLE,
        NUMBERED_HEADING,
        Origin,
        SourceNarrative,
        Style,
        raw_lines,
        source_of,
        style_of,
    )
    from ._transcript import (
        Transcript,
    )
    from ._writing import (
        narrative_text,
        save_file,
        write_bundle,
    )

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_encoding": (
            "CONTENT_FENCE_INFO",
            "ENCODINGS",
            "Encoding",
            "base_column",
            "decode_author",
            "decode_content",
            "digest",
            "encode_author",
            "escape_content",
            "fence_content",
            "insert_backslashes",
        ),
        "_jsonfile": (
            "FORMAT_NAME",
            "SCHEMA_VERSION",
            "dump_data",
            "load_data",
        ),
        "_message": (
            "MAX_METADATA_DEPTH",
            "PINNED_ROLES",
            "Message",
            "MessageRef",
            "Pov",
            "check_asset",
            "check_message",
            "check_metadata",
            "check_saveable",
            "check_text",
            "pinned_role",
            "pov_roles",
        ),
        "_parts": ("content_parts",),
        "_plans": (
            "Fault",
            "Placement",
            "Plan",
            "Resolves",
            "escalate",
            "plan_messages",
            "render_plans",
            "styled_delimiter",
        ),
        "_readback": ("settle",),
        "_reading": (
            "TranscriptContents",
            "read_bundle",
        ),
        "_record": (
            "MANIFEST_KEY",
            "TRANSCRIPT_LMML_VERSION",
            "manifest_data",
            "record_entries",
            "record_of",
            "recorded_content",
        ),
        "_regions": (
            "fence_owners",
            "message_turns",
            "reference_owners",
            "turn_text",
        ),
        "_rendering": ("Renderable",),
        "_source": (
            "FRESH_STYLE",
            "NUMBERED_HEADING",
            "Origin",
            "SourceNarrative",
            "Style",
            "raw_lines",
            "source_of",
            "style_of",
        ),
        "_transcript": ("Transcript",),
        "_writing": (
            "narrative_text",
            "save_file",
            "write_bundle",
        ),
    }.items()
    for name in names
}

# Each on first use: ``import lmml_mdit.transcript`` loads none of the modules, and
# the Transcript class only what it reads.
__getattr__ = lazy_attributes(__name__, _NAMES)
