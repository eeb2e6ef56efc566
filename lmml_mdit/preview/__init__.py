"""The preview layer: what a person reads: the self-contained HTML preview and the plain
Markdown export."""
