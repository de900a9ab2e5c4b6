"""The Nertz rules engine: cards, places, moves, the table state, scoring, the simulator."""

from .cards import ALL_CODES, RANKS, SUITS, Card, CardCodeError, Place, PlaceError, parse_code
from .moves import (
    Action,
    Call,
    Draw,
    EndRound,
    Move,
    Pass,
    Recycle,
    Retract,
    Rotate,
    SetAside,
    Unseen,
    action_from_event,
    action_to_event,
)
from .options import PRESETS, HouseRules, RulesError
from .scoring import Match, MatchOutcome, RoundScore, score_round
from .table import Flag, Foundation, Illegal, ImpossibleAction, Layout, OrderError, Table

__all__ = [
    "ALL_CODES", "RANKS", "SUITS", "Action", "Call", "Card", "CardCodeError", "Draw",
    "EndRound", "Flag", "Foundation", "HouseRules", "Illegal", "ImpossibleAction", "Layout",
    "Match", "MatchOutcome", "Move", "OrderError", "PRESETS", "Pass", "Place", "PlaceError",
    "Recycle", "Retract", "Rotate", "RoundScore", "RulesError", "SetAside", "Table",
    "Unseen", "action_from_event", "action_to_event", "parse_code", "score_round",
]
