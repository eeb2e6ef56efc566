"""Saving bundles: an atomic write of the narrative, or of a zip archive that opens again,
with the digests ``manifest.json`` records kept current.

An archive's entry names are checked as :func:`lmml_mdit.open` checks them before anything
is written, and entries are compressed only where that pays and keeps the archive within
the default :class:`~lmml_mdit.bundle.Limits`.
"""

from __future__ import annotations

import codecs
import copy
import io
import os
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from typing import IO

from ..atomic import atomic_write, atomic_write_bytes
from ..errors import BundleError, DuplicateEntryError, FolderReferenceWarning, InvalidManifestError
from ..formats import MANIFEST_NAME, other_kind_suffix
from ..media import is_compressed
from ._archive import Limits, check_entry_names
from ._contents import BundleContents
from ._names import narrative_entry_name
from ._packing import rewrite_fence
from ._reserved import dump_manifest, manifest_digests, sha256_hex
from ._urls import is_url, local_path, url_basename, url_output

__all__ = ["FolderReferenceWarning", "bundle_bytes", "save_archive", "save_bundle"]

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _current_manifest(bundle: BundleContents) -> tuple[str, dict[str, bytes]]:
    """The narrative text to save, and the entries whose bytes to save instead of the
    bundle's own: with the digests recorded brought up to date."""
    text = bundle.narrative.text
    replaced: dict[str, bytes] = {}
    try:
        manifest = bundle.manifest
    except (InvalidManifestError, BundleError):
        return text, replaced
    recorded = manifest_digests(manifest)
    if not recorded or manifest is None:
        return text, replaced
    manifest = copy.deepcopy(manifest)  # the bundle's own manifest stays as it was read
    updated = False
    assets = manifest["assets"]
    for name, digest in recorded.items():
        if not bundle.has_asset(name):
            continue
        actual = sha256_hex(bundle.embed(name))
        if actual != digest:
            assets[name] = {**assets[name], "sha256": actual}
            updated = True
    if not updated:
        return text, replaced
    data = dump_manifest(manifest)
    if MANIFEST_NAME in bundle.fences:
        text = rewrite_fence(bundle.narrative, MANIFEST_NAME, data)
    elif MANIFEST_NAME in bundle.entries:
        replaced[MANIFEST_NAME] = data
    return text, replaced


def _narrative_bytes(bundle: BundleContents, text: str) -> bytes:
    """The narrative *text* as saved: UTF-8, after a byte order mark when the narrative
    was read with one."""
    data = text.encode("utf-8")
    return codecs.BOM_UTF8 + data if bundle.narrative.bom else data


def save_bundle(bundle: BundleContents, path: str, *, exclusive: bool = False) -> None:
    """Write *bundle* to *path* atomically (see
    :meth:`Bundle.save <lmml_mdit.bundle.Bundle.save>`); *path* may be an fsspec URL
    (:func:`lmml_mdit.bundle.url_output`; a ``file://`` URL is its local path).

    :param exclusive: never replace an existing file (see
        :func:`lmml_mdit.atomic.atomic_write`).
    :raises WriteError: when *path* is not a regular file or the folder cannot be written
        (the target is left as it was).
    :raises UnsafeEntryError: (and the other :func:`~lmml_mdit.bundle.check_entry_names`
        errors) for an archive :func:`lmml_mdit.open` would refuse.
    :raises BundleError: when *path* ends in the other kind's suffix (a zip bundle to a
        ``.lmml``, a text one to a ``.lmmlz``), before anything is written.
    """
    _check_suffix(bundle, path)
    if is_url(path):
        local = local_path(path)
        if local is None:
            _warn_left_behind(bundle, None)
            data = bundle_bytes(bundle, url_basename(path))
            with url_output(path, exclusive=exclusive) as stream:
                stream.write(data)
            return
        path = local
    text, replaced = _current_manifest(bundle)
    if bundle.kind == "text":
        atomic_write_bytes(path, _narrative_bytes(bundle, text), exclusive=exclusive)
        _warn_left_behind(bundle, os.path.dirname(os.path.abspath(path)))
        return
    narrative_name = _checked_entry_names(path, bundle.entries)
    with atomic_write(path, exclusive=exclusive) as stream:
        _write_zip(bundle, stream, narrative_name, text, replaced)


def _warn_left_behind(bundle: BundleContents, folder: str | None) -> None:
    """Warn when a text bundle whose references resolve in its folder was written to
    another *folder* (None: not a local folder): the narrative names files that are not
    beside the new file, so it would no longer resolve them."""
    base_dir = bundle.base_dir
    if bundle.kind != "text" or base_dir is None:
        return
    if folder is not None and os.path.realpath(folder) == os.path.realpath(base_dir):
        return
    used = [
        name
        for name in bundle.narrative.first_embeds
        if name not in bundle.fences and bundle.has_asset(name)
    ]
    if not used:
        return
    from ..warn import warn

    listed = ", ".join(used[:5]) + (f" and {len(used) - 5} more" if len(used) > 5 else "")
    warn(
        FolderReferenceWarning(
            f"{bundle.file_name} was saved away from {base_dir}, whose files it uses: "
            f"{listed}; they are not copied, so the saved narrative resolves them only if "
            "they are put beside it (pack() the bundle to carry them in a .lmmlz, or "
            "inline() the text ones)"
        )
    )


def _check_suffix(bundle: BundleContents, path: str) -> None:
    """Refuse to write *bundle* to a *path* named for the other bundle kind."""
    suffix = other_kind_suffix(path, bundle.kind)
    if suffix is None:
        return
    if bundle.kind == "zip":
        what, advice = "a zip archive", "save it as a .lmmlz, or inline() it first"
    else:
        what, advice = "a bare narrative", "save it as a .lmml, or pack() it first"
    raise BundleError(
        f"this bundle is {what}; a {suffix} file would not hold what its name says",
        name=path,
        hint=advice,
    )


def bundle_bytes(bundle: BundleContents, file_name: str) -> bytes:
    """The bytes :func:`save_bundle` would write to a file named *file_name* (for standard
    output, where there is no file to name the narrative entry after)."""
    text, replaced = _current_manifest(bundle)
    if bundle.kind == "text":
        return _narrative_bytes(bundle, text)
    narrative_name = _checked_entry_names(file_name, bundle.entries)
    buffer = io.BytesIO()
    _write_zip(bundle, buffer, narrative_name, text, replaced)
    return buffer.getvalue()


def _checked_entry_names(path: str, entries: tuple[str, ...]) -> str:
    """The narrative entry name for a file at *path*, after checking it and every asset
    name as :func:`lmml_mdit.open` will: an archive that would not open again is refused
    before anything is written, naming the entry."""
    narrative_name = narrative_entry_name(os.path.basename(path))
    if narrative_name in entries:
        raise DuplicateEntryError(
            "an asset has the name the narrative entry needs",
            name=narrative_name,
            hint="rename that asset, or save under another file name",
        )
    check_entry_names([narrative_name, *entries])
    return narrative_name


def save_archive(path: str, text: str, entries: Mapping[str, bytes]) -> None:
    """Write a zip bundle of the narrative *text* and the asset *entries* to *path*
    atomically, as :func:`save_bundle` writes a zip bundle held in memory, without a
    parsed narrative (an importer that checked what it wrote).

    The caller keeps the digests a ``manifest.json`` entry records current (it writes
    none, or hands a bundle to :func:`save_bundle`).

    :raises WriteError: as :func:`save_bundle`.
    :raises UnsafeEntryError: (and the other :func:`~lmml_mdit.bundle.check_entry_names`
        errors) for an archive :func:`lmml_mdit.open` would refuse.
    """
    narrative_name = _checked_entry_names(path, tuple(entries))
    with atomic_write(path) as stream:
        _write_entries(stream, narrative_name, text.encode("utf-8"), entries.items())


def _write_zip(
    bundle: BundleContents,
    stream: IO[bytes],
    narrative_name: str,
    text: str,
    replaced: Mapping[str, bytes],
) -> None:
    entries = (
        (name, replaced[name] if name in replaced else bundle.read(name)) for name in bundle.entries
    )
    _write_entries(stream, narrative_name, _narrative_bytes(bundle, text), entries)


def _write_entries(
    stream: IO[bytes], narrative_name: str, narrative: bytes, entries: Iterable[tuple[str, bytes]]
) -> None:
    with zipfile.ZipFile(stream, "w") as archive:
        _write_entry(archive, narrative_name, narrative)
        for name, data in entries:
            _write_entry(archive, name, data)


def _write_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.external_attr = 0o644 << 16
    stored = is_compressed(name) or _deflates_past_the_ratio_limit(data)
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def _deflates_past_the_ratio_limit(data: bytes) -> bool:
    """Whether deflating *data* would cross half the default ``max_ratio``.

    Such an entry (megabytes of one repeated line) is stored instead, so that a bundle this
    library writes always opens again under the default :class:`~lmml_mdit.Limits`.
    """
    limits = Limits()
    if len(data) <= limits.ratio_floor:
        return False
    compressed = len(zlib.compress(data, 6))
    return len(data) > (limits.max_ratio // 2) * compressed
