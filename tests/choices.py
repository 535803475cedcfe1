"""Random move choices for property tests: drawn by hypothesis so failures shrink."""
import random

from hypothesis import strategies as st


class Chooser:
    """Move choices drawn by hypothesis (so failures shrink), then a seeded RNG."""

    def __init__(self, choices, seed):
        self.choices, self.i = choices, 0
        self.rnd = random.Random(seed)

    def index(self, k):
        if self.i < len(self.choices):
            self.i += 1
            return self.choices[self.i - 1] % k
        return self.rnd.randrange(k)

    def pick(self, items):
        return items[self.index(len(items))]


choices_st = st.lists(st.integers(0, 2 ** 16), max_size=60)
seed_st = st.integers(0, 2 ** 32 - 1)
