"""``manifest.json``: the bundle's metadata, and the asset digests it records."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import BundleError, InvalidManifestError
from ...formats import MANIFEST_NAME
from ...jsontypes import JSONObject
from ...model import Issue
from ...text import clipped
from .._reserved import load_manifest, manifest_digests, sha256_hex
from .base import ReservedEmbed

if TYPE_CHECKING:
    from .._contents import BundleContents

__all__ = ["EMBED"]


def _decode(data: bytes, name: str, line: int | None) -> JSONObject:
    return load_manifest(data, name=name, line=line)


def _value(bundle: BundleContents) -> JSONObject | None:
    return bundle.manifest


def _integrity_issues(bundle: BundleContents, manifest: JSONObject | None) -> list[Issue]:
    """An ``integrity_mismatch`` for each asset whose bytes differ from the digest the
    manifest records, or that the bundle does not have."""
    issues: list[Issue] = []
    for name, recorded in manifest_digests(manifest).items():
        embed = bundle.narrative.embed(name)
        line = embed.line if embed is not None else None
        column = embed.column if embed is not None else None
        try:
            actual = sha256_hex(bundle.embed(name))
        except BundleError:
            message = (
                f"manifest.json records a sha256 for {name!r}, but the bundle has no such "
                "asset; add it or remove its record"
            )
            issues.append(Issue("integrity_mismatch", name, line, column, message))
            continue
        if actual != recorded.lower():
            message = (
                f"{name!r} has sha256 {actual}, but manifest.json records "
                f"{clipped(recorded, 80)}; "
                "the asset changed: restore it, or save the bundle to record the new digest"
            )
            issues.append(Issue("integrity_mismatch", name, line, column, message))
    return issues


EMBED = ReservedEmbed(
    name=MANIFEST_NAME,
    order=10,
    entry_names=(MANIFEST_NAME,),
    kinds={
        "invalid_manifest": ("error", "refused"),
        "integrity_mismatch": ("error", "refused"),
    },
    invalid_kind="invalid_manifest",
    error=InvalidManifestError,
    decode=_decode,
    value=_value,
    check=_integrity_issues,
)
