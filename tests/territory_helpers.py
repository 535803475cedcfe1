"""Helpers shared by the Carteso and Rumbo example tests."""


def claims_of(state):
    """The claimed groups as a sorted list of (owner initial, sorted stones)."""
    return sorted((g["owner"][0].upper(), tuple(sorted(g["stones"])))
                  for g in state.summary()["claimed"])


def claim(owner, *stones):
    return owner, tuple(sorted(stones))
