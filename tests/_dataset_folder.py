"""A folder of generated bundles for the dataset and Ray tests and the dataset benchmark:
text-only chats, archives holding an image, tool calls and their results, inline fences,
and some broken archives (one in twenty)."""

from __future__ import annotations

import random
from pathlib import Path

from lmml_mdit import Bundle, tool_call_fence

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
"""The image each archive holds (a PNG signature, then a kilobyte of pattern)."""


def image(size: int) -> bytes:
    """A PNG signature followed by *size* bytes that do not compress."""
    return b"\x89PNG\r\n\x1a\n" + random.Random(size).randbytes(size)


SHAPES = ("text", "image", "tool", "fence")


def bundle_shape(index: int) -> str:
    """What bundle *index* is: one of :data:`SHAPES`, or ``"broken"``."""
    if index % 20 == 19:
        return "broken"
    return SHAPES[index % len(SHAPES)]


def write_bundle(folder: Path, index: int, picture: bytes = PNG) -> Path:
    """Bundle *index* under *folder* (ten subfolders share them), its path returned; an
    archive holds *picture* as its image."""
    sub = folder / f"g{index % 10}"
    sub.mkdir(parents=True, exist_ok=True)
    shape = bundle_shape(index)
    if shape == "broken":
        path = sub / f"b{index}.lmmlz"
        path.write_bytes(b"PK\x03\x04 not really an archive")
    elif shape == "image":
        path = sub / f"b{index}.lmmlz"
        Bundle.from_zip(
            path.name,
            f"## user\nWhat is in @img{index}.png?\n\n## assistant\nA test pattern ({index}).\n",
            {f"img{index}.png": picture},
        ).save(path)
    elif shape == "tool":
        path = sub / f"b{index}.lmml"
        name, fence = tool_call_fence(f"call{index}", "get_weather", {"city": f"City {index}"})
        path.write_text(
            f"## user\nWeather in City {index}?\n\n## assistant\n{fence}\n"
            f"## tool\n@{name}\n\nSunny, {index % 30} degrees.\n\n## assistant\nIt is sunny.\n",
            encoding="utf-8",
        )
    elif shape == "fence":
        path = sub / f"b{index}.lmml"
        path.write_text(
            f"Be brief.\n\n## user\nSummarise this:\n\n@@@note{index}.txt\nline {index}\n@@@\n\n"
            "## assistant\nOne line.\n",
            encoding="utf-8",
        )
    else:
        path = sub / f"b{index}.lmml"
        path.write_text(
            f"---\nsettings:\n  temperature: 0.{index % 10}\n---\n## system\nBe kind.\n\n"
            f"## user\nHello number {index}.\n\n## assistant\nHi!\n",
            encoding="utf-8",
        )
    return path


def write_folder(folder: Path, count: int, picture: bytes = PNG) -> Path:
    """*count* bundles under *folder*, each archive holding *picture*."""
    for index in range(count):
        write_bundle(folder, index, picture)
    return folder
