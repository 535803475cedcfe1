"""``python -m boardlab``: the ``boardlab`` command."""
import sys

from .cli import main

if __name__ == "__main__":        # importing it (e.g. to read its docstring) runs nothing
    sys.exit(main())
