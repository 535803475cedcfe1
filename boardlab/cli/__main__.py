"""``python -m boardlab.cli``: the ``boardlab`` command."""
import sys

from . import main

sys.exit(main())
