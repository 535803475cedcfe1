"""Agents: given a seat's view and a budget, choose an action.

Agents are named by spec strings like games (``random``, later
``mcts(time=1)``, ``engine(cmd=./my_engine)``) and made with :func:`make_agent`.
"""
from .base import Agent, agents, load_agents_from, make_agent, register_agent
from .external import EngineAgent, EngineFailure
from .greedy import GreedyAgent
from .mcts import ISMCTS, MCTS
from .random_agent import RandomAgent

__all__ = ["Agent", "agents", "load_agents_from", "make_agent", "register_agent", "EngineAgent",
           "EngineFailure", "GreedyAgent", "ISMCTS", "MCTS", "RandomAgent"]
