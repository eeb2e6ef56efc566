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

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ..narrative import Placeholder as Placeholder
    from ..narrative import Placeholders as Placeholders
    from ..narrative import placeholder_spans as placeholder_spans
    from ._declarations import InputDeclarations as InputDeclarations
    from ._declarations import InputSpec as InputSpec
    from ._declarations import declared_inputs as declared_inputs
    from ._files import STDIN as STDIN
    from ._files import CasesFormat as CasesFormat
    from ._files import CaseValues as CaseValues
    from ._files import UnreadCase as UnreadCase
    from ._files import cases_format as cases_format
    from ._files import jsonl_case as jsonl_case
    from ._files import read_case_rows as read_case_rows
    from ._files import read_cases_file as read_cases_file
    from ._files import read_values_file as read_values_file
    from ._fill import Edit as Edit
    from ._fill import Fills as Fills
    from ._fill import InputAsset as InputAsset
    from ._fill import InputMessages as InputMessages
    from ._fill import Template as Template
    from ._fill import fill_fence as fill_fence
    from ._fill import template_of as template_of
    from ._issues import input_issues as input_issues
    from ._issues import misplaced_messages as misplaced_messages
    from ._text import assigned_value as assigned_value
    from ._types import ASSET_TYPES as ASSET_TYPES
    from ._types import INPUT_KINDS as INPUT_KINDS
    from ._types import INPUT_TYPES as INPUT_TYPES
    from ._types import INPUTS_KEY as INPUTS_KEY
    from ._types import MESSAGES_TYPE as MESSAGES_TYPE
    from ._types import InputType as InputType
    from ._values import MAX_INTEGER as MAX_INTEGER
    from ._values import MAX_VALUE_DEPTH as MAX_VALUE_DEPTH
    from ._values import InputFile as InputFile
    from ._values import ValuesPath as ValuesPath
    from ._values import bind_inputs as bind_inputs
    from ._values import checked_values as checked_values
    from ._values import field_value as field_value
    from ._values import held_in_folder as held_in_folder
    from ._values import input_file as input_file
    from ._values import input_text as input_text
    from ._values import value_problem as value_problem
    from ._values import values_file_path as values_file_path
    from ._written import filled_bundle as filled_bundle

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
    "MAX_VALUE_DEPTH": "._values",
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
    "jsonl_case": "._files",
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

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
