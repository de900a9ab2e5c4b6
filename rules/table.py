"""The table state: every seat's layout and the shared lake, with explicit legality checks."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cards import Card, Place, new_deck
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
)
from .options import HouseRules
from .scoring import RoundScore, score_round

NERTZ_SIZE = 13


class ImpossibleAction(ValueError):
    """An action that cannot physically happen in this state (a card that is not there)."""


class OrderError(ValueError):
    """An action timed before the previous one."""


@dataclass(frozen=True, slots=True)
class Illegal:
    """Why an action breaks the rules: a stable rule id and a human-readable detail."""

    rule: str
    detail: str = ""

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"{self.rule}: {self.detail}" if self.detail else self.rule


@dataclass
class Flag:
    """A rule violation seen on the table (an illegal action that happened anyway)."""

    rule: str
    seat: int | None
    t_ms: int
    card: str | None = None
    place: str | None = None
    detail: str = ""
    corrected_at: int | None = None

    @property
    def corrected(self) -> bool:
        return self.corrected_at is not None

    def to_event(self) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "flag", "t_ms": self.t_ms, "seat": self.seat,
                                 "rule": self.rule}
        if self.card is not None:
            event["card"] = self.card
        if self.place is not None:
            event["place"] = self.place
        if self.detail:
            event["detail"] = self.detail
        return event


@dataclass(frozen=True, slots=True)
class Placement:
    """One card on a foundation: who played it, from where, when, and whether it counts."""

    card: Card
    seat: int
    src: str
    t_ms: int
    counts: bool = True
    declared: Card | None = None  # what a joker stands for
    contested: bool = False  # lost a simultaneous placement (tie_rule)

    @property
    def effective(self) -> Card:
        return self.declared or self.card


@dataclass
class Foundation:
    """A pile in the lake, built up by suit from an Ace."""

    index: int
    placements: list[Placement] = field(default_factory=list)
    set_aside: bool = False

    def counting(self) -> list[Placement]:
        return [p for p in self.placements if p.counts]

    @property
    def top(self) -> Placement | None:
        """The last placement that counts (misplaced cards do not change the pile)."""
        for p in reversed(self.placements):
            if p.counts:
                return p
        return None

    @property
    def suit(self) -> str | None:
        for p in self.placements:
            if p.counts:
                return p.effective.suit
        return None

    @property
    def next_rank(self) -> int:
        top = self.top
        return 1 if top is None else top.effective.rank + 1

    @property
    def complete(self) -> bool:
        top = self.top
        return top is not None and top.effective.rank == 13

    def codes(self) -> list[str]:
        return [p.card.code for p in self.placements]


@dataclass
class Layout:
    """One seat's cards: nertz (last = top), river columns (deepest first), stock (first =
    top), waste (last = top)."""

    nertz: list[Card]
    river: list[list[Card]]
    stock: list[Card]
    waste: list[Card] = field(default_factory=list)
    recycles: int = 0
    #: cards that left the layout for a place nobody saw (:class:`~rules.moves.Unseen`),
    #: oldest first: still the seat's, out of play until a ``Move(..., lost=True)``
    lost: list[Card] = field(default_factory=list)

    def to_deal_event(self, seat: int, t_ms: int = 0) -> dict[str, Any]:
        return {"type": "deal", "t_ms": t_ms, "seat": seat,
                "nertz": [c.code for c in self.nertz],
                "river": [[c.code for c in col] for col in self.river],
                "stock": [c.code for c in self.stock]}

    def cards(self) -> Iterator[Card]:
        yield from self.nertz
        for col in self.river:
            yield from col
        yield from self.stock
        yield from self.waste


def is_run(cards: Sequence[Card]) -> bool:
    """True when the cards (deepest first) descend by one in alternating colours."""
    for lower, upper in zip(cards, cards[1:], strict=False):
        if lower.is_joker or upper.is_joker:
            continue
        if upper.rank != lower.rank - 1 or upper.is_red == lower.is_red:
            return False
    return True


class Table:
    """A round of Nertz in progress. ``push`` applies what happened, ``pop`` undoes it,
    ``is_legal``/``check`` say whether an action keeps the rules."""

    def __init__(self, layouts: list[Layout], rules: HouseRules | None = None,
                 round_no: int = 1) -> None:
        self.rules = rules or HouseRules()
        if not 2 <= len(layouts) <= 8:
            raise ValueError(f"a table has 2 to 8 seats, not {len(layouts)}")
        self.layouts = layouts
        self.round_no = round_no
        self.lake: list[Foundation] = []
        self.now = 0
        self.flags: list[Flag] = []
        self.calls: list[tuple[int, int, bool]] = []  # (seat, t_ms, valid)
        self.ended_at: int | None = None
        self.end_reason: str | None = None
        self.caller: int | None = None
        self.turn = 0
        self.nertz_emptied_at: dict[int, int] = {}
        self.contests: list[tuple[int, str, int]] = []  # (t_ms, lake place, losing seat)
        self._misplaced: dict[Card, tuple[Flag, str]] = {}
        self._stack: list[tuple[Action, int, list[Flag], Any]] = []

    # --- construction -----------------------------------------------------------------
    @classmethod
    def deal(cls, seats: int, rules: HouseRules | None = None, seed: int | None = None,
             round_no: int = 1) -> Table:
        """Shuffle each seat's own deck and lay it out as RULES.md describes."""
        rules = rules or HouseRules()
        rng = random.Random(seed)
        layouts = []
        for seat in range(seats):
            deck = new_deck(seat, rules.jokers)
            rng.shuffle(deck)
            layouts.append(cls._layout_from_deck(deck, rules.river_columns))
        return cls(layouts, rules, round_no)

    @staticmethod
    def _layout_from_deck(deck: list[Card], columns: int) -> Layout:
        nertz = deck[:NERTZ_SIZE]
        river = [[c] for c in deck[NERTZ_SIZE:NERTZ_SIZE + columns]]
        return Layout(nertz, river, deck[NERTZ_SIZE + columns:])

    @classmethod
    def from_deals(cls, deals: list[dict[str, Any]], rules: HouseRules | None = None,
                   round_no: int = 1) -> Table:
        """Rebuild a table from the ``deal`` events of a log (one per seat, in seat order)."""
        rules = rules or HouseRules()
        layouts = []
        for seat, deal in enumerate(deals):
            if deal.get("seat") != seat:
                raise ValueError(f"deal events must list seats 0, 1, … in order; got seat "
                                 f"{deal.get('seat')!r} at position {seat}")
            try:
                nertz = [Card.parse(c, seat) for c in deal["nertz"]]
                river = [[Card.parse(c, seat) for c in col] for col in deal["river"]]
                stock = [Card.parse(c, seat) for c in deal["stock"]]
                waste = [Card.parse(c, seat) for c in deal.get("waste", [])]
            except KeyError as exc:
                raise ValueError(f"deal of seat {seat} lacks {exc.args[0]!r}") from None
            layout = Layout(nertz, river, stock, waste)
            codes = [c.code for c in layout.cards()]
            if len(set(codes)) != len(codes) or len(codes) != rules.deck_size:
                raise ValueError(f"deal of seat {seat} is not one whole deck "
                                 f"({len(codes)} cards, {len(set(codes))} different)")
            if len(river) != rules.river_columns:
                raise ValueError(f"deal of seat {seat} has {len(river)} river columns, "
                                 f"rules say {rules.river_columns}")
            layouts.append(layout)
        return cls(layouts, rules, round_no)

    @property
    def seats(self) -> int:
        return len(self.layouts)

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    # --- looking at the table ---------------------------------------------------------
    def pile(self, place: str | Place) -> list[Card]:
        """The cards at a place, bottom first (stock: top first, as in the log)."""
        p = Place.parse(place)
        if p.is_lake:
            if p.index is None or p.index >= len(self.lake):
                return []
            return [pl.card for pl in self.lake[p.index].placements]
        layout = self._layout(p)
        if p.kind == "river":
            return list(self._column(p))
        return list(getattr(layout, p.kind))

    def where(self, code: str, owner: int) -> Place | None:
        """Where a seat's card is now."""
        card = Card.parse(code, owner)
        for f in self.lake:
            if any(pl.card == card for pl in f.placements):
                return Place.lake(f.index)
        for seat, layout in enumerate(self.layouts):
            if card in layout.nertz:
                return Place.of(seat, "nertz")
            if card in layout.stock:
                return Place.of(seat, "stock")
            if card in layout.waste:
                return Place.of(seat, "waste")
            for i, col in enumerate(layout.river):
                if card in col:
                    return Place.of(seat, "river", i)
        return None

    def all_cards(self) -> list[Card]:
        cards = [pl.card for f in self.lake for pl in f.placements]
        for layout in self.layouts:
            cards.extend(layout.cards())
        return cards

    def nertz_count(self, seat: int) -> int:
        return len(self.layouts[seat].nertz)

    # --- legality ---------------------------------------------------------------------
    def is_legal(self, action: Action, t_ms: int | None = None) -> bool | Illegal:
        """``True``, or an :class:`Illegal` reason (which is falsy)."""
        try:
            reason = self.check(action, t_ms)
        except ImpossibleAction as exc:
            return Illegal("impossible", str(exc))
        return True if reason is None else reason

    def check(self, action: Action, t_ms: int | None = None) -> Illegal | None:
        """The rule an action breaks, or ``None``. Raises :class:`ImpossibleAction` when the
        action cannot physically happen."""
        t = self.now if t_ms is None else t_ms
        seat = getattr(action, "seat", None)
        if isinstance(seat, int) and seat >= self.seats:
            raise ImpossibleAction(f"there is no seat {seat} at a table of {self.seats}")
        if self.ended_at is not None and t > self.ended_at + self.rules.call_grace_ms and not (
            isinstance(action, SetAside | EndRound | Unseen)
        ):
            self._physical(action)
            return Illegal("round_over", f"the round ended at {self.ended_at} ms")
        if (self.rules.turn_based and isinstance(seat, int) and seat != self.turn
                and not isinstance(action, Call | Unseen)):
            self._physical(action)
            return Illegal("not_your_turn", f"it is seat {self.turn}'s turn")
        match action:
            case Move():
                return self._check_move(action)
            case Retract():
                return self._check_retract(action)
            case Draw():
                self._physical(action)
                return None
            case Recycle():
                self._physical(action)
                layout = self.layouts[action.seat]
                if layout.stock:
                    return Illegal("stock_not_empty", "the stock still has cards")
                if self.rules.redeals is not None and layout.recycles >= self.rules.redeals:
                    return Illegal("redeals_exhausted",
                                   f"only {self.rules.redeals} redeal(s) allowed")
                return None
            case Rotate():
                self._physical(action)
                return None
            case Pass():
                if not self.rules.turn_based:
                    return Illegal("not_turn_based", "passing exists only in turn-based play")
                return None
            case Call():
                if not self._call_is_true(action.seat):
                    left = self.nertz_count(action.seat)
                    return Illegal("false_call", f"{left} card(s) left in the nertz pile")
                return None
            case SetAside():
                f = self._foundation(int(action.place.split(":")[1]))
                if not f.complete:
                    return Illegal("foundation_not_complete", "only a finished pile is set aside")
                return None
            case EndRound():
                return None
            case Unseen():
                self._unseen_card(action)
                return None  # a referee's record: no rule to break
        raise TypeError(f"not an action: {action!r}")

    def _call_is_true(self, seat: int) -> bool:
        team = self.rules.team_of(seat)
        return any(not self.layouts[s].nertz for s in range(self.seats)
                   if self.rules.team_of(s) == team)

    def _physical(self, action: Action) -> None:
        """Raise ImpossibleAction unless the action can happen physically."""
        match action:
            case Move():
                self._locate(action)
            case Retract():
                self._locate_retract(action)
            case Draw():
                if not self.layouts[action.seat].stock:
                    raise ImpossibleAction(f"seat{action.seat}'s stock is empty")
            case Recycle():
                if not self.layouts[action.seat].waste:
                    raise ImpossibleAction(f"seat{action.seat}'s waste is empty")
            case Rotate():
                if not self.layouts[action.seat].stock:
                    raise ImpossibleAction(f"seat{action.seat}'s stock is empty")
            case Unseen():
                self._unseen_card(action)

    def _unseen_card(self, action: Unseen) -> list[Card]:
        """The list an unseen card leaves (it must be its top card, of that seat's layout)."""
        src = Place.parse(action.src)
        if src.seat != action.seat:
            raise ImpossibleAction(f"seat{action.seat} has no {src}")
        pile = self._src_list(src)
        if not pile or pile[-1].code != action.card:
            top = pile[-1].code if pile else "empty"
            raise ImpossibleAction(f"{action.card} is not the top of {src} ({top})")
        return pile

    def _layout(self, p: Place) -> Layout:
        if p.seat is None or p.seat >= self.seats:
            raise ImpossibleAction(f"there is no seat {p.seat} at a table of {self.seats}")
        return self.layouts[p.seat]

    def _column(self, p: Place) -> list[Card]:
        layout = self._layout(p)
        if p.index is None or p.index >= len(layout.river):
            raise ImpossibleAction(f"{p} does not exist ({len(layout.river)} river columns)")
        return layout.river[p.index]

    def _foundation(self, j: int) -> Foundation:
        if j >= len(self.lake):
            raise ImpossibleAction(f"lake:{j} does not exist yet ({len(self.lake)} piles)")
        return self.lake[j]

    def _src_list(self, p: Place) -> list[Card]:
        if p.is_lake:
            raise ImpossibleAction(f"cards leave the lake only by a retract, not from {p}")
        if p.kind == "river":
            return self._column(p)
        return getattr(self._layout(p), p.kind)

    def _locate(self, move: Move) -> tuple[list[Card], int]:
        """The source list and the index of the moved card in it (a lost card: the seat's
        lost cards)."""
        src = move.source
        pile = self._src_list(src)
        if move.lost:
            pile = self._layout(src).lost
        codes = [c.code for c in pile]
        if move.card not in codes:
            where = f"seat{src.seat}'s lost cards" if move.lost else str(src)
            raise ImpossibleAction(f"{move.card} is not in {where} "
                                   f"({' '.join(codes) or 'empty'})")
        if move.lost or move.hidden:
            idx = codes.index(move.card)
        elif src.kind == "stock":
            idx = codes.index(move.card)
        else:
            idx = len(codes) - 1 - codes[::-1].index(move.card)
        if not move.lost and ((src.kind == "river" and len(pile) - idx != move.n) or (
                move.n > 1 and src.kind != "river")):
            raise ImpossibleAction(
                f"{move.card} does not start a run of {move.n} card(s) at {src}")
        dst = move.target
        if dst.is_lake:
            if dst.index > len(self.lake):
                raise ImpossibleAction(f"{dst} skips a lake index (next free is "
                                       f"lake:{len(self.lake)})")
            if dst.index < len(self.lake) and self.lake[dst.index].set_aside:
                raise ImpossibleAction(f"{dst} was set aside")
        elif dst.kind == "river":
            self._column(dst)
        else:
            self._layout(dst)
        if dst == src and not move.lost:
            raise ImpossibleAction(f"{move.card} moves from {src} onto itself")
        return pile, idx

    def _check_move(self, move: Move) -> Illegal | None:
        pile, idx = self._locate(move)
        src, dst = move.source, move.target
        card = pile[idx]
        if src.seat != move.seat:
            return Illegal("not_your_card", f"{move.card} is in seat{src.seat}'s layout")
        if src.kind == "stock" and not move.lost and not move.hidden:
            return Illegal("not_playable", "cards are played from the waste, not the stock")
        if src.kind in ("nertz", "waste") and idx != len(pile) - 1 and not move.lost and \
                not move.hidden:
            return Illegal("not_playable", f"{move.card} is not the top of {src}")
        run = pile[idx:idx + 1] if move.lost or move.hidden else pile[idx:]
        if not is_run(run):
            return Illegal("run_not_ordered", f"the run from {move.card} is not in order")
        if dst.is_lake:
            if move.n > 1:
                return Illegal("lake_one_card", "cards go to the lake one at a time")
            effective = card
            if card.is_joker:
                if move.declared is None:
                    return Illegal("joker_undeclared", "a joker needs a declared card")
                effective = Card.parse(move.declared)
            f = self.lake[dst.index] if dst.index < len(self.lake) else None
            if f is None or f.top is None:
                if effective.rank != 1:
                    return Illegal("foundation_needs_ace", f"{effective} cannot start a pile")
                return None
            if effective.suit != f.suit:
                return Illegal("foundation_suit", f"{effective} on a {f.suit} pile")
            if effective.rank != f.next_rank:
                return Illegal("foundation_rank",
                               f"{effective} on {f.top.effective}, needs rank {f.next_rank}")
            return None
        if dst.seat != move.seat:
            return Illegal("not_your_layout", f"{dst} is another seat's layout")
        if dst.kind != "river":
            return Illegal("bad_destination", f"cards are never played onto the {dst.kind}")
        column = self.layouts[dst.seat].river[dst.index]
        layout = self.layouts[move.seat]
        if move.under:
            if not self.rules.slide_under:
                return Illegal("slide_under_off", "slide_under is not allowed by the rules")
            if move.n > 1 or not column:
                return Illegal("slide_under_base", "one card slides under a non-empty column")
            base = column[0]
            if not (card.is_joker or base.is_joker):
                if card.is_red == base.is_red:
                    return Illegal("river_colour", f"{card} under {base}")
                if card.rank != base.rank + 1:
                    return Illegal("river_rank", f"{card} under {base}")
            if all(col for col in layout.river):
                return Illegal("slide_under_needs_empty_column",
                               "sliding under replaces filling an empty column")
            return None
        if not column:
            if (self.rules.empty_column_fill == "nertz_first" and layout.nertz
                    and src.kind != "nertz"):
                return Illegal("empty_column_nertz_first",
                               "the nertz top must fill an empty column first")
            return None
        exposed = column[-1]
        if card.is_joker or exposed.is_joker:
            return None
        if card.is_red == exposed.is_red:
            return Illegal("river_colour", f"{card} on {exposed}")
        if card.rank != exposed.rank - 1:
            return Illegal("river_rank", f"{card} on {exposed}")
        return None

    def _locate_retract(self, action: Retract) -> tuple[Any, int]:
        src = Place.parse(action.src)
        dst = Place.parse(action.dst)
        if dst.is_lake:
            raise ImpossibleAction("a card is taken back into a layout, not into the lake")
        if dst.kind != "river":
            self._layout(dst)
        else:
            self._column(dst)
        if src.is_lake:
            f = self._foundation(src.index)
            for i in range(len(f.placements) - 1, -1, -1):
                pl = f.placements[i]
                if pl.card.code == action.card and (i == len(f.placements) - 1
                                                    or not pl.counts):
                    return f, i
            raise ImpossibleAction(f"{action.card} is not on top of {src} "
                                   f"({' '.join(f.codes()) or 'empty'})")
        pile = self._src_list(src)
        if not pile or pile[-1].code != action.card:
            raise ImpossibleAction(f"{action.card} is not the top of {src}")
        return pile, len(pile) - 1

    def _check_retract(self, action: Retract) -> Illegal | None:
        where, idx = self._locate_retract(action)
        if isinstance(where, Foundation):
            pl = where.placements[idx]
            if pl.seat != action.seat:
                return Illegal("not_your_card", f"seat{pl.seat} placed {action.card}")
            if pl.counts:
                return Illegal("retract_legal_card", "a card correctly placed stays")
            if pl.src != action.dst:
                return Illegal("retract_elsewhere", f"{action.card} came from {pl.src}")
            return None
        card = where[idx]
        entry = self._misplaced.get(card)
        if entry is None:
            return Illegal("retract_legal_card", f"{action.card} was not misplaced")
        flag, origin = entry
        if flag.seat != action.seat:
            return Illegal("not_your_card", f"seat{flag.seat} placed {action.card}")
        if origin != action.dst:
            return Illegal("retract_elsewhere", f"{action.card} came from {origin}")
        return None

    # --- applying ---------------------------------------------------------------------
    def push(self, action: Action, t_ms: int | None = None) -> list[Flag]:
        """Apply what happened (legal or not) and return the flags it raised."""
        t = self.now if t_ms is None else int(t_ms)
        if t < self.now:
            raise OrderError(f"{action} at {t} ms comes before the previous action "
                             f"({self.now} ms)")
        reason = self.check(action, t)
        tie = None
        if (reason is not None and reason.rule == "foundation_rank"
                and isinstance(action, Move)):
            tie = self._tie(action, t)
            if tie is not None:
                reason = None
        saved = self._save(action)
        self.now = t
        flags: list[Flag] = []
        if reason is not None:
            flags.append(self._flag(action, reason, t))
        self._apply(action, t, flags, tie)
        self.flags.extend(flags)
        self._stack.append((action, t, flags, saved))
        return flags

    def _tie(self, move: Move, t: int) -> str | None:
        """A placement landing at the same instant as the pile's top card of equal rank."""
        dst = move.target
        if not dst.is_lake or dst.index >= len(self.lake):
            return None
        top = self.lake[dst.index].top
        pile, idx = self._locate(move)
        card = pile[idx]
        effective = Card.parse(move.declared) if card.is_joker and move.declared else card
        if (top is None or top.t_ms != t or top.seat == move.seat
                or top.effective.rank != effective.rank
                or top.effective.suit != effective.suit):
            return None
        return self.rules.tie_rule

    def _flag(self, action: Action, reason: Illegal, t: int) -> Flag:
        card = getattr(action, "card", None)
        place = getattr(action, "dst", None) or getattr(action, "place", None)
        if isinstance(action, Move | Retract) and reason.rule in ("not_your_card",
                                                                  "not_playable"):
            place = action.src
        return Flag(reason.rule, getattr(action, "seat", None), t, card, place, reason.detail)

    def _save(self, action: Action) -> Any:
        lists: list[list[Any]] = [self.lake]
        for layout in self.layouts:
            lists.extend((layout.nertz, layout.stock, layout.waste, layout.lost,
                          *layout.river))
        for f in self.lake:
            lists.append(f.placements)
        scalars = (self.now, self.ended_at, self.end_reason, self.caller, self.turn,
                   dict(self.nertz_emptied_at), len(self.calls), len(self.contests),
                   dict(self._misplaced), [(f, f.set_aside) for f in self.lake],
                   [(fl, fl.corrected_at) for fl in self.flags if not fl.corrected],
                   [layout.recycles for layout in self.layouts], len(self.flags))
        if isinstance(action, Draw | Recycle | Rotate | Call | Pass | EndRound | SetAside):
            lists = [layout.stock for layout in self.layouts] + [
                layout.waste for layout in self.layouts]
        return [(lst, lst[:]) for lst in lists], scalars

    def pop(self) -> Action:
        """Undo the last action and return it."""
        action, _t, _flags, (lists, scalars) = self._stack.pop()
        for lst, copy in lists:
            lst[:] = copy
        (self.now, self.ended_at, self.end_reason, self.caller, self.turn, emptied, ncalls,
         ncontests, misplaced, aside, corrections, recycles, nflags) = scalars
        self.nertz_emptied_at = emptied
        del self.calls[ncalls:]
        del self.contests[ncontests:]
        del self.flags[nflags:]
        self._misplaced = misplaced
        for f, value in aside:
            f.set_aside = value
        for fl, value in corrections:
            fl.corrected_at = value
        for layout, value in zip(self.layouts, recycles, strict=True):
            layout.recycles = value
        return action

    @property
    def history(self) -> list[tuple[Action, int]]:
        return [(a, t) for a, t, _f, _s in self._stack]

    def _apply(self, action: Action, t: int, flags: list[Flag], tie: str | None) -> None:
        rules = self.rules
        match action:
            case Move():
                pile, idx = self._locate(action)
                run = pile[idx:idx + 1] if action.lost or action.hidden else pile[idx:]
                del pile[idx:idx + len(run)]
                src, dst = action.source, action.target
                if src.kind == "nertz" and not pile and src.seat not in self.nertz_emptied_at \
                        and not action.lost:
                    self.nertz_emptied_at[src.seat] = t
                if dst.is_lake:
                    if dst.index == len(self.lake):
                        self.lake.append(Foundation(dst.index))
                    f = self.lake[dst.index]
                    card = run[0]
                    declared = (Card.parse(action.declared) if card.is_joker and action.declared
                                else None)
                    counts = not flags and tie != "bottom"
                    if tie == "top":
                        i = next(i for i in range(len(f.placements) - 1, -1, -1)
                                 if f.placements[i].counts)
                        loser = f.placements[i]
                        f.placements[i] = replace(loser, counts=False, contested=True)
                        self.contests.append((t, str(dst), loser.seat))
                    elif tie == "bottom":
                        self.contests.append((t, str(dst), action.seat))
                    f.placements.append(Placement(card, action.seat, action.src, t, counts,
                                                  declared, contested=tie == "bottom"))
                    for extra in run[1:]:  # an illegal run dropped on the lake
                        f.placements.append(Placement(extra, action.seat, action.src, t,
                                                      False))
                    if flags:
                        flags[0].place = str(dst)
                else:
                    column = self.layouts[dst.seat].river[dst.index]
                    if action.under:
                        column[:0] = run
                    else:
                        column.extend(run)
                    if flags:
                        self._misplaced[run[0]] = (flags[0], action.src)
                for card in run:
                    if not flags and card in self._misplaced:
                        del self._misplaced[card]
            case Retract():
                where, idx = self._locate_retract(action)
                if isinstance(where, Foundation):
                    pl = where.placements.pop(idx)
                    card = pl.card
                    flag = next((fl for fl in reversed(self.flags)
                                 if fl.card == card.code and fl.place == action.src
                                 and fl.seat == action.seat and fl.corrected_at is None), None)
                else:
                    card = where.pop(idx)
                    flag = self._misplaced.pop(card, (None, None))[0]
                if (not flags and flag is not None
                        and t - flag.t_ms <= rules.retract_window_ms):
                    flag.corrected_at = t
                dst = Place.parse(action.dst)
                if dst.kind == "nertz":  # the pile holds a card again
                    self.nertz_emptied_at.pop(dst.seat, None)
                if dst.kind == "river":
                    self.layouts[dst.seat].river[dst.index].append(card)
                elif dst.kind == "stock":
                    self.layouts[dst.seat].stock.insert(0, card)
                else:
                    getattr(self.layouts[dst.seat], dst.kind).append(card)
            case Draw():
                layout = self.layouts[action.seat]
                k = rules.draw
                layout.waste.extend(layout.stock[:k])
                del layout.stock[:k]
                self._next_turn(action.seat)
            case Recycle():
                layout = self.layouts[action.seat]
                layout.stock.extend(layout.waste)
                layout.waste.clear()
                layout.recycles += 1
            case Rotate():
                stock = self.layouts[action.seat].stock
                stock.append(stock.pop(0))
            case Pass():
                self._next_turn(action.seat)
            case Call():
                valid = not flags
                self.calls.append((action.seat, t, valid))
                if valid and self.ended_at is None:
                    self.ended_at, self.end_reason, self.caller = t, "call", action.seat
            case SetAside():
                if not flags:
                    self.lake[int(action.place.split(":")[1])].set_aside = True
            case EndRound():
                if self.ended_at is None:
                    self.ended_at, self.end_reason = t, action.reason
            case Unseen():
                pile = self._unseen_card(action)
                card = pile.pop()
                self.layouts[action.seat].lost.append(card)
                self._misplaced.pop(card, None)
                if (Place.parse(action.src).kind == "nertz" and not pile
                        and action.seat not in self.nertz_emptied_at):
                    self.nertz_emptied_at[action.seat] = t

    def _next_turn(self, seat: int) -> None:
        if self.rules.turn_based and seat == self.turn:
            self.turn = (self.turn + 1) % self.seats

    # --- move generation --------------------------------------------------------------
    def free_cards(self, seat: int) -> Iterator[tuple[Place, int, Card]]:
        """(place, run length, card) for every card the seat may pick up now."""
        layout = self.layouts[seat]
        if layout.nertz:
            yield Place.of(seat, "nertz"), 1, layout.nertz[-1]
        if layout.waste:
            yield Place.of(seat, "waste"), 1, layout.waste[-1]
        for i, col in enumerate(layout.river):
            for depth in range(len(col) - 1, -1, -1):
                if depth < len(col) - 1 and not is_run(col[depth:depth + 2]):
                    break
                yield Place.of(seat, "river", i), len(col) - depth, col[depth]

    def card_moves(self, seat: int) -> Iterator[Move]:
        """Every legal card move of a seat (to the lake and within the river)."""
        if self.ended_at is not None and self.now > self.ended_at + self.rules.call_grace_ms:
            return
        if self.rules.turn_based and seat != self.turn:
            return
        layout = self.layouts[seat]
        by_suit: dict[str, list[Foundation]] = {}
        for f in self.lake:
            if not f.set_aside and f.top is not None:
                by_suit.setdefault(f.suit, []).append(f)
        empty_cols = [i for i, col in enumerate(layout.river) if not col]
        any_empty = bool(empty_cols)
        for src, n, card in self.free_cards(seat):
            if n == 1:
                if card.is_joker:
                    pass  # jokers need a declaration: offered below per open pile
                elif card.rank == 1:
                    yield Move(seat, card.code, str(src), f"lake:{len(self.lake)}")
                else:
                    for f in by_suit.get(card.suit, ()):
                        if f.next_rank == card.rank:
                            yield Move(seat, card.code, str(src), f"lake:{f.index}")
                if card.is_joker:
                    for f in by_suit.values():
                        for pile in f:
                            if pile.next_rank <= 13:
                                declared = Card(pile.next_rank, pile.suit).code
                                yield Move(seat, card.code, str(src), f"lake:{pile.index}",
                                           declared=declared)
            for i, col in enumerate(layout.river):
                if src.kind == "river" and src.index == i:
                    continue
                dst = f"seat{seat}:river{i}"
                if col:
                    exposed = col[-1]
                    if (card.is_joker or exposed.is_joker
                            or (card.is_red != exposed.is_red and card.rank == exposed.rank - 1)):
                        yield Move(seat, card.code, str(src), dst, n)
                    if (self.rules.slide_under and n == 1 and any_empty
                            and (card.is_joker or col[0].is_joker
                                 or (card.is_red != col[0].is_red
                                     and card.rank == col[0].rank + 1))):
                        yield Move(seat, card.code, str(src), dst, under=True)
                elif not (src.kind == "river" and n == len(layout.river[src.index])):
                    if (self.rules.empty_column_fill == "nertz_first" and layout.nertz
                            and src.kind != "nertz"):
                        continue
                    yield Move(seat, card.code, str(src), dst, n)

    def legal_moves(self, seat: int) -> Iterator[Action]:
        """Every legal action of a seat: card moves, then draw/recycle/rotate/call."""
        yield from self.card_moves(seat)
        if self.ended_at is not None and self.now > self.ended_at + self.rules.call_grace_ms:
            return
        if self.rules.turn_based and seat != self.turn:
            return
        layout = self.layouts[seat]
        if layout.stock:
            yield Draw(seat)
            if len(layout.stock) > 1:
                yield Rotate(seat)
        elif layout.waste and (self.rules.redeals is None
                               or layout.recycles < self.rules.redeals):
            yield Recycle(seat)
        if self.rules.turn_based:
            yield Pass(seat)
        if self._call_is_true(seat) and self.ended_at is None:
            yield Call(seat)

    # --- scoring ----------------------------------------------------------------------
    def score(self) -> RoundScore:
        """The round's score as it stands now (RULES.md, Scoring)."""
        lake = [0] * self.seats
        for f in self.lake:
            for pl in f.placements:
                if pl.counts and pl.card.owner is not None:
                    lake[pl.card.owner] += 1
        nertz = [len(layout.nertz) for layout in self.layouts]
        false_calls = [0] * self.seats
        for seat, _t, valid in self.calls:
            if not valid:
                false_calls[seat] += 1
        return score_round(self.rules, lake, nertz, false_calls, self.caller,
                           self.end_reason)

    def __repr__(self) -> str:
        return (f"<Table seats={self.seats} lake={len(self.lake)} t={self.now}ms "
                f"nertz={[len(lo.nertz) for lo in self.layouts]}>")

    def __str__(self) -> str:
        lines = []
        for f in self.lake:
            tag = " (set aside)" if f.set_aside else ""
            lines.append(f"lake:{f.index}: {' '.join(f.codes())}{tag}")
        for seat, lo in enumerate(self.layouts):
            top = lo.nertz[-1].code if lo.nertz else "-"
            river = " | ".join(" ".join(c.code for c in col) or "." for col in lo.river)
            waste = lo.waste[-1].code if lo.waste else "-"
            lines.append(f"seat{seat}: nertz {top} ({len(lo.nertz)})  river {river}  "
                         f"waste {waste} ({len(lo.waste)})  stock {len(lo.stock)}")
        return "\n".join(lines)
