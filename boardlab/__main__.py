"""``python -m boardlab``: the ``boardlab`` command."""
import sys

from .cli import main

sys.exit(main())
