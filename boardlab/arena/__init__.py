"""Matches between agents (the arena grows here: tournaments, ratings, engines)."""
from .match import duel, play_game, wilson_interval

__all__ = ["duel", "play_game", "wilson_interval"]
