"""One bundle as one row of the conversation schema, and back: plain Python, no pyarrow.

:func:`bundle_row` reads a bundle into the row that
:func:`~lmml_mdit.dataset.conversation_schema` describes;
:func:`source_row` opens a path or URL first, and turns a bundle that cannot be opened into
a row holding only its error. :func:`row_bundle` rebuilds the bundle from a row, checking
the row like an archive is checked (safe, distinct entry names, the sizes within the
:class:`~lmml_mdit.bundle.Limits`, each referenced asset's digest). Worker
processes import this module alone, so they never load pyarrow for nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..bundle import Bundle, BundleSource, Limits, check_entry_names, is_url
from ..chat import EmbedSegment, TextSegment, export_bundle, turn_segments
from ..chat import open as open_bundle
from ..errors import BundleError, LimitExceededError, LmmlError
from ..formats import NARRATIVE_SUFFIX
from ..jsontypes import JSONMapping, JSONObject
from ..media import media_type_for
from ..narrative import is_native_name, is_tool_call_name, parse, tool_result_reference
from ..syntax import DelimiterMode, ReferenceMode
from ._schema import AssetMode, request_column

__all__ = ["OpenOptions", "Row", "bundle_row", "error_row", "row_bundle", "source_row"]

Row = JSONObject
"""One conversation row, as :func:`bundle_row` gives it (column name to value)."""


@dataclass(frozen=True)
class OpenOptions:
    """How each path or URL is opened and read into a row (picklable: it goes to workers).

    :ivar limits: the safety limits of :func:`lmml_mdit.open`.
    :ivar base_dir: the folder bare ``.lmml`` files resolve against (None: their own).
    :ivar delimiters: as for :func:`lmml_mdit.open`.
    :ivar references: likewise.
    :ivar assets: ``"embed"`` (bytes in the row) or ``"reference"`` (where they live).
    :ivar providers: the providers whose request bodies are added.
    :ivar strict: whether those bodies are built strictly (as :func:`~lmml_mdit.to_request`
        builds them): a bundle with an error-level defect gets none.
    """

    limits: Limits = field(default_factory=Limits)
    base_dir: str | None = None
    delimiters: DelimiterMode = "strict"
    references: ReferenceMode = "assets"
    assets: AssetMode = "embed"
    providers: tuple[str, ...] = ()
    strict: bool = True


def _json(value: object) -> str | None:
    # Settings from YAML may hold dates and the like: they are written as their text.
    return None if value is None else json.dumps(value, ensure_ascii=False, default=str)


def _decoded(bundle: Bundle, attribute: str) -> str | None:
    """A reserved embed decoded as JSON text, or None when absent or invalid (the
    ``issues`` column then says why)."""
    try:
        return _json(getattr(bundle, attribute))
    except LmmlError:
        return None


def _part_type(name: str) -> str:
    if is_tool_call_name(name):
        return "tool_call"
    if is_native_name(name):
        return "native"
    return "asset"


def _turns(bundle: Bundle) -> list[JSONObject]:
    narrative = bundle.narrative
    turns: list[JSONObject] = []
    for turn in narrative.turns:
        parts: list[JSONObject] = []
        # The cut the chat payloads make: a paragraph only of references whose parts
        # follow it, and a tool turn's line naming the call it answers, are no text.
        answered = tool_result_reference(turn, narrative) if turn.role == "tool" else None
        skip = frozenset() if answered is None else frozenset({answered[1]})
        for segment in turn_segments(narrative, turn, skip_lines=skip):
            if isinstance(segment, EmbedSegment):
                embed = segment.embed
                parts.append(
                    {
                        "type": _part_type(embed.name),
                        "text": None,
                        "asset": embed.name,
                        "line": embed.line,
                    }
                )
            elif isinstance(segment, TextSegment):
                parts.append(
                    {"type": "text", "text": segment.text, "asset": None, "line": segment.line}
                )
            # An InputSegment stands only where a rendering gives a template's values; a
            # row records the bundle as written, so none comes here.
        turns.append(
            {
                "role": turn.role,
                "heading": turn.heading,
                "start_line": turn.start_line,
                "end_line": turn.end_line,
                "text": turn.text,
                "parts": parts,
            }
        )
    return turns


def _asset_names(bundle: Bundle) -> list[str]:
    """The assets a row carries: an archive's entries in archive order; for a text bundle,
    the files its references find in its folder, in the order first mentioned."""
    if bundle.kind == "zip" or bundle.entries:
        return list(bundle.entries)
    if bundle.base_dir is None:
        return []
    return [
        name
        for name, embed in bundle.narrative.first_embeds.items()
        if not embed.is_inline and name not in bundle.fences and bundle.has_asset(name)
    ]


def _assets(bundle: Bundle, source: str | None, mode: AssetMode) -> list[JSONObject]:
    assets: list[JSONObject] = []
    entries = frozenset(bundle.entries)
    for name in _asset_names(bundle):
        # An entry's own bytes, even where an inline fence of its name shadows it: the row
        # must give back the bundle it came from (the fence is in the narrative).
        data = bundle.read(name) if name in entries else bundle.embed(name)
        location: str | None = None
        entry: str | None = None
        if mode == "reference" and source is not None:
            if bundle.kind == "zip":
                location, entry = source, name
            else:
                assert bundle.base_dir is not None
                location = os.path.join(bundle.base_dir, *name.split("/"))
        assets.append(
            {
                "name": name,
                "media_type": media_type_for(name, data),
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
                "data": None if location is not None else data,
                "location": location,
                "entry": entry,
            }
        )
    return assets


def _issues(bundle: Bundle) -> list[JSONObject]:
    return [dict(issue.record()) for issue in bundle.validate()]


def request_cells(bundle: BundleSource, providers: Sequence[str], *, strict: bool = True) -> Row:
    """The request columns for *providers*: each body as JSON (None when the bundle cannot
    be sent to it; built *strict* or not, as ``to_request`` builds it) and
    ``request_notes``, each failure or warning of a provider."""
    cells: Row = {}
    notes: list[dict[str, str]] = []
    for provider in providers:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                body = export_bundle(bundle, provider, strict=strict)
            except LmmlError as error:
                cells[request_column(provider)] = None
                notes.append(
                    {"provider": provider, "severity": "error", "message": error.format(hint=False)}
                )
            else:
                cells[request_column(provider)] = json.dumps(body, ensure_ascii=False)
        notes.extend(
            {"provider": provider, "severity": "warning", "message": str(warning.message)}
            for warning in caught
        )
    if providers:
        cells["request_notes"] = notes
    return cells


def bundle_row(
    bundle: Bundle,
    *,
    path: str | None = None,
    source: str | None = None,
    options: OpenOptions = OpenOptions(),
) -> Row:
    """The row of *bundle*.

    :param path: its path inside the dataset (default: its file name).
    :param source: the path or URL it was opened from, for ``source`` and asset references.
    :raises LmmlError: when an asset cannot be read (a damaged entry, a limit).
    """
    row: Row = {
        "name": bundle.name,
        "path": path if path is not None else bundle.file_name,
        "source": source,
        "kind": bundle.kind,
        "narrative_name": bundle.narrative_name,
        "narrative": bundle.narrative.text,
        "delimiters": options.delimiters,
        "references": options.references,
        "turns": _turns(bundle),
        "settings": _decoded(bundle, "settings"),
        "manifest": _decoded(bundle, "manifest"),
        "front_matter": _decoded(bundle, "front_matter"),
        "issues": _issues(bundle),
        "assets": _assets(bundle, source, options.assets),
        "error": None,
    }
    row.update(request_cells(bundle, options.providers, strict=options.strict))
    return row


def error_row(path: str, source: str | None, error: BaseException, options: OpenOptions) -> Row:
    """The row of a bundle that could not be read: its path and its error, nothing else."""
    message = error.format() if isinstance(error, LmmlError) else f"{error}"
    row: Row = {
        "name": os.path.splitext(os.path.basename(path))[0],
        "path": path,
        "source": source,
        "kind": None,
        "narrative_name": None,
        "narrative": None,
        "delimiters": options.delimiters,
        "references": options.references,
        "turns": [],
        "settings": None,
        "manifest": None,
        "front_matter": None,
        "issues": [],
        "assets": [],
        "error": {"type": type(error).__name__, "message": message},
    }
    if options.providers:
        row.update({request_column(p): None for p in options.providers})
        row["request_notes"] = []
    return row


def source_row(source: str, path: str, options: OpenOptions) -> Row:
    """The row of the bundle at *source* (a path or fsspec URL), opened as
    :func:`lmml_mdit.open` opens it; a bundle that fails becomes its error row.

    :param path: its path inside the dataset.
    """
    try:
        with open_bundle(
            source,
            limits=options.limits,
            base_dir=options.base_dir,
            delimiters=options.delimiters,
            references=options.references,
        ) as bundle:
            return bundle_row(bundle, path=path, source=source, options=options)
    except Exception as error:  # one bad bundle is a row with its error, never a stop
        return error_row(path, source, error, options)


# --- back from a row -----------------------------------------------------------------------


def _row_error(
    row: JSONMapping, message: str, hint: str | None = None, cli_hint: str | None = None
) -> BundleError:
    return BundleError(
        message, name=str(row.get("path") or row.get("name")), hint=hint, cli_hint=cli_hint
    )


def _asset_bytes(row: JSONMapping, asset: JSONMapping, limits: Limits, allow_remote: bool) -> bytes:
    data = asset.get("data")
    if data is None:
        data = _referenced(row, asset, limits, allow_remote)
    if len(data) > limits.max_entry_size:
        raise LimitExceededError(
            f"the asset {asset['name']!r} is over max_entry_size ({limits.max_entry_size} bytes)",
            name=str(row.get("path")),
            hint="pass limits=lmml_mdit.Limits(max_entry_size=...) if you trust the data",
        )
    if hashlib.sha256(data).hexdigest() != asset.get("sha256"):
        raise _row_error(
            row,
            f"the asset {asset['name']!r} does not match its sha256 digest",
            "the data changed since the row was written; export the bundle again",
        )
    return bytes(data)


def _referenced(row: JSONMapping, asset: JSONMapping, limits: Limits, allow_remote: bool) -> bytes:
    """The bytes of an asset stored as a reference: an archive entry or a file (a local
    regular file, or a URL when *allow_remote*)."""
    location, entry = asset.get("location"), asset.get("entry")
    if not isinstance(location, str):
        raise _row_error(row, f"the asset {asset['name']!r} has neither data nor a location")
    if is_url(location) and not allow_remote:
        raise _row_error(
            row,
            f"the asset {asset['name']!r} lives at the URL {location}, which is not fetched",
            "pass allow_remote=True to fetch the row's URLs",
            "add --allow-remote to fetch the row's URLs",
        )
    if not is_url(location):
        try:
            is_regular = stat.S_ISREG(os.stat(location).st_mode)
        except OSError as error:
            raise _row_error(
                row, f"cannot read the asset at {location}: {error.strerror or error}"
            ) from None
        if not is_regular:
            raise _row_error(
                row, f"the asset {asset['name']!r} location {location} is not a regular file"
            )
    if entry is not None:
        with open_bundle(location, limits=limits) as archive:
            return archive.read(str(entry))
    if is_url(location):
        from ..bundle import open_url

        stream = open_url(location)
        try:
            data = stream.read(limits.max_entry_size + 1)
        finally:
            stream.close()
    else:
        try:
            descriptor = os.open(location, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(descriptor, "rb") as stream:
                if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                    raise OSError(f"{location} is not a regular file")
                data = stream.read(limits.max_entry_size + 1)
        except OSError as error:
            raise _row_error(
                row, f"cannot read the asset at {location}: {error.strerror or error}"
            ) from None
    return bytes(data)


def row_bundle(
    row: JSONMapping, limits: Limits | None = None, *, allow_remote: bool = True
) -> Bundle:
    """The bundle a row holds, rebuilt in memory: the same kind, name, narrative (parsed
    with the same options and known names) and assets, byte for byte.

    :raises BundleError: for a row of a bundle that failed (its ``error``), an asset whose
        bytes do not match their digest or cannot be read, or a row of the wrong shape.
    :raises UnsafeEntryError: for an unsafe asset name (and the other name errors of
        :func:`~lmml_mdit.bundle.check_entry_names`).
    :raises LimitExceededError: when the narrative or the assets cross *limits*.
    """
    limits = limits if limits is not None else Limits()
    error = row.get("error")
    if error is not None:
        raise _row_error(
            row,
            f"the row holds no bundle: it failed with {error.get('type')}: {error.get('message')}",
            "fix the bundle and export it again, or pass errors='skip'",
            "fix the bundle and export it again",
        )
    text, kind, name = row.get("narrative"), row.get("kind"), row.get("name")
    if not isinstance(text, str) or kind not in ("text", "zip") or not isinstance(name, str):
        raise _row_error(row, "the row has no narrative, no name or no kind (text or zip)")
    delimiters, references = row.get("delimiters") or "strict", row.get("references") or "assets"
    if delimiters not in ("strict", "loose") or references not in ("assets", "any"):
        raise _row_error(
            row,
            f"the row's parse options are not known: delimiters={delimiters!r}, "
            f"references={references!r}",
            "delimiters is 'strict' or 'loose', references 'assets' or 'any'",
        )
    if len(text.encode("utf-8")) > min(limits.max_entry_size, limits.max_narrative_bytes):
        raise LimitExceededError(
            f"the narrative is over max_narrative_bytes ({limits.max_narrative_bytes} bytes)",
            name=str(row.get("path")),
            hint="pass limits=lmml_mdit.Limits(max_narrative_bytes=...) if you trust the data",
        )
    assets_column = row.get("assets") or []
    if len(assets_column) >= limits.max_entries:
        raise LimitExceededError(
            f"the row holds more than max_entries ({limits.max_entries}) assets",
            name=str(row.get("path")),
        )
    narrative_name = str(row.get("narrative_name") or name + NARRATIVE_SUFFIX)
    names = [str(asset["name"]) for asset in assets_column]
    check_entry_names([narrative_name, *names] if kind == "zip" else names)
    entries: dict[str, bytes] = {}
    total = 0
    for asset in assets_column:
        data = _asset_bytes(row, asset, limits, allow_remote)
        total += len(data)
        if total > limits.max_total_size:
            raise LimitExceededError(
                f"the assets are over max_total_size ({limits.max_total_size} bytes)",
                name=str(row.get("path")),
            )
        entries[str(asset["name"])] = data
    path = str(row.get("path") or narrative_name)
    file_name = os.path.basename(path)
    # The assets are the names the original parse knew that matter: a folder's other files
    # are never references (a name without an extension is one only when it is known).
    known = frozenset(entries)
    narrative = parse(
        text,
        name=narrative_name if kind == "zip" else file_name,
        known_names=known,
        delimiters="loose" if delimiters == "loose" else "strict",
        references="any" if references == "any" else "assets",
    )
    return Bundle(
        kind=kind,
        name=name,
        narrative_name=narrative_name,
        narrative=narrative,
        entries=entries,
        limits=limits,
        file_name=file_name,
    )
