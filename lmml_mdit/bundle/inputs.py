"""The old home of the template inputs' names, kept importable: they live in
:mod:`lmml_mdit.templates` (imported from there on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "INPUTS_KEY",
    "INPUT_KINDS",
    "MAX_INTEGER",
    "MESSAGES_TYPE",
    "InputDeclarations",
    "InputFile",
    "InputSpec",
    "InputType",
    "ValuesPath",
    "bind_inputs",
    "declared_inputs",
    "field_value",
    "input_file",
    "input_issues",
    "input_text",
    "misplaced_messages",
    "value_problem",
    "values_file_path",
]

if TYPE_CHECKING:
    from ..templates import (
        INPUT_KINDS,
        INPUTS_KEY,
        MAX_INTEGER,
        MESSAGES_TYPE,
        InputDeclarations,
        InputFile,
        InputSpec,
        InputType,
        ValuesPath,
        bind_inputs,
        declared_inputs,
        field_value,
        input_file,
        input_issues,
        input_text,
        misplaced_messages,
        value_problem,
        values_file_path,
    )

__getattr__ = lazy_attributes(__name__, dict.fromkeys(__all__, "lmml_mdit.templates"))
