"""Settings values checked against the shipped settings schema: ``invalid_setting`` for a
value of the wrong type, ``setting_out_of_range`` (a warning) and a ``SettingRangeWarning``
on send for a number outside a provider's range.

Each refused value is reported by ``validate`` at its own line and column, in YAML and JSON,
inline, in an archive entry or in the front matter; the schemas ship with the package and are
valid JSON Schema; and the checker agrees with a reference JSON Schema validator on
generated settings.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import ERROR_KINDS, Bundle, SettingRangeWarning, to_request
from lmml_mdit.bundle import (
    INVALID_SETTING,
    SETTING_OUT_OF_RANGE,
    json_value_offsets,
)
from lmml_mdit.errors import DefectError, InvalidSettingsError
from lmml_mdit.schema import (
    MANIFEST_SCHEMA_FILE,
    SETTINGS_SCHEMA_FILE,
    manifest_schema,
    schema_problems,
    settings_schema,
)

ROOT = Path(__file__).resolve().parent.parent

INVALID = [
    ("temperature: hot", "must be a number, not a string"),
    ("temperature: true", "must be a number, not a boolean"),
    ('max_tokens: "lots"', "must be an integer, not a string"),
    ("max_tokens: 1.5", "must be an integer, not a number"),
    ("max_output_tokens: []", "must be an integer, not a list"),
    ("stop: 5", "must be a string or a list, not an integer"),
    ("stop: {a: 1}", "must be a string or a list, not a mapping"),
    ("seed: 1.5", "must be an integer, not a number"),
    ("seed: abc", "must be an integer, not a string"),
    ("model: 5", "must be a string, not an integer"),
    ('model: ""', "must not be empty"),
    ("tools: {}", "must be a list, not a mapping"),
    ("tool_choice: 5", "must be a mapping or a string, not an integer"),
    ("response_format: [1]", "must be a mapping or a string, not a list"),
]


def _only(bundle: Bundle, kind: str = INVALID_SETTING) -> Any:
    issues = [issue for issue in bundle.validate() if issue.kind == kind]
    assert len(issues) == 1, issues
    return issues[0]


#: Numbers no provider's API reference takes: a warning at validation, located.
NO_PROVIDER_TAKES = [
    ("temperature: 2.5", "openai: 0 to 2; openai-responses: 0 to 2; anthropic: 0 to 1"),
    ("temperature: -0.1", "gemini: 0 to 2"),
    ("top_p: 3", "anthropic: 0 to 1; gemini: 0 to 1"),
]

#: Numbers some provider takes: no issue, a SettingRangeWarning naming the rule when sent
#: to a provider that does not (and the value sent as given).
SOME_PROVIDER_TAKES = [
    ("max_completion_tokens", 0, "anthropic", "max_tokens", "at least 1"),
    ("max_tokens", -5, "anthropic", "max_tokens", "at least 1"),
    ("presence_penalty", -3, "openai", "presence_penalty", "-2 to 2"),
    ("frequency_penalty", 9, "openai", "frequency_penalty", "-2 to 2"),
    ("n", 0, "openai", "n", "1 to 128"),
    ("n", 129, "openai", "n", "1 to 128"),
    ("top_logprobs", 21, "openai", "top_logprobs", "0 to 20"),
    ("top_logprobs", -1, "openai-responses", "top_logprobs", "0 to 20"),
]


@pytest.mark.parametrize(
    ("line", "rules"), NO_PROVIDER_TAKES, ids=[x for x, _ in NO_PROVIDER_TAKES]
)
def test_a_number_no_provider_takes_is_a_located_warning(line: str, rules: str) -> None:
    text = f"## user\n\nhi\n\n@@@settings.yaml\n# sampling\n{line}\n@@@\n"
    bundle = Bundle.from_text("b", text)
    issue = _only(bundle, SETTING_OUT_OF_RANGE)
    assert issue.severity == "warning" and (issue.line, issue.column) == (7, line.index(":") + 3)
    assert rules in issue.message and "every provider's API reference" in issue.message
    assert not [i for i in bundle.validate() if i.severity == "error"]
    with pytest.warns(SettingRangeWarning, match="openai's API reference"):
        body = to_request(bundle, "openai", model="m")  # not a defect: sent as given
    key, value = line.split(": ")
    assert body[key] == float(value)


@pytest.mark.parametrize(("key", "value", "provider", "sent_as", "rule"), SOME_PROVIDER_TAKES)
def test_a_number_outside_one_providers_range_warns_when_sent_there(
    key: str, value: float, provider: str, sent_as: str, rule: str
) -> None:
    bundle = Bundle.from_text("b", f"## user\n\nhi\n\n@@@settings.yaml\n{key}: {value}\n@@@\n")
    assert bundle.validate() == []
    with pytest.warns(SettingRangeWarning) as caught:
        body = to_request(bundle, provider, model="m")
    (warning,) = [w for w in caught if w.category is SettingRangeWarning]
    assert f"setting '{key}' is {value}" in str(warning.message)
    assert f"{provider}'s API reference gives ({rule})" in str(warning.message)
    assert body[sent_as] == value


def test_max_completion_tokens_zero_is_no_defect_for_openai() -> None:
    bundle = Bundle.from_zip(
        "z", "## user\n\nhi\n", {"settings.json": b'{"max_completion_tokens": 0}'}
    )
    assert bundle.validate() == []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", SettingRangeWarning)
        assert to_request(bundle, "openai", model="m")["max_completion_tokens"] == 0


def test_invalid_setting_stops_a_send() -> None:
    assert INVALID_SETTING == "invalid_setting" and INVALID_SETTING in ERROR_KINDS


@pytest.mark.parametrize(("line", "problem"), INVALID, ids=[line for line, _ in INVALID])
def test_each_refused_value_in_an_inline_yaml_fence(line: str, problem: str) -> None:
    text = f"## user\n\nhi\n\n@@@settings.yaml\n# sampling\n{line}\n@@@\n"
    issue = _only(Bundle.from_text("b", text))
    key = line.split(": ", 1)[0]
    assert issue.severity == "error" and issue.name == "settings.yaml" and issue.file is None
    assert (issue.line, issue.column) == (7, len(key) + 3)
    assert problem in issue.message and f"setting '{key}'" in issue.message
    assert "fix the value or remove the setting" in issue.message
    # The same value in an archive entry is located in the entry.
    entry = _only(Bundle.from_zip("z", "## user\n\nhi\n", {"settings.yml": f"{line}\n".encode()}))
    assert (entry.file, entry.line, entry.column) == ("settings.yml", 1, len(key) + 3)
    located = Bundle.from_zip("z", "## user\n\nhi\n", {"settings.yml": f"{line}\n".encode()})
    assert located.location(entry) == "z.lmmlz!settings.yml"


def test_list_items_are_located_each() -> None:
    text = "## user\n\nhi\n\n@@@settings.yaml\nstop:\n  - END\n  - 5\n  - ok\n  - [x]\n@@@\n"
    issues = [i for i in Bundle.from_text("b", text).validate() if i.kind == INVALID_SETTING]
    assert [(i.line, i.column) for i in issues] == [(8, 5), (10, 5)]
    assert "'stop[1]' is 5" in issues[0].message and "'stop[3]'" in issues[1].message


def test_json_values_are_located_by_a_walk_of_the_text() -> None:
    text = (
        "## user\n\nhi\n\n@@@settings.json\n"
        '{\n  "model": "m",\n    "temperature":   "hot",\n  "stop": ["a",\n  7]}\n@@@\n'
    )
    issues = [i for i in Bundle.from_text("b", text).validate() if i.kind == INVALID_SETTING]
    assert [(i.line, i.column) for i in issues] == [(8, 22), (10, 3)]
    entry = Bundle.from_zip("z", "## user\n\nhi\n", {"settings.json": b'{"top_p": "3"}'})
    assert (_only(entry).line, _only(entry).column) == (1, 11)


@given(
    st.dictionaries(
        st.text(max_size=4),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=4),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            ),
            max_leaves=8,
        ),
        max_size=4,
    ),
    st.sampled_from([None, 0, 2]),
)
@settings(max_examples=60, deadline=None)
def test_json_offsets_point_at_each_value(document: dict[str, Any], indent: int | None) -> None:
    text = json.dumps(document, indent=indent)
    decoder = json.JSONDecoder()
    for path, offset in json_value_offsets(text, depth=8).items():
        value: Any = document
        for step in path:
            value = value[step]
        assert decoder.raw_decode(text, offset)[0] == value


def test_front_matter_settings_are_located_in_the_narrative() -> None:
    text = "---\ntitle: t\nsettings:\n  top_p: no\n  seed: x\n---\n\n## user\n\nhi\n"
    issues = [i for i in Bundle.from_text("b", text).validate() if i.kind == INVALID_SETTING]
    assert [(i.name, i.line, i.column) for i in issues] == [
        ("front matter", 4, 10),
        ("front matter", 5, 9),
    ]
    # A front matter value the settings embed overrides is never sent: not reported.
    embed = "\n@@@settings.yaml\ntop_p: 0.5\n@@@\n"
    issues = Bundle.from_text("b", text + embed).validate()
    issues = [i for i in issues if i.kind == INVALID_SETTING]
    assert [(i.line, i.column, "'seed'" in i.message) for i in issues] == [(5, 9, True)]


def test_valid_settings_and_unknown_keys_pass() -> None:
    text = (
        "## user\n\nhi\n\n@@@settings.yaml\nmodel: m\ntemperature: 0\ntop_p: 1\n"
        "max_tokens: 4096\nstop: END\nseed: -3\nn: 2.0\nreasoning_effort: high\n"
        "tools: []\ntool_choice: auto\nresponse_format: {type: json_object}\n@@@\n"
    )
    assert [i for i in Bundle.from_text("b", text).validate() if i.kind == INVALID_SETTING] == []


def test_settings_that_do_not_decode_are_not_also_invalid_setting() -> None:
    text = "## user\n\nhi\n\n@@@settings.yaml\ntemperature: [\n@@@\n"
    kinds = [issue.kind for issue in Bundle.from_text("b", text).validate()]
    assert "invalid_settings" in kinds and INVALID_SETTING not in kinds


def test_a_refused_value_stops_the_send_and_settings_overrides_are_checked() -> None:
    bundle = Bundle.from_text("b", "## user\n\nhi\n\n@@@settings.yaml\ntemperature: hot\n@@@\n")
    with pytest.raises(DefectError, match=r"^b\.lmml:6:14: invalid_setting: "):
        to_request(bundle, "openai", model="m")
    clean = Bundle.from_text("c", "## user\n\nhi\n")
    with pytest.raises(InvalidSettingsError, match="'top_p' is \"3\": it must be a number"):
        to_request(clean, "openai", model="m", settings={"top_p": "3"})


def test_lmml_validate_prints_each_with_its_location(tmp_path: Path) -> None:
    path = tmp_path / "s.lmml"
    path.write_text(
        "---\nsettings:\n  top_p: 3\n---\n\n## user\n\nhi\n\n"
        '@@@settings.yaml\ntemperature: hot\nmax_tokens: "lots"\n@@@\n',
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", "validate", str(path)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines == [
        f"{path}:3:10: setting_out_of_range: setting 'top_p' is 3: it is outside the range "
        "every provider's API reference gives (openai: 0 to 1; openai-responses: 0 to 1; "
        "anthropic: 0 to 1; gemini: 0 to 1); fix the value or remove the setting",
        f"{path}:11:14: invalid_setting: setting 'temperature' is \"hot\": it must be a "
        "number, not a string; fix the value or remove the setting",
        f"{path}:12:13: invalid_setting: setting 'max_tokens' is \"lots\": it must be an "
        "integer, not a string; fix the value or remove the setting",
    ]


# -- the schemas --------------------------------------------------------------------------


@pytest.mark.parametrize("file_name", [SETTINGS_SCHEMA_FILE, MANIFEST_SCHEMA_FILE])
def test_the_schemas_ship_as_package_data_and_are_json_schema(file_name: str) -> None:
    shipped = resources.files("lmml_mdit").joinpath("schemas").joinpath(file_name)
    schema = json.loads(shipped.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    package_data = pyproject.split("[tool.setuptools.package-data]", 1)[1].split("[", 2)
    assert '"schemas/*.schema.json"' in package_data[1]  # lmml_mdit = [...]
    docs = (ROOT / "docs" / "bundles.md").read_text(encoding="utf-8")
    assert f"../lmml_mdit/schemas/{file_name}" in docs  # the page includes the file itself


def test_the_settings_schema_declares_the_tool_keys_permissively() -> None:
    properties = settings_schema()["properties"]
    assert {k: v for k, v in properties["tools"].items() if k != "description"} == {"type": "array"}
    for key in ("tool_choice", "response_format", "output_schema"):
        assert set(properties[key]["type"]) == {"object", "string"}
    assert settings_schema()["additionalProperties"] is True


def test_a_schema_keyword_the_checker_does_not_know_is_refused() -> None:
    from lmml_mdit import schema as schema_module

    with pytest.raises(ValueError, match="oneOf"):
        schema_module._check_keywords({"properties": {"a": {"oneOf": []}}}, "x")


def _values() -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-10, max_value=10_000)
        | st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=5)
        | st.sampled_from([0.0, 1.0, 2.0, -2.0, 0.5, 1.5, 2.5])
        | st.text(max_size=5)
    )
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
        ),
        max_leaves=5,
    )


SETTINGS_KEYS = [*sorted(settings_schema()["properties"]), "other", "reasoning_effort"]


@given(st.dictionaries(st.sampled_from(SETTINGS_KEYS), _values(), max_size=5))
@settings(max_examples=250, deadline=None)
def test_validate_agrees_with_a_reference_json_schema_validator(values: dict[str, Any]) -> None:
    reference = jsonschema.Draft202012Validator(settings_schema())
    accepted = reference.is_valid(values)
    assert (schema_problems(values, settings_schema()) == []) == accepted
    text = "## user\n\nhi\n\n@@@settings.json\n" + json.dumps(values, indent=1) + "\n@@@\n"
    reported = [i for i in Bundle.from_text("b", text).validate() if i.kind == INVALID_SETTING]
    # Past the schema, the tools, tool choice and structured output are read as a send
    # reads them: a declaration it refuses is reported too, at its key.
    refused = {error.absolute_path[0] for error in reference.iter_errors(values)}
    refused |= _tool_fault(values)
    accepted = accepted and not refused
    assert (reported == []) == accepted
    # Every refused top-level key is reported, at a line inside the fence.
    assert {i.message.split("'")[1].split("[")[0].split(".")[0] for i in reported} == refused
    assert all(6 <= (i.line or 0) <= 6 + text.count("\n") for i in reported)


def _tool_fault(values: dict[str, Any]) -> set[str]:
    """The top-level key of the fault a send finds in *values*' tool declarations, when
    the schema takes their types."""
    reference = jsonschema.Draft202012Validator(settings_schema())
    tool_keys = {"tools", "tool_choice", "response_format", "output_schema", "tool_config"}
    if any(e.absolute_path[0] in tool_keys for e in reference.iter_errors(values)):
        return set()
    try:
        lmml_mdit.chat.portable_settings(values)
    except InvalidSettingsError as error:
        return {(error.name or "").split(".")[0].split("[")[0]}
    return set()


@given(st.dictionaries(st.sampled_from(SETTINGS_KEYS), _values(), max_size=5))
@settings(max_examples=80, deadline=None)
def test_yaml_settings_are_checked_as_their_json_is(values: dict[str, Any]) -> None:
    # Flow-style YAML of the values (JSON is mostly YAML): the verdict on what the YAML
    # reads as (YAML 1.1 reads 1e-05 as a string), located on the one line.
    text = "## user\n\nhi\n\n@@@settings.yaml\n" + json.dumps(values) + "\n@@@\n"
    bundle = Bundle.from_text("b", text)
    reported = [i for i in bundle.validate() if i.kind == INVALID_SETTING]
    read = bundle.settings or {}
    valid = jsonschema.Draft202012Validator(settings_schema()).is_valid(read)
    accepted = valid and not _tool_fault(read)
    assert (reported == []) == accepted
    assert all(i.line == 6 and (i.column or 0) >= 1 for i in reported)


def test_integers_and_booleans_follow_json_schema() -> None:
    schema = settings_schema()
    assert schema_problems({"max_tokens": 5.0}, schema) == []  # 5.0 is an integer
    assert schema_problems({"max_tokens": True}, schema) != []  # a boolean is not
    assert not math.isnan(2.0) and schema_problems({"temperature": 2}, schema) == []


def test_manifests_the_package_writes_follow_the_manifest_schema(tmp_path: Path) -> None:
    recorded = json.dumps({"assets": {"a.txt": {"sha256": "0" * 64}}, "title": "t"})
    bundle = Bundle.from_zip(
        "m", "## user\n\n@a.txt\n", {"a.txt": b"x", "manifest.json": recorded.encode()}
    )
    bundle.save(tmp_path / "m.lmmlz")
    import lmml_mdit

    with lmml_mdit.open(tmp_path / "m.lmmlz") as saved:
        manifest = saved.manifest
    assert manifest is not None and manifest["assets"]["a.txt"]["sha256"] != "0" * 64
    validator = jsonschema.Draft202012Validator(manifest_schema())
    assert validator.is_valid(manifest)
    assert schema_problems(manifest, manifest_schema()) == []
    broken = {"assets": {"a.txt": {"sha256": "xyz"}}}
    assert not validator.is_valid(broken)
    assert [p.path for p in schema_problems(broken, manifest_schema())] == [
        ("assets", "a.txt", "sha256")
    ]


def test_a_settings_file_beside_a_narrative_is_named_as_the_place(tmp_path: Path) -> None:
    """A line of a file beside a bare narrative counts in that file, and both the API and
    the CLI name it by its path (not the narrative, not ``x.lmml!settings.yaml``)."""
    (tmp_path / "x.lmml").write_text("## user\n\nHi @settings.yaml\n", encoding="utf-8")
    (tmp_path / "settings.yaml").write_text("model: m\ntemperature: hot\n", encoding="utf-8")
    bundle = lmml_mdit.open(tmp_path / "x.lmml")
    (issue,) = bundle.validate()
    assert (issue.kind, issue.file, issue.line, issue.column) == (
        INVALID_SETTING,
        "settings.yaml",
        2,
        14,
    )
    assert bundle.location(issue) == "settings.yaml"  # beside x.lmml, its file_name
    done = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", "validate", "x.lmml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.startswith("settings.yaml:2:14: invalid_setting:")


def test_a_range_warning_on_send_names_the_line_validate_names() -> None:
    text = "## user\n\nhi\n\n@@@settings.yaml\n# sampling\ntemperature: 7\n@@@\n"
    bundle = Bundle.from_text("b", text)
    issue = _only(bundle, SETTING_OUT_OF_RANGE)
    with pytest.warns(SettingRangeWarning) as caught:
        to_request(bundle, "openai", model="m")
    (warning,) = [w for w in caught if w.category is SettingRangeWarning]
    assert str(warning.message).startswith(f"b.lmml:{issue.line}:{issue.column}: setting ")


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({"c.lmml": '## user\n\nhi\n\n@@@settings.json\n{"temperature": 7}\n@@@\n'}, "c.lmml:6:17"),
        ({"c.lmml": "---\nsettings:\n  temperature: 7\n---\n## user\n\nhi\n"}, "c.lmml:3:16"),
        (
            {"c.lmml": "## user\n\n@settings.yaml\n\nhi\n", "settings.yaml": "temperature: 7\n"},
            "c.lmml: settings.yaml:1:14",
        ),
    ],
    ids=["inline fence", "front matter", "file beside"],
)
def test_render_says_where_a_number_sent_out_of_range_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], said: str
) -> None:
    from lmml_mdit.cli import main

    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = str(tmp_path / "c.lmml")
    assert main(["render", path, "--request", "--provider", "openai", "--model", "m"]) == 0
    err = capsys.readouterr().err
    place = said.replace("c.lmml", path, 1)
    assert f"lmml: warning: {place}: setting 'temperature' is 7: it is outside" in err
    # A value given on the command line has no line to name.
    args = ["render", path, "--request", "--provider", "openai", "--model", "m"]
    assert main([*args, "--set", "temperature=9"]) == 0
    assert (
        f"lmml: warning: {path}: setting 'temperature' is 9: it is outside"
        in capsys.readouterr().err
    )


#: Tools, a tool choice or structured output every request would refuse: ``validate``
#: reports each as ``invalid_setting`` at the value, as a send raises it.
TOOL_FAULTS = [
    ("tools:\n  - name: f\n    parameters: 5\n", (3, 17), "'tools[0].parameters' is 5"),
    ('tools:\n  - {name: "bad name!"}\n', (2, 12), "'tools[0].name'"),
    ("tools:\n  - name: f\ntool_choice: g\n", (3, 14), "names 'g', which no tool"),
    ("tool_choice: get_wether\n", (1, 14), "names 'get_wether', but the settings declare no"),
    ("tool_choice: required\n", (1, 14), "requires a tool call, but the settings declare no"),
    ("tool_choice: {type: any}\n", (1, 14), "requires a tool call, but the settings declare no"),
    ("response_format: {schema: 3}\n", (1, 27), "'response_format.schema' is 3"),
    # a provider's own form, located at the key as written
    ("output_config:\n  format: {type: json_schema, schema: 3}\n", (2, 3), "'output_config'"),
    (
        "toolConfig: {functionCallingConfig: {mode: ANY, allowedFunctionNames: [x]}}\n",
        (1, 13),
        "setting 'toolConfig'",
    ),
]


@pytest.mark.parametrize(("text", "where", "problem"), TOOL_FAULTS)
def test_a_tool_declaration_a_send_refuses_is_an_invalid_setting(
    text: str, where: tuple[int, int], problem: str, tmp_path: Path
) -> None:
    bundle = Bundle.from_zip("z", "## user\n\nhi\n", {"settings.yaml": text.encode()})
    issue = _only(bundle)
    assert (issue.file, issue.line, issue.column) == ("settings.yaml", *where)
    assert problem in issue.message and "fix the value or remove the setting" in issue.message
    with pytest.raises(DefectError):
        to_request(bundle, "openai", model="m")
    bundle.save(tmp_path / "z.lmmlz")
    from lmml_mdit.cli import main

    assert main(["validate", str(tmp_path / "z.lmmlz")]) == 1


def test_a_tool_choice_in_the_front_matter_may_name_a_tool_of_the_embed() -> None:
    text = (
        "---\nsettings:\n  tool_choice: f\n---\n\n## user\n\nhi\n\n"
        "@@@settings.yaml\ntools:\n  - name: f\n@@@\n"
    )
    bundle = Bundle.from_text("b", text)
    assert bundle.validate() == []
    assert to_request(bundle, "openai", model="m")["tool_choice"]["function"]["name"] == "f"
    unknown = Bundle.from_text("b", text.replace("tool_choice: f", "tool_choice: g"))
    issue = _only(unknown)
    assert (issue.name, issue.line, issue.column) == ("front matter", 3, 16)


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_a_named_tool_choice_without_tools_is_refused_when_sent(provider: str) -> None:
    # Before, the choice was sent naming a tool the request does not have.
    with pytest.raises(InvalidSettingsError, match="declare no 'tools'") as refused:
        lmml_mdit.chat.provider_settings({"tool_choice": "f"}, provider)
    assert refused.value.name == "tool_choice"


def _nested(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"temperature": math.nan}, "'temperature' cannot be sent: nan is not a JSON number"),
        ({"metadata": {"a": [1, {"b": math.inf}]}}, "'metadata' cannot be sent: inf is not"),
        ({"metadata": _nested(5000)}, "'metadata' cannot be sent: the value nests deeper"),
        ({"seed": object()}, "'seed' cannot be sent: an object is not a JSON value"),
    ],
    ids=["nan", "inf-inside", "deep", "object"],
)
def test_settings_given_in_code_are_held_to_json_values(
    settings: dict[str, object], reason: str
) -> None:
    # A file's settings are refused at read for these; settings= went out as "NaN", or
    # failed in the JSON encoder with a RecursionError.
    bundle = Bundle.from_text("c", "## user\n\nhi\n")
    with pytest.raises(InvalidSettingsError, match=reason):
        to_request(bundle, "openai", model="m", settings=settings)
    with pytest.raises(InvalidSettingsError, match=reason):
        bundle.to_request(settings={"model": "m", **settings})
