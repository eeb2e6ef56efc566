"""The stylesheet of the HTML preview, as one string inlined into every page.

Every selector is scoped under ``.lmml-preview`` so the page can also be dropped into a host
page (a Jupyter notebook) without restyling it. Roles get a distinct accent colour each; the
synthetic ``context`` turn is drawn dashed and grey.
"""

from __future__ import annotations

__all__ = ["PREVIEW_CSS", "ROLE_COLOURS"]

ROLE_COLOURS: dict[str, str] = {
    "context": "#6b7280",
    "system": "#b45309",
    "user": "#1d4ed8",
    "assistant": "#047857",
    "tool": "#7e22ce",
}
"""The accent colour of each role (border, badge)."""

_ROLE_RULES = "\n".join(
    f".lmml-preview .lmml-turn-{role} {{ --lmml-accent: {colour}; }}"
    for role, colour in ROLE_COLOURS.items()
)

PREVIEW_CSS = (
    """
.lmml-preview {
  --lmml-accent: #6b7280;
  box-sizing: border-box;
  max-width: 60rem;
  margin: 0 auto;
  padding: 1rem 1.25rem 2rem;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
  color: #111827;
  background: #f9fafb;
}
.lmml-preview *, .lmml-preview *::before, .lmml-preview *::after { box-sizing: inherit; }
.lmml-preview a { color: #1d4ed8; }
.lmml-preview code, .lmml-preview pre {
  font: 13px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
.lmml-preview pre {
  overflow-x: auto; padding: .6rem .8rem; margin: .5rem 0;
  background: #f3f4f6; border: 1px solid #e5e7eb; border-radius: 6px; white-space: pre;
}
.lmml-preview :not(pre) > code { background: #f3f4f6; padding: .05rem .3rem; border-radius: 4px; }
.lmml-preview table { border-collapse: collapse; margin: .5rem 0; }
.lmml-preview th, .lmml-preview td { border: 1px solid #d1d5db; padding: .25rem .6rem; }
.lmml-preview th { background: #f3f4f6; }
.lmml-preview blockquote { margin: .5rem 0; padding: 0 .9rem; border-left: 3px solid #d1d5db;
  color: #374151; }
.lmml-preview ul.contains-task-list { list-style: none; padding-left: 1.2rem; }
.lmml-preview img { max-width: 100%; height: auto; }

.lmml-preview .lmml-page-header { margin-bottom: 1.25rem; }
.lmml-preview .lmml-page-header h1 { font-size: 1.6rem; margin: 0 0 .25rem; word-break: break-all; }
.lmml-preview .lmml-summary { color: #4b5563; margin: 0 0 .75rem; }
.lmml-preview .lmml-meta { display: inline-block; vertical-align: top; min-width: 16rem;
  margin: 0 1rem .5rem 0; padding: .5rem .75rem; background: #fff;
  border: 1px solid #e5e7eb; border-radius: 8px; }
.lmml-preview .lmml-meta h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em;
  color: #6b7280; margin: 0 0 .25rem; }
.lmml-preview .lmml-meta dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .75rem;
  margin: 0; }
.lmml-preview .lmml-meta dt { font-weight: 600; }
.lmml-preview .lmml-meta dd { margin: 0; word-break: break-word; }
.lmml-preview .lmml-meta-error { color: #b91c1c; }

.lmml-preview .lmml-turn {
  background: #fff; margin: 0 0 1rem; padding: .25rem 1rem .75rem;
  border: 1px solid #e5e7eb; border-left: 5px solid var(--lmml-accent); border-radius: 8px;
}
.lmml-preview .lmml-turn-context { border-style: dashed; border-left-style: solid;
  background: #f3f4f6; }
.lmml-preview .lmml-turn-header { display: flex; align-items: baseline; gap: .6rem;
  margin: .5rem 0; padding-bottom: .35rem; border-bottom: 1px solid #f3f4f6; }
.lmml-preview .lmml-turn-header h2 { font-size: 1rem; margin: 0; display: flex;
  align-items: baseline; gap: .6rem; flex-wrap: wrap; }
.lmml-preview .lmml-role-badge { display: inline-block; padding: .05rem .55rem;
  border-radius: 999px; background: var(--lmml-accent); color: #fff; font-size: .8rem;
  font-weight: 700; letter-spacing: .03em; text-transform: uppercase; }
.lmml-preview .lmml-turn-number { color: #6b7280; font-weight: 600; font-size: .9rem; }
.lmml-preview .lmml-turn-title { font-weight: 600; }
.lmml-preview .lmml-turn-lines { margin-left: auto; color: #9ca3af; font-size: .75rem; }
.lmml-preview .lmml-empty { color: #9ca3af; font-style: italic; }

.lmml-preview .lmml-chip { display: inline-block; padding: 0 .45rem; margin: 0 .1rem;
  border: 1px solid #d1d5db; border-radius: 6px; background: #f9fafb;
  font-size: .85em; white-space: nowrap; }
.lmml-preview .lmml-chip-name { font-family: ui-monospace, Menlo, Consolas, monospace; }
.lmml-preview .lmml-chip-meta { color: #6b7280; margin-left: .35rem; }
.lmml-preview mark.lmml-input { background: #ede9fe; color: inherit; border-radius: 3px;
  padding: 0 .15rem; outline: 1px solid #c4b5fd; }
.lmml-preview mark.lmml-input-default { background: #f5f3ff; outline-style: dashed; }
.lmml-preview mark.lmml-input-messages { display: block; padding: .25rem .5rem; }
.lmml-preview .lmml-input-turn { display: block; white-space: pre-wrap; margin: .25rem 0; }
.lmml-preview .lmml-input-role { font-weight: 700; text-transform: uppercase;
  font-size: .75em; margin-right: .35rem; }
.lmml-preview mark.lmml-input-unfilled, .lmml-preview mark.lmml-input-undeclared {
  background: #fef2f2; color: #b91c1c; outline: 1px dashed #dc2626; }
.lmml-preview .lmml-missing { border-color: #dc2626; background: #fef2f2; color: #b91c1c; }
.lmml-preview .lmml-missing-label { font-weight: 700; text-transform: uppercase;
  font-size: .75em; margin-left: .35rem; }
.lmml-preview .lmml-too-large { border-color: #d97706; background: #fffbeb; }
.lmml-preview .lmml-asset-image { display: inline-block; vertical-align: top; margin: .25rem 0;
  padding: .25rem; border: 1px solid #e5e7eb; border-radius: 6px; background: #fff; }
.lmml-preview .lmml-asset-image img { display: block; max-height: 28rem; }
.lmml-preview .lmml-asset-image .lmml-caption { display: block; font-size: .8em;
  color: #6b7280; }
.lmml-preview details.lmml-expansion { margin: .5rem 0; border: 1px solid #e5e7eb;
  border-radius: 6px; background: #fff; }
.lmml-preview details.lmml-expansion > summary { cursor: pointer; padding: .25rem .5rem; }
.lmml-preview details.lmml-expansion > pre { margin: 0 .5rem .5rem; }
.lmml-preview details.lmml-unclosed { border-color: #d97706; }
.lmml-preview .lmml-note { color: #b45309; font-size: .8em; margin-left: .35rem; }
.lmml-preview .lmml-remote { color: #4b5563; }
.lmml-preview .lmml-unsent { border-style: dashed; border-color: #6b7280; background: #f3f4f6;
  color: #4b5563; }
.lmml-preview .lmml-unsent-label { font-weight: 700; text-transform: uppercase;
  font-size: .75em; margin-left: .35rem; color: #374151; }
.lmml-preview .lmml-suspicious { border-left: 4px solid #b45309; background: #fffbeb;
  color: #78350f; padding: .3em .6em; margin: .5em 0; font-size: .9em; }
.lmml-preview .lmml-suspicious-label { font-weight: 700; text-transform: uppercase;
  font-size: .8em; margin-right: .4em; }
.lmml-preview .lmml-raw-html { font-family: ui-monospace, Menlo, Consolas, monospace;
  font-size: .9em; color: #6b7280; }
.lmml-preview pre.lmml-raw-html { white-space: pre-wrap; }

.lmml-preview .lmml-assets { margin-top: 1.5rem; }
.lmml-preview .lmml-assets h2 { font-size: 1rem; }
.lmml-preview .lmml-assets ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap;
  gap: .35rem; }
"""
    + _ROLE_RULES
    + "\n"
)
"""The preview's stylesheet (without the Pygments rules, which are added when available)."""
