"""The chat layer: both directions of every chat format. Out: assets become content parts
(handlers), turns become neutral messages (content), each provider writes its JSON
(providers). In: a payload is detected, read into a neutral conversation and written as a
bundle (importer, writer); a folder of bundles becomes a dataset (export)."""
