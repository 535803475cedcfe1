"""The games. Importing this package registers every game with the core registry."""
from . import carteso, cartagena, ctor, rumbo  # noqa: F401  (registration)
