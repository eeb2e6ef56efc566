"""The bundle layer: a narrative with its assets, as a bare ``.lmml`` or a ``.lmmlz`` zip;
opening it safely, its reserved entries, validation, and rewriting and saving it."""
