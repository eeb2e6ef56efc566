"""The tool-chain layer: plugins that make LMML at home in the tools people already run on
Markdown (mdformat, Sphinx and MyST). Each module imports its tool only when used, from an
optional extra."""
