"""The narrative layer: one parse of a narrative, read into embeds, turns and their
positions; the Markdown images and tool-call fences it holds. Below the bundle: it knows
nothing of files."""
