"""The oldest versions CI installs: every lower bound in ``pyproject.toml`` is pinned in
``.ci/oldest.txt`` (a file of the repository, not of the sdist)."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def _requirements(text: str, table: str) -> list[str]:
    """The quoted requirement strings of a ``pyproject.toml`` table's arrays (read by
    hand: ``tomllib`` is not in Python 3.10)."""
    body = text.split(f"\n{table}\n", 1)[1]
    body = re.split(r"\n\[(?!project\.optional-dependencies\])", body, maxsplit=1)[0]
    return re.findall(r'^\s*"([^"]+)",?\s*(?:#.*)?$', body, flags=re.MULTILINE)


def _floors() -> dict[str, set[Version]]:
    """Each package's ``>=`` bounds in ``pyproject.toml``, over its dependencies and extras."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("\ndependencies = [", 1)[1].split("]", 1)[0]
    found = re.findall(r'"([^"]+)"', project) + _requirements(
        text, "[project.optional-dependencies]"
    )
    floors: dict[str, set[Version]] = {}
    for line in found:
        requirement = Requirement(line)
        for spec in requirement.specifier:
            if spec.operator == ">=":
                name = canonicalize_name(requirement.name)
                floors.setdefault(name, set()).add(Version(spec.version))
    return floors


def test_a_package_named_in_several_extras_has_one_floor() -> None:
    # sphinx is in the sphinx, test and docs extras: a floor lowered in one is lowered in all.
    floors = _floors()
    assert {name: sorted(map(str, seen)) for name, seen in floors.items() if len(seen) > 1} == {}


def test_every_lower_bound_is_pinned_in_the_oldest_constraints() -> None:
    floors = _floors()
    pinned: dict[str, str] = {}
    for line in (ROOT / ".ci" / "oldest.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            pin = Requirement(line)
            (spec,) = pin.specifier
            pinned[canonicalize_name(pin.name)] = spec.version
    assert len(floors) > 30
    unpinned = {
        name: sorted(map(str, floor))
        for name, floor in floors.items()
        if name not in pinned or {Version(pinned[name])} != floor
    }
    assert unpinned == {}
