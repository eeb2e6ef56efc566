"""The template the eval tests render: one input, a default ``expect``."""

TEMPLATE = """\
---
inputs:
  city: string
expect:
  - contains: Paris
---
## user

What is the capital of {{ city }}?
"""
