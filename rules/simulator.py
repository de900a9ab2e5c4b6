"""Bots that play whole rounds at the same time, with human-like timing, writing the
ground-truth event log of DESIGN.md."""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
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
    action_to_event,
)
from .options import HouseRules
from .scoring import Match, RoundScore
from .table import Flag, Table

TICK_MS = 10  # landing times are quantised, so simultaneous placements really happen
MAX_ROUND_MS = 30 * 60 * 1000


@dataclass
class Bot:
    """One simulated player: skill scales every reaction and movement time."""

    seat: int
    skill: float
    ready_at: int = 0
    busy: bool = False
    draws_since_progress: int = 0
    fruitless_cycles: int = 0
    stuck: bool = False
    called: bool = False


@dataclass(order=True)
class _Pending:
    t_ms: int
    seq: int
    seat: int = field(compare=False)
    action: Action = field(compare=False)
    kind: str = field(compare=False, default="play")  # play | mistake | retract | call


class Simulator:
    """Plays one round on a :class:`Table` and yields its events in time order."""

    def __init__(self, table: Table, seed: int, mistakes: float = 0.0,
                 skills: list[float] | None = None) -> None:
        if not 0.0 <= mistakes <= 1.0:
            raise ValueError(f"mistakes must be a rate between 0 and 1, got {mistakes}")
        self.table = table
        self.rules = table.rules
        self.rng = random.Random(seed)
        self.mistakes = mistakes
        skills = skills or [round(self.rng.uniform(0.7, 1.3), 2) for _ in range(table.seats)]
        self.bots = [Bot(k, skills[k]) for k in range(table.seats)]
        self.pending: list[_Pending] = []
        self._seq = 0
        self.events: list[dict[str, Any]] = []
        self.last_progress = 0

    # --- timing -----------------------------------------------------------------------
    def _ms(self, median: float, bot: Bot, spread: float = 0.35) -> int:
        value = self.rng.lognormvariate(math.log(median / bot.skill), spread)
        return max(TICK_MS, int(round(value / TICK_MS)) * TICK_MS)

    def _schedule(self, t: int, bot: Bot, action: Action, kind: str = "play") -> None:
        self._seq += 1
        heapq.heappush(self.pending, _Pending(t, self._seq, bot.seat, action, kind))
        bot.busy = True

    # --- the loop ---------------------------------------------------------------------
    def run(self) -> list[dict[str, Any]]:
        table = self.table
        for bot in self.bots:
            bot.ready_at = self._ms(700, bot)  # "three, two, one, go": first look
        while True:
            idle = [b for b in self.bots if not b.busy]
            next_ready = min((b.ready_at for b in idle), default=None)
            next_land = self.pending[0].t_ms if self.pending else None
            if next_land is not None and (next_ready is None or next_land <= next_ready):
                self._land(heapq.heappop(self.pending))
            elif next_ready is not None:
                bot = min(idle, key=lambda b: (b.ready_at, b.seat))
                self._decide(bot, max(bot.ready_at, table.now))
            if table.ended:
                self._finish_after_end()
                end = max(table.now, table.ended_at + self.rules.call_grace_ms)
                self.events.append({"type": "round_end", "t_ms": end,
                                    **table.score().to_dict()})
                return self.events
            if all(b.stuck for b in self.bots) and not self.pending:
                wait = (int(self.rules.stall_timeout_s * 1000) if self.rules.stall_timeout_s
                        else 3000)
                reason = "abandon" if self.rules.stall_rule == "abandon" else "stall"
                self._push(EndRound(reason), max(table.now, self.last_progress + wait))
                return self.events
            if table.now > MAX_ROUND_MS:
                self._push(EndRound("abandon"), table.now)
                return self.events

    def _finish_after_end(self) -> None:
        """Cards in the air land within ``call_grace_ms``; later ones are stopped (or,
        with mistakes, land anyway and are flagged)."""
        table = self.table
        limit = table.ended_at + self.rules.call_grace_ms
        while self.pending:
            p = heapq.heappop(self.pending)
            if p.kind == "retract" or p.t_ms <= limit or self.rng.random() < self.mistakes:
                self._land(p, after_end=True)

    def _push(self, action: Action, t: int) -> list[Flag]:
        drawn = None
        if isinstance(action, Draw):
            drawn = [c.code for c in self.table.layouts[action.seat].stock[:self.rules.draw]]
        event_flags = self.table.push(action, t)
        event = self._event(action, t)
        if drawn is not None:
            event["cards"] = drawn
        self.events.append(event)
        for flag in event_flags:
            self.events.append(flag.to_event())
        return event_flags

    def _event(self, action: Action, t: int) -> dict[str, Any]:
        event = action_to_event(action, t)
        if isinstance(action, Call):
            event["valid"] = self.table.calls[-1][2]
        elif isinstance(action, EndRound):
            event.update(self.table.score().to_dict())
        return event

    # --- landing ----------------------------------------------------------------------
    def _land(self, p: _Pending, after_end: bool = False) -> None:
        table, bot = self.table, self.bots[p.seat]
        t = max(p.t_ms, table.now)
        bot.busy = False
        bot.ready_at = t + self._ms(180, bot)
        action = p.action
        if isinstance(action, Move) and action.target.is_lake and p.kind == "play":
            dst = action.target
            src_pile = table.pile(action.src)
            if not src_pile or src_pile[-1].code != action.card:
                return  # somebody took the card away meanwhile
            card = src_pile[-1]
            if card.rank == 1:
                # an Ace starts whichever pile index is free when it lands
                action = Move(action.seat, action.card, action.src, f"lake:{len(table.lake)}")
            elif not table.is_legal(action, t):
                f = table.lake[dst.index]
                top = f.top
                tie = (top is not None and top.t_ms == t and top.seat != p.seat
                       and top.effective.rank == card.rank)
                late = top is not None and 0 < t - top.t_ms <= 250
                if not tie and not late:
                    return  # saw it taken in time: the hand goes back, nothing lands
        if after_end and not isinstance(action, Retract) and p.t_ms > table.ended_at + (
                self.rules.call_grace_ms):
            t = p.t_ms
        try:
            flags = self._push(action, t)
        except ValueError:
            return  # the card is no longer there (an earlier landing changed the layout)
        if isinstance(action, Move) and action.target.is_lake:
            self._after_lake_landing(action, flags, t, bot)
        elif flags and isinstance(action, Move) and self.rng.random() < 0.7:
            self._retract_later(bot, action, t)
        if isinstance(action, Move) and (action.target.is_lake
                                         or action.source.kind in ("nertz", "waste")):
            self._progress(bot, t, lake=action.target.is_lake)

    def _after_lake_landing(self, move: Move, flags: list[Flag], t: int, bot: Bot) -> None:
        table = self.table
        f = table.lake[move.target.index]
        mine = next((pl for pl in reversed(f.placements)
                     if pl.card.code == move.card and pl.seat == move.seat), None)
        if mine is not None and mine.contested:
            self._retract_later(bot, move, t, quick=True)
        elif flags and flags[0].rule != "round_over" and self.rng.random() < 0.7:
            self._retract_later(bot, move, t)
        for c_t, place, loser in table.contests:
            if c_t == t and place == move.dst and loser != move.seat:
                loser_pl = next((pl for pl in f.placements if pl.contested
                                 and pl.seat == loser and pl.t_ms == t), None)
                if loser_pl is not None:
                    back = Move(loser, loser_pl.card.code, loser_pl.src, move.dst)
                    self._retract_later(self.bots[loser], back, t, quick=True)

    def _retract_later(self, bot: Bot, move: Move, t: int, quick: bool = False) -> None:
        delay = self._ms(500 if quick else 1400, bot, 0.5)
        back = Retract(move.seat, move.card, move.dst, move.src)
        self._schedule(t + delay, bot, back, "retract")

    def _progress(self, bot: Bot, t: int, lake: bool) -> None:
        bot.draws_since_progress = 0
        bot.fruitless_cycles = 0
        bot.stuck = False
        self.last_progress = t
        if lake:
            for other in self.bots:  # a new lake card may unblock anyone
                other.stuck = False
                other.fruitless_cycles = 0

    # --- deciding ---------------------------------------------------------------------
    def _decide(self, bot: Bot, t: int) -> None:
        table, rules = self.table, self.rules
        seat = bot.seat
        if rules.turn_based and table.turn != seat:
            bot.ready_at = t + 200
            return
        layout = table.layouts[seat]
        if not layout.nertz and not bot.called and (
                rules.must_call or not any(m.target.is_lake for m in table.card_moves(seat))):
            bot.called = True
            self._schedule(t + self._ms(450, bot), bot, Call(seat), "call")
            return
        if (self.mistakes and layout.nertz and len(layout.nertz) <= 3 and not bot.called
                and self.rng.random() < self.mistakes * 0.05):
            self._schedule(t + self._ms(450, bot), bot, Call(seat), "call")
            return
        if self.mistakes and self.rng.random() < self.mistakes:
            mistake = self._mistake(bot)
            if mistake is not None:
                self._schedule(t + self._ms(900, bot), bot, mistake, "mistake")
                return
        move = self._best_move(bot)
        if move is not None:
            far = move.target.is_lake
            self._schedule(t + self._ms(500, bot) + self._ms(650 if far else 380, bot),
                           bot, move)
            return
        self._stock_action(bot, t)

    def _stock_action(self, bot: Bot, t: int) -> None:
        table, rules, seat = self.table, self.rules, bot.seat
        layout = table.layouts[seat]
        cycle = math.ceil((len(layout.stock) + len(layout.waste)) / rules.draw) + 1
        if bot.draws_since_progress > cycle:
            bot.fruitless_cycles += 1
            bot.draws_since_progress = 0
            if bot.fruitless_cycles >= 3:
                bot.stuck = True
            if len(layout.stock) > 1:
                self._schedule(t + self._ms(600, bot), bot, Rotate(seat))
                return
        if layout.stock:
            bot.draws_since_progress += 1
            self._schedule(t + self._ms(450, bot), bot, Draw(seat))
        elif layout.waste and (rules.redeals is None or layout.recycles < rules.redeals):
            bot.draws_since_progress += 1
            self._schedule(t + self._ms(900, bot), bot, Recycle(seat))
        elif rules.turn_based:
            bot.stuck = True
            self._schedule(t + self._ms(600, bot), bot, Pass(seat))
        else:
            bot.stuck = True
            bot.ready_at = t + 2000
            if not layout.nertz and not bot.called:
                bot.called = True
                self._schedule(t + self._ms(450, bot), bot, Call(seat), "call")

    def _best_move(self, bot: Bot) -> Move | None:
        """A human-like greedy choice: lake plays first (nertz top, then river, then waste),
        then the nertz top into the river, then moves that free a card, then the waste."""
        table, seat = self.table, bot.seat
        moves = list(table.card_moves(seat))
        if not moves:
            return None
        layout = table.layouts[seat]
        order = {"nertz": 0, "river": 1, "waste": 2}

        def key(m: Move) -> tuple[int, int, float]:
            return (order[m.source.kind], 0 if m.card.startswith("A") else 1, self.rng.random())

        lake = [m for m in moves if m.target.is_lake]
        if lake:
            return min(lake, key=key)
        nertz_to_river = [m for m in moves if m.source.kind == "nertz"]
        if nertz_to_river:
            filled = [m for m in nertz_to_river if table.pile(m.dst)]
            return (filled or nertz_to_river)[0]
        river = [m for m in moves if m.source.kind == "river"]
        for m in river:
            column = layout.river[m.source.index]
            below = column[-m.n - 1] if len(column) > m.n else None
            if below is not None and self._lake_target(below):
                return m  # uncovers a card that goes to the lake
            if below is None and layout.nertz and table.pile(m.dst):
                return m  # empties a column for the nertz top
        waste = [m for m in moves if m.source.kind == "waste" and table.pile(m.dst)]
        if waste:
            return waste[0]
        if not layout.nertz:
            empty_fill = [m for m in moves if m.source.kind == "waste"]
            if empty_fill:
                return empty_fill[0]
        return None

    def _lake_target(self, card: Card) -> bool:
        if card.rank == 1:
            return True
        return any(not f.set_aside and f.suit == card.suit and f.next_rank == card.rank
                   for f in self.table.lake)

    def _mistake(self, bot: Bot) -> Move | None:
        """An illegal placement a hurried human might make."""
        table, seat, rng = self.table, bot.seat, self.rng
        free = [(src, card) for src, n, card in table.free_cards(seat) if n == 1
                and not card.is_joker]
        if not free:
            return None
        src, card = rng.choice(free)
        kind = rng.random()
        if kind < 0.55 and table.lake:
            piles = [f for f in table.lake if not f.set_aside and f.top is not None
                     and (f.suit != card.suit or f.next_rank != card.rank)
                     and abs(f.next_rank - card.rank) <= 1]
            if piles:
                return Move(seat, card.code, str(src), f"lake:{rng.choice(piles).index}")
        if kind < 0.7 and card.rank != 1:
            return Move(seat, card.code, str(src), f"lake:{len(table.lake)}")
        if kind < 0.92:
            cols = [i for i, col in enumerate(table.layouts[seat].river)
                    if col and not (src.kind == "river" and src.index == i)
                    and abs(col[-1].rank - card.rank) <= 2
                    and not (col[-1].is_red != card.is_red and col[-1].rank == card.rank + 1)]
            if cols:
                return Move(seat, card.code, str(src), f"seat{seat}:river{rng.choice(cols)}")
        others = [k for k in range(table.seats) if k != seat]
        victim = rng.choice(others)
        for osrc, n, ocard in table.free_cards(victim):
            if n == 1 and self._lake_target(ocard) and not ocard.is_joker:
                j = len(table.lake) if ocard.rank == 1 else next(
                    f.index for f in table.lake if not f.set_aside and f.suit == ocard.suit
                    and f.next_rank == ocard.rank)
                return Move(seat, ocard.code, str(osrc), f"lake:{j}")
        return None


def round_events(table: Table, seed: int, mistakes: float = 0.0,
                 skills: list[float] | None = None) -> list[dict[str, Any]]:
    """Simulate one round on a freshly dealt table and return its whole event log."""
    sim = Simulator(table, seed, mistakes, skills)
    head: list[dict[str, Any]] = [{
        "type": "round_start", "t_ms": 0, "round": table.round_no, "seats": table.seats,
        "seed": seed, "skills": [b.skill for b in sim.bots], "mistakes": mistakes,
        "rules": table.rules.to_dict(),
    }]
    head += [layout.to_deal_event(k) for k, layout in enumerate(table.layouts)]
    return head + sim.run()


def simulate_round(seats: int, rules: HouseRules | None = None, seed: int = 0,
                   mistakes: float = 0.0, round_no: int = 1) -> list[dict[str, Any]]:
    """Deal and play one round; same arguments → the same events."""
    rules = rules or HouseRules()
    if not 2 <= seats <= 8:
        raise ValueError(f"a round needs 2 to 8 players, not {seats}")
    rng = random.Random(f"{seed}:{round_no}")
    table = Table.deal(seats, rules, seed=rng.randrange(2**32), round_no=round_no)
    return round_events(table, rng.randrange(2**32), mistakes)


def simulate_match(seats: int, rules: HouseRules | None = None, seed: int = 0,
                   mistakes: float = 0.0, rounds: int = 1) -> Iterator[dict[str, Any]]:
    """Play up to ``rounds`` rounds (fewer when the match is decided) and end with a
    ``match_end`` event giving the totals and, once decided, the winner."""
    rules = rules or HouseRules()
    match = Match(rules, seats)
    events: list[dict[str, Any]] = []
    for n in range(1, rounds + 1):
        events = simulate_round(seats, rules, seed, mistakes, round_no=n)
        yield from events
        end = events[-1]
        score = RoundScore(end["lake_cards"], end["nertz_left"], end["false_calls"],
                           end["bonus"], end["scores"], end["caller"], end["reason"],
                           end.get("team_scores"))
        if match.add(score) is not None:
            break
    if rounds > 1:
        yield {"type": "match_end", "t_ms": events[-1]["t_ms"], **match.standings()}


__all__ = ["Bot", "Simulator", "round_events", "simulate_match", "simulate_round"]
