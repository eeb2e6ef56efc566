"""Templates: one concept, one package. A bundle's ``inputs:`` declarations
(:class:`InputSpec`), the values given for them (checked by :func:`bind_inputs`, written as
text by :func:`input_text`), the one way of filling them in (after the parse, as text:
:class:`Template`), ``validate``'s input issues, and values given as text (``--input
NAME=VALUE``: :func:`assigned_value`), and values files and cases files read
(:func:`read_values_file`, :func:`read_cases_file`). Placeholders themselves are found by the parse
(:mod:`lmml_mdit.narrative`); rendering many cases is
:func:`lmml_mdit.render_cases`. See docs/templates.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "ASSET_TYPES",
    "INPUTS_KEY",
    "INPUT_KINDS",
    "INPUT_TYPES",
    "MAX_INTEGER",
    "MESSAGES_TYPE",
    "STDIN",
    "CaseValues",
    "CasesFormat",
    "Edit",
    "Fills",
    "InputAsset",
    "InputDeclarations",
    "InputFile",
    "InputMessages",
    "InputSpec",
    "InputType",
    "Placeholder",
    "Placeholders",
    "Template",
    "UnreadCase",
    "ValuesPath",
    "assigned_value",
    "bind_inputs",
    "cases_format",
    "checked_values",
    "declared_inputs",
    "field_value",
    "fill_fence",
    "filled_bundle",
    "held_in_folder",
    "input_file",
    "input_issues",
    "input_text",
    "misplaced_messages",
    "placeholder_spans",
    "read_case_rows",
    "read_cases_file",
    "read_values_file",
    "template_of",
    "value_problem",
    "values_file_path",
]

if TYPE_CHECKING:
    from ..narrative import Placeholder, Placeholders, placeholder_spans
    from ._declarations import InputDeclarations, InputSpec, declared_inputs
    from ._files import (
        STDIN,
        CasesFormat,
        CaseValues,
        UnreadCase,
        cases_format,
        read_case_rows,
        read_cases_file,
        read_values_file,
    )
    from ._fill import Edit, Fills, InputAsset, InputMessages, Template, fill_fence, template_of
    from ._issues import input_issues, misplaced_messages
    from ._text import assigned_value
    from ._types import ASSET_TYPES, INPUT_KINDS, INPUT_TYPES, INPUTS_KEY, MESSAGES_TYPE, InputType
    from ._values import (
        MAX_INTEGER,
        InputFile,
        ValuesPath,
        bind_inputs,
        checked_values,
        field_value,
        held_in_folder,
        input_file,
        input_text,
        value_problem,
        values_file_path,
    )
    from ._written import filled_bundle

_NAMES = {
    "ASSET_TYPES": "._types",
    "INPUTS_KEY": "._types",
    "INPUT_KINDS": "._types",
    "INPUT_TYPES": "._types",
    "MESSAGES_TYPE": "._types",
    "InputType": "._types",
    "InputDeclarations": "._declarations",
    "InputSpec": "._declarations",
    "declared_inputs": "._declarations",
    "MAX_INTEGER": "._values",
    "InputFile": "._values",
    "ValuesPath": "._values",
    "bind_inputs": "._values",
    "checked_values": "._values",
    "field_value": "._values",
    "held_in_folder": "._values",
    "input_file": "._values",
    "input_text": "._values",
    "value_problem": "._values",
    "values_file_path": "._values",
    "input_issues": "._issues",
    "misplaced_messages": "._issues",
    "Edit": "._fill",
    "Fills": "._fill",
    "InputAsset": "._fill",
    "InputMessages": "._fill",
    "Template": "._fill",
    "fill_fence": "._fill",
    "template_of": "._fill",
    "filled_bundle": "._written",
    "assigned_value": "._text",
    "STDIN": "._files",
    "CaseValues": "._files",
    "CasesFormat": "._files",
    "UnreadCase": "._files",
    "cases_format": "._files",
    "read_case_rows": "._files",
    "read_cases_file": "._files",
    "read_values_file": "._files",
    "Placeholder": "..narrative",
    "Placeholders": "..narrative",
    "placeholder_spans": "..narrative",
}

# Each name's module loads with its first use: validating a bundle that declares no input
# loads none of them.
__getattr__ = lazy_attributes(__name__, _NAMES)
