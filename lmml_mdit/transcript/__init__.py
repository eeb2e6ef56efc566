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

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._encoding import CONTENT_FENCE_INFO as CONTENT_FENCE_INFO
    from ._encoding import ENCODINGS as ENCODINGS
    from ._encoding import Encoding as Encoding
    from ._encoding import base_column as base_column
    from ._encoding import decode_author as decode_author
    from ._encoding import decode_content as decode_content
    from ._encoding import digest as digest
    from ._encoding import encode_author as encode_author
    from ._encoding import escape_content as escape_content
    from ._encoding import fence_content as fence_content
    from ._encoding import insert_backslashes as insert_backslashes
    from ._jsonfile import FORMAT_NAME as FORMAT_NAME
    from ._jsonfile import SCHEMA_VERSION as SCHEMA_VERSION
    from ._jsonfile import dump_data as dump_data
    from ._jsonfile import load_data as load_data
    from ._message import MAX_METADATA_DEPTH as MAX_METADATA_DEPTH
    from ._message import PINNED_ROLES as PINNED_ROLES
    from ._message import Message as Message
    from ._message import MessageRef as MessageRef
    from ._message import Pov as Pov
    from ._message import check_asset as check_asset
    from ._message import check_message as check_message
    from ._message import check_metadata as check_metadata
    from ._message import check_saveable as check_saveable
    from ._message import check_text as check_text
    from ._message import pinned_role as pinned_role
    from ._message import pov_roles as pov_roles
    from ._parts import content_parts as content_parts
    from ._plans import Fault as Fault
    from ._plans import Placement as Placement
    from ._plans import Plan as Plan
    from ._plans import Resolves as Resolves
    from ._plans import escalate as escalate
    from ._plans import plan_messages as plan_messages
    from ._plans import render_plans as render_plans
    from ._plans import styled_delimiter as styled_delimiter
    from ._readback import settle as settle
    from ._reading import TranscriptContents as TranscriptContents
    from ._reading import read_bundle as read_bundle
    from ._record import MANIFEST_KEY as MANIFEST_KEY
    from ._record import TRANSCRIPT_LMML_VERSION as TRANSCRIPT_LMML_VERSION
    from ._record import manifest_data as manifest_data
    from ._record import record_entries as record_entries
    from ._record import record_of as record_of
    from ._record import recorded_content as recorded_content
    from ._regions import fence_owners as fence_owners
    from ._regions import message_turns as message_turns
    from ._regions import reference_owners as reference_owners
    from ._regions import turn_text as turn_text
    from ._rendering import Renderable as Renderable
    from ._source import FRESH_STYLE as FRESH_STYLE
    from ._source import NUMBERED_HEADING as NUMBERED_HEADING
    from ._source import Origin as Origin
    from ._source import SourceNarrative as SourceNarrative
    from ._source import Style as Style
    from ._source import raw_lines as raw_lines
    from ._source import source_of as source_of
    from ._source import style_of as style_of
    from ._transcript import Transcript as Transcript
    from ._writing import RewrittenHeadingWarning as RewrittenHeadingWarning
    from ._writing import narrative_text as narrative_text
    from ._writing import save_file as save_file
    from ._writing import write_bundle as write_bundle

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
            "RewrittenHeadingWarning",
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

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
