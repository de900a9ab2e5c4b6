"""Round scores, teams, and match standings with the tie-break options of RULES.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .options import HouseRules


@dataclass(frozen=True)
class RoundScore:
    """One round's result per seat: ``scores[k] = lake_cards[k] − penalty·nertz_left[k]
    + call bonus + false calls · false_call_penalty`` (all zero when abandoned)."""

    lake_cards: list[int]
    nertz_left: list[int]
    false_calls: list[int]
    bonus: list[int]
    scores: list[int]
    caller: int | None = None
    reason: str | None = None
    team_scores: list[int] | None = None

    @property
    def abandoned(self) -> bool:
        return self.reason == "abandon"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "reason": self.reason, "caller": self.caller, "lake_cards": self.lake_cards,
            "nertz_left": self.nertz_left, "false_calls": self.false_calls,
            "bonus": self.bonus, "scores": self.scores,
        }
        if self.team_scores is not None:
            data["team_scores"] = self.team_scores
        return data


def score_round(rules: HouseRules, lake_cards: list[int], nertz_left: list[int],
                false_calls: list[int], caller: int | None, reason: str | None) -> RoundScore:
    """Score a round from its counts (RULES.md, Scoring)."""
    seats = len(lake_cards)
    bonus = [0] * seats
    if caller is not None and reason == "call":
        bonus[caller] = rules.call_bonus
    if reason == "abandon" or (reason == "stall" and rules.stall_rule == "abandon"):
        scores = [0] * seats
        reason = "abandon"
    else:
        scores = [lake_cards[k] - rules.nertz_penalty * nertz_left[k] + bonus[k]
                  + false_calls[k] * rules.false_call_penalty for k in range(seats)]
    team_scores = None
    if rules.teams:
        team_scores = [0] * ((seats + 1) // 2)
        for k, s in enumerate(scores):
            team_scores[rules.team_of(k)] += s
    return RoundScore(list(lake_cards), list(nertz_left), list(false_calls), bonus, scores,
                      caller, reason, team_scores)


@dataclass(frozen=True)
class MatchOutcome:
    """The match result: the winner (a seat, or a team index with ``teams``), or who must
    play on in a tie-break."""

    winner: int | None
    totals: list[int]
    rounds: int
    reason: str  # "target", "fixed_rounds", "round_score", "extra_round"
    playoff: list[int] = field(default_factory=list)


class Match:
    """Running totals over rounds towards ``target`` or over ``fixed_rounds``."""

    def __init__(self, rules: HouseRules, seats: int) -> None:
        self.rules = rules
        self.seats = seats
        self.rounds: list[RoundScore] = []
        self.contenders: list[int] | None = None  # set while a tie-break is being played

    @property
    def sides(self) -> int:
        return (self.seats + 1) // 2 if self.rules.teams else self.seats

    def _side_scores(self, score: RoundScore) -> list[int]:
        return score.team_scores if self.rules.teams else score.scores  # type: ignore[return-value]

    @property
    def totals(self) -> list[int]:
        totals = [0] * self.sides
        for r in self.rounds:
            for k, s in enumerate(self._side_scores(r)):
                totals[k] += s
        return totals

    def add(self, score: RoundScore) -> MatchOutcome | None:
        """Record a round; return the outcome once the match is decided."""
        if self.outcome() is not None:
            raise ValueError("the match is already decided")
        self.rounds.append(score)
        return self.outcome()

    def outcome(self) -> MatchOutcome | None:
        """The decided result, or ``None`` while play goes on (including tie-breaks)."""
        rules, totals = self.rules, [0] * self.sides
        contenders: list[int] | None = None
        for n, r in enumerate(self.rounds, start=1):
            side_scores = self._side_scores(r)
            for k, s in enumerate(side_scores):
                totals[k] += s
            if contenders is not None:  # a tie-break round was just played
                best = max(totals[k] for k in contenders)
                top = [k for k in contenders if totals[k] == best]
                if rules.tiebreak == "round_score":
                    best_round = max(side_scores[k] for k in contenders)
                    top = [k for k in contenders if side_scores[k] == best_round]
                if len(top) == 1:
                    return MatchOutcome(top[0], totals, n, rules.tiebreak)
                contenders = top
                continue
            if rules.fixed_rounds is not None:
                if n < rules.fixed_rounds:
                    continue
                best = max(totals)
                past = [k for k in range(self.sides) if totals[k] == best]
                if len(past) == 1:
                    return MatchOutcome(past[0], totals, n, "fixed_rounds")
                contenders = past
                continue
            past = [k for k in range(self.sides) if totals[k] >= rules.target]
            if not past:
                continue
            if len(past) == 1:
                return MatchOutcome(past[0], totals, n, "target")
            if rules.tiebreak == "round_score":
                best_round = max(side_scores[k] for k in past)
                top = [k for k in past if side_scores[k] == best_round]
                if len(top) == 1:
                    return MatchOutcome(top[0], totals, n, "round_score")
                contenders = top
            else:
                contenders = past
        self.contenders = contenders
        return None

    def standings(self) -> dict[str, Any]:
        out = self.outcome()
        return {"rounds": len(self.rounds), "totals": self.totals,
                "winner": None if out is None else out.winner,
                "decided_by": None if out is None else out.reason,
                "playoff": self.contenders or []}
