"""Turn a folder of LMML bundles into a Hugging Face dataset with a ``messages`` column.

Usage::

    pip install 'lmml-mdit[datasets]' datasets
    python examples/hf_dataset.py runs/ out-dataset/

Each bundle under the folder (``*.lmml`` and ``*.lmmlz``, recursively) becomes one row
of the conversation schema (``docs/datasets.md``), and ``messages`` holds its turns as
``[{"role": ..., "content": ...}]``, the list ``tokenizer.apply_chat_template`` takes. A
bundle that cannot be read is reported and left out. The dataset is saved with
``save_to_disk``; load it again with ``datasets.load_from_disk``.
"""

from __future__ import annotations

import argparse
import sys

from datasets import Dataset

from lmml_mdit.dataset import hf_features, hf_fingerprint, hf_rows


def build(folder: str) -> Dataset:
    """The dataset of the bundles under *folder*, failed bundles left out."""
    rows = Dataset.from_generator(
        hf_rows,
        gen_kwargs={"folder": folder},
        features=hf_features(),
        fingerprint=hf_fingerprint(folder),  # a changed folder is a new dataset, not the cache
    )
    for row in rows.filter(lambda row: row["error"] is not None):
        print(f"skipped {row['path']}: {row['error']['message']}", file=sys.stderr)
    return rows.filter(lambda row: row["error"] is None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="the folder of bundles (a path or fsspec URL)")
    parser.add_argument("out", help="the folder to save the dataset to")
    args = parser.parse_args(argv)
    dataset = build(args.folder)
    dataset.save_to_disk(args.out)
    print(f"{dataset.num_rows} conversations -> {args.out}")
    if dataset.num_rows:
        print("first messages:", dataset[0]["messages"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
