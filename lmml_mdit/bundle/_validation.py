"""Validation of a bundle (RFC 8): the cross-check of its narrative and entries, as
:class:`~lmml_mdit.model.Issue` values, and the wording of a reference that resolves to
nothing, which validation and the error of :meth:`Bundle.embed
<lmml_mdit.bundle.Bundle.embed>` share.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import unicodedata
from collections.abc import Mapping, Set

from ..errors import (
    BundleError,
    InvalidZipError,
    LimitExceededError,
    LmmlError,
    UnsafeEntryError,
)
from ..jsontypes import JSONObject
from ..media import TEXT_SNIFF_BYTES, builtin_refusal, media_type_for, sniff
from ..model import Embed, Issue
from ..narrative import Narrative, unsent_image_issues
from ..syntax import reference
from ._archive import unsafe_reason
from ._contents import (
    BundleContents,
    entry_holding,
    fences_differing_from_entries,
    fences_differing_from_files,
    folder_file,
    settings_embeds,
)
from ._names import is_reference_name, is_remote_name
from .reserved_embeds import RESERVED_EMBEDS, RESERVED_NAMES, ReservedEmbed

__all__ = ["UNSENDABLE_EMBED", "did_you_mean", "find_issues", "missing_wording"]


def _issue(kind: str, embed: Embed | None, name: str, message: str) -> Issue:
    return Issue(
        kind=kind,
        name=name,
        line=embed.line if embed is not None else None,
        column=embed.column if embed is not None else None,
        message=message,
    )


def did_you_mean(bundle: BundleContents, name: str) -> str:
    """``did you mean X? `` (ready to go before what to do) for the asset name *name* most
    resembles (:meth:`~lmml_mdit.bundle.Bundle.closest_asset`), or nothing."""
    close = bundle.closest_asset(name)
    if close and unicodedata.normalize("NFC", close) == unicodedata.normalize("NFC", name):
        # The two look alike on screen: show the code points and say why they differ.
        return (
            f"did you mean {close!a}, the same name in another Unicode form "
            "(accents written as separate combining characters, or not, as some systems "
            "write file names)? "
        )
    return f"did you mean {close}? " if close else ""


_SPELLABLE = (
    "letters, digits and _ . - / only, starting with a letter or digit and not ending in . - /"
)
"""What a name an ``@name`` reference spells may hold."""

_ESCAPE_ADVICE = "if it is not meant as an asset, escape the mention as \\@{name}"


def _unresolved_message(bundle: BundleContents, name: str) -> tuple[str, str | None] | None:
    """Why the reference *name* does not resolve, with the command line's wording when it
    differs, or None when it resolves."""
    try:
        bundle.resolve(name)
    except UnsafeEntryError:
        # Names are checked before this, so only a base_dir link leading outside the folder
        # is left: it looks present in a file browser, so say why it does not count.
        return (
            f"{name!r} leads outside the folder through a symbolic link; copy the file into "
            "the folder instead of linking to it",
            None,
        )
    except BundleError:
        pass
    else:
        return None
    what, advice, cli_advice = missing_wording(bundle, name)
    return f"{what}; {advice}", None if cli_advice is None else f"{what}; {cli_advice}"


def missing_wording(bundle: BundleContents, name: str) -> tuple[str, str, str | None]:
    """What ``missing_reference`` says about *name*, a reference that does not resolve:
    what is wrong, what to do (a near-miss name, how to escape a mention), and what to do
    in the command line's words when they differ. Validation and the error
    :meth:`~lmml_mdit.bundle.Bundle.embed` raises both use it."""
    escape = _ESCAPE_ADVICE.format(name=name)
    guess = did_you_mean(bundle, name)
    if bundle.kind == "zip":
        what = f"no archive entry {name!r}"
        return what, f"{guess}add the file to the archive or fix the name; {escape}", None
    if bundle.base_dir is not None:
        there = _what_is_there(bundle.base_dir, name)
        if there is not None:
            return f"{name!r} in the folder {bundle.base_dir} {there}", escape, None
        what = f"no file {name!r} in the folder {bundle.base_dir}"
        return what, f"{guess}add it or fix the name; {escape}", None
    what = f"a bare .lmml read without a folder cannot resolve @{name}"
    return (
        what,
        f"{guess}inline it as a @@@ fence, pack the bundle into a .lmmlz, or open it with "
        f"base_dir=; {escape}",
        f"{guess}inline it as a @@@ fence, or pass --base-dir DIR; {escape}",
    )


def _what_is_there(base_dir: str, name: str) -> str | None:
    """Why *name*, present under *base_dir*, is no file a reference reads (a folder, a
    broken link), or None when nothing is there. (A link leading outside the folder is
    refused before this, as unsafe.)"""
    if unsafe_reason(name) is not None:
        return None
    path = os.path.join(base_dir, *name.split("/"))
    if not os.path.lexists(path):
        return None
    if os.path.isdir(path):
        return "is a folder, not a file; name a file in it"
    if not os.path.isfile(path):
        return "is not a regular file (a broken link, a device or a pipe); name a file"
    return None


def unsaved_wording(bundle: BundleContents, name: str) -> str:
    """What an editor says of *name*, a reference a document with no file (an unsaved
    buffer) cannot resolve: saving it beside the asset is the fix an editor has."""
    return (
        f"an unsaved document cannot resolve @{name}; {did_you_mean(bundle, name)}save it in "
        f"the folder that holds the asset, or inline it as a @@@ fence; "
        + _ESCAPE_ADVICE.format(name=name)
    )


# The checks below the cross-check each read one kind of content; each is imported and run
# only when the bundle holds that content, so that checking an ordinary narrative does not
# load the modules for templates, settings, tool calls and remote assets (together about
# a sixth of ``lmml validate``'s start-up). Each test is a superset of what its check
# reads: it may run a check that finds nothing, never skip one that would find something.
# (A reserved embed's check does the same inside its declaration: the settings schema.)


def _may_declare_inputs(bundle: BundleContents) -> bool:
    """Whether *bundle* has a place to declare inputs: front matter or a settings embed.

    Without either it is no template and, given no values, has no input issue.
    """
    return bundle.narrative.front_matter is not None or bool(settings_embeds(bundle))


def _may_hold_tool_calls(narrative: Narrative) -> bool:
    """Whether *narrative* has a tool turn, or an inline fence in an assistant turn (where
    every tool call is written)."""
    return any(
        turn.role == "tool"
        or (turn.role == "assistant" and any(embed.is_inline for embed in turn.embeds))
        for turn in narrative.turns
    )


def find_issues(
    bundle: BundleContents, *, inputs: Mapping[str, object] | None = None
) -> list[Issue]:
    """Every issue of *bundle*, ordered by line (those without a line last): what
    :meth:`Bundle.validate <lmml_mdit.bundle.Bundle.validate>` reports.

    :param inputs: values for the bundle's template inputs, checked against their
        declarations too (``missing_input``, ``invalid_input``); None checks none.
    """
    narrative = bundle.narrative
    issues: list[Issue] = []
    first = narrative.first_embeds
    inline = bundle.fences
    malformed: set[str] = set()

    for name, embed in first.items():
        reason = unsafe_reason(name)
        if reason is not None:
            malformed.add(name)
            issues.append(
                _issue(
                    "malformed_embed_name",
                    embed,
                    name,
                    f"{name!r} cannot be an archive entry name: {reason}; rename it to a "
                    "relative name with '/' separators",
                )
            )
        elif name in inline and not is_reference_name(name):
            malformed.add(name)
            issues.append(
                _issue(
                    "malformed_embed_name",
                    inline[name],
                    name,
                    f"{name!r} cannot be written as an @reference, so the fence cannot be "
                    f"packed; use {_SPELLABLE}",
                )
            )

    tool_issues: list[Issue] = []
    if _may_hold_tool_calls(narrative):
        from ..narrative import tool_call_issues

        tool_issues = tool_call_issues(narrative)
    # A tool turn naming no known call is reported as unknown_tool_call_id, not twice.
    unknown_calls = {i.name for i in tool_issues if i.kind == "unknown_tool_call_id"}
    # Each name is resolved once; every place it is referenced is reported (an editor
    # marks each one, and fixing the first must not reveal the next).
    missing: dict[str, tuple[str, str | None]] = {}
    for name in first:
        if name in malformed or name in inline or name in unknown_calls:
            continue
        unresolved = _unresolved_message(bundle, name)
        if unresolved is not None:
            missing[name] = unresolved
    if missing:
        for embed in narrative.embeds:
            wording = missing.get(embed.name) if embed.kind == "external" else None
            if wording is not None:
                message, cli_message = wording
                issue = _issue("missing_reference", embed, embed.name, message)
                issues.append(
                    issue
                    if cli_message is None
                    else dataclasses.replace(issue, cli_message=cli_message)
                )

    for name in bundle.entries:
        if name not in first and name not in RESERVED_NAMES:
            issues.append(
                _issue(
                    "orphaned_entry",
                    None,
                    name,
                    f"the archive entry {name!r} is never mentioned in the narrative; "
                    + (
                        f"reference it as {reference(name)} or remove it"
                        if is_reference_name(name)
                        else f"no @reference can spell its name: rename it ({_SPELLABLE}) "
                        "and reference it, or remove it"
                    ),
                )
            )

    for embed in narrative.embeds:
        if embed.kind != "inline":
            continue
        if not embed.closed:
            issues.append(
                _issue(
                    "unclosed_embed",
                    embed,
                    embed.name,
                    f"the fence @@@{embed.name} is never closed and runs to the end of its "
                    "block; add a line holding only @@@ where its content ends",
                )
            )
        if inline[embed.name].content != embed.content:
            issues.append(
                _issue(
                    "conflicting_embed",
                    embed,
                    embed.name,
                    f"this fence @@@{embed.name} holds different bytes from an earlier one "
                    "of the same name; rename one or make them identical",
                )
            )
    for fence in fences_differing_from_entries(bundle):
        issues.append(
            _issue(
                "conflicting_embed",
                fence,
                fence.name,
                f"the fence @@@{fence.name} and the archive entry {fence.name!r} hold "
                "different bytes; rename one or make them identical",
            )
        )

    for fence in fences_differing_from_files(bundle, RESERVED_NAMES):
        issues.append(
            _issue(
                "conflicting_embed",
                fence,
                fence.name,
                f"the fence @@@{fence.name} and the file {fence.name!r} in the folder hold "
                "different bytes, and only the fence is sent; rename one or make them "
                "identical",
            )
        )

    issues.extend(_reserved_issues(bundle))
    issues.extend(_unsendable_issues(bundle, skip=malformed | missing.keys()))
    issues.extend(tool_issues)
    issues.extend(unsent_image_issues(bundle))
    if any(is_remote_name(name) for name in first):
        from ._remote import remote_issues

        issues.extend(remote_issues(bundle))
    issues.extend(narrative._delimiter_issues)
    if inputs is not None or _may_declare_inputs(bundle):
        from ..templates import declared_inputs, input_issues

        declared = declared_inputs(bundle)
        found = declared.placeholders(narrative.placeholders).found
        issues.extend(input_issues(bundle, declared, found, inputs))
    if narrative.text.strip() and all(turn.delimiter_line is None for turn in narrative.turns):
        issues.append(
            Issue(
                "no_turns",
                bundle.narrative_name,
                None,
                None,
                "the narrative has no role delimiter, so it is all context (sent as one "
                "system message); start each turn with a heading such as '## Turn 1 -- user'",
            )
        )
    issues.sort(key=lambda issue: (issue.line is None, issue.line or 0, issue.column or 0))
    return issues


UNSENDABLE_EMBED = "unsendable_embed"
"""The issue kind of an asset no handler can send (an error, refused by every provider)."""


def _unsendable_issues(bundle: BundleContents, *, skip: Set[str]) -> list[Issue]:
    """An ``unsendable_embed`` error at the first place of each asset whose bytes the
    built-in handler refuses and no registered handler takes (an empty ``.png``, a
    ``.txt`` that is not UTF-8, a TIFF image): what every send refuses, said here too.

    Assets sent by other means are left out: the bundle's own entries, tool calls,
    native items and remote assets.
    """
    issues: list[Issue] = []
    for name, embed in bundle.narrative.first_embeds.items():
        if name in skip or name in RESERVED_NAMES or is_remote_name(name):
            continue
        if name.endswith(".json"):  # the naming checks load only for a name they may fit
            from ..narrative import is_native_name, is_tool_call_name

            if is_tool_call_name(name) or is_native_name(name):
                continue
        stamp = _folder_file_stamp(bundle, name)
        verdict = _FILE_VERDICTS.get((name, *stamp)) if stamp is not None else None
        if verdict is None:
            try:
                data = bundle.embed_head(name, TEXT_SNIFF_BYTES)
                if _needs_whole(data):
                    data = bundle.embed(name)
            except (InvalidZipError, LimitExceededError) as error:
                # Damaged or over a limit: every send refuses these bytes, and no other
                # kind says so (what is read is checked: a binary entry's head only).
                said = f"no provider can take {name}: its bytes cannot be read: {error.message}"
                hint = f"; {error.hint}" if error.hint else ""
                issue = _issue(UNSENDABLE_EMBED, embed, name, said + hint)
                if error.cli_hint is not None:
                    issue = dataclasses.replace(issue, cli_message=f"{said}; {error.cli_hint}")
                issues.append(issue)
                continue
            except LmmlError:  # unresolvable: reported by the kind that says why
                continue
            media_type = media_type_for(name, data)
            verdict = media_type, builtin_refusal(name, media_type, data)
            if stamp is not None:
                _keep_verdict((name, *stamp), verdict)
        media_type, refused = verdict
        if refused is None:
            continue
        from ..conversation import is_handled  # the registry: asked only for a refusal

        if not is_handled(name, media_type):
            message, hint = refused
            said = f"no provider can take {name}: {message}; {hint}"
            issues.append(_issue(UNSENDABLE_EMBED, embed, name, said))
    return issues


def _needs_whole(head: bytes) -> bool:
    """Whether the built-in handlers' verdict needs all of an asset's bytes, not only their
    *head* (the first :data:`~lmml_mdit.media.TEXT_SNIFF_BYTES`): only text does (are they
    UTF-8?); a video, an image or a binary file is told by its head, so a large one costs
    no full read."""
    return len(head) == TEXT_SNIFF_BYTES and sniff(head) is None and b"\x00" not in head


def _folder_file_stamp(bundle: BundleContents, name: str) -> tuple[str, int, int] | None:
    """``(path, size, modification time in ns)`` of the folder file *name* resolves to, for
    a bare narrative read with ``base_dir``; None for a fence, an entry or a file that
    cannot be examined (then read as any embed)."""
    if name in bundle.fences or name in bundle.entries:
        return None
    found = folder_file(bundle, name)
    if found is None:
        return None
    path, status = found
    return path, status.st_size, status.st_mtime_ns


_Verdict = tuple[str, tuple[str, str] | None]
"""An asset's media type, and the built-in handlers' refusal of it or None."""

_FILE_VERDICTS: dict[tuple[str, str, int, int], _Verdict] = {}
"""The verdict on each folder file by ``(name, path, size, modification time)``: kept while
the file stays as it was, since the language server validates after every edit and a large
text file would be read whole each time."""

_KEPT_VERDICTS = 256
"""How many verdicts :data:`_FILE_VERDICTS` holds; the oldest goes first."""


_VERDICTS_LOCK = threading.Lock()
"""Held while :data:`_FILE_VERDICTS` is trimmed and added to (bundles are validated in
several threads at once: ``evaluate``, ``render_cases``)."""


def _keep_verdict(key: tuple[str, str, int, int], verdict: _Verdict) -> None:
    """Hold *verdict* for the folder file *key* stamps, within :data:`_KEPT_VERDICTS`."""
    with _VERDICTS_LOCK:
        if len(_FILE_VERDICTS) >= _KEPT_VERDICTS:
            del _FILE_VERDICTS[next(iter(_FILE_VERDICTS))]
        _FILE_VERDICTS[key] = verdict


def _reserved_issue(bundle: BundleContents, kind: str, name: str, error: BundleError) -> Issue:
    """The issue for a reserved embed that does not decode, its line counted in the file it
    lies in: the narrative for a fence, the entry itself for an archive entry."""
    message = error.message + (f" ({error.hint})" if error.hint else "")
    # A line without a known column (undecodable bytes, say) is pointed at from its start.
    column = error.column if error.column is not None or error.line is None else 1
    return Issue(kind, name, error.line, column, message, file=entry_holding(bundle, name))


def _reserved_issues(bundle: BundleContents) -> list[Issue]:
    """What validation finds about the reserved embeds (:data:`RESERVED_EMBEDS`): first,
    in their order, each one that does not decode (its ``invalid_kind``); then each one's
    own check, given what it decoded to."""
    issues: list[Issue] = []
    values: list[tuple[ReservedEmbed, JSONObject | None]] = []
    names = {embed.name for embed in RESERVED_EMBEDS}
    for embed in RESERVED_EMBEDS:
        value: JSONObject | None = None
        try:
            value = embed.read(bundle)
        except embed.error as error:
            name = error.name or embed.name
            # An embed read over another (the settings over the front matter) meets that
            # one's error again: it is reported there.
            if name == embed.name or name not in names:
                issues.append(_reserved_issue(bundle, embed.invalid_kind, name, error))
        except BundleError:
            pass  # an unresolvable reference to the embed is already a missing_reference
        values.append((embed, value))
    for embed, value in values:
        issues.extend(embed.check(bundle, value))
    return issues
