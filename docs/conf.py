"""Sphinx configuration for the lmml_mdit documentation."""

from __future__ import annotations

import lmml_mdit

project = "lmml_mdit"
author = "The lmml_mdit developers"
copyright = "2026, The lmml_mdit developers"
release = lmml_mdit.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "lmml_mdit.toolchain.sphinx",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "description"
html_theme = "alabaster"
html_title = "lmml_mdit"
suppress_warnings = ["myst.xref_missing"]
