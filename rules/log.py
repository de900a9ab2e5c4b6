"""The event log ("the notation"): reading, writing, and replaying it through the engine."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import CardCodeError, PlaceError
from .moves import ACTION_TYPES, Draw, EndRound, action_from_event
from .options import HouseRules, RulesError
from .scoring import Match, RoundScore
from .table import Flag, ImpossibleAction, OrderError, Table


class LogError(ValueError):
    """A log that cannot be replayed; the message names the line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def dumps(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=True)


def write_log(events: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write events as JSON Lines; returns the number written."""
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for event in events:
            fh.write(dumps(event) + "\n")
            n += 1
    return n


def read_events(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, event) pairs; a line that is not a JSON object is an error."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(0, f"cannot read {path}: {exc}") from None
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            raise LogError(n, "not a complete JSON object (a truncated log?)") from None
        if not isinstance(event, dict) or "type" not in event:
            raise LogError(n, "an event must be a JSON object with a 'type'")
        t = event.get("t_ms")
        if isinstance(t, bool) or not isinstance(t, int) or t < 0:
            raise LogError(n, f"t_ms must be a non-negative integer, got {t!r}")
        out.append((n, event))
    if not out:
        raise LogError(0, f"{path} holds no events")
    return out


@dataclass
class RoundReplay:
    """One round of a log replayed through the engine."""

    round_no: int
    table: Table
    start_line: int
    score: RoundScore
    recorded_end: dict[str, Any] | None
    recorded_flags: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def flags(self) -> list[Flag]:
        return self.table.flags

    @property
    def consistent(self) -> bool:
        return not self.problems


@dataclass
class LogReplay:
    """A whole log replayed: its rounds and the match standings."""

    rounds: list[RoundReplay]
    match: Match
    problems: list[str] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not self.problems and all(r.consistent for r in self.rounds)


def replay(path: str | Path) -> LogReplay:
    """Replay a log through the engine; raise :class:`LogError` for a log that cannot be
    replayed (truncated, out of order, cards not where it says)."""
    events = read_events(path)
    rounds: list[RoundReplay] = []
    match: Match | None = None
    i = 0
    problems: list[str] = []
    while i < len(events):
        line, event = events[i]
        if event["type"] == "match_end":
            if match is None:
                raise LogError(line, "match_end before any round")
            want = match.standings()
            got = {k: event.get(k) for k in want}
            if got != want:
                problems.append(f"line {line}: match_end says {got}, the rounds give {want}")
            i += 1
            continue
        if event["type"] != "round_start":
            raise LogError(line, f"expected round_start, found {event['type']!r}")
        round_replay, i = _replay_round(events, i)
        if match is None:
            match = Match(round_replay.table.rules, round_replay.table.seats)
        if round_replay.table.seats != match.seats:
            raise LogError(line, "a match keeps the same seats in every round")
        rounds.append(round_replay)
        if round_replay.recorded_end is not None:
            match.rounds.append(round_replay.score)
    assert match is not None
    return LogReplay(rounds, match, problems)


def _replay_round(events: list[tuple[int, dict[str, Any]]], i: int) -> tuple[RoundReplay, int]:
    line, start = events[i]
    try:
        rules = HouseRules.from_dict(start.get("rules", {}))
    except RulesError as exc:
        raise LogError(line, str(exc)) from None
    seats = start.get("seats")
    if not isinstance(seats, int) or not 2 <= seats <= 8:
        raise LogError(line, f"round_start needs seats 2-8, got {seats!r}")
    deals = []
    for k in range(seats):
        i += 1
        if i >= len(events) or events[i][1]["type"] != "deal":
            where = events[i][0] if i < len(events) else line
            raise LogError(where, f"expected the deal of seat {k} after round_start")
        deals.append(events[i][1])
    try:
        table = Table.from_deals(deals, rules, round_no=start.get("round", 1))
    except (ValueError, CardCodeError) as exc:
        raise LogError(events[i][0], str(exc)) from None
    replay = RoundReplay(table.round_no, table, line, table.score(), None)
    i += 1
    last_t = 0
    while i < len(events):
        line, event = events[i]
        kind, t = event["type"], event["t_ms"]
        if kind in ("round_start", "match_end"):
            break
        if t < last_t:
            raise LogError(line, f"t_ms {t} is before the previous event's {last_t} "
                                 "(events out of order)")
        last_t = t
        i += 1
        if kind == "flag":
            replay.recorded_flags.append((line, event))
            continue
        if kind == "round_end":
            if not table.ended:
                reason = event.get("reason", "stall")
                if reason not in ("stall", "abandon"):
                    raise LogError(line, f"round_end says {reason!r} but no true call ended "
                                         "the round")
                table.push(EndRound(reason), t)
            replay.recorded_end = event
            replay.score = table.score()
            _compare_end(replay, line, event)
            break
        if kind not in ACTION_TYPES:
            raise LogError(line, f"unknown event type {kind!r}")
        try:
            action = action_from_event(event)
            before = None
            if isinstance(action, Draw):
                stock = table.layouts[action.seat].stock if action.seat < table.seats else []
                before = [c.code for c in stock[:rules.draw]]
            table.push(action, t)
        except (ImpossibleAction, OrderError, CardCodeError, PlaceError, ValueError) as exc:
            raise LogError(line, str(exc)) from None
        if before is not None and "cards" in event and event["cards"] != before:
            raise LogError(line, f"draw shows {event['cards']} but the stock's top cards "
                                 f"are {before}")
        if kind == "call" and "valid" in event and event["valid"] != table.calls[-1][2]:
            replay.problems.append(f"line {line}: call marked valid={event['valid']} but the "
                                   f"nertz pile holds {table.nertz_count(action.seat)}")
    else:
        raise LogError(events[-1][0], f"the log ends before round {replay.round_no}'s "
                                      "round_end (a truncated log?)")
    if replay.recorded_end is None:
        raise LogError(events[i][0] if i < len(events) else events[-1][0],
                       f"round {replay.round_no} has no round_end")
    _compare_flags(replay)
    return replay, i


def _compare_end(replay: RoundReplay, line: int, event: dict[str, Any]) -> None:
    score = replay.score.to_dict()
    for key in ("lake_cards", "nertz_left", "scores"):
        if key in event and event[key] != score[key]:
            replay.problems.append(f"line {line}: round_end {key} {event[key]} but the moves "
                                   f"give {score[key]}")
    if event.get("reason") not in (None, score["reason"]):
        replay.problems.append(f"line {line}: round_end reason {event.get('reason')!r}, the "
                               f"moves give {score['reason']!r}")


def _compare_flags(replay: RoundReplay) -> None:
    def key(d: dict[str, Any]) -> tuple[Any, ...]:
        return (d.get("t_ms"), d.get("seat"), d.get("rule"), d.get("card"))

    recorded = sorted((key(e) for _n, e in replay.recorded_flags), key=repr)
    computed = sorted((key(f.to_event()) for f in replay.table.flags), key=repr)
    if recorded and recorded != computed:
        missing = [k for k in computed if k not in recorded]
        extra = [k for k in recorded if k not in computed]
        replay.problems.append(f"round {replay.round_no}: recorded flags differ from the "
                               f"rules (unrecorded {missing[:3]}, unfounded {extra[:3]})")
