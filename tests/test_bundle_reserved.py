"""manifest.json and settings (ports of the reference's M1-M11 and S1-S14)."""

from __future__ import annotations

import pytest

from lmml_mdit import Bundle
from lmml_mdit.bundle import MAX_YAML_DEPTH, load_settings
from lmml_mdit.errors import (
    InvalidManifestError,
    InvalidSettingsError,
    MissingEntryError,
    UnresolvableReferenceError,
)


def fenced(name: str, body: str) -> Bundle:
    return Bundle.from_text("foo", f"@@@{name}\n{body}\n@@@")


def test_m1_no_manifest_is_none() -> None:
    assert Bundle.from_text("foo", "Just a plain narrative, no manifest at all.").manifest is None


def test_m2_decodes_inline_manifest() -> None:
    manifest = fenced("manifest.json", '{"schema": 1, "assets": ["a.png"]}').manifest
    assert manifest == {"schema": 1, "assets": ["a.png"]}


def test_m3_differs_json_null_is_none() -> None:
    """Deliberate difference: the reference gives the atom :null; we give None."""
    manifest = fenced("manifest.json", '{"schema": 1, "note": null}').manifest
    assert manifest is not None
    assert "note" in manifest and manifest["note"] is None


def test_m4_manifest_from_zip_entry_mentioned_or_not() -> None:
    mentioned = Bundle.from_zip("convo", "See @manifest.json.", {"manifest.json": b'{"schema": 2}'})
    assert mentioned.manifest == {"schema": 2}
    silent = Bundle.from_zip("convo", "No mention.", {"manifest.json": b'{"schema": 3}'})
    assert silent.manifest == {"schema": 3}
    kinds = [issue.kind for issue in silent.validate()]
    assert kinds == ["no_turns"], "a reserved entry is never an orphan"


def test_m5_m6_unresolvable_and_missing() -> None:
    with pytest.raises(UnresolvableReferenceError):
        _ = Bundle.from_text("foo", "See @manifest.json please.").manifest
    with pytest.raises(MissingEntryError):
        _ = Bundle.from_zip("convo", "See @manifest.json please.", {}).manifest


def test_m7_invalid_json_has_the_line() -> None:
    bundle = Bundle.from_text("foo", "Intro\n\n@@@manifest.json\n{\n  not json\n}\n@@@")
    with pytest.raises(InvalidManifestError) as raised:
        _ = bundle.manifest
    assert raised.value.line == 5


def test_m8_non_object_is_refused() -> None:
    with pytest.raises(InvalidManifestError, match="not an object"):
        _ = fenced("manifest.json", "[1, 2, 3]").manifest


def test_s1_no_settings_is_none() -> None:
    assert Bundle.from_text("foo", "no settings").settings is None


def test_s2_s3_s4_yaml_scalars_nesting_comments() -> None:
    body = (
        "# header comment\n\nmodel: gpt-5 # trailing\ntemperature: 0.2\nenabled: true\n"
        "note: hello world\nserver:\n  host: localhost\n  port: 8080\ncolor: '#fff'"
    )
    assert fenced("settings.yaml", body).settings == {
        "model": "gpt-5",
        "temperature": 0.2,
        "enabled": True,
        "note": "hello world",
        "server": {"host": "localhost", "port": 8080},
        "color": "#fff",
    }


def test_s5_json_settings_found_automatically() -> None:
    """Deliberate difference: the reference finds settings.json only when asked by name."""
    assert fenced("settings.json", '{"model": "gpt-5", "temp": 0.2}').settings == {
        "model": "gpt-5",
        "temp": 0.2,
    }
    assert fenced("settings.yml", "a: 1").settings == {"a": 1}


def test_s6_s7_settings_from_zip_or_unresolvable() -> None:
    zipped = Bundle.from_zip("c", "See @settings.yaml.", {"settings.yaml": b"model: gpt-5\n"})
    assert zipped.settings == {"model": "gpt-5"}
    with pytest.raises(UnresolvableReferenceError):
        _ = Bundle.from_text("foo", "See @settings.yaml please.").settings


def test_s8_differs_yaml_lists_are_real_yaml() -> None:
    """Deliberate difference: the reference's hand-rolled subset rejects lists."""
    assert fenced("settings.yaml", "tools:\n  - read_files\n  - run_shell").settings == {
        "tools": ["read_files", "run_shell"]
    }


def test_s9_invalid_json_settings() -> None:
    with pytest.raises(InvalidSettingsError):
        _ = fenced("settings.json", "not json {{{").settings


def test_s10_other_extensions_are_not_settings() -> None:
    assert fenced("settings.toml", "key = 1").settings is None
    with pytest.raises(InvalidSettingsError, match="YAML"):
        load_settings(b"key = 1", name="settings.toml")


def test_s11_yaml_null_is_none() -> None:
    settings = fenced("settings.yaml", "model: gpt-5\nnote: null\nother: ~").settings
    assert settings == {"model": "gpt-5", "note": None, "other": None}


def test_non_mapping_settings_name_the_line() -> None:
    bundle = Bundle.from_text("foo", "Intro\n\n@@@settings.yaml\n- a\n- b\n@@@")
    with pytest.raises(InvalidSettingsError, match="not a mapping") as raised:
        _ = bundle.settings
    assert raised.value.line == 4


def test_yaml_syntax_error_names_the_line() -> None:
    bundle = Bundle.from_text("foo", "@@@settings.yaml\na: 1\nb: [unclosed\nc: 2\n@@@")
    with pytest.raises(InvalidSettingsError) as raised:
        _ = bundle.settings
    assert raised.value.line is not None and raised.value.line >= 3


def test_yaml_alias_bomb_is_refused() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for index in range(1, 9):
        previous = chr(ord("a") + index - 1)
        name = chr(ord("a") + index)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 10)}]")
    with pytest.raises(InvalidSettingsError, match="alias bomb"):
        load_settings("\n".join(lines).encode(), name="settings.yaml")


def test_yaml_modest_aliases_are_fine() -> None:
    text = b"base: &base\n  model: m\n  t: 1\nrun:\n  <<: *base\n  t: 2\n"
    assert load_settings(text, name="settings.yaml") == {
        "base": {"model": "m", "t": 1},
        "run": {"model": "m", "t": 2},
    }


def test_yaml_recursive_alias_is_refused() -> None:
    with pytest.raises(InvalidSettingsError):
        load_settings(b"a: &a [*a]\n", name="settings.yaml")


def test_yaml_depth_is_bounded() -> None:
    deep = "[" * (MAX_YAML_DEPTH + 5) + "]" * (MAX_YAML_DEPTH + 5)
    with pytest.raises(InvalidSettingsError, match="deeper"):
        load_settings(f"a: {deep}".encode(), name="settings.yaml")


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:os.system ['echo hi']",
        "a: !!python/name:os.system",
        "a: !custom 1",
        "a: !!binary aGVsbG8=",
        "a: !!set {x}",
    ],
)
def test_yaml_object_construction_is_refused(text: str) -> None:
    with pytest.raises(InvalidSettingsError):
        load_settings(text.encode(), name="settings.yaml")


def test_yaml_dates_stay_strings_and_keys_must_be_strings() -> None:
    assert load_settings(b"when: 2024-01-02", name="settings.yaml") == {"when": "2024-01-02"}
    with pytest.raises(InvalidSettingsError, match="quote"):
        load_settings(b"1: one", name="settings.yaml")


def test_empty_yaml_settings_are_an_empty_mapping() -> None:
    assert load_settings(b"# only a comment\n", name="settings.yaml") == {}


def test_two_settings_embeds_are_refused() -> None:
    bundle = Bundle.from_text("foo", "@@@settings.yaml\na: 1\n@@@\n\n@@@settings.json\n{}\n@@@")
    with pytest.raises(InvalidSettingsError, match="several"):
        _ = bundle.settings


def test_multiple_yaml_documents_are_refused() -> None:
    with pytest.raises(InvalidSettingsError):
        load_settings(b"a: 1\n---\nb: 2\n", name="settings.yaml")


def test_invalid_utf8_settings() -> None:
    with pytest.raises(InvalidSettingsError, match="UTF-8"):
        load_settings(b"a: \xff", name="settings.yaml")


BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
        *(
            f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]"
            for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
    ]
)


def test_billion_laughs_is_refused_quickly_with_a_line() -> None:
    bundle = Bundle.from_text("foo", f"Intro\n\n@@@settings.yaml\n{BILLION_LAUGHS}\n@@@")
    with pytest.raises(InvalidSettingsError, match="alias bomb") as raised:
        _ = bundle.settings
    assert raised.value.line is not None and 4 <= raised.value.line <= 12


def test_python_object_tag_is_refused_with_its_line() -> None:
    text = "Intro\n\n@@@settings.yaml\nok: 1\nevil: !!python/object/apply:os.system ['echo']\n@@@"
    with pytest.raises(InvalidSettingsError, match="python/object") as raised:
        _ = Bundle.from_text("foo", text).settings
    assert raised.value.line == 5


def test_deep_yaml_is_refused_with_its_line() -> None:
    deep = "".join("  " * depth + f"k{depth}:\n" for depth in range(MAX_YAML_DEPTH + 10))
    with pytest.raises(InvalidSettingsError, match="deeper") as raised:
        load_settings(deep.encode(), name="settings.yaml")
    assert raised.value.line is not None


@pytest.mark.parametrize("name", ["settings.yaml", "settings.json"])
def test_numbers_past_python_digit_limit_are_errors_not_tracebacks(name: str) -> None:
    with pytest.raises(InvalidSettingsError):
        load_settings(b'{"a": ' + b"9" * 5000 + b"}", name=name)


def test_nan_is_not_json() -> None:
    with pytest.raises(InvalidManifestError, match="NaN"):
        _ = fenced("manifest.json", '{"a": NaN}').manifest


def test_top_level_null_manifest_is_refused_in_json_words() -> None:
    bundle = Bundle.from_text("foo", "Intro\n\n@@@manifest.json\n\nnull\n@@@")
    with pytest.raises(InvalidManifestError, match="JSON null, not an object") as raised:
        _ = bundle.manifest
    assert raised.value.line == 5


def test_nested_json_nulls_are_none_in_settings_too() -> None:
    assert fenced("settings.json", '{"a": [null, {"b": null}]}').settings == {
        "a": [None, {"b": None}]
    }
