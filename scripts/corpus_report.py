"""Print the counts of the realistic bridge corpus (``tests/bridge_corpus/realistic/``).

Run from the repository root::

    python scripts/corpus_report.py

Every body is imported, saved as ``.lmmlz``, reopened and exported to its own format (each
round trip counted as exact, normalised, refused or lossy), then exported to every other
provider and checked against that provider's SDK request type (passed, refused with
``UnsupportedContentError``, or failed). The work is ``tests/corpus_roundtrip.py``'s; this
script only runs it. It exits 1 when a round trip is lossy or an export fails its type.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"

if __name__ == "__main__":
    sys.path.insert(0, str(TESTS))
    from corpus_roundtrip import main

    raise SystemExit(main())
