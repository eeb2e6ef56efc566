"""Parse JSON text, turning every way it can fail into one clear :class:`LmmlError`.

Shared by the top-layer readers that load whole JSON files (:mod:`lmml_mdit.transcript`
and :mod:`lmml_mdit.bridge`), which sit side by side and so cannot import each other.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import LmmlError

__all__ = ["load_json"]


def load_json(
    data: str | bytes, *, error_class: type[LmmlError], name: str | None, subject: str, hint: str
) -> Any:
    """Parse *data* as JSON.

    :param data: JSON text, or UTF-8 bytes.
    :param error_class: the error raised for every failure.
    :param name: the file or place named in the error.
    :param subject: what the data is, to start the message (``"chat data"``).
    :param hint: what to do about JSON that does not parse.
    :raises LmmlError: (as *error_class*) for bytes that are not UTF-8, invalid JSON (with
        line and column), an integer past Python's digit limit, or nesting too deep for
        the json module.
    """
    try:
        return json.loads(data)
    except UnicodeDecodeError as error:
        raise error_class(
            f"{subject} is not UTF-8 ({error.reason})", name=name, hint="save it as UTF-8"
        ) from None
    except json.JSONDecodeError as error:
        raise error_class(
            f"{subject} is not valid JSON ({error.msg})",
            name=name,
            line=error.lineno,
            column=error.colno,
            hint=hint,
        ) from None
    except ValueError as error:  # e.g. an integer longer than Python's digit limit
        raise error_class(
            f"{subject} cannot be read as JSON ({error})", name=name, hint=hint
        ) from None
    except RecursionError:
        # The json module recurses once per nesting level; real payloads nest a few levels.
        raise error_class(f"{subject} nests too deeply to read", name=name, hint=hint) from None
