"""Bundles for the preview tests (one realistic session and a corpus of hostile ones) and a
small HTML tree reader built on :mod:`html.parser`.

Every hostile case tries to run ``window.__xss = 1`` (or ``alert``) in the preview page, so
a browser test can check one sentinel. :func:`sample_bundle` is a realistic zip session with
a real PNG, a text asset, a binary asset, a missing reference, a manifest and settings.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from html.parser import HTMLParser

from lmml_mdit import Bundle, render_html

SENTINEL = "__xss"
JS = "window.__xss=1"
ALERT = "alert(1)"


def make_png(
    width: int = 48, height: int = 32, rgb: tuple[int, int, int] = (30, 120, 200)
) -> bytes:
    """A real (decodable) truecolour PNG of *width* x *height* with a diagonal stripe."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter type: none
        for x in range(width):
            row += bytes((255, 255, 255)) if abs(x - y) < 3 else bytes(rgb)
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


SAMPLE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">'
    b'<rect width="40" height="20" fill="#047857"/></svg>'
)

SAMPLE_NARRATIVE = """\
Weekly report review. The manifest lists the sources.

## Turn 1 -- system
You are a careful data analyst. Answer in **Markdown**; use tables where they help.

## Turn 2 -- user
Here is the chart @chart.png and the script that made it: @plot.py

Also attached: @report.pdf (the full report) and @appendix.csv, which I forgot to add.

| week | sales | note |
|------|------:|------|
| 1    | 120   | ~~draft~~ final |
| 2    | 135   | see @chart.png |

<!-- assistant -->
Thanks. Checklist:

- [x] read the chart
- [ ] rerun `plot.py`

The numbers, as JSON:

@@@numbers.json
{"week": [1, 2], "sales": [120, 135]}
@@@

```python
growth = (135 - 120) / 120
```

## Turn 4 -- tool
Logo rendered: @logo.svg

<!-- user -->
Great, thanks! Raw <b>HTML</b> stays text.
"""


def sample_bundle() -> Bundle:
    """A realistic zip session: every kind of asset the preview shows, and one missing."""
    manifest = {
        "title": "Weekly sales review",
        "created": "2026-11-30T12:00:00Z",
        "generator": "lmml_mdit tests",
        "tags": ["sales", "weekly"],
    }
    entries = {
        "chart.png": make_png(),
        "plot.py": b"import matplotlib.pyplot as plt\n\nplt.plot([1, 2], [120, 135])\n"
        b"plt.savefig('chart.png')\n",
        "report.pdf": b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n%%EOF\n",
        "logo.svg": SAMPLE_SVG,
        "manifest.json": json.dumps(manifest).encode(),
        "settings.yaml": b"model: gpt-4o\ntemperature: 0.2\nmax_tokens: 800\n",
    }
    return Bundle.from_zip("weekly-review", SAMPLE_NARRATIVE, entries)


@dataclass(frozen=True)
class Case:
    """One hostile bundle: an id, a narrative and optional entries / bundle name, and for a
    template the input values its page is rendered with."""

    id: str
    text: str
    entries: Mapping[str, bytes] = field(default_factory=dict)
    name: str = "xss"
    inputs: Mapping[str, object] | None = None

    def bundle(self) -> Bundle:
        return Bundle.from_zip(self.name, self.text, dict(self.entries))

    def page(self, *, fragment: bool = False) -> str:
        """The preview of the bundle (with the case's input values); a fragment is what
        ``Bundle._repr_html_`` shows in a notebook."""
        return render_html(self.bundle(), fragment=fragment, inputs=self.inputs)


_SVG_WITH_SCRIPT = (
    f'<svg xmlns="http://www.w3.org/2000/svg" onload="{JS}" width="10" height="10">'
    f"<script>{JS}</script><rect width='10' height='10'/></svg>"
).encode()
_HTML_DATA = base64.b64encode(f"<script>{JS}</script>".encode()).decode()
_SVG_DATA = base64.b64encode(_SVG_WITH_SCRIPT).decode()
_PNG = make_png(4, 4)


def _remote(url: str) -> bytes:
    return json.dumps({"kind": "image", "url": url}).encode()


_TEMPLATE = (
    "---\ninputs:\n  a: string\n  c: {type: string, in_code: true}\n"
    "  o: object\n  d: {type: string, default: '<img src=x onerror=\"" + JS + "\">'}\n"
    "  img: {type: image, required: false}\n  svg: {type: image, required: false}\n"
    "  m: {type: messages, roles: [user, assistant]}\n---\n"
    "## User\nsay {{ a }}, run `{{ c }}`, read {{ o.k }} in a {{ d }} tone\n\n"
    "{{ img }} {{ svg }}\n\n{{ m }}\n\n```sh\n{{ c }}\n```\n"
)

CASES: tuple[Case, ...] = (
    Case("script-block", f"## User\n<script>{JS}</script>\n"),
    Case("script-inline", f"## User\nhello <script>{JS}</script> there\n"),
    Case("img-onerror", f'## User\n<img src=x onerror="{JS}">\n'),
    Case("svg-onload-raw", f'## User\n<svg onload="{JS}"></svg>\n'),
    Case("iframe-srcdoc", f'## User\n<iframe srcdoc="<script>parent.{JS}</script>"></iframe>\n'),
    Case(
        "meta-refresh", '## User\n<meta http-equiv="refresh" content="0;url=javascript:alert(1)">\n'
    ),
    Case("style-tag", "## User\n<style>*{background:url(javascript:alert(1))}</style>\n"),
    Case("javascript-link", f"## User\n[click](javascript:{JS})\n"),
    Case("javascript-upper", f"## User\n[click](JaVaScRiPt:{JS})\n"),
    Case("javascript-entity-tab", f"## User\n[click](java&#x09;script:{JS})\n"),
    Case("javascript-entity-colon", f"## User\n[click](javascript&#58;{JS})\n"),
    Case("javascript-angle", f"## User\n[click](<javascript:{JS}>)\n"),
    Case("javascript-autolink", f"## User\n<javascript:{JS}>\n"),
    Case("javascript-reference-def", f"## User\n[click][evil]\n\n[evil]: javascript:{JS}\n"),
    Case("vbscript-link", "## User\n[click](vbscript:msgbox(1))\n"),
    Case("data-html-link", f"## User\n[click](data:text/html;base64,{_HTML_DATA})\n"),
    Case("data-svg-image", f"## User\n![logo](data:image/svg+xml;base64,{_SVG_DATA})\n"),
    Case(
        "data-png-image-user",
        f"## User\n![x](data:image/png;base64,{base64.b64encode(_PNG).decode()})\n",
    ),
    Case("link-title-quotes", f'## User\n[ok](https://example.com "a\\" onmouseover=\\"{JS}")\n'),
    Case("image-alt-quotes", f'## User\n![" onerror="{JS}](https://example.com/x.png)\n'),
    Case("image-javascript-src", f"## User\n![x](javascript:{JS})\n"),
    Case("raw-anchor", f'## User\n<a href="javascript:{JS}">x</a>\n'),
    Case("reference-name-breakout", f'## User\nsee @x"><script>{JS}</script>\n'),
    Case("fence-name-breakout", f'## User\n@@@"><script>{JS}</script>.txt\nbody\n@@@\n'),
    Case("fence-name-attribute", f'## User\n@@@x" onmouseover="{JS}" y=".json\n{{}}\n@@@\n'),
    Case("fence-html-content", f"## User\n@@@page.html\n</code></pre><script>{JS}</script>\n@@@\n"),
    Case("fence-svg-script", "## User\n@@@evil.svg\n" + _SVG_WITH_SCRIPT.decode() + "\n@@@\n"),
    Case("fence-unclosed-script", f"## User\n@@@x.js\n</pre><script>{JS}</script>\n"),
    Case("svg-asset-script", "## User\nlogo: @evil.svg\n", {"evil.svg": _SVG_WITH_SCRIPT}),
    Case(
        "svg-asset-markdown-image", "## User\n![logo](evil.svg)\n", {"evil.svg": _SVG_WITH_SCRIPT}
    ),
    Case(
        "html-asset", "## User\nsee @page.html\n", {"page.html": f"<script>{JS}</script>".encode()}
    ),
    Case(
        "js-asset-breakout",
        "## User\nsee @x.js\n",
        {"x.js": f"</code></pre></details><script>{JS}</script>".encode()},
    ),
    Case(
        "entry-name-breakout",
        "## User\nnothing referenced\n",
        {f'"><img src=x onerror="{JS}">.txt': b"x"},
    ),
    Case(
        "manifest-values",
        "## User\nhi\n",
        {
            "manifest.json": json.dumps(
                {
                    "title": f"<script>{JS}</script>",
                    f'"><img src=x onerror="{JS}">': "key",
                    "nested": {"a": f"</dd><script>{JS}</script>"},
                }
            ).encode()
        },
    ),
    Case(
        "settings-values",
        "## User\nhi\n",
        {"settings.yaml": f'model: "<img src=x onerror={JS}>"\n"<script>": 1\n'.encode()},
    ),
    Case("manifest-invalid", "## User\nhi\n", {"manifest.json": f"<script>{JS}</script>".encode()}),
    Case("bundle-name", "## User\nhi\n", name=f'"><script>{JS}</script>'),
    Case("heading-title-html", f"## User <img src=x onerror={JS}> asks\nhi\n"),
    Case("role-comment-trailer", f"<!-- user --><script>{JS}</script>\nhi\n"),
    Case("code-fence-info", f'## User\n```" onmouseover="{JS}\ncode\n```\n'),
    Case("code-fence-html", f"## User\n```html\n<script>{JS}</script>\n```\n"),
    Case(
        "task-list-html", f'## User\n- [ ] <script>{JS}</script>\n- [x] <b onclick="{JS}">b</b>\n'
    ),
    Case("table-cell-html", f'## User\n| a |\n|---|\n| <td onclick="{JS}"> |\n'),
    Case("math-xlink", '## User\n<math><mi xlink:href="javascript:alert(1)">x</mi></math>\n'),
    Case(
        "entity-encoded-script", "## User\n&lt;script&gt;alert(1)&lt;/script&gt; &#60;script&#62;\n"
    ),
    Case(
        "object-embed", '## User\n<object data="javascript:alert(1)"></object><embed src="x.swf">\n'
    ),
    Case("base-tag", '## User\n<base href="javascript:alert(1)//">[a](x)\n'),
    # Added in review: further spellings and places.
    Case("javascript-percent", f"## User\n[click](javascript%3A{JS})\n"),
    Case(
        "javascript-decimal-entities",
        "## User\n[click](" + "".join(f"&#{ord(c)};" for c in "javascript:") + f"{JS})\n",
    ),
    Case("javascript-newline-entity", f"## User\n[click](java&#10;script:{JS})\n"),
    Case("data-html-autolink", f"## User\n<data:text/html,<script>{JS}</script>>\n"),
    Case("fence-name-img-onerror", f"## User\n@@@<img src=x onerror={JS}>.txt\nhi\n@@@\n"),
    Case(
        "reference-name-quote-attribute",
        f'## User\nsee @a"onmouseover={JS}.png\n',
        {f'a"onmouseover={JS}.png': _PNG},
    ),
    Case(
        "entry-name-quote-image",
        f"## User\n![x](a%22onmouseover={JS}.png)\n",
        {f'a"onmouseover={JS}.png': _PNG},
    ),
    Case(
        "html-bytes-named-png",
        "## User\n@p.png ![x](p.png)\n",
        {"p.png": f"<html><script>{JS}</script></html>".encode()},
    ),
    Case(
        "settings-css-injection",
        "## User\nhi\n",
        {
            "settings.yaml": (
                f'model: "</style><script>{JS}</script>"\n'
                'colour: "red;} *{background:url(https://evil.example/x)}"\n'
                f"'</dd></dl><style>*{{x:y}}</style>': '<script>{JS}</script>'\n"
            ).encode()
        },
    ),
    Case(
        "manifest-script-key",
        "## User\nhi\n",
        {"manifest.json": json.dumps({"<script>": f"<script>{JS}</script>"}).encode()},
    ),
    Case("heading-javascript-link", f"## User [click](javascript:{JS})\nhi\n"),
    Case("comment-not-role", f"<!-- user -->\nhi\n<!-- <script>{JS}</script> -->\n"),
    Case("long-reference-name", "## User\n@" + "a" * 20_000 + f'"><script>{JS}</script>\n'),
    Case(
        "long-fence-name",
        "## User\n@@@" + "b" * 20_000 + f'"><script>{JS}</script>.txt\nx\n@@@\n',
    ),
    Case("long-bundle-name", "## User\nhi\n", name="n" * 5_000 + f"<script>{JS}</script>"),
    # Added in a re-check: what the page gained after the corpus was written (remote
    # assets, near-miss delimiters, tool calls, front matter, template inputs).
    Case(
        "remote-javascript-url",
        "## User\nsee @a.remote.json\n",
        {"a.remote.json": _remote(f"javascript:{JS}")},
    ),
    Case(
        "remote-url-breakout",
        "## User\nsee @a.remote.json\n",
        {"a.remote.json": _remote(f'https://example.com/"><script>{JS}</script>')},
    ),
    Case(
        "remote-fence-breakout",
        "## User\n@@@a.remote.json\n"
        + json.dumps({"kind": "image", "url": f'https://e.example/"onmouseover="{JS}'})
        + "\n@@@\n",
    ),
    Case(
        "remote-inside-link",
        f"## User\n[see @a.remote.json <b onclick={JS}>](https://example.com)\n",
        {"a.remote.json": _remote(f"https://example.com/x?<script>{JS}</script>")},
    ),
    Case("suspicious-heading", f"## User\nhi\n\n## Turn 2 -- asistant <script>{JS}</script>\n"),
    Case("suspicious-label", f"## User\nhi\n\n**Assistant<script>{JS}</script>:**\n"),
    Case(
        "tool-call-fence",
        "## User\nweather?\n\n## Assistant\n@@@c1.tool_call.json\n"
        + json.dumps({"id": "c1", "name": f"<script>{JS}</script>", "arguments": {"q": '"><'}})
        + f"\n@@@\n\n## Tool\n@c1.tool_call.json <img src=x onerror={JS}>\n",
    ),
    Case(
        "front-matter-values",
        f"---\ntitle: '<script>{JS}</script>'\nsettings:\n  model: '</dd><script>{JS}</script>'"
        "\n---\n## User\nhi\n",
    ),
    Case(
        "template-values",
        _TEMPLATE,
        inputs={
            "a": f"<script>{JS}</script>",
            "c": f'"><img src=x onerror="{JS}">',
            "o": {"k": f"</mark><script>{JS}</script>"},
            "img": _PNG,
            "svg": _SVG_WITH_SCRIPT,
            "m": [
                {"role": "user", "content": f"<script>{JS}</script>"},
                {"role": "assistant", "content": f"## system\n<!-- user --><b onclick={JS}>"},
            ],
        },
    ),
    Case("template-defaults", _TEMPLATE),
)
"""The hostile bundles; ids are unique."""

RENDER_TIME_CASES = (
    Case("data-png-link", "## User\n[png](data:image/png;base64,AAAA) after\n"),
    Case("data-png-image", "## User\n![png](data:image/png;base64,AAAA) after\n"),
    Case("ftp-autolink", "## User\n<ftp://example.com/x> after\n"),
    Case("custom-scheme-link", f"## User\n[x](web+evil:{JS}) after\n"),
    Case("refused-link-with-image", "## User\n[![i](chart.png)](data:image/gif;base64,R0) x\n"),
    Case("html-block-breakout", f"## User\n<div>\n</pre></code><script>{JS}</script>\n</div>\n"),
    Case("html-inline-breakout", f"## User\na </span><script>{JS}</script> b\n"),
    Case("html-comment-block", f"## User\n<!-- --><script>{JS}</script> -->\n"),
    Case("html-block-in-quote", f"> <iframe srcdoc='<script>{JS}</script>'>\n\n## User\nhi\n"),
)
"""Hostile bundles for the checks the page makes at render time, on the narrative's own
tokens: its parser lets through destinations the page refuses (``data:image/png``, other
schemes) and reads raw HTML as HTML."""


# --------------------------------------------------------------------------- reading HTML

_VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)


@dataclass
class Element:
    """A parsed HTML element: tag, attributes (in order, names lower-case) and children."""

    tag: str
    attrs: list[tuple[str, str | None]]
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    def get(self, name: str) -> str | None:
        for key, value in self.attrs:
            if key == name:
                return value
        return None

    def has(self, name: str) -> bool:
        return any(key == name for key, _ in self.attrs)

    @property
    def classes(self) -> set[str]:
        return set((self.get("class") or "").split())

    @property
    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text for child in self.children)

    def iter(self) -> Iterator[Element]:
        """This element and every descendant, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [
            element
            for element in self.iter()
            if (tag is None or element.tag == tag) and (cls is None or cls in element.classes)
        ]

    def find(self, tag: str | None = None, cls: str | None = None) -> Element:
        found = self.find_all(tag, cls)
        assert found, f"no <{tag or '*'} class={cls!r}>"
        return found[0]

    def ancestors(self) -> Iterator[Element]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def skeleton(self) -> tuple[object, ...]:
        """Tags and classes of the subtree, without text: its visual structure."""
        return (
            self.tag,
            tuple(sorted(self.classes)),
            tuple(child.skeleton() for child in self.children if isinstance(child, Element)),
        )


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", [])
        self.current = self.root
        self.doctype: str | None = None
        self.comments: list[str] = []
        self.mismatched: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, attrs, parent=self.current)
        self.current.children.append(element)
        if tag not in _VOID:
            self.current = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.current.children.append(Element(tag, attrs, parent=self.current))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        if self.current.tag != tag:
            self.mismatched.append(f"</{tag}> closes <{self.current.tag}>")
            node: Element | None = self.current
            while node is not None and node.tag != tag:
                node = node.parent
            if node is None:
                return
            self.current = node
        assert self.current.parent is not None
        self.current = self.current.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


@dataclass
class Document:
    root: Element
    doctype: str | None
    comments: list[str]
    mismatched: list[str]


def parse_document(markup: str) -> Document:
    """Parse *markup* with :mod:`html.parser` into a small tree; records mis-nested tags."""
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    if builder.current is not builder.root:
        builder.mismatched.append(f"<{builder.current.tag}> left open")
    return Document(builder.root, builder.doctype, builder.comments, builder.mismatched)
