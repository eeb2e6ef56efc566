"""The settings' YAML read with libyaml's scanner gives what PyYAML's own reader gives:
the same value, or the same refusal (the same error, line and column)."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit.bundle import Bundle
from lmml_mdit.bundle import _reserved as reserved  # patched on purpose: the YAML loaders
from lmml_mdit.errors import InvalidSettingsError

pytestmark = pytest.mark.skipif(
    reserved._FastSettingsLoader is None, reason="PyYAML was built without libyaml"
)

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=12),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _both(text: str) -> tuple[object, object]:
    """(fast, python): each the value read, or the refusal's (message, line, column)."""
    results = []
    for fast in (True, False):
        reserved._memo.clear()
        reserved._refused.clear()  # else the second read hands back the first's refusal
        saved = reserved._FastSettingsLoader
        if not fast:
            reserved._FastSettingsLoader = None
        try:
            results.append(
                reserved.load_settings(text.encode("utf-8", "surrogatepass"), name="settings.yaml")
            )
        except InvalidSettingsError as error:
            results.append((str(error), error.line, error.column))
        finally:
            reserved._FastSettingsLoader = saved
    return results[0], results[1]


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.text(max_size=8), _values, max_size=5), st.sampled_from(["block", "flow"])
)
def test_dumped_documents_read_the_same(value: dict[str, object], style: str) -> None:
    text = yaml.safe_dump(value, default_flow_style=style == "flow", allow_unicode=True)
    fast, python = _both(text)
    assert fast == python


_pieces = st.sampled_from(
    [
        "a: 1\n",
        "b: [1, 2\n",
        "c: {x: y}\n",
        "- 1\n",
        "  d: e\n",
        "&x f: *x\n",
        "g: &y [1]\n",
        "h: *y\n",
        "? k\n",
        ": v\n",
        "i: !!binary aGk=\n",
        "j: 0x1F\n",
        "k: 1e400\n",
        "l: '\n",
        'm: "\\u00e9"\n',
        "n: |\n  text\n",
        "o: >\n  folded\n",
        "%YAML 1.1\n---\n",
        "---\n",
        "...\n",
        "\t",
        "p: 2024-01-01\n",
        "q: .nan\n",
        "a: 2\n",
        "r: ~\n",
        "s:\n  - t\n",
        "#c\n",
        "u: v: w\n",
        "@x\n",
        "y: `z`\n",
        "!!python/name:os.system\n",
        "1: x\n",
    ]
)


@settings(max_examples=120, deadline=None)
@given(st.lists(_pieces, max_size=8))
def test_broken_and_refused_documents_read_the_same(pieces: list[str]) -> None:
    fast, python = _both("".join(pieces))
    assert fast == python


def test_the_limits_hold_on_the_fast_path() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)
    )
    fast, python = _both(bomb)
    assert fast == python
    assert isinstance(fast, tuple) and "alias bomb" in fast[0]
    deep = "a: " + "[" * (reserved.MAX_YAML_DEPTH + 2) + "]" * (reserved.MAX_YAML_DEPTH + 2) + "\n"
    fast, python = _both(deep)
    assert fast == python and isinstance(fast, tuple)


def test_a_read_is_kept_for_the_same_bytes_and_handed_out_as_a_copy() -> None:
    reserved._memo.clear()
    first = reserved.load_settings(b"a: [1, 2]\n", name="settings.yaml")
    first["a"].append(3)
    assert reserved.load_settings(b"a: [1, 2]\n", name="settings.yaml") == {"a": [1, 2]}
    assert len(reserved._memo) == 1


def test_an_alias_document_over_the_node_limit_is_refused_without_a_second_slow_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if reserved._FastSettingsLoader is None:
        pytest.skip("PyYAML without libyaml")
    many = "a: &x [1, 2, 3]\n" + "".join(f"b{i}: *x\n" for i in range(30_000))
    fast, python = _both(many)
    assert fast == python and isinstance(fast, tuple) and "alias bomb" in str(fast[0])

    def slow(*args: object) -> None:
        raise AssertionError("read again by the pure-Python reader")

    reserved._refused.clear()
    monkeypatch.setattr(reserved, "_read_yaml_python", slow)
    with pytest.raises(InvalidSettingsError, match="alias bomb"):
        reserved.load_settings(many.encode(), name="settings.yaml")


@pytest.mark.parametrize(
    "text",
    [
        "model: m\ntemperature:\t0.2\n",  # a tab after the colon
        "stop: a\tb\n",  # a tab inside a plain scalar
        "stop:\n  - a\n  -\tb\n",  # a tab after a sequence dash
        "model: m\t\n",  # a trailing tab
    ],
)
def test_a_document_with_a_tab_reads_as_the_python_reader_reads_it(text: str) -> None:
    # libyaml takes a tab as separating space where PyYAML's Python reader refuses it.
    fast, python = _both(text)
    assert fast == python


def test_a_settings_tab_gives_one_answer_wherever_the_bundle_is_opened() -> None:
    # The answer PyYAML's Python reader gives, with or without libyaml installed.
    reserved._memo.clear()
    reserved._refused.clear()
    settings_yaml = b"model: m\ntemperature:\t0.2\n"
    bundle = Bundle.from_zip("tabbed", "## user\nhi\n", {"settings.yaml": settings_yaml})
    (issue,) = bundle.validate()
    assert (issue.kind, issue.file, issue.line, issue.column) == (
        "invalid_settings",
        "settings.yaml",
        2,
        13,
    )
    with pytest.raises(lmml_mdit.LmmlError, match=r"settings\.yaml:2:13"):
        lmml_mdit.to_request(bundle, "openai")
