"""``python -m lmml_mdit``: the ``lmml`` command line.

``python -m lmml_mdit FILE`` (a file where the command would go) lists its turns, like
``lmml turns FILE``.
"""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
