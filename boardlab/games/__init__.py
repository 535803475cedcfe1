"""The games. Importing this package registers every game with the core registry.

The registration is lazy: a game's module (and its compiled kernel) is imported
the first time the game is asked for, by :func:`boardlab.core.registry.game_class`.
"""
from ..core.registry import register_lazy

for _name in ("carteso", "cartagena", "ctor", "rumbo"):
    register_lazy(_name, f"{__name__}.{_name}")
del _name
