"""The tracker: observations over time → the round's event log, checked by the rules engine.

Per place, a state is committed only when it has been seen the same for ``min_frames``
frames (and ``min_ms``) with no hand over it. Committed states are compared with what the
rules engine's table (:class:`rules.Table`) says the camera should see; the differences are
explained by actions, most likely first:

* a card that appears on a lake pile or a river column and has left a free spot of some
  seat's layout (nertz top, waste top, river run) is one move by that seat — ownership comes
  from the layout the card left, never from its code alone;
* a card that comes back from the lake (or a misplaced river card) is a retract;
* new cards on a waste are draws (with missed draws, recycles and stuck-player rotations
  filled in), an emptied waste with a stock again is a recycle;
* a newly turned nertz top or waste card that the deal did not show is a *reveal*: the
  hidden cards of a seat are interchangeable until seen, so the hypothesis of the deal is
  updated (the engine's table holds a full, consistent deal at every moment).

The rules are a constraint: a foundation seen at 5♥ and later at 7♥ got a 6♥ in between
when a seat lost a 6♥ (the missed move is inferred and marked so); a misread that explains
nothing leaves the engine as it was (the next good view puts it right), so one misread never
freezes the game. Every action goes through :meth:`rules.Table.push`, which gives the flags
(rule ids of RULES.md), nertz counts, corrections of retracted misplacements, calls and the
score.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from rules import HouseRules
from rules.cards import ALL_CODES, Card, Place
from rules.moves import (
    Action,
    Call,
    Draw,
    EndRound,
    Move,
    Recycle,
    Retract,
    Rotate,
    Unseen,
    action_to_event,
)
from rules.table import (
    NERTZ_SIZE,
    Flag,
    ImpossibleAction,
    Layout,
    OrderError,
    Table,
    is_run,
)

from .observation import Observation, look_distance

__all__ = ["Tracker", "TrackerError"]


class TrackerError(ValueError):
    """The tracker was used wrongly (a seat that does not exist, a frame before the deal)."""


@dataclass
class _PlaceState:
    """Debounce state of one place."""

    stable: tuple[str, ...] | None = None
    stable_frame: int = -1
    stable_t: float = 0.0
    cand: tuple[str, ...] | None = None
    cand_n: int = 0
    cand_frame: int = -1
    cand_t: float = 0.0
    top: str | None = None  # the raw top code and since when it shows (cover or not)
    top_frame: int = -1
    top_t: float = 0.0
    covered: bool = False
    last_frame: int = -1
    box: tuple[float, float, float, float] | None = None  # where its cards were last seen
    first: dict[str, float] = field(default_factory=dict)  # tops glimpsed since the commit
    glimpsed: dict[str, float] = field(default_factory=dict)  # those before the last commit
    empty_t: float = -1.0  # when it was last committed empty
    refilled_t: float = -1.0  # when a card was last committed on it after it was empty
    tops: list[tuple[str | None, float]] = field(default_factory=list)  # (top, since), recent
    settled: dict[str, float] = field(default_factory=dict)  # top → its last stable_t
    shown: dict[str, float] = field(default_factory=dict)  # top → its first stable_t
    doubt: tuple[tuple[str, ...], float] | None = None  # a doubtful view and since when
    held: tuple[str, ...] | None = None  # the view while only a doubtful read holds it back
    #: the reader's own top code and since when it shows in plain view (None: not yet)
    read: tuple[str | None, float | None] = (None, None)
    in_view: bool = False  # the last observation had the place (with cards or empty)
    bare_since: float | None = None  # since when every view shows it empty (no hand on it)
    bare_n: int = 0  # how many such views
    bare_t: float = 0.0  # the last such view
    bare_runs: list[tuple[float, float]] = field(default_factory=list)  # ended runs, recent
    #: where the pile lies: its cards' largest recent box (a read of the index alone, the
    #: rest of the card under another place's, gives a box a fraction of the card's)
    spot: tuple[float, float, float, float] | None = None
    #: when the reader last read the settled top as its twin (a nertz pile's KC read KS)
    twin_read_t: float = -1.0
    #: when the reader last read the settled top as itself after a twin read of it, or the
    #: place settled on it again after settling on its twin (the two reads by turns: a
    #: flicker, not a new card)
    flicker_t: float = -1.0
    #: recent times its view was under a hand (covered beyond the tracker's cover limit)
    hidden_log: list[float] = field(default_factory=list)
    #: when the settled top (or, settled empty, no card) last showed as the raw top, and
    #: that time for the state before the last change: a card that arrived since cannot
    #: have landed before it
    top_seen_t: float = -1.0
    before_seen_t: float = -1.0
    #: the reader's own top code when the place last settled, and when it settled
    commit_read: tuple[str | None, float] = (None, -1.0)
    covered_t: float = -1.0  # when its view was last covered (or held back)


@dataclass
class _Record:
    """One action the tracker committed, with when and why."""

    action: Action
    t_ms: int
    frame: int
    frames: tuple[int, int]
    inferred: bool = False
    evidence: dict[str, Any] = field(default_factory=dict)
    cards: list[str] | None = None  # a draw's cards
    flags: list[Flag] = field(default_factory=list)
    #: the earliest time the move can have been made (its place last showed the state
    #: before it then); None: timed as seen
    earliest: int | None = None
    #: the tracker's frame when it was committed (-1: made by a rewrite of the history)
    committed: int = -1


class Tracker:
    """Turns :class:`~vision.observation.Observation` s into the round's events.

    ``update(obs)`` returns the new events (DESIGN.md event-log format, each with a
    ``frame``); ``call(seat, t_ms)`` feeds a "Nertz!" call; ``finish()`` ends the round
    (inferring the end from the first emptied nertz pile when no call came) and returns the
    last events. :meth:`log` gives the whole round as a log the rules engine replays.
    """

    def __init__(self, rules: HouseRules, seats: int, *, round_no: int = 1,
                 min_frames: int = 2, min_ms: float = 60.0, cover_limit: float = 0.02,
                 wait_ms: float = 2500.0, call_delay_ms: float = 1500.0,
                 pool_window_ms: float = 8000.0, orphan_window_ms: float = 3000.0) -> None:
        if not 2 <= seats <= 8:
            raise TrackerError(f"a table has 2 to 8 seats, not {seats}")
        self.rules = rules
        self.seats = seats
        self.round_no = round_no
        self.min_frames = min_frames
        self.min_ms = min_ms
        self.cover_limit = cover_limit
        self.wait_ms = wait_ms
        self.call_delay_ms = call_delay_ms
        self.table: Table | None = None
        self.deal_frame: int | None = None
        self.deal_t_ms = 0.0  # when the deal was read
        self.records: list[_Record] = []
        self.events: list[dict[str, Any]] = []
        self.states: dict[str, _PlaceState] = {}
        self.lake_map: dict[str, int] = {}
        self._deal_lake: set[str] = set()  # lake places showing a face-up card at the deal
        self.known: set[tuple[int, str]] = set()
        self.named: set[tuple[int, str]] = set()
        self.seen_at: dict[tuple[str, str], float] = {}  # (place, code) -> last seen, raw
        self.sure_at: dict[tuple[str, str], float] = {}  # the same, read sure (SURE)
        self.clear_at: dict[tuple[str, str], float] = {}  # the same, no hand over the place
        self._hand_reads_unseen = False  # (SEEN_UNDER_HAND_LEFT's second look, in _rank)
        self.seen_last: dict[tuple[int, str], tuple[str, float]] = {}  # (seat, code) -> where
        # (place, code) -> the card's last few looks there, seen clear
        self.look_at: dict[tuple[str, str], list[Any]] = {}
        self.pool_window_ms = pool_window_ms
        self.orphan_window_ms = orphan_window_ms
        self.orphan_settle_ms = 1500.0  # how long a lifted card may still be in the air
        self.draw_ms = 300.0  # the fastest a hand turns the stock
        self.doubt_ms = 3000.0  # how long a doubtful read must show before it counts
        self._loose: list[Any] = []
        self._arm_log: list[tuple[float, Any, int]] = []  # (t, box, seat) of recent arms
        self._frame_log: list[float] = []  # the times of the frames the arm log covers
        self._pass: list[Action] = []  # what the current reconcile committed
        self.last_stock_t: dict[int, float] = {}
        #: seat -> the engine's waste top and since when (a frame's time) it has been
        self._waste_top: dict[int, tuple[str | None, float]] = {}
        self.last_recycle_t: dict[int, float] = {}
        self.nertz_tops: set[tuple[int, str]] = set()
        self.nertz_first: dict[tuple[int, str], float] = {}  # first shown as a nertz top
        #: (place, code) -> the reader's other likely reads of that exposed card
        self.reads: dict[tuple[str, str], tuple[tuple[str, float], ...]] = {}
        #: (column, code) -> every other read the reader gave that card, exposed or under
        #: others, seen clear: the likeliest chance of each (see DEALT_MISREAD_BREACH)
        self.col_reads: dict[tuple[str, str], dict[str, float]] = {}
        #: lake place -> (its card, what it was misread as): see :meth:`_drop_unseen_top`
        self.misreads: dict[str, tuple[str, str]] = {}
        #: lake place -> the last time its top, seen clear, was read as the top's twin
        self.pile_twin_read: dict[str, float] = {}
        self.seen_deal: list[dict[str, Any]] = []
        self._deal_lists: list[dict[str, list[str]]] = []
        self._pending_calls: list[tuple[int, float]] = []
        self._deal_reads: dict[str, tuple[str | None, int]] = {}  # place -> (read, frames)
        # place -> each read's longest run of alike frames (a place keeps its surest read
        # once play has changed it, a column grown longer or a nertz top played, while
        # another place is still unread; the next reads are the deal's second choices)
        self._deal_runs: dict[str, dict[str, int]] = {}
        #: the reader's other likely reads of each deal place, summed over its reads
        self._deal_alts: dict[str, dict[str, float]] = {}
        self._rivers_read_t: float | None = None  # when every deal column was first read
        self._rivers_but_one_t: float | None = None  # ... every one but one at most
        self.frame = -1
        self.t_ms = 0.0
        self.finished = False
        self.end_inferred = False
        self.last_good_frame = -1
        #: how many times the history already announced was rewritten (a move dropped,
        #: renamed, renumbered or put before others, flags decided again): a live
        #: consumer brings what it stored in line with :meth:`log` when this changes
        self.revision = 0

    # --- public API -------------------------------------------------------------------
    def update(self, obs: Observation) -> list[dict[str, Any]]:
        """Take one frame's observation; return the events it decided."""
        if self.finished:
            return []
        start = len(self.events)
        self.frame, self.t_ms = obs.frame, float(obs.t_ms)
        if not obs.table_found:
            return []
        self.last_good_frame = obs.frame
        if self.table is None:
            self._try_deal(obs)
            return self.events[start:]
        changed = self._debounce(obs)
        if changed or any(self._dirty(p) for p in self.states):
            self._reconcile()
        self._apply_calls(self.t_ms - self.call_delay_ms)
        self._note_waste_tops()
        return self.events[start:]

    def call(self, seat: int, t_ms: float) -> list[dict[str, Any]]:
        """A "Nertz!" call by ``seat`` at ``t_ms``; applied once the frames up to then are
        decided (moves landing just before a call still count)."""
        if not 0 <= seat < self.seats:
            raise TrackerError(f"no seat {seat} at a table of {self.seats}")
        self._pending_calls.append((seat, float(t_ms)))
        self._pending_calls.sort(key=lambda c: c[1])
        start = len(self.events)
        if self.table is not None:
            self._apply_calls(self.t_ms - self.call_delay_ms)
        return self.events[start:]

    def finish(self) -> list[dict[str, Any]]:
        """End the round: apply pending calls; without a true call, infer the end (the first
        emptied nertz pile calls when play stops, else the round stalled)."""
        start = len(self.events)
        if self.finished or self.table is None:
            self.finished = True
            return []
        self._reconcile(final=True)
        if self.FINAL_NERTZ_TOPS:
            self._final_nertz_tops()
        self._apply_calls(float("inf"))
        table = self.table
        last = max([r.t_ms for r in self.records], default=0)
        if not table.ended:
            # when each nertz pile emptied: in the engine, or on camera (the tracker may
            # have missed the pile's last cards leaving; the camera shows it empty)
            emptied = dict(table.nertz_emptied_at)
            for k in range(self.seats):
                since = self._nertz_empty_since(k)
                if since is not None and since < emptied.get(k, float("inf")):
                    emptied[k] = int(since)
            seat = min(emptied, key=lambda s: (emptied[s], s)) if emptied else -1
            if emptied and self._call_at_once(seat, emptied[seat], last):
                self.end_inferred = True
            elif emptied:
                t = max(last, emptied[seat])
                why = "no call input: the first emptied nertz pile calls when play stops"
                if table.nertz_count(seat):
                    gone = self._empty_nertz_unseen(seat, t, None)
                    why += (f" (the camera showed seat{seat}'s pile empty; {gone} card(s) the "
                            f"tracker still counted there left it unseen)")
                self.end_inferred = True
                self._commit(Call(seat), t, self.frame, inferred=True,
                             evidence={"why": why})
            else:
                self.end_inferred = True
                self._commit(EndRound("stall"), max(last, int(self.t_ms)), self.frame,
                             inferred=True, evidence={"why": "no call and no empty nertz pile"})
        table = self.table  # (rebuilt when a call was put in before later records)
        end = {"type": "round_end", "t_ms": int(max(table.now, (table.ended_at or 0)
                                                    + self.rules.call_grace_ms)),
               "frame": self.frame, **table.score().to_dict()}
        if self.end_inferred:
            end["inferred"] = True
        self.events.append(end)
        self.finished = True
        return self.events[start:]

    #: at the end of the video, a nertz top the engine holds that the camera last showed
    #: before another of the seat's unplaced cards settled on the pile (in plain view,
    #: before the round ended) left the pile unseen, as :attr:`PASSED_ONE_TOP_MS` has it,
    #: without waiting: no later frame can show where it went (a card of its rank or the
    #: reader's other read renames it; real path, round 14: seat 2's 7H, the camera showing
    #: the 6C over it 0.7 s before the call, counted in its pile at the end; 12 rounds:
    #: MAE 1.77 -> 1.63, rounds 1, 8 and 14 closer, no other change)
    FINAL_NERTZ_TOPS = True

    def _final_nertz_tops(self) -> None:
        """See :attr:`FINAL_NERTZ_TOPS`."""
        for seat in range(self.seats):
            table = self.table
            assert table is not None
            name = f"seat{seat}:nertz"
            st = self.states.get(name)
            nertz = table.layouts[seat].nertz
            over = self._top_shown_over(seat, nertz[-1].code, st) if nertz and st else None
            if over is None or table.ended and over[1] > table.ended_at:
                continue
            have, (b, tb) = nertz[-1].code, over
            if self.PASSED_MISREAD_SWAP and self._likely_misread(name, b, have):
                self._rename_nertz_top(seat, have, b)
                continue
            action, why = Unseen(seat, have, name), {
                "why": f"the camera showed {b} on {name} over {have} at the end"}
            r = next((i for i, rec in enumerate(self.records) if rec.t_ms > tb), None)
            if r is None:
                self._commit(action, tb, self.frame, inferred=True, evidence=why)
                continue
            fresh = self._rebuilt(self.records[:r])
            if fresh is not None:
                self._insert_at(r, fresh, action, tb, self.frame, why,
                                "a nertz card that left unseen came before it")

    #: without call input, under ``must_call``: the seat that emptied its nertz pile first
    #: called this long after (a player calls at once) when play stopped soon after (within
    #: :attr:`PLAY_ON_MS` of the call and ``call_grace_ms``): cards landing later are after
    #: the end (flagged ``round_over``, they do not count). Play going on longer: nobody
    #: called then, and the round ends when play stops. Off: always when play stops
    #: (oracle without calls: rounds 9 and 23 counted a card landed 1.4 s after the pile
    #: emptied, 1 s after the caller's call)
    CALL_AT_ONCE = True
    CALL_REACTION_MS = 1000
    PLAY_ON_MS = 2000

    def _call_at_once(self, seat: int, emptied: float, last: int) -> bool:
        """Put the inferred call of ``seat`` :attr:`CALL_REACTION_MS` after its nertz pile
        emptied in the engine at ``emptied``, before the records that landed after it (see
        :attr:`CALL_AT_ONCE`); False when it does not apply."""
        table = self.table
        assert table is not None
        call_t = int(emptied + self.CALL_REACTION_MS)
        grace = self.rules.call_grace_ms
        if not self.CALL_AT_ONCE or not self.rules.must_call or \
                table.nertz_emptied_at.get(seat) != emptied or \
                not call_t + grace < last <= call_t + grace + self.PLAY_ON_MS:
            return False
        r = next(i for i, rec in enumerate(self.records) if rec.t_ms > call_t)
        late = sum(isinstance(rec.action, Move | Retract) and rec.t_ms > call_t + grace
                   for rec in self.records[r:])
        if not late:
            return False
        fresh = self._rebuilt(self.records[:r])
        why = (f"no call input: seat{seat} emptied its nertz pile at {int(emptied)} ms and "
               f"called at once; play stopped soon after ({late} card(s) landed later)")
        return fresh is not None and self._insert_at(
            r, fresh, Call(seat), call_t, self.frame, {"why": why}, "after the inferred call")

    @property
    def dealt(self) -> bool:
        return self.table is not None

    def nertz_counts(self) -> list[int]:
        """Cards left in each seat's nertz pile (13 at the deal, minus departures)."""
        if self.table is None:
            return [NERTZ_SIZE] * self.seats
        return [self.table.nertz_count(k) for k in range(self.seats)]

    #: a column's breach is reported only when the card laid is at most this many ranks
    #: from the card it was laid on (or slid under): a 9 on a 6, a 5 on a King, is no slip
    #: of a hurried hand but a column the engine has out of step or a card misread (on the
    #: 34 real-path rounds all 11 such flags were false, and none of their logs' 51 column
    #: breaches is further off than 2; the 24 oracle rounds' logs hold one, a KH on a 3H,
    #: no longer reported). The move stays in the history; None: every breach reported
    RIVER_FLAG_MAX_GAP: int | None = 2

    def _reported(self, flag: Flag) -> bool:
        """Whether ``flag`` is reported (see :attr:`RIVER_FLAG_MAX_GAP`)."""
        if self.RIVER_FLAG_MAX_GAP is None or flag.rule not in ("river_rank", "river_colour"):
            return True
        words = flag.detail.split()
        if len(words) != 3 or words[0] not in ALL_CODES or words[2] not in ALL_CODES:
            return True
        laid, base = Card.parse(words[0]), Card.parse(words[2])
        if laid.is_joker or base.is_joker:
            return True
        return abs(laid.rank - base.rank) <= self.RIVER_FLAG_MAX_GAP

    def flags(self) -> list[dict[str, Any]]:
        """Every flag so far with rule, seat, time, frames, evidence and correction."""
        out = []
        for rec in self.records:
            for fl in rec.flags:
                if not self._reported(fl):
                    continue
                ev = fl.to_event()
                ev.update(frame=rec.frame, frames=list(rec.frames), evidence=rec.evidence,
                          corrected=fl.corrected, corrected_at=fl.corrected_at)
                if rec.inferred:
                    ev["inferred"] = True
                out.append(ev)
        return out

    def log(self) -> list[dict[str, Any]]:
        """The whole round as an event log the rules engine replays (the deal holds the
        cards the camera saw, the hidden ones as the most likely hypothesis, listed in
        ``unseen``)."""
        head: list[dict[str, Any]] = [{"type": "round_start", "t_ms": 0, "round": self.round_no,
                                       "seats": self.seats, "rules": self.rules.to_dict(),
                                       "source": "video"}]
        for k, deal in enumerate(self._deal_lists):
            unseen = sorted(c for c in deal["nertz"] + deal["stock"]
                            if (k, c) not in self.known)
            head.append({"type": "deal", "t_ms": 0, "seat": k, "frame": self.deal_frame,
                         "nertz": list(deal["nertz"]), "river": [list(c) for c in deal["river"]],
                         "stock": list(deal["stock"]), "unseen": unseen})
        body: list[dict[str, Any]] = []
        check: Table | None = None
        try:
            check = Table.from_deals([{"seat": k, **d} for k, d in enumerate(self._deal_lists)],
                                     self.rules, self.round_no)
        except ValueError:
            check = None
        for rec in self.records:
            ev = action_to_event(rec.action, rec.t_ms)
            ev["frame"] = rec.frame
            if rec.cards is not None:
                ev["cards"] = rec.cards
            if isinstance(rec.action, Move) and rec.evidence.get("reads"):
                ev["reads"] = rec.evidence["reads"]
            if check is not None:  # the draw's cards as the final deal hypothesis gives them
                if isinstance(rec.action, Draw):
                    ev["cards"] = [c.code for c in
                                   check.layouts[rec.action.seat].stock[:self.rules.draw]]
                try:
                    check.push(rec.action, rec.t_ms)
                except (ImpossibleAction, OrderError, ValueError):
                    check = None
            if isinstance(rec.action, Call):
                ev["valid"] = not rec.flags
            if rec.inferred:
                ev["inferred"] = True
            if isinstance(rec.action, EndRound):
                continue
            body.append(ev)
            for fl in rec.flags:
                if not self._reported(fl):
                    continue
                fe = fl.to_event()
                fe["frame"] = rec.frame
                if fl.corrected:
                    fe["corrected_at"] = fl.corrected_at
                body.append(fe)
        tail = [e for e in self.events if e["type"] == "round_end"][-1:]
        return head + body + tail

    def report(self) -> dict[str, Any]:
        """The round's summary: scores, lake cards, nertz counts, flags with frames."""
        if self.table is None:
            return {"round": self.round_no, "dealt": False, "seats": self.seats}
        score = self.table.score().to_dict()
        return {"round": self.round_no, "dealt": True, "seats": self.seats,
                "deal_frame": self.deal_frame, "last_frame": self.last_good_frame,
                "end_inferred": self.end_inferred, "score": score,
                "nertz_counts": self.nertz_counts(),
                "nertz_emptied_at": dict(self.table.nertz_emptied_at),
                "calls": [{"seat": s, "t_ms": t, "valid": v} for s, t, v in self.table.calls],
                "moves": sum(isinstance(r.action, Move) for r in self.records),
                "inferred_moves": sum(isinstance(r.action, Move) and r.inferred
                                      for r in self.records),
                "flags": self.flags()}

    # --- the deal -----------------------------------------------------------------------
    def _try_deal(self, obs: Observation) -> None:
        """The deal: every seat's nertz top and river cards, each read alike on
        :attr:`min_frames` uncovered frames in a row. A place read so keeps its read while
        a hand covers it or the detector misses it, so the deal need not show whole in one
        frame (a hand over one seat, a card the reader gets only now and then)."""
        cols = self.rules.river_columns
        for k in range(self.seats):
            for name in (f"seat{k}:nertz", *(f"seat{k}:river{i}" for i in range(cols))):
                v = obs.places.get(name)
                if v is None or v.covered > self.cover_limit or not v.cards:
                    continue
                top = v.cards[-1]
                ok = top.face_up and (name.endswith(":nertz") or len(v.cards) == 1)
                code = top.code if ok else None
                prev = self._deal_reads.get(name)
                n = prev[1] + 1 if prev is not None and prev[0] == code else 1
                if code is not None:
                    alts = self._deal_alts.setdefault(name, {})
                    for alt, p in top.alternatives:
                        alts[alt] = alts.get(alt, 0.0) + p
                self._deal_reads[name] = (code, n)
                if code is not None and n >= self.min_frames:
                    runs = self._deal_runs.setdefault(name, {})
                    runs[code] = max(n, runs.get(code, 0))
        seen: list[tuple[str | None, tuple[str | None, ...]]] = []
        unread = [f"seat{k}:river{i}" for k in range(self.seats) for i in range(cols)
                  if not self._deal_runs.get(f"seat{k}:river{i}")]
        if not unread and self._rivers_read_t is None:
            self._rivers_read_t = float(obs.t_ms)
        if len(unread) > 1:
            self._rivers_but_one_t = None
        elif self._rivers_but_one_t is None:
            self._rivers_but_one_t = float(obs.t_ms)
        for k in range(self.seats):
            names = (f"seat{k}:nertz", *(f"seat{k}:river{i}" for i in range(cols)))
            codes = self._deal_codes(names)
            if codes is None:
                return
            seen.append((codes[0], tuple(codes[1:])))
        cand = tuple(seen)
        layouts = []
        for k, (top, river) in enumerate(cand):
            rest = [c for c in self._deck() if c != top and c not in river]
            # (a nertz top never read: a hidden card stands for it until the camera shows
            # it, and the card it shows then takes its place; so for a column never read)
            shown = top is not None
            top = top if top is not None else rest.pop()
            dealt = [c if c is not None else rest.pop() for c in river]
            nertz = rest[:NERTZ_SIZE - 1] + [top]
            stock = rest[NERTZ_SIZE - 1:]
            self._deal_lists.append({"nertz": list(nertz), "river": [[c] for c in dealt],
                                     "stock": list(stock)})
            layouts.append(Layout([Card.parse(c, k) for c in nertz],
                                  [[Card.parse(c, k)] for c in dealt],
                                  [Card.parse(c, k) for c in stock]))
            self.known.update((k, c) for c in ((top,) if shown else ()) + tuple(river)
                              if c is not None)
            if shown:
                self.nertz_tops.add((k, top))
            self.seen_deal.append({"seat": k, "nertz_top": top if shown else None,
                                   "river": list(river)})
        self.table = Table(layouts, self.rules, self.round_no)
        self.deal_frame, self.deal_t_ms = obs.frame, float(obs.t_ms)
        self.events.append({"type": "round_start", "t_ms": 0, "round": self.round_no,
                            "seats": self.seats, "rules": self.rules.to_dict(),
                            "frame": obs.frame})
        for k, (top, river) in enumerate(cand):
            self.events.append({"type": "deal", "t_ms": 0, "seat": k, "frame": obs.frame,
                                "nertz": [None] * (NERTZ_SIZE - 1) + [top],
                                "river": [[c] for c in river],
                                "stock": [None] * (len(self._deck()) - NERTZ_SIZE - cols)})
        self._debounce(obs)
        for st in self.states.values():  # the deal view is the first stable state
            st.stable, st.stable_t = st.cand, float(obs.t_ms)
        self._deal_lake = {name for name, v in obs.places.items()
                           if name.startswith("lake:") and v.cards and v.cards[-1].face_up}

    #: a deal whose columns have all been read this long while a seat's nertz top never
    #: was (a camera that cannot read it) starts with that top unknown (a hidden card
    #: stands for it until it shows); None: wait for it
    DEAL_WITHOUT_NERTZ_MS: float | None = 5000.0
    #: a seat whose deal places have been read this long with one code on two of them
    #: (one a misread) takes the reader's next likely reads of its places into account
    #: (:meth:`_deal_codes`); None: wait for a read that differs
    DEAL_ALTERNATIVES_MS: float | None = 1000.0

    def _deal_codes(self, names: tuple[str, ...]) -> list[str | None] | None:
        """One seat's deal reads (nertz top, then columns): of each place's three
        longest-read codes, the choice that reads the most places, each code once (a seat's
        deck holds it once: a misread duplicate must not block the deal), on the most frames.
        None while a place is unread; the nertz top None when it was never read and the
        columns have been read for :attr:`DEAL_WITHOUT_NERTZ_MS`."""
        options = [sorted(self._deal_runs.get(n, {}).items(), key=lambda kv: -kv[1])[:3]
                   for n in names]
        codes: list[str | None] = [o[0][0] if o else None for o in options]
        if len(set(codes)) == len(codes):
            # (each place's surest read, each code once)
            return self._deal_ready(codes, names)
        mass: list[dict[str, float]] = [{} for _n in names]
        if self.DEAL_ALTERNATIVES_MS is not None and self._rivers_read_t is not None and \
                self.t_ms - self._rivers_read_t >= self.DEAL_ALTERNATIVES_MS:
            # two places read as one code for a while: the reader's next likely reads of
            # each place may stand in (a JS read JC on one of the seat's columns)
            for i, name in enumerate(names):
                alts = sorted(self._deal_alts.get(name, {}).items(), key=lambda kv: -kv[1])
                mass[i] = dict(alts[:2])
                options[i] = options[i] + [(a, 0) for a, _m in alts[:2]
                                           if a not in dict(options[i])]
        best: tuple[int, int, float] = (-1, -1, 0.0)
        for pick in itertools.product(*[[*o, (None, 0)] for o in options]):
            got = [c for c, _n in pick if c is not None]
            if len(set(got)) != len(got):
                continue  # (a seat's deck holds each code once)
            score = (len(got), sum(n for _c, n in pick),
                     sum(m.get(c, 0.0) for m, (c, n) in zip(mass, pick, strict=True) if not n))
            if score > best:
                best, codes = score, [c for c, _n in pick]
        return self._deal_ready(codes, names)

    #: a deal whose columns but one have all been read this long (the last one never
    #: shows a card the reader gets: glare on it, or emptied by the seat's first move)
    #: starts with that column's card unknown: a hidden card stands for it until the
    #: column is read (:meth:`_fix_dealt_columns`) or seen empty (held-out round 7 of
    #: ``--seed 2``: the deal was read only at 7.8 s, all play before it lost); None: wait
    DEAL_WITHOUT_COLUMN_MS: float | None = 2000.0

    def _deal_ready(self, codes: list[str | None], names: tuple[str, ...]
                    ) -> list[str | None] | None:
        """``codes`` of places ``names`` when the deal may start with them (see
        :meth:`_deal_codes`)."""
        unknown = [n for c, n in zip(codes[1:], names[1:], strict=True) if c is None]
        if unknown and (
                len(unknown) > 1 or self._deal_runs.get(unknown[0])
                or self.DEAL_WITHOUT_COLUMN_MS is None
                or self._rivers_but_one_t is None
                or self.t_ms - self._rivers_but_one_t < self.DEAL_WITHOUT_COLUMN_MS):
            return None
        # (the columns count as read when all but one are, where a deal may start without
        # one: a seat whose nertz top and one column the reader never gets, as a far
        # camera over a four-colour deck's court cards, ``--seed 6`` round 1, dealt only
        # at 13.8 s, its first 20 moves lost)
        read_t = self._rivers_read_t
        if read_t is None and self.DEAL_WITHOUT_COLUMN_MS is not None:
            read_t = self._rivers_but_one_t
        if codes[0] is None and (self.DEAL_WITHOUT_NERTZ_MS is None or read_t is None
                                 or self.t_ms - read_t < self.DEAL_WITHOUT_NERTZ_MS):
            return None
        return codes

    def _deck(self) -> list[str]:
        codes = list(ALL_CODES)
        if self.rules.jokers:
            codes += ["JKR", "JKB"]
        return codes

    # --- per-place debounce -------------------------------------------------------------
    @staticmethod
    def _kind(place: str) -> str:
        return _place_kind(place)

    def _view_codes(self, place: str, codes: list[str]) -> tuple[tuple[str, ...], bool]:
        """The codes that are compared for a place, and whether the view is usable."""
        kind = self._kind(place)
        if kind == "stock":
            return (("back",) if codes else ()), True
        if kind in ("nertz", "lake"):
            if not codes:
                return (), True
            if codes[-1] == "back":
                return (), False
            return (codes[-1],), True
        face = tuple(c for c in codes if c != "back")
        if codes and codes[-1] == "back":
            return face, False
        return face, True

    def _debounce(self, obs: Observation) -> bool:
        changed = False
        # sorted: the order new places enter ``states`` breaks ties later on (not a hash)
        names = sorted(set(obs.places) | set(self.states))
        movers = list(obs.hands) + [c.box for c in obs.loose]
        arms = [(b, s) for b, s in zip(obs.hands, obs.hand_seats, strict=False)
                if s is not None]
        self._arm_log += [(float(obs.t_ms), b, s) for b, s in arms]
        if self._arm_log and self._arm_log[0][0] < obs.t_ms - self.pool_window_ms:
            self._arm_log = [a for a in self._arm_log
                             if a[0] >= obs.t_ms - self.pool_window_ms]
        self._frame_log.append(float(obs.t_ms))
        if self._frame_log[0] < obs.t_ms - self.pool_window_ms:
            self._frame_log = [t for t in self._frame_log
                               if t >= obs.t_ms - self.pool_window_ms]
        self._loose = list(obs.loose)
        for name in names:
            try:
                place = Place.parse(name)
            except ValueError:
                continue
            if place.seat is not None and place.seat >= self.seats:
                continue
            st = self.states.setdefault(name, _PlaceState())
            view = obs.places.get(name)
            st.in_view = view is not None
            if place.kind == "nertz" and view is not None:
                spot = st.spot if self.NERTZ_SPOT else st.box
                if view.cards or self._under_other_cards(name, spot, obs):
                    # (a card of another place over the spot, a fanned column say, hides
                    # the pile: not seen empty)
                    if st.bare_since is not None and st.bare_n >= self.min_frames:
                        st.bare_runs = [*st.bare_runs[-3:], (st.bare_since, st.bare_t)]
                    st.bare_since, st.bare_n = None, 0
                elif view.covered <= self.cover_limit:
                    if st.bare_since is None:
                        st.bare_since = float(obs.t_ms)
                    st.bare_n += 1
                    st.bare_t = float(obs.t_ms)
            if view is not None and view.covered > self.cover_limit:
                st.hidden_log.append(float(obs.t_ms))
                if st.hidden_log[0] < obs.t_ms - self.pool_window_ms:
                    st.hidden_log = [t for t in st.hidden_log
                                     if t >= obs.t_ms - self.pool_window_ms]
            raw, doubtful = self._resolved(name, view) if view is not None else ([], False)
            if view is not None:
                own = view.cards[-1].code if view.cards else None
                plain = view.covered <= self.cover_limit
                if own != st.read[0] or st.read[1] is None and plain:
                    st.read = (own, float(obs.t_ms) if plain else None)
                if raw and own is not None and raw[-1] != own and \
                        self._persistent_read(place.kind, view, st, raw[-1]):
                    raw, doubtful = [*raw[:-1], own], False
                elif raw and self._same_read_same_top(place.kind, st, own, raw[-1]):
                    raw, doubtful = [*raw[:-1], st.stable[-1]], False  # type: ignore[index]
            if place.kind == "river" and self.DROP_COLUMN_PHANTOMS:
                raw = self._without_phantoms(name, raw)
            if place.kind == "river" and self.ENGINE_CARD_IN_GAP:
                raw = self._engine_cards_in_gaps(name, raw)
            codes, usable = self._view_codes(name, raw)
            if doubtful and usable:
                # a read that fits nothing and is not sure: held back until it has shown
                # for a while (a persistent read is believed: the engine may be wrong)
                if st.doubt is None or st.doubt[0] != tuple(codes):
                    st.doubt = (tuple(codes), float(obs.t_ms))
                usable = obs.t_ms - st.doubt[1] >= self.doubt_ms or \
                    place.kind == "lake" and self._just_departed(codes[-1], st.doubt[1])
            else:
                st.doubt = None
            covered = view is not None and view.covered > self.cover_limit
            if self.NERTZ_TWO_FACES and place.kind == "nertz" and view is not None and \
                    sum(c.face_up for c in view.cards) > 1:
                covered = True  # (a squared pile shows one face: another card lies over it)
            if view is not None and view.cards:
                st.box = _union([c.box for c in view.cards])
                if not self.SPOT_IN_PLAIN_VIEW or view.covered <= self.cover_limit:
                    st.spot = _spot(st.spot, view.cards[-1].box)
            if not covered and st.box is not None and any(
                    _overlap(st.box, b) > self.cover_limit for b in movers):
                covered = True  # a card in flight or a hand over the place's last cards
            if covered and place.kind in ("river", "waste") and view is not None and \
                    view.cards and view.covered < self.FAN_PART_COVER and not any(
                        _overlap(view.cards[-1].box, b) > self.cover_limit for b in movers):
                # a fan (a column, a waste) partly under a hand that leaves its top card
                # clear (an arm reaching over its lower cards): its top still counts
                covered = False
            if not covered and view is not None:
                for c in view.cards:  # (which deck each card looked like, seen clear)
                    if c.look is not None:
                        looks = self.look_at.setdefault((name, c.code), [])
                        looks[:] = looks[-(self.LOOKS_KEPT - 1):] + [c.look]
            top = codes[-1] if codes else None
            if place.kind == "lake" and not covered and view is not None and view.cards \
                    and top is not None and view.cards[-1].code == _twin(top) and \
                    self.table is not None and self._expected(name) == (top,):
                # (the engine's top, not a new card)
                self.pile_twin_read[name] = float(obs.t_ms)
            if view is not None and view.cards and view.cards[-1].alternatives and \
                    top is not None:
                # the reader's other likely reads of the exposed card (for corrections)
                self.reads[(name, top)] = tuple(
                    (a, p) for a, p in ((view.cards[-1].code, 0.0),
                                        *view.cards[-1].alternatives) if a != top and p > 0)
            if place.kind == "river" and not covered and view is not None:
                for c in view.cards:
                    alts = self.col_reads.setdefault((name, c.code), {})
                    for a, p in c.alternatives:
                        if a != c.code and p > alts.get(a, 0.0):
                            alts[a] = p
            if place.seat is not None:  # where each free card was last seen
                sure = {c.code for c in view.cards if not c.alternatives or 1.0 - sum(
                    q for _a, q in c.alternatives) >= self.SURE} if view is not None else set()
                for c in codes[-1:] if place.kind == "waste" else codes:
                    self.seen_at[(name, c)] = float(obs.t_ms)
                    self.seen_last[(place.seat, c)] = (name, float(obs.t_ms))
                    if c in sure:
                        self.sure_at[(name, c)] = float(obs.t_ms)
                    if not covered:
                        self.clear_at[(name, c)] = float(obs.t_ms)
            if place.kind == "nertz" and top is not None and st.stable and \
                    top == st.stable[-1] and view is not None and view.cards and \
                    view.cards[-1].code == _twin(top):
                st.twin_read_t = float(obs.t_ms)  # (read as its twin, taken for itself)
            elif place.kind == "nertz" and top is not None and st.stable and \
                    top == st.stable[-1] and view is not None and view.cards and \
                    view.cards[-1].code == top and \
                    st.twin_read_t >= st.settled.get(top, float("inf")):
                st.flicker_t = float(obs.t_ms)  # (and as itself again since)
            if top != st.top:
                st.top, st.top_frame, st.top_t = top, obs.frame, float(obs.t_ms)
            if st.stable is not None and view is not None and (
                    top == st.stable[-1] if st.stable else not codes and not covered):
                st.top_seen_t = float(obs.t_ms)
            if top is not None:
                st.first.setdefault(top, float(obs.t_ms))
                if place.kind == "nertz":
                    self.nertz_first.setdefault((place.seat, top), float(obs.t_ms))
            st.covered = covered or not usable
            if st.covered:
                st.covered_t = float(obs.t_ms)
            # (held back only for a doubtful read: in plain view, what it no longer shows
            # has left)
            st.held = tuple(codes) if usable is False and not covered else None
            st.last_frame = obs.frame
            if st.covered:
                st.cand, st.cand_n = None, 0
                continue
            if codes == st.cand:
                st.cand_n += 1
            else:
                st.cand, st.cand_n, st.cand_frame, st.cand_t = codes, 1, obs.frame, obs.t_ms
            if (st.cand_n >= self.min_frames and obs.t_ms - st.cand_t >= self.min_ms
                    and st.cand != st.stable):
                # (the same top over a changed pile, as after a slide under, is not new)
                fresh_top = top is not None and st.top_t > st.stable_t and \
                    top != (st.stable[-1] if st.stable else None)
                first = st.first.get(top, st.top_t) if top is not None else st.top_t
                if first < st.top_t - 1000:
                    first = st.top_t  # an old glimpse, not this arrival
                was_empty = st.stable == ()
                st.before_seen_t = st.top_seen_t
                st.stable, st.stable_frame = st.cand, obs.frame
                st.tops = [*st.tops[-3:], (st.stable[-1] if st.stable else None,
                                           float(obs.t_ms))]
                if place.kind == "nertz" and len(st.tops) >= 3 and st.tops[-1][0] and \
                        st.tops[-3][0] == st.tops[-1][0] and \
                        st.tops[-2][0] == _twin(st.tops[-1][0]):
                    st.flicker_t = float(obs.t_ms)  # (settled as its twin, then as itself)
                # timed by the first frame the new top showed, even under a hand (a slide
                # under keeps the top)
                st.stable_t = min(st.top_t, st.cand_t, max(first, st.stable_t)) \
                    if fresh_top else st.cand_t
                st.glimpsed, st.first = st.first, {}
                st.commit_read = (st.read[0], float(obs.t_ms))
                if st.stable:
                    st.settled[st.stable[-1]] = st.stable_t
                    st.shown.setdefault(st.stable[-1], st.stable_t)
                if not st.stable:
                    st.empty_t = float(obs.t_ms)
                elif was_empty:
                    st.refilled_t = float(obs.t_ms)
                changed = True
        return changed

    #: a nertz pile's view that holds two or more face-up cards is taken as covered (a
    #: squared pile shows one face: a card in flight, or a neighbour's card reaching into
    #: the place, lies over it; real path, round 2: seat 2's pile read "10S JS" for 2.5 s,
    #: the JS taken for its top and then for gone, one nertz card too few). False: off
    NERTZ_TWO_FACES = True

    #: place kinds where the reader's own read of the top card, shown in plain view for
    #: :attr:`PERSIST_MS`, read at least :attr:`PERSIST_P` sure and :attr:`PERSIST_RATIO`
    #: times likelier than the alternative the engine's table made likelier, is believed
    #: over it (a card the engine holds elsewhere needs 1 / :attr:`UNLIKELY` = 12.5 times
    #: at first; real path, round 19: seat 0's nertz pile, read KH at 0.67 against QH at
    #: 0.06 for 3 s, gave way to the QH the engine still had there, and the pile's plays
    #: after it were missed; 12 rounds: round 19's MAE 5.00 -> 4.33, the rest unchanged)
    PERSISTENT_READ_KINDS: tuple[str, ...] = ("nertz", "river")
    PERSIST_MS = 3000.0
    PERSIST_P = 0.5
    PERSIST_RATIO = 10.0

    #: place kinds where the reader's own read that has shown unchanged, in plain view,
    #: since before the place last settled stands for the card it settled on, though the
    #: engine's table has since made another of the reader's alternatives likelier: the
    #: same read of the same card (``--seed 12`` round 2: a 7C read 2C on the club pile was
    #: taken for the 7C that fits there, then, the pile at 7C, for the 8C that fits next:
    #: a phantom 8C, and the three 8Cs laid there later went unseen). A nertz top too
    #: (``--seed 11`` round 3: seat 1's four-colour 7D, read 2D, settled as the 7D, then
    #: was taken for a hidden 2H the reader had come to rank higher, and two nertz cards
    #: were counted gone where one left; MAE 2.40 -> 2.00)
    SAME_READ_KINDS: tuple[str, ...] = ("lake", "nertz")

    def _same_read_same_top(self, kind: str, st: _PlaceState, own: str | None,
                            resolved: str) -> bool:
        """See :attr:`SAME_READ_KINDS` (``resolved``: the read as the table makes it;
        ``own``: the reader's read, already recorded in ``st.read``)."""
        read, commit_t = st.commit_read
        return kind in self.SAME_READ_KINDS and bool(st.stable) and own is not None and \
            own != resolved and own == read and \
            st.stable[-1] != resolved and st.read[1] is not None and \
            st.read[1] <= commit_t and st.covered_t < commit_t  # type: ignore[index]

    def _persistent_read(self, kind: str, view: Any, st: _PlaceState, alt: str) -> bool:
        """See :attr:`PERSISTENT_READ_KINDS` (``alt``: the alternative taken for now)."""
        since = st.read[1]
        if kind not in self.PERSISTENT_READ_KINDS or since is None or \
                self.t_ms - since < self.PERSIST_MS:
            return False  # (under a hand later, the same read still counts)
        card = view.cards[-1]
        p_read = 1.0 - sum(p for _a, p in card.alternatives)
        p_alt = max((p for a, p in card.alternatives if a == alt), default=0.0)
        return p_read >= self.PERSIST_P and p_read >= self.PERSIST_RATIO * p_alt

    # --- reads the rules make likely --------------------------------------------------
    #: how much likelier a read is than an alternative that fits the engine's table before
    #: it is kept against it (a prior of 1 for what fits, this for what does not)
    UNLIKELY = 0.08
    #: a column or waste fan covered less than this, with no hand or moving card over its
    #: top card, is looked at (its top): its lower cards under an arm hide no arrival or
    #: departure
    FAN_PART_COVER = 0.5
    #: a read this sure is believed even when it fits nothing in the engine's table (on
    #: the real path's observations of round 0, reads this sure were right 98–100 % of
    #: the time on the layouts, 95 % on the lake)
    SURE = 0.95
    #: place kinds whose unsure lower cards are left out, and how sure they must be
    DROP_UNSURE_UNDER: tuple[str, ...] = ("waste",)
    SURE_UNDER = 0.8

    #: a read whose prior is at least this (per place kind; 0.5 otherwise) is kept
    #: without weighing the reader's alternatives
    KEEP_PRIOR: dict[str, float] = {"lake": 1.0}
    #: a column top read as a hidden card of the seat (prior 0.5) is weighed against its
    #: twin, the reader's alternative, when the twin may land there from where the engine
    #: has it (prior 1) and the camera last settled it there and shows it gone (real path,
    #: round 13: seat 0's 2C, seen leaving its waste, read 2S (2C 0.42) on its 3D; the 2S
    #: was taken from the seat's hidden cards)
    TWIN_FITS_BETTER = True

    #: a lake pile's read that fits nothing and is not sure counts at once, not after
    #: ``doubt_ms``, when it is the card a seat's place was just seen losing: the place,
    #: a nertz pile or a column where the engine has it on top, has settled without it (a
    #: column showing the card under it), having shown it read sure at most this long
    #: before the pile first showed it (a waste's cards under its top are the engine's
    #: guess). `--seed 5` round 1: seat 1's 3C, laid on a new pile for 1.5 s and taken
    #: back, was held in doubt and never seen there: neither the misplacement nor its
    #: take-back. None: off
    DOUBT_DEPARTED_MS: float | None = 2000.0

    def _just_departed(self, code: str, since: float) -> bool:
        """See :attr:`DOUBT_DEPARTED_MS`: whether a seat's place just lost ``code``, a read
        doubtful since ``since``."""
        if self.DOUBT_DEPARTED_MS is None or self.table is None:
            return False
        for seat in range(self.seats):
            last = self.seen_last.get((seat, code))
            if last is None or last[1] < since - self.DOUBT_DEPARTED_MS:
                continue
            place, st = last[0], self.states.get(last[0])
            exp = self._expected(place)
            if st is None or st.stable is None or st.covered or code in st.stable or \
                    exp[-1:] != (code,) or \
                    self.sure_at.get((place, code), -1.0) < since - self.DOUBT_DEPARTED_MS:
                continue
            if self._kind(place) == "nertz" or self._kind(place) == "river" and \
                    st.stable[-1:] == exp[-2:-1]:
                return True  # (a column shows the card that was under it)
        return False

    def _resolved(self, place: str, view: Any) -> tuple[list[str], bool]:
        """The codes of a place's cards, each read replaced by one of the reader's
        alternatives when the engine's table makes the alternative much likelier: the card
        the engine has there, a card that may legally land there, a hidden card of the seat
        (not a card known to lie elsewhere). A read with no alternatives is kept. Also
        whether the exposed card's read is doubtful: it fits nothing in the table and the
        reader is not sure of it (below :attr:`SURE`)."""
        codes = [c.code for c in view.cards]
        if self.table is None or not any(c.alternatives for c in view.cards):
            return codes, False
        exp = self._expected(place)
        doubtful = False
        for i, card in enumerate(view.cards):
            if not card.alternatives or card.code == "back":
                continue
            top = i == len(view.cards) - 1
            p_read = max(0.0, 1.0 - sum(p for _a, p in card.alternatives))
            prior = self._prior(place, card.code, exp, top)
            if prior < 1.0 and self.MOVED_RUN_READS and self._kind(place) == "river" and (
                    not top and self._run_from_elsewhere(place, card.code,
                                                         tuple(codes[i + 1:]))
                    or self.MOVED_RUN_FITS and self._in_moved_run(place, codes, i, exp)):
                prior = 1.0
            best, score = card.code, p_read * prior
            if prior >= self.KEEP_PRIOR.get(self._kind(place), 0.5) and not (
                    self.TWIN_FITS_BETTER and prior < 1.0 and top and
                    self._kind(place) == "river" and
                    any(a == _twin(card.code) and self._prior(place, a, exp, top) >= 1.0
                        and self._shown_gone(place, a, card.code)
                        for a, _p in card.alternatives)):
                continue  # the read fits the table: keep it
            for alt, p in card.alternatives:
                if alt in codes:
                    continue  # one code once per place
                prior_alt = self._prior(place, alt, exp, top)
                if prior_alt < 1.0 and self.MOVED_RUN_ALTERNATIVE and not top and \
                        self._kind(place) == "river" and \
                        self._run_from_elsewhere(place, alt, tuple(codes[i + 1:])):
                    prior_alt = 1.0
                s = p * prior_alt
                if s > score:
                    best, score = alt, s
            codes[i] = best
            if top and best == card.code and p_read < self.SURE:
                doubtful = True
        if self._kind(place) in self.DROP_UNSURE_UNDER:
            # a fanned card under the top, read unsure and not as the card the engine has
            # there, is left out (the fan's lower cards are half hidden and often misread)
            keep = [i == len(codes) - 1 or codes[i] in exp or not view.cards[i].alternatives
                    or 1.0 - sum(p for _a, p in view.cards[i].alternatives) >= self.SURE_UNDER
                    for i in range(len(codes))]
            codes = [c for c, k in zip(codes, keep, strict=True) if k]
        return codes, doubtful

    #: a column seen with the engine's lower cards and, on them, a card of the seat that
    #: builds on them in place of the engine's top card, shown nowhere in the column: the
    #: top card left first, unseen (the column under hands). It went to the lake pile that
    #: shows it on top, the engine's pile lacking it, when there is one (it may lie there);
    #: else it left unseen (real path, round 14: seat 2's 9S went to the spade pile under
    #: hands, and the run 9C..5C laid on its 10H was never taken from its column; 12
    #: rounds 932 / 1088 found / reported, flags 89, MAE 1.76 -> 934 / 1092, 88, 1.69).
    #: Left unseen only once the view has settled for :attr:`TOP_GONE_WAIT_MS` (round 18:
    #: seat 1's 3S showed on its pile 0.3 s after its column showed it gone); not while a
    #: pile has an identical card on or next to its top (a race for the pile, which the
    #: identical-card rules decide: oracle round 14, seat 3's JS under seat 2's)
    COLUMN_TOP_GONE = True
    TOP_GONE_WAIT_MS = 1000.0
    #: the new card in the top's place being the top's twin (same rank, the other suit of
    #: its colour), with nothing on it and read with the top as the reader's alternative, is
    #: the top misread, not a card laid there after it left (real path, round 14: seat 1's
    #: 3C read 3S once its 2D left; taken for gone, the 3C was credited to another seat on
    #: the club pile and seat 1's 4H after it to a wrong pile, flagged). A run from the twin
    #: down is not (round 14's 9C..5C on the 9S's 10H), nor a twin read sure (round 1's 7C
    #: laid on the 8D where the engine had a 7S)
    TOP_TWIN_IS_TOP = True

    def _column_top_gone(self, dest: str, exp: tuple[str, ...], seen: tuple[str, ...]
                         ) -> bool:
        """See :attr:`COLUMN_TOP_GONE`. Commits the top card's leaving (inferred)."""
        table = self.table
        assert table is not None
        m = next((i for i, (a, b) in enumerate(zip(exp, seen, strict=False)) if a != b),
                 min(len(exp), len(seen)))
        if not 1 <= m == len(exp) - 1 < len(seen) or exp[-1] in seen or \
                not _builds_down(seen[m], exp[m - 1]):
            return False
        seat = Place.parse(dest).seat
        gone, new = exp[-1], seen[m]
        if self.TOP_TWIN_IS_TOP and _twin(gone) == new and len(seen) == len(exp) and \
                gone in (a for a, _p in self.reads.get((dest, new), ())):
            return False  # (the top read in the other suit of its colour: a misread)
        if any(gone in (pl.card.code for pl in pile.placements[-2:]) for pile in table.lake):
            return False  # (under or on its like: a race for the pile, decided elsewhere)
        if not any(s[2] == seat and not s[3] for s in self._free_spots(new, dest)):
            return False  # (the new card must come from somewhere in the seat's layout)
        action: Action = Unseen(seat, gone, dest)  # type: ignore[arg-type]
        why = f"{dest} shows {new} on {exp[m - 1]} where {gone} lay: {gone} left first"
        t = self.states[dest].stable_t
        for name, st in self.states.items():
            j = self.lake_map.get(name)
            if not name.startswith("lake:") or j is None or j >= len(table.lake) or \
                    not st.stable or st.stable[-1] != gone:
                continue
            move = Move(seat, gone, dest, f"lake:{j}")  # type: ignore[arg-type]
            if table.is_legal(move) is True:
                action, t = move, min(t, st.stable_t)
                why += f", to {name}, which shows it"
                break
        if isinstance(action, Unseen) and self.t_ms - t < self.TOP_GONE_WAIT_MS:
            return False  # (it may yet show landing somewhere)
        return self._commit(action, t, self.frame, inferred=True, evidence={"why": why})

    #: a fanned column card read as the base of a run the engine has on another column
    #: of the seat, the run's other cards read above it in order, fits the column (the run
    #: moved there): it is not taken for the engine's own card there (real path, round
    #: 14: seat 2's 9C 8H 7C 6H 5C laid on its 10H, whose 9S had left unseen, read with
    #: the 9C as 9S, the engine's card, and the run was never seen moving; 12 rounds
    #: with :attr:`COLUMN_TOP_GONE`: 934 -> 936 found, 1092 reported)
    MOVED_RUN_READS = True

    #: likewise a card read (the exposed one too) as part of a run the engine has on
    #: another column of the seat, when the run's base is read below it here, building on
    #: the card under it (real path, round 18: seat 1's 4H 3S 2D laid on its 6D 5S, read
    #: 4H and 3S in turn, each known on the other column and held back as doubtful for
    #: 12 s; the run was never seen moving and the seat's columns stayed out of step;
    #: 12 rounds 936 / 1092 found / reported, flags 88 -> 939 / 1092, 87, MAE 1.69 both)
    MOVED_RUN_FITS = True
    #: likewise the reader's alternative of a fanned column card: the base of a run the
    #: engine has on another column of the seat, the run's other cards read above it in
    #: order (held-out round 6: seat 1's 8S 7D laid on its 9D, whose 8C had just gone to
    #: the lake, read 9S (8S its next read) 7D; the engine's 8C was taken for the 9S, so
    #: the lake's 8C was credited to the other seat)
    MOVED_RUN_ALTERNATIVE = True

    def _in_moved_run(self, place: str, codes: list[str], i: int, exp: tuple[str, ...]
                      ) -> bool:
        """See :attr:`MOVED_RUN_FITS`: ``codes[k..i]`` (``codes`` resolved up to ``i``) are
        in order the start of a run on another column of the seat, whose base ``codes[k]``
        builds on ``codes[k - 1]`` (or starts the place's column, the engine's empty)."""
        cols = self._other_columns(place)
        for k in range(i - 1, -1, -1):  # (two of the run's cards read at least)
            if k == 0 and exp or k > 0 and not _builds_down(codes[k], codes[k - 1]):
                continue
            for col in cols:
                if codes[k] not in col:
                    continue
                run = col[col.index(codes[k]):]
                if codes[i] in run and _in_order(tuple(codes[k:i + 1]), run):
                    return True
        return False

    def _other_columns(self, place: str) -> list[tuple[str, ...]]:
        """The engine's cards of each river column of the place's seat but the place."""
        seat = Place.parse(place).seat
        if self.table is None or seat is None:
            return []
        return [tuple(c.code for c in col)
                for j, col in enumerate(self.table.layouts[seat].river)
                if f"seat{seat}:river{j}" != place]

    def _run_from_elsewhere(self, place: str, code: str, above: tuple[str, ...]) -> bool:
        """``code`` lies on another column of the place's seat with at least one card on
        it, all of which are read above it here, in order."""
        for col in self._other_columns(place) if above else []:
            tail = col[col.index(code) + 1:] if code in col else ()
            if tail and _in_order(tail, above):
                return True
        return False

    #: a card read in the middle of a fanned column that breaks its run while the cards
    #: either side of it build on each other, and that the engine does not have there, is
    #: left out: a pip, a court figure or a neighbour's corner read as an index
    DROP_COLUMN_PHANTOMS = True

    #: a card read under a column's top, where the engine has another card, that breaks
    #: the run while the engine's card would build it (on the card read below, under the
    #: card read above) is the engine's card misread (real path, round 8: seat 1's KD QS
    #: JH 10C read KD 7H JH 10C, so the JH and 10C laid on the QS were never taken; 12
    #: rounds 945 / 1095, MAE 1.58 -> 949 / 1096, 1.53, flags 85 both; 1080p 364 / 396
    #: -> 367 / 398, MAE 0.93 both)
    ENGINE_CARD_IN_GAP = True

    def _engine_cards_in_gaps(self, place: str, codes: list[str]) -> list[str]:
        """See :attr:`ENGINE_CARD_IN_GAP`."""
        exp = self._expected(place)
        out = list(codes)
        for i in range(1, min(len(out) - 1, len(exp))):
            here, want = out[i], exp[i]
            if here != want and out[i - 1] == exp[i - 1] and want not in out and \
                    here != "back" and not (_builds_down(here, out[i - 1]) and
                                            _builds_down(out[i + 1], here)) and \
                    _builds_down(want, out[i - 1]) and _builds_down(out[i + 1], want):
                out[i] = want
        return out

    def _without_phantoms(self, place: str, codes: list[str]) -> list[str]:
        """A column's codes without the cards that cannot lie where they were read: not
        the top, not a card the engine has on the column, not building on the card below,
        while the card above builds on the one below (see :attr:`DROP_COLUMN_PHANTOMS`)."""
        if len(codes) < 3 or self.table is None:
            return codes
        exp = set(self._expected(place))
        out = list(codes)
        i = 1
        while i < len(out) - 1:
            below, here, above = out[i - 1], out[i], out[i + 1]
            if (here not in exp or here in out[:i]) and here != "back" and \
                    not _builds_down(here, below) and _builds_down(above, below):
                del out[i]
                continue
            i += 1
        return out

    #: a run of new cards on a column that no place held whole, built down legally, whose
    #: cards after the first are the tail of another of the seat's columns: two moves (its
    #: first card from the waste or the nertz pile, then the other column's run onto it)
    #: seen as one
    SPLIT_UNSOURCED_RUN = True

    #: a run of new cards on a column that no place held whole, built down in order on
    #: the engine's top, is taken one card at a time (each from the seat's hidden cards:
    #: plays missed one by one while the column's fan was misread)
    SPLIT_BUILT_RUN = True

    #: a run seen arriving on a column, the start of a longer run the engine has on
    #: another column of the seat that is now seen empty, is that whole run (its top
    #: card(s) unread in the fan; real path, round 18: seat 1's 4H 3S 2D read 4H 3S)
    RUN_TOP_UNREAD = True
    #: a run (or card) seen arriving on a column that may not lie there, the top part of
    #: a run of another column of the seat whose first card may, that column now showing
    #: the card under that run on top (or nothing): that run moved, its lower cards unread
    #: in the fan (real path, round 18: seat 1's 6D 5S 4H 3S laid on its 7S, read 7S 4H
    #: 3S, taken for the 4H alone, flagged;
    #: 12 rounds 939 / 1092, flags 87, MAE 1.69 -> 945 / 1095, 85, 1.77: round 18 85 ->
    #: 91 of 96 found, no false flag left, but one lake card more on the wrong seat)
    RUN_BASE_UNREAD = True

    #: the column's settled view counts for :attr:`RUN_BASE_UNREAD` while a hand is over it
    #: (it settled in plain view; the hand that took the run often still hovers there as
    #: the run settles on its new column: real path, round 13, seat 1's QC-to-8C run, read
    #: 10C 8C on its new column while the old one showed its KH alone, was taken as the
    #: 10C 9D 8C, and the KH laid on the lake next had no source)
    RUN_BASE_UNDER_HAND = True
    #: and while that column has no settled view in plain view (a hand still over it, or
    #: its view in flux), the one card under the run that makes the move legal is taken
    #: with it (a card skipped in a column is likelier a card unread than a breach)
    RUN_BASE_BLIND = True
    #: and while that column shows only cards laid there since (its settled view shares
    #: no card with the run and its top is none of the column's): the base went with the
    #: run (real path, tuned round 13: seat 1's 6H 5C run, read without its 6H; it pays
    #: with :attr:`HIDDEN_LANDING_MS`, which gives that 6H its source)
    RUN_BASE_BURIED = True

    def _run_under_unread(self, spot: tuple[str, int, int, bool], run: tuple[str, ...],
                          dest: str, exp: tuple[str, ...]) -> tuple[str, ...] | None:
        """See :attr:`RUN_BASE_UNREAD`: the engine's run at ``spot``'s column from a card
        under ``run[0]`` that may move onto ``dest``, when the column's settled view, in
        plain view, now ends with the card under it (or is empty)."""
        table = self.table
        assert table is not None
        st = self.states.get(spot[0])
        col = tuple(c.code for c in table.pile(spot[0]))
        blind = self.RUN_BASE_BLIND and (st is None or st.stable is None or st.covered)
        if not blind and (st is None or st.stable is None or
                          st.covered and not self.RUN_BASE_UNDER_HAND) or run[0] not in col:
            return None
        under = col.index(run[0]) - 1  # (the card right under the run read)
        for b in range(under, -1, -1):
            rest = col[:b]
            shown = blind and b == under or st is not None and \
                st.stable is not None and (st.stable[-1:] == rest[-1:] if rest
                                           else st.stable == ())
            if not shown and self.RUN_BASE_BURIED and b == under and st is not None and \
                    st.stable and not set(st.stable) & set(col[b:]) and st.stable[-1] not in col:
                shown = True
            if shown and _in_order(run, col[b:]) and \
                    self._run_fits((spot[0], len(col) - b, spot[2], False), dest, exp, col[b]):
                return col[b:]
        return None

    def _run_fits(self, spot: tuple[str, int, int, bool], dest: str, exp: tuple[str, ...],
                  base: str | None = None) -> bool:
        """The run at ``spot`` (from ``base``, else its length's card) may move onto
        ``dest`` as the engine has it."""
        table = self.table
        assert table is not None
        codes = [c.code for c in table.pile(spot[0])]
        card = base if base is not None else codes[-spot[1]] if spot[1] <= len(codes) else None
        if card is None or card not in codes:
            return False
        try:
            return table.is_legal(Move(spot[2], card, spot[0], dest,
                                       len(codes) - codes.index(card))) is True
        except (ValueError, ImpossibleAction):
            return False

    def _rest_on_column(self, seat: int | None, rest: tuple[str, ...], dest: str) -> bool:
        """Whether ``rest`` is the tail of one of ``seat``'s columns other than ``dest``
        in the engine's table."""
        if seat is None or self.table is None or not rest:
            return False
        for i, col in enumerate(self.table.layouts[seat].river):
            if f"seat{seat}:river{i}" != dest and len(col) >= len(rest) and \
                    tuple(c.code for c in col[-len(rest):]) == rest:
                return True
        return False

    #: a hidden card of the seat read as a column's new top is likely only when it may
    #: lie on that column (a card drawn and played unseen still obeys the rules)
    HIDDEN_FITS_COLUMN = True

    def _fits_column(self, code: str, place: str) -> bool:
        """Whether ``code`` may be laid on the column ``place`` as the engine has it:
        alternating colours, one rank lower (any card on an empty column; a joker or an
        unknown code is not judged here)."""
        exp = self._expected(place)
        if not exp or exp[-1] not in ALL_CODES or code not in ALL_CODES:
            return True
        card, exposed = Card.parse(code), Card.parse(exp[-1])
        return card.is_red != exposed.is_red and card.rank == exposed.rank - 1

    def _prior(self, place: str, code: str, exp: tuple[str, ...], top: bool) -> float:
        """How well ``code`` read at ``place`` fits the engine's table: 1 for the card
        the engine has there or a card that may land there now, 0.5 for a hidden card of
        the seat, :attr:`UNLIKELY` for a card known to be elsewhere or breaking the rules."""
        table = self.table
        assert table is not None
        if code in exp:
            return 1.0
        if code not in self._deck():
            return self.UNLIKELY
        kind = self._kind(place)
        if kind == "lake":
            if not top:
                return self.UNLIKELY
            c = Card.parse(code)
            if not exp:
                return 1.0 if c.rank == 1 else self.UNLIKELY
            t = Card.parse(exp[-1])
            if c.suit == t.suit and c.rank == t.rank + 1:
                return 1.0
            # (a pile read a few ranks up, cards landed unseen in between, is no likelier
            # than any other unlikely read: given 0.5 it kept persistent misreads of held-out
            # decks, 4D read 6D, over the reader's own next-rank alternative; on the real
            # path's 5 kept rounds 249 -> 255 moves found, flags 107 -> 104)
            j = self.lake_map.get(place)
            under = table.lake[j].placements if j is not None and j < len(table.lake) else []
            return 0.5 if len(under) > 1 and under[-2].card.code == code else self.UNLIKELY
        p = Place.parse(place)
        seat = p.seat
        assert seat is not None
        where = table.where(code, seat)
        if where is None:
            return self.UNLIKELY
        hidden = where.kind in ("stock", "waste", "nertz") and (seat, code) not in self.known
        if kind in ("nertz", "waste"):
            if hidden:
                return 0.5
            if kind == "waste" and where.kind == "stock":
                return 0.5  # a known stock card turned by a draw
            return self.UNLIKELY
        if kind == "river":
            if not top:
                return self.UNLIKELY
            if hidden:
                # drawn and played between two views: only onto a column it may go on
                return 0.5 if not self.HIDDEN_FITS_COLUMN or \
                    self._fits_column(code, place) else self.UNLIKELY
            try:
                legal = table.is_legal(Move(seat, code, str(where), place))
            except (ValueError, ImpossibleAction):
                legal = False
            if not legal and exp and self.EMPTIED_COLUMN_FITS and self._seen_bare(place):
                legal = self._may_fill(seat, code, where)
            if not legal and self.WASTE_SEEN_FITS_COLUMN and where.kind == "waste" and \
                    self._fits_column(code, place) and self._waste_gone(seat, code) and \
                    self.t_ms - self.seen_at.get((f"seat{seat}:waste", code), -1e9) \
                    <= self.pool_window_ms:
                return 0.5  # (the engine's waste out of step: seen on top lately, gone)
            return 1.0 if legal else self.UNLIKELY
        return self.UNLIKELY

    #: a card of the seat's waste that the waste showed lately and shows no more is a
    #: likely read on one of its columns it fits, even where the engine's waste holds it
    #: under other cards (real path, round 6: seat 0's QS, seen on its waste after a
    #: recycle and then on its column, gave way to the reader's alternative QC)
    WASTE_SEEN_FITS_COLUMN = True

    #: a column last seen empty in plain view while the engine still holds cards there
    #: (they left unseen): a card that may start an empty column fits it (real path,
    #: round 14: seat 2's 4D laid on its emptied column was held back as doubtful against
    #: the 2D the engine still had there, and its nertz pile lost it as unseen)
    EMPTIED_COLUMN_FITS = True

    def _seen_bare(self, place: str) -> bool:
        """The column was committed empty after the engine's last card came there, and
        shows none of the engine's cards since."""
        st = self.states.get(place)
        if st is None or st.stable is None or st.empty_t < 0:
            return False
        return not set(st.stable) & set(self._expected(place)) and \
            st.empty_t > self._last_touched(place)

    def _may_fill(self, seat: int, code: str, where: Place) -> bool:
        """Whether ``code``, lying at ``where`` in the seat's layout, may start an empty
        column: the top of its nertz pile or waste, or a column's card (with those on it)."""
        table = self.table
        assert table is not None
        layout = table.layouts[seat]
        if where.kind == "nertz":
            return bool(layout.nertz) and layout.nertz[-1].code == code
        if self.rules.empty_column_fill == "nertz_first" and layout.nertz:
            return False
        if where.kind == "waste":
            return bool(layout.waste) and layout.waste[-1].code == code
        return where.kind == "river"

    # --- what the engine says the camera should see ------------------------------------
    def _expected(self, place: str) -> tuple[str, ...]:
        table = self.table
        assert table is not None
        kind = self._kind(place)
        if kind == "lake":
            j = self.lake_map.get(place)
            if j is None or j >= len(table.lake):
                return ()
            pl = table.lake[j].placements
            return (pl[-1].card.code,) if pl else ()
        p = Place.parse(place)
        layout = table.layouts[p.seat]  # type: ignore[index]
        if kind == "nertz":
            return (layout.nertz[-1].code,) if layout.nertz else ()
        if kind == "stock":
            return ("back",) if layout.stock else ()
        if kind == "waste":
            return tuple(c.code for c in layout.waste[-3:])
        if p.index is None or p.index >= len(layout.river):
            return ()
        return tuple(c.code for c in layout.river[p.index])

    def _agrees(self, place: str, seen: tuple[str, ...]) -> bool:
        exp = self._expected(place)
        if self._kind(place) == "waste" and seen and exp:
            return seen[-1] == exp[-1] and exp[-len(seen):] == seen
        if self._kind(place) == "river" and seen and exp and seen != exp:
            if self.LEGAL_SLIDE_UNDER and self.rules.slide_under and \
                    len(seen) == len(exp) + 1 and seen[1:] == exp and \
                    not self._may_slide_under(place, seen[0]):
                return True  # a strip under the column's base that may not lie there
            # a fanned column whose lower indices are partly hidden (a card laid askew on
            # them): the same top and the rest in order, at most two missing
            return seen[-1] == exp[-1] and len(exp) - len(seen) <= max(2, len(exp) // 3) \
                and _in_order(seen, exp)
        return seen == exp

    def _may_slide_under(self, place: str, code: str) -> bool:
        """Whether ``code`` may slide under column ``place`` as the engine has it: the
        column's base one rank lower in the other colour. (Whether an empty column is left
        to fill is not judged: the engine's other columns may be out of step.)"""
        table = self.table
        p = Place.parse(place)
        if table is None or p.seat is None or p.index is None or code not in ALL_CODES:
            return False
        river = table.layouts[p.seat].river
        if p.index >= len(river) or not river[p.index]:
            return False
        card, base = Card.parse(code), river[p.index][0]
        if card.is_joker or base.is_joker:
            return True
        return card.is_red != base.is_red and card.rank == base.rank + 1

    def _dirty(self, place: str) -> bool:
        st = self.states.get(place)
        if st is None or st.stable is None or self.table is None:
            return False
        return not self._agrees(place, st.stable)

    # --- explaining differences ---------------------------------------------------------
    def _reconcile(self, final: bool = False) -> None:
        self._pass = []
        for _ in range(64):
            if not (self._fix_dealt_columns() or self._hidden_stacks(final, self._urgent_tops())
                    or self._arrivals(final) or self._reveals() or self._stock_waste(final)
                    or self._hidden_stacks(final)
                    or any(self._taken_card_replayed(name, st)
                           for name, st in self.states.items() if name.startswith("lake:"))
                    or self._drop_inferred_under_taken_back()
                    or self._emptied_columns(final)):
                break

    #: a river column untouched since the deal whose camera view has shown one other
    #: card, settled, uncovered and read sure, for this long: the deal misread it (real
    #: path, round 18: seat 1's 6D read QS on the deal frame and sure 6D from 0.4 s on; its
    #: column was out of step with the table for 39 s). The deal hypothesis takes the
    #: card the camera shows, and the misread code goes among the seat's hidden cards in
    #: its place. None: off
    DEAL_COLUMN_FIX_MS: float | None = 1500.0

    def _fix_dealt_columns(self) -> bool:
        """See :attr:`DEAL_COLUMN_FIX_MS`: rebuild the engine with one dealt column's card
        read anew; whether one was."""
        table = self.table
        if self.DEAL_COLUMN_FIX_MS is None or table is None:
            return False
        for seat, deal in enumerate(self._deal_lists):
            for i, col in enumerate(deal["river"]):
                name = f"seat{seat}:river{i}"
                st = self.states.get(name)
                if st is None or not st.stable or len(st.stable) != 1 or len(col) != 1 or \
                        st.covered or not st.in_view or st.stable[0] == col[0] or \
                        self.t_ms - st.stable_t < self.DEAL_COLUMN_FIX_MS:
                    continue
                want, have = st.stable[0], col[0]
                if want not in self._deck() or \
                        1.0 - sum(p for _a, p in self.reads.get((name, want), ())) < self.SURE:
                    continue  # (an unsure read is no evidence against the deal's)
                if [c.code for c in table.pile(name)] != [have] or \
                        self._last_touched(name) > 0 or (seat, have) in self.named or \
                        (seat, want) in self.named or (seat, want) in self.known:
                    continue  # (touched since the deal, or either card's place is known)
                if self._deal_to_column(seat, i, want):
                    return True
        return False

    def _hidden_in_deal(self, seat: int, code: str) -> list[str] | None:
        """The deal hypothesis' nertz or stock list that holds ``code`` of ``seat`` while
        the engine has it among the seat's hidden places (nertz, stock, waste), else
        None."""
        assert self.table is not None
        deal = self._deal_lists[seat]
        where = self.table.where(code, seat)
        if where is None or where.kind not in ("nertz", "stock", "waste"):
            return None
        return next((lst for lst in (deal["nertz"], deal["stock"]) if code in lst), None)

    def _deal_to_column(self, seat: int, i: int, want: str) -> bool:
        """Put the hidden ``want`` on the seat's dealt column ``i`` in the deal hypothesis
        (the column's card goes among the hidden cards in its place) and rebuild the
        engine; nothing changes when ``want`` is not hidden or the history will not
        replay."""
        table = self.table
        assert table is not None
        deal = self._deal_lists[seat]
        col, name = deal["river"][i], f"seat{seat}:river{i}"
        hidden = self._hidden_in_deal(seat, want)
        if hidden is None:
            return False
        have, k = col[0], hidden.index(want)
        hidden[k], col[0] = have, want
        fresh = self._rebuilt(self.records)
        if fresh is None or [c.code for c in fresh.pile(name)] != [want]:
            hidden[k], col[0] = want, have
            return False
        self.table = fresh
        self.known.add((seat, want))
        self.known.discard((seat, have))
        return True

    #: a card laid on a column that holds only its dealt card, hiding it, that may not lie
    #: on the card as read at the deal but would on a card one rank above it of the other
    #: colour, of the dealt card's suit and a rank next to its read (or the reader's
    #: alternative), hidden in the deal: the deal misread it, and the column's card is that
    #: one (real path, round 19: seat 2's dealt 7H read 8H; the 6S laid on it was never
    #: taken, the column stuck at 8H under every later card). Only on a column the camera
    #: showed no other card on since the deal (seed-4 rounds 1 and 3 renamed right dealt
    #: cards under misread arrivals without this)
    DEALT_MISREAD_UNDER = True

    #: ... also a card laid on it in a fan, the dealt card still showing, where the card
    #: breaks the column's order (not the move its source) but would not on a card the
    #: reader named for the dealt one at least :attr:`DEALT_BREACH_ALT_P` likely, under
    #: other cards or exposed, in plain view (`--seed 8` round 0: seat 1's dealt 7H read
    #: 3H, 7H its other read under the 6S laid on it; the 3H drawn 54 s later never taken,
    #: its play credited to seat 0)
    DEALT_MISREAD_BREACH = True
    DEALT_BREACH_ALT_P = 0.1

    def _recode_dealt_under(self, move: Move, breach: bool = False) -> bool:
        """See :attr:`DEALT_MISREAD_UNDER` (with ``breach``: :attr:`DEALT_MISREAD_BREACH`);
        whether the deal was corrected (``move`` is then legal)."""
        table = self.table
        if not self.DEALT_MISREAD_UNDER or table is None or move.card not in ALL_CODES or \
                move.n != 1 or not move.dst.startswith(f"seat{move.seat}:river"):
            return False
        seat, i = move.seat, int(move.dst.rsplit("river", 1)[1])
        deal = self._deal_lists[seat]
        have = [c.code for c in table.pile(move.dst)]
        if len(have) != 1 or deal["river"][i] != have or self._last_touched(move.dst) > 0 \
                or have[0] not in ALL_CODES:
            return False
        card, dealt = Card.parse(move.card), Card.parse(have[0])
        if card.rank >= 13:
            return False
        seen = self.clear_at if breach else self.seen_at
        for name, code in seen:
            if name.startswith("lake:") and code == dealt.code:
                return False  # (a dealt card the lake shows: it went there, unseen)
            if name == move.dst and code not in (dealt.code, move.card):
                return False  # (the column showed other cards since the deal)
        alts = [a for a, _p in self.reads.get((move.dst, dealt.code), ())]
        if breach:  # (the dealt card shows: only the reader's other reads of it)
            alts = [a for a, p in self.col_reads.get((move.dst, dealt.code), {}).items()
                    if p >= self.DEALT_BREACH_ALT_P]
        options = [Card(card.rank + 1, suit) for suit in "CDHS"]
        options = [c for c in options if c.is_red != card.is_red and c.code != dealt.code and
                   (not breach and c.suit == dealt.suit and abs(c.rank - dealt.rank) == 1
                    or c.code in alts)
                   and
                   (seat, c.code) not in self.named and (seat, c.code) not in self.known]
        options.sort(key=lambda c: c.suit != dealt.suit)
        for want in options:
            if self._deal_to_column(seat, i, want.code):
                if self.table is not None and self.table.is_legal(move) is True:
                    return True
                self._deal_to_column(seat, i, dealt.code)  # (undo: it does not help)
        return False

    #: a lake card X that lands while no place was seen losing it (none seen holding it,
    #: a waste whose card is one of the seat's hidden ones, or places that still show it),
    #: as a column untouched since the deal that showed X's twin (same rank, the other
    #: suit of its colour) is seen losing its card: the deal misread that card, which is X
    #: (the pile's read is the one the rules agree with). The deal hypothesis takes X on
    #: the column (the twin goes among the seat's hidden cards), and the column is then
    #: the card's source (real path, round 14: seat 0's dealt 2S, read 2C, landed on the
    #: spade pile and was credited to seat 3's waste)
    TWIN_DEALT_DEPARTURE = True
    #: how close to the landing the dealt twin must have been seen last on its column
    TWIN_DEPARTURE_MS = 2000.0
    #: ... also a dealt card of X's rank in another suit that the reader had as its
    #: alternative of the landing card (one the pile's cards agree with), and of two such
    #: columns the one the reader named (`--seed 10` round 8: seat 2's dealt AD, read AC,
    #: started a pile read AD with AC next, as seat 3's dealt AH left for another pile,
    #: unsettled under the 2H laid on it; the AD went to seat 3's AH taken for its twin,
    #: and two Aces later went to the wrong seats); False: off
    DEALT_ALT_SAME_RANK = True
    #: ... and likewise, even for a landing the pile's cards do not agree with (a
    #: misplacement), for a dealt card of X's suit or X's twin that the reader had as its
    #: alternative of the landing card (held-out round 1: seat 2's dealt 7H, read 2H there,
    #: sure, started a pile read 7H with 2H next, was flagged and taken back; it went to
    #: nobody, and the column stayed out of step for the round)
    DEALT_READ_ALTERNATIVE = True
    #: ... but when the landing card does not fit the pile and the dealt card, the
    #: reader's other read of it, does, the camera misread the landing, not the deal: the
    #: dealt card itself went there (`--seed 8` round 8: seat 1's dealt 6S, seen leaving,
    #: landed on the 5S pile read 8S, 6S next; the deal was renamed 8S, the move flagged,
    #: and a hidden 6S inferred under the 7S laid next, once seat 3's waste 8S, drawn
    #: over, was no source; with it a source, it still takes the pile's "8S"). False: the
    #: deal renamed
    DEALT_ALT_FITS = True
    #: ... also when both fit, where the column read the dealt card sure (and not the
    #: landing card since) and the pile reads the landing unsure (`--seed 8` round 9:
    #: seat 4's dealt AS, read AS at 0.84 with AC 0.04, started a pile read AC at 0.53
    #: with AS 0.41; the deal was renamed AC, the 2S laid next went to a hidden 2C and
    #: the 3S to 6S were flagged)
    DEALT_SURE_FITS = True

    def _twin_dealt_departure(self, code: str, pile: str, landed: float,
                              dest: str | None = None) -> bool:
        """See :attr:`TWIN_DEALT_DEPARTURE` (``pile``: the engine's lake place the card
        lands on, ``dest`` the observed one); whether the deal was corrected."""
        table = self.table
        assert table is not None
        twin = _twin(code)
        fits = _fits(table, code, pile)  # (a card the pile's cards agree with)
        # the reader's other reads of the landing card (see DEALT_READ_ALTERNATIVE)
        alts = {a for a, _p in self.reads.get((dest, code), ())} \
            if dest is not None and self.DEALT_READ_ALTERNATIVE else set()
        if twin is None or not fits and not alts:
            return False
        found = []
        for seat, deal in enumerate(self._deal_lists):
            if (seat, code) in self.named or (seat, code) in self.known or \
                    (seat, twin) in self.named:
                continue
            for i, col in enumerate(deal["river"]):
                name = f"seat{seat}:river{i}"
                dealt = col[0] if len(col) == 1 else None
                if dealt is None or not (dealt == twin and (fits or dealt in alts) or
                                         dealt in alts and (
                                             dealt[-1] == code[-1] or
                                             self.DEALT_ALT_SAME_RANK and fits and
                                             dealt[:-1] == code[:-1]) and
                                         (seat, dealt) not in self.named):
                    continue
                seen = self.seen_at.get((name, dealt))
                if seen is None and self.DEALT_ALT_SAME_RANK and dealt in alts:
                    seen = self.seen_at.get((name, code))  # (the column read as the card)
                if [c.code for c in table.pile(name)] != [dealt] or \
                        self._last_touched(name) > 0 or seen is None or \
                        not landed - self.TWIN_DEPARTURE_MS <= seen <= landed + 300 or \
                        self._departed(name, dealt) != 3 or \
                        self._hidden_in_deal(seat, code) is None:
                    continue
                found.append((seat, i, name, seen, dealt))
        if len(found) > 1 and self.DEALT_ALT_SAME_RANK:
            # (the one the reader named as the landing card's other read)
            named = [f for f in found if f[4] in alts]
            found = named if len(named) == 1 else found
        if len(found) != 1:
            return False
        seat, i, name, seen, dealt = found[0]
        if self.DEALT_ALT_FITS and dest is not None and dealt in alts and \
                _fits(table, dealt, pile) and (not fits and dealt != twin or (
                    self.DEALT_SURE_FITS and
                    self.sure_at.get((name, dealt), -1.0) > self.sure_at.get((name, code), -1.0)
                    and 1.0 - sum(p for _a, p in self.reads.get((dest, code), ())) < self.SURE)):
            action = Move(seat, dealt, name, pile)
            if table.is_legal(action) is not True or not self._commit(
                    action, int(landed), self.frame, evidence={
                        "why": f"{dest} read {code}, {dealt} next: seat{seat}'s dealt {dealt} "
                               f"left {name} and fits there", "from": name, "seen": [code]}):
                return False
            self.misreads[dest] = (dealt, code)
            if dest not in self.lake_map:
                self.lake_map[dest] = int(pile.split(":")[1])
            return True
        if not self._deal_to_column(seat, i, code):
            return False
        self.seen_at[(name, code)] = seen  # (the card seen there, read as its twin)
        return True

    #: a river column seen empty, in plain view, while the engine still has cards there
    #: that no explanation took away: once other cards land on it (or it has shown empty
    #: this long and its cards show on top of another place), they left when it was seen
    #: empty, for that place or unseen (a missed departure no longer blocks the column
    #: for the rest of the round). None: off
    EMPTIED_COLUMN_MS: float | None = 3000.0
    #: ... unless the column settled with one of the engine's cards on top after it was
    #: seen empty: the empty view was a glitch, and a card that settled on the column later
    #: (its lower cards not read) is no sign that they left (real path, round 1: seat 0's
    #: 9C 8D column read empty for one frame, then 8D again for 5 s; the 7C laid on it,
    #: read alone, had the 8D recorded gone unseen and the 7C's move held back 12 s)
    EMPTY_THEN_SHOWN = True
    #: all of an emptied column's cards leave, not only its top: the record that took the
    #: top out (timed later than the view) is not a card laid there since (real path,
    #: round 1: seat 2's 4S 3H column moved unseen, read empty, then refilled with its
    #: nertz QD: the 3H left, the 4S stayed, and the QD was never taken from the pile)
    EMPTIED_WHOLE = True
    #: a column seen empty before a card left it (by the engine's record) still gave up
    #: the cards the engine kept there: only a card laid on it after the view makes that
    #: view out of date (real path, ``--seed 6`` round 3: seat 0's 10H left a column the
    #: engine had as JC 10H, the JC a misread of the JS played elsewhere; the column, seen
    #: empty, kept its JC, and the 4C, 3H and 2S laid there were never credited)
    EMPTIED_ARRIVALS_ONLY = True

    def _emptied_columns(self, final: bool) -> bool:
        """Take the engine's cards out of a column the camera showed empty (see
        :attr:`EMPTIED_COLUMN_MS`): to where they show now (:meth:`_emptied_to`), else as
        left unseen (:class:`~rules.moves.Unseen`: they score nowhere), timed when it was
        seen empty."""
        if self.EMPTIED_COLUMN_MS is None or self.table is None:
            return False
        for name in sorted(self.states):
            st = self.states[name]
            if ":river" not in name or st.stable is None or st.covered or not st.in_view:
                continue
            exp = self._expected(name)
            if not exp:
                continue
            if st.stable:
                # refilled since it showed empty, with none of the engine's cards there: they
                # left, and the new cards cannot be explained while they stay
                if st.refilled_t < st.empty_t or set(st.stable) & set(exp) or \
                        not final and self.t_ms - st.refilled_t < self.wait_ms:
                    continue
                if self.EMPTY_THEN_SHOWN and any(
                        st.settled.get(c, -1.0) > st.empty_t for c in exp):
                    continue  # (it showed the engine's card again after: not emptied)
                since = st.empty_t
            elif not final and self.t_ms - st.stable_t < self.EMPTIED_COLUMN_MS:
                continue
            else:
                since = st.stable_t
            if since <= self._last_touched(name, emptied=not self.EMPTIED_WHOLE,
                                           arrivals=self.EMPTIED_ARRIVALS_ONLY):
                continue  # (seen empty before the engine's cards came there)
            seat = Place.parse(name).seat
            assert seat is not None
            at = max(int(since), self.table.now)
            action: Action | None = self._emptied_to(seat, name, exp, at)
            if action is None and not st.stable and not final:
                continue  # (still empty: nothing waits on it)
            action = action or Unseen(seat, exp[-1], name)
            evidence = {"why": f"the camera showed {name} empty from {since:.0f} ms while "
                               f"the tracker still had this card there", "emptied": name}
            evidence["seen_on"] = action.dst if isinstance(action, Move) else "nowhere"
            return self._commit(action, at, st.stable_frame, inferred=True,
                                evidence=evidence)
        return False

    def _last_touched(self, place: str, emptied: bool = True, arrivals: bool = False
                      ) -> float:
        """When the engine's last record moved a card onto or off ``place`` (the deal:
        0); without ``emptied``, records that took cards off it because the camera showed it
        empty do not count; with ``arrivals``, only records that moved cards onto it."""
        for rec in reversed(self.records):
            a = rec.action
            if not emptied and rec.evidence.get("emptied") == place:
                continue
            if place == getattr(a, "dst", None) or \
                    not arrivals and place == getattr(a, "src", None):
                return float(rec.t_ms)
        return 0.0

    def _emptied_to(self, seat: int, name: str, exp: tuple[str, ...], t: int
                    ) -> Move | None:
        """Where the cards of an emptied column show now and the engine does not have
        them: another of the seat's columns whose top is the column's top card (the longest
        run that may lie on it legally), or a lake pile whose top is the column's one card.
        A legal move there, or None."""
        table = self.table
        assert table is not None
        for other in sorted(self.states):
            st = self.states[other]
            if other == name or not st.stable or st.stable[-1] != exp[-1]:
                continue
            if other.startswith(f"seat{seat}:river"):
                col = table.pile(other)
                if col and col[-1].code == exp[-1]:
                    continue
                for k in range(len(exp)):
                    move = Move(seat, exp[k], name, other, len(exp) - k)
                    if table.is_legal(move, t) is True:
                        return move
            elif other.startswith("lake:") and len(exp) == 1:
                j = self.lake_map.get(other)
                if j is None or j >= len(table.lake):
                    continue
                move = Move(seat, exp[0], name, f"lake:{j}")
                if table.is_legal(move, t) is True:
                    return move
        return None

    def _urgent_tops(self) -> set[tuple[str, str]]:
        """Nertz tops that left unseen (the pile shows another card now) while the card
        that showed after them has already landed somewhere, and column tops that left
        unseen while another card has landed on that column: their own landing must be
        explained first (on an identical card: :meth:`_hidden_stacks`), without waiting for
        the place to settle, or the next card is taken for a card of the waste (or cannot
        land on the column at all)."""
        table = self.table
        out: set[tuple[str, str]] = set()
        if table is None:
            return out
        for name, st in self.states.items():
            if self._kind(name) != "river" or not st.stable or st.covered or \
                    not self._dirty(name) or len(st.stable) != 1 or st.empty_t < 0:
                continue
            exp = self._expected(name)
            if len(exp) == 1 and exp[0] != st.stable[0] and \
                    self.seen_at.get((name, exp[0]), 0.0) < st.empty_t:
                out.add((name, exp[0]))  # seen emptied, then another card laid there
        landed = [(name, st.stable[-1]) for name, st in self.states.items()
                  if st.stable and self._kind(name) in ("lake", "river") and self._dirty(name)]
        if not landed:
            return out
        for seat in range(self.seats):
            if self.URGENT_WASTE:
                self._urgent_waste_top(seat, landed, out)
            nertz = table.layouts[seat].nertz
            name = f"seat{seat}:nertz"
            st = self.states.get(name)
            if not nertz or st is None or not st.stable or st.covered:
                continue
            top = nertz[-1].code
            left = self.seen_at.get((name, top))
            if (seat, top) not in self.nertz_tops or st.stable[-1] == top or left is None:
                continue
            # a card seen on the pile since, gone from it, landed on the lake or one of the
            # seat's own columns
            if any(self.seen_at.get((name, c), -1.0) > left and c not in st.stable
                   and (where.startswith("lake:") or where.startswith(f"seat{seat}:"))
                   for where, c in landed):
                out.add((name, top))
        return out

    #: a waste top gone unseen is explained before the card under it lands (below)
    URGENT_WASTE = True

    def _urgent_waste_top(self, seat: int, landed: list[tuple[str, str]],
                          out: set[tuple[str, str]]) -> None:
        """The waste's top (in the engine) is gone from the seen fan, and the card the fan
        showed under it has since left too and landed: the top's own landing (on an
        identical card) is explained first, or the engine keeps it on the waste."""
        table = self.table
        assert table is not None
        waste = table.layouts[seat].waste
        name = f"seat{seat}:waste"
        st = self.states.get(name)
        if not waste or st is None or st.stable is None or st.covered:
            return
        top = waste[-1].code
        left = self.seen_at.get((name, top))
        if left is None or top in st.stable or self._departed(name, top) != 3:
            return
        if any(self.seen_at.get((name, c), -1.0) > left and c not in st.stable
               and where.startswith("lake:") for where, c in landed):
            out.add((name, top))

    def _free_spots(self, code: str, dest: str) -> list[tuple[str, int, int, bool]]:
        """Where ``code`` could come from: (place, run length, seat, is_retract)."""
        table = self.table
        assert table is not None
        out = []
        for seat in range(self.seats):
            try:
                where = table.where(code, seat)
            except ValueError:
                continue
            if where is None:
                continue
            src = str(where)
            if src == dest or (where.is_lake and src == self._lake_engine_place(dest)):
                continue
            if where.is_lake:
                pls = table.lake[where.index].placements  # type: ignore[index]
                if pls and pls[-1].card.code == code and pls[-1].card.owner == seat:
                    if pls[-1].counts and dest.endswith(":nertz"):
                        continue  # a card that counts taken back onto a nertz pile: far
                        # likelier the pile's own next card, and the lake card another's
                    out.append((src, 1, pls[-1].seat, True))
                else:
                    # a misplaced card taken back from under a card laid on it later
                    pl = next((p for p in pls if p.card.code == code and p.card.owner == seat),
                              None)
                    if pl is not None and not pl.counts and not dest.startswith("lake:") and \
                            table.is_legal(Retract(pl.seat, code, src, dest)) is True:
                        out.append((src, 1, pl.seat, True))
                continue
            pile = table.pile(where)
            if where.kind in ("nertz", "waste"):
                if pile and pile[-1].code == code:
                    out.append((src, 1, seat, False))
            elif where.kind == "river":
                codes = [c.code for c in pile]
                idx = codes.index(code)
                out.append((src, len(codes) - idx, seat, False))
        return out

    def _lake_owner(self, src: str, code: str) -> int | None:
        """The owner of the card ``code`` lying on lake pile ``src`` (an engine place)."""
        assert self.table is not None
        if not src.startswith("lake:"):
            return None
        pls = self.table.lake[int(src.split(":")[1])].placements
        return next((p.card.owner for p in reversed(pls) if p.card.code == code), None)

    #: a card misplaced on a column (the engine flagged it there) that goes back to the
    #: column it came from within the rules' retract window is taken back, not moved
    #: again: its flag is corrected (`--seed 6` round 3: seat 2's 10S laid on its 9D and
    #: taken back 1 s later was a second move and the flag stood)
    COLUMN_TAKE_BACK = True

    def _column_take_back(self, code: str, src: str, dest: str, t: float) -> bool:
        """See :attr:`COLUMN_TAKE_BACK`: is ``code``'s way from column ``src`` back to
        ``dest`` at ``t`` a take-back (within the rules' retract window of its flag)?"""
        table = self.table
        assert table is not None
        seat = Place.parse(src).seat
        flag = next((fl for fl in reversed(table.flags) if fl.card == code and
                     fl.place == src and fl.seat == seat and not fl.corrected), None)
        return flag is not None and t - flag.t_ms <= self.rules.retract_window_ms and \
            table.is_legal(Retract(seat, code, src, dest)) is True  # type: ignore[arg-type]

    #: a card from nowhere is made a waste's top (:meth:`_from_waste_pool`, which
    #: exchanges hidden cards at once) only once it has lain this long: a nertz pile under
    #: a hand as it landed shows its next top by then, which names the card's real source
    #: (real path, round 18: seat 1's KC, settled on its nertz pile for 3 s and played,
    #: was made its waste top while the pile was still covered). None: at once
    WASTE_POOL_WAIT_MS: float | None = 1500.0

    def _from_waste_pool(self, code: str, dest: str) -> list[tuple[str, int, int, bool]]:
        """A card that arrives from a waste the engine has out of step (missed draws): when
        a seat's waste is seen changed and holds the card among its hidden cards, make it
        that waste's top (exchanging hidden, never-moved cards)."""
        table = self.table
        assert table is not None
        dseat = Place.parse(dest).seat if not dest.startswith("lake:") else None
        st = self.states.get(dest)
        armed = {} if st is None else self._arms_over(st.box, st.stable_t - 1000, st.stable_t)
        for seat in self._arm_order(dest):
            if dseat is not None and seat != dseat:
                continue
            if (seat, code) in self.named:
                continue
            wname = f"seat{seat}:waste"
            if not self._dirty(wname) and dseat is None and seat not in armed:
                continue  # (an arm that just laid it: drawn and played at once, unseen)
            if armed and seat not in armed:
                continue  # arms were seen over the pile, and not this seat's
            where = table.where(code, seat)
            waste = table.layouts[seat].waste
            nertz = table.layouts[seat].nertz
            hidden_nertz = where is not None and where.kind == "nertz" and \
                bool(nertz) and nertz[-1].code != code
            if where is None or not (where.kind in ("stock", "waste") or hidden_nertz) \
                    or not waste:
                continue
            top = waste[-1].code
            if (seat, top) in self.named:
                continue
            self._swap(seat, top, code)
            if waste[-1].code == code:
                return [(wname, 1, seat, False)]
        return []

    def _arm_order(self, dest: str) -> list[int]:
        """The seats, those whose arm was over ``dest`` just before its new card showed
        first (latest first)."""
        st = self.states.get(dest)
        last = {} if st is None else self._arms_over(st.box, st.stable_t - 1000, st.stable_t)
        return sorted(range(self.seats), key=lambda s: (s not in last, -last.get(s, 0.0), s))

    def _arms_over(self, box: Any, t0: float, t1: float, least: float | None = None
                   ) -> dict[int, float]:
        """The seats whose arm was over ``box`` (more of it than ``least``; by default any of
        it) in ``[t0, t1)``, with the last time."""
        last: dict[int, float] = {}
        if box is None:
            return last
        least = self.cover_limit if least is None else least
        for t, b, s in self._arm_log:
            if t0 <= t < t1 and _overlap(box, b) > least:
                last[s] = max(t, last.get(s, t))
        return last

    def _lake_engine_place(self, place: str) -> str | None:
        j = self.lake_map.get(place)
        return None if j is None else f"lake:{j}"

    #: a lake card's likeliest source is passed over for another seat's when the card's look
    #: (:func:`vision.crops.card_look`: its deck's artwork, ink and paper) on the lake pile
    #: is unlike the look that code had at that source (more than this apart, mean squared
    #: Lab difference) and like the other's (:attr:`LOOK_RATIO` times nearer): many decks
    #: hold the code, and decks of other artwork tell their cards apart; None: off
    LOOK_UNLIKE: float | None = 60.0
    LOOK_RATIO = 2.0
    #: ... never for a source that still shows its copy of the card (`--seed 7` round 8:
    #: seat 1's 8H left its column for the heart pile; seat 0's waste 8H, still in view,
    #: looked likelier, so the card was never credited and its column kept a phantom 8H)
    LOOK_NOT_STILL_SHOWN = True
    #: looks kept per place and code: two cards' looks are as alike as their likest pair
    #: (one look may be of a card in a hand's motion blur, or outlined a little off)
    LOOKS_KEPT = 4

    def _by_look(self, ranked: list[tuple[str, int, int, bool]], code: str, dest: str,
                 rank_of: Callable[[tuple[str, int, int, bool]], tuple[Any, ...]] | None = None
                 ) -> list[tuple[str, int, int, bool]]:
        """``ranked`` with the first candidate whose source's look of ``code`` matches the
        card on ``dest`` moved to the front, when the first's source showed ``code``
        looking like another deck's (:attr:`LOOK_UNLIKE`); a candidate whose departure
        score by ``rank_of`` (:meth:`_rank_of`) is 1, its source still showing the card,
        is never moved."""
        if not self.look_at.get((dest, code)) or len(ranked) < 2:
            return ranked
        rank_of = rank_of if self.LOOK_NOT_STILL_SHOWN else None

        def apart(spot: tuple[str, int, int, bool]) -> float | None:
            return self._looks_apart(self._obs_place_of(spot[0]), dest, code)

        first = apart(ranked[0])  # (the others only when the first looks unlike)
        if first is None or first <= self.LOOK_UNLIKE:
            return ranked
        for spot in ranked[1:]:
            if rank_of is not None and rank_of(spot)[-1] == 1:
                continue
            if spot[2] != ranked[0][2] and (d := apart(spot)) is not None and \
                    d * self.LOOK_RATIO < first:
                return [spot] + [s for s in ranked if s is not spot]
        return ranked

    def _looks_apart(self, place: str, other: str, code: str) -> float | None:
        """How unlike (:func:`~vision.observation.look_distance`, the nearest pair) two
        places' looks of ``code`` were; None when either never showed it with a look."""
        here, there = self.look_at.get((place, code)), self.look_at.get((other, code))
        if not here or not there:
            return None
        return min(look_distance(a, b) for a in here for b in there)

    def _obs_place_of(self, engine_place: str) -> str:
        if engine_place.startswith("lake:"):
            j = int(engine_place.split(":")[1])
            for k, v in self.lake_map.items():
                if v == j:
                    return k
        return engine_place

    #: a nertz card whose pile now shows another of the seat's hidden cards (not settled
    #: yet) counts as unseen there (2), not as still showing, even with no hand over the
    #: pile (oracle round 5: seat 0's 6H left, its pile showed a back, then the JH,
    #: unsettled as the 6H landed; the 6H was taken from a waste that never showed it)
    NERTZ_SHOWN_NEXT = True

    #: a place in plain view whose new view, not settled yet, no longer shows the card is
    #: no evidence the card stayed (round 14: seat 0's waste, shown empty as its 3S
    #: landed, lost the race to a pooled guess a frame before it settled)
    FLUX_NOT_SHOWN = True

    #: a nertz top that the pile now shows as its twin (same rank, the other suit of its
    #: colour), read as that twin while it lay there within this long before: the same card
    #: read the other way, no departure (real path, round 13: seat 2's nertz card read KS and
    #: KC by turns; as its KS-reading stopped, an identical KS from its waste landed and was
    #: credited to the pile, one nertz card too few). None: off
    TWIN_FLICKER_MS: float | None = 10000.0
    #: ... only when the pile was read as the card itself again after a twin read (the two
    #: reads by turns): a twin read only as the hand leaves is the next card's first view
    #: (tuned round 1: seat 0's nertz 3C, the 3S under it read once as the 3C's twin as
    #: the hand left, taken for the 3C still there; the 3C's misplacement on the lake and
    #: its take-back never recorded)
    TWIN_FLICKER_BY_TURNS = True
    #: ... read by turns since that card settled there, not only before it (`--seed 8`
    #: round 1: seat 0's nertz 3C, read 3C and 3S by turns, gave way to a KH read KH
    #: alone; when the KD under it showed, the KH was taken for still there, and its
    #: misplacement on the lake credited to seat 2's KH); False: any pile's reads by turns
    TWIN_FLICKER_OWN = True
    #: ... and a nertz top that settled from the reader's twin read (its alternative chosen
    #: by what the table allows), the reader reading that twin since before it settled, is
    #: the same card when the pile's view turns to the twin: the read never changed (tuned
    #: round 13: seat 2's nertz 10C, read 10S with 10C next, then 10S alone, was taken for
    #: gone and laid on a pile's identical 10C, flagged)
    TWIN_SAME_READ = True

    def _twin_flicker(self, name: str, code: str, now: tuple[str, ...] | None,
                      st: _PlaceState) -> bool:
        """See :attr:`TWIN_FLICKER_MS`: whether nertz pile ``name``'s view ``now`` shows
        ``code``'s twin on top, and the pile was read so while ``code`` lay on it lately."""
        if self.TWIN_FLICKER_MS is None or self._kind(name) != "nertz" or not now or \
                now[-1] != _twin(code):
            return False
        last = self.seen_at.get((name, code))
        own, since = st.read
        if self.TWIN_SAME_READ and own == now[-1] and since is not None and \
                since <= st.settled.get(code, -1.0):
            return True  # (the reader read the twin before the card settled, and since)
        read_t = st.flicker_t if self.TWIN_FLICKER_BY_TURNS else st.twin_read_t
        if self.TWIN_FLICKER_OWN and read_t < st.settled.get(code, -1.0):
            return False  # (the reads by turns were of the card before it on the pile)
        return last is not None and read_t >= 0.0 and read_t >= last - self.TWIN_FLICKER_MS

    def _departed(self, engine_place: str, code: str) -> int:
        """3: the card is seen gone from its place; 2: the place is not seen now; 1: the
        card still shows there."""
        name = self._obs_place_of(engine_place)
        st = self.states.get(name)
        if st is None or st.stable is None:
            return 2
        if self._kind(name) == "river":
            gone = code not in st.stable
        else:
            gone = not st.stable or st.stable[-1] != code
        if gone or st.held is not None and code not in st.held:
            now = st.held if st.held is not None and code not in st.held else st.stable
            return 1 if self._twin_flicker(name, code, now, st) else 3
        if engine_place.startswith("lake:") and self.table is not None:
            pls = self.table.lake[int(engine_place.split(":")[1])].placements
            if len(pls) > 1 and pls[-2].card.code == code:
                return 2  # an identical card lies under it: its leaving cannot show
        if (st.covered or self.NERTZ_SHOWN_NEXT) and self._kind(name) == "nertz" and \
                self.table is not None:
            # under a hand, the pile has shown another top since the card was last seen:
            # one of the seat's hidden cards (not a card in flight over it); uncovered
            # too (:attr:`NERTZ_SHOWN_NEXT`): the stable view keeps the card while the
            # next one lay face down
            last = self.seen_at.get((name, code), float("inf"))
            seat = Place.parse(name).seat
            assert seat is not None
            for c, g in st.first.items():
                if not st.covered and (not st.cand or st.cand[-1] != c):
                    continue  # (uncovered: the new top shows now, about to settle)
                where = self.table.where(c, seat) if c in ALL_CODES else None
                if c != code and g > last and where is not None and \
                        where.kind in ("nertz", "stock", "waste") and (seat, c) not in self.known \
                        and not self._twin_flicker(name, code, (c,), st):
                    # (uncovered, its view in flux: as good as unseen, no better: an
                    # identical card seen leaving elsewhere is likelier the one)
                    return 3 if st.covered else 2
        if self.FLUX_NOT_SHOWN and not st.covered and st.cand is not None and (
                code not in st.cand if self._kind(name) in ("river", "waste")
                else not st.cand or st.cand[-1] != code):
            return 2  # (the place's view, about to settle, shows it no more)
        return 2 if st.covered else 1

    #: a lake pile whose top now reads as that card's twin (the same rank, the other suit
    #: of its colour), with the top's own code among the reader's next reads, shows the
    #: same card read the other way, not a card landed on it (real path, round 8: an AS
    #: pile read AC, a 2C pile read 2S, a 3C pile read 3S, each credited as a second card
    #: and flagged). Without that next read a twin laid on its like is a misplacement
    #: (oracle rounds 5, 13 and 23 have such)
    TWIN_TOP_REREAD = True

    #: a column whose view settles as one card that may legally lie on the engine's top,
    #: right after it settled showing that top, had the card laid on it: the fan's lower
    #: strips are not read (real path, round 1: seat 0's 7C on its 9C 8D, read alone for
    #: 12 s, waited until the 9C was read). False: off
    LONE_NEW_TOP = True

    #: ... also when the view shows lower strips too, none of them read as the column's
    #: cards, as long as it shows no more cards than the column would hold with the new
    #: one (`--seed 5` round 1: seat 0's 7D laid on its 9D 8C, read 5D 7D, and the 6S on
    #: it read 5D 6S: neither was credited). False: only a lone card
    NEW_TOP_OVER_MISREADS = True

    #: a column whose new top, read sure, is the top of a run of another column of the
    #: seat that now shows the card under that run (or nothing), and whose other new cards
    #: are mostly that run's (some strips misread or unread), took that whole run when its
    #: base may lie on the column's old top and the cards read new have no source
    #: (`--seed 4` round 8: seat 2's 9S 8H 7S 6H laid on its QD JS 10D, read 10D JS 10D 8S
    #: 8H 6H, taken for a "JS 10D 8S 8H 6H" run from nowhere; the four cards were let go
    #: as unseen and the 6H later played from that column was credited to another seat)
    SURE_TOP_RUN = True

    def _run_to_sure_top(self, dest: str, exp: tuple[str, ...], seen: tuple[str, ...]
                         ) -> tuple[str, ...] | None:
        """See :attr:`SURE_TOP_RUN`: the run that moved onto column ``dest``, or None."""
        table = self.table
        if not self.SURE_TOP_RUN or table is None or not seen or seen[-1] in exp or \
                seen[-1] not in ALL_CODES:
            return None
        top = seen[-1]
        if 1.0 - sum(p for _a, p in self.reads.get((dest, top), ())) < self.SURE:
            return None
        seat = Place.parse(dest).seat
        assert seat is not None
        found: list[tuple[str, ...]] = []
        for i, col in enumerate(table.layouts[seat].river):
            name = f"seat{seat}:river{i}"
            codes = tuple(c.code for c in col)
            if name == dest or not codes or codes[-1] != top:
                continue
            st = self.states.get(name)
            if st is None or st.stable is None or st.covered:
                continue
            b = len(codes) - 1
            while b > 0 and _builds_down(codes[b], codes[b - 1]):
                b -= 1  # (the longest run ending in the top)
            for start in range(b, len(codes)):
                tail, rest = codes[start:], codes[:start]
                if st.stable != rest[-1:] if rest else st.stable != ():
                    continue  # (the source must now show the card under the run)
                if sum(c in exp or c in tail for c in seen[:-1]) * 2 < len(seen) - 1:
                    continue
                if self._run_fits((name, len(tail), seat, False), dest, exp, tail[0]):
                    found.append(tail)
        return found[0] if len(found) == 1 else None

    def _arrivals(self, final: bool) -> bool:
        table = self.table
        assert table is not None
        order = sorted((p for p in self.states if self._dirty(p)),
                       key=lambda p: self.states[p].stable_t)
        for dest in order:
            st = self.states[dest]
            seen = st.stable or ()
            landed = st.stable_t  # when the arriving card settled there
            buried = None
            exp = self._expected(dest)
            kind = self._kind(dest)
            if not seen or kind == "nertz" and st.covered:
                continue  # (a card taken back onto a nertz pile shows once the hand goes)
            under = hides_top = misread_under = False
            if kind == "river":
                if self.rules.slide_under and exp and len(seen) == len(exp) + 1 \
                        and seen[1:] == exp:
                    run, under = seen[:1], True  # slid under the column's base card
                elif self.COLUMN_TOP_GONE and not st.covered and \
                        self._column_top_gone(dest, exp, seen):
                    return True
                elif exp and len(seen) >= len(exp) and seen[:len(exp) - 1] == exp[:-1] \
                        and seen[len(exp) - 1] != exp[-1] and _covered_run(exp, seen):
                    # a card laid on the column so that the old top's index is hidden
                    run, hides_top = seen[len(exp) - 1:], True
                else:
                    # the column's cards, then the new ones; its lowest one or two may be
                    # hidden (a fan running under another card), not its old top
                    k = next((k for k in range(min(2, max(len(exp) - 1, 0)) + 1)
                              if seen[:len(exp) - k] == exp[k:]
                              and len(seen) > len(exp) - k), None)
                    if k is not None:
                        run = seen[len(exp) - k:]
                    elif (start := _new_on_column(exp, seen)) is not None:
                        run, misread_under = seen[start:], True
                    elif exp and len(exp) - 1 <= len(seen) <= len(exp) + 1 and \
                            seen[-1] not in exp and _builds_down(seen[-1], exp[-1]) and \
                            2 * sum(c in exp for c in seen[:-1]) >= max(1, len(seen) - 1):
                        # a new top on the column over cards that are mostly the column's,
                        # some read otherwise or not found (a fan's half-hidden strips):
                        # that card laid on it, when it may legally lie there (misreads are
                        # no evidence of an illegal placement)
                        run, misread_under = seen[-1:], True
                    elif self.LONE_NEW_TOP and len(exp) > 1 and (
                            len(seen) == 1 or self.NEW_TOP_OVER_MISREADS
                            and len(seen) <= len(exp) + 1
                            and not set(seen[:-1]) & set(exp)) and \
                            seen[-1] not in exp and seen[-1] not in seen[:-1] and \
                            _builds_down(seen[-1], exp[-1]) and \
                            len(st.tops) >= 2 and st.tops[-2][0] == exp[-1]:
                        # the column read as one new card, right after it settled with the
                        # engine's top: laid on it, the fan's lower strips not read
                        run, misread_under = seen[-1:], True
                    elif (moved := self._run_to_sure_top(dest, exp, seen)) is not None:
                        run, misread_under = moved, True
                    else:
                        continue
            else:
                run = (seen[-1],)
                buried = self._buried_arrival(dest, st, exp) if kind == "lake" else None
                if buried is not None:
                    # the pile's last top, never committed, now under a card that builds
                    # on it: it landed there first
                    run, landed = (buried[0],), buried[1]
                elif exp and exp[-1] == seen[-1]:
                    continue
                elif kind == "lake" and self.TWIN_TOP_REREAD and exp and \
                        seen[-1] == _twin(exp[-1]) and \
                        exp[-1] in [a for a, _p in self.reads.get((dest, seen[-1]), ())]:
                    continue  # the pile's top read as its twin: the same card
                elif kind == "lake" and self._under_top(dest) == seen[-1] and \
                        self._drop_unseen_top(dest):
                    return True  # the top was the under card misread: it never landed
                elif kind == "lake" and self._under_top(dest) == seen[-1] and \
                        not self._handed_since_top(dest, st):
                    continue  # the top card was taken back: the one under it shows again
            code = run[0]
            if kind == "river" and len(run) == 1 and not under and \
                    self._misplaced_via_column(code, dest, landed):
                return True  # (the take-back is legal now: committed next pass)
            misread = kind == "lake" and bool(exp) and \
                self.misreads.get(dest) == (exp[-1], code)
            spots = self._free_spots(code, dest)
            if kind == "river":
                spots = [s for s in spots if s[2] == Place.parse(dest).seat]
            if kind == "river" and not spots and not under and \
                    (moved := self._run_to_sure_top(dest, exp, seen)) is not None:
                run, code, misread_under = moved, moved[0], True  # (the run read wrong)
                spots = [s for s in self._free_spots(code, dest)
                         if s[2] == Place.parse(dest).seat]
            if kind == "river" and len(run) > 1 and not under and \
                    not any(s[1] == len(run) for s in spots):
                # a long run whose middle indices the fan hides: the same first and last
                # card, the rest in order, at most half missing
                gapped = [s for s in spots if not s[3] and s[1] > len(run)
                          and s[1] - len(run) <= max(2, s[1] // 2)
                          and self._tail(s[0], code)[-1:] == run[-1:]
                          and _in_order(run, self._tail(s[0], code))]
                if len(gapped) == 1:
                    run = self._tail(gapped[0][0], code)
            if kind == "river" and run and not under and self.RUN_BASE_UNREAD and \
                    not any(s[1] == len(run) and self._run_fits(s, dest, exp) for s in spots):
                # a run whose base card(s) the fan's read misses, from a column that now
                # shows the card under that base on top (or nothing): that longer run moved
                # (its base fits here, the run seen does not)
                longer = [tail for s in spots if not s[3] and self._kind(s[0]) == "river"
                          and (tail := self._run_under_unread(s, run, dest, exp))]
                if len(longer) == 1:
                    run, code = longer[0], longer[0][0]
                    spots = self._free_spots(code, dest)
            if kind == "river" and len(run) > 1 and not under and self.RUN_TOP_UNREAD and \
                    not any(s[1] == len(run) for s in spots):
                # a run whose top card(s) the fan's read misses, from a column now seen
                # empty: the whole run moved (what stayed behind would show)
                whole = [s for s in spots if not s[3] and s[1] > len(run)
                         and self._tail(s[0], code)[:len(run)] == run
                         and self._seen_bare(s[0])]
                if len(whole) == 1:
                    run = self._tail(whole[0][0], code)
            if kind == "river" and len(run) > 1 and not under and \
                    not any(s[3] or s[1] == len(run) for s in spots):
                # two moves onto one column before it settled (a king, then a queen from
                # elsewhere): the first part of the run from a source that held just it
                spots = [s for s in spots if not s[3] and s[1] < len(run)
                         and self._tail(s[0], code) == run[:s[1]]]
                run = run[:spots[0][1]] if len(spots) == 1 else run
            if kind == "river" and len(run) > 1 and not spots and (
                    misread_under or self.SPLIT_UNSOURCED_RUN
                    and (not exp or _builds_down(run[0], exp[-1]))
                    and _builds_down(run[1], run[0])
                    and (self._rest_on_column(Place.parse(dest).seat, run[1:], dest)
                         or self.SPLIT_BUILT_RUN and exp and all(
                             _builds_down(b, a) for a, b in itertools.pairwise(run)))):
                run = run[:1]  # (its first card may come from a waste the engine has
                # out of step: one card at a time, as from the waste pool below)
            if kind in ("lake", "river"):
                spots = [s for s in spots if s[3] or s[1] == len(run)]
            if kind == "lake":
                spots = [s for s in spots if not s[3]]
            if kind != "lake":
                dseat = Place.parse(dest).seat
                # (or a card taken from this seat's layout by another, taken back to it)
                spots = [s for s in spots if s[2] == dseat
                         or s[3] and self._lake_owner(s[0], code) == dseat]
                if not spots and len(run) == 1 and \
                        self._untie_for_take_back(code, dseat, st.stable_t):
                    return True
            if kind in ("nertz", "waste", "stock"):
                spots = [s for s in spots if s[3] or (s[0].startswith("seat")
                                                      and self._kind(s[0]) == "river")]
            pool: list[tuple[str, int, int, bool]] = []
            if len(run) == 1 and kind in ("lake", "river"):
                pool = self._waste_candidates(code, dest, spots, landed)
            # (a source seen losing the card: the usual evidence for where it came from)
            seen_gone = any(self._rank(sp, code, landed, False)[1] == 3 for sp in spots)
            if kind == "lake" and len(run) == 1 and self.RETRACT_VIA_COLUMN and \
                    not seen_gone and self._taken_back_via_column(code, landed):
                return True  # (its take-back committed: the column is now its source)
            if not spots and not pool and len(run) == 1 and kind in ("lake", "river") and (
                    self.WASTE_POOL_WAIT_MS is None or final or buried is not None
                    or self.t_ms - landed >= self.WASTE_POOL_WAIT_MS):
                spots = self._from_waste_pool(code, dest)
            if not spots and not pool and kind == "lake" and len(run) == 1 and \
                    st.stable_frame < 0 and self._built_before_deal(code) and \
                    (final or self.t_ms - landed >= self.wait_ms):
                # on a pile already built when the deal was read, no seat seen losing it
                # since: played before, from some seat's hidden cards (which one, the
                # camera cannot tell)
                pool = self._hidden_card(0, code)
            lost: list[tuple[str, int, int, bool]] = []
            if kind in ("lake", "river") and len(run) == 1 and not under and \
                    self.LOST_CARDS_BACK:
                lost = self._lost_candidates(code, landed, dest)
            cands = spots + pool + lost
            if misread:
                # the pile's card is known to be misread as this one: only a card seen at
                # its source, and timed by when it left there, landed on it
                cands = [c for c in cands
                         if self.seen_at.get((self._obs_place_of(c[0]), code)) is not None]
                landed = max([landed] + [self.seen_at[(self._obs_place_of(c[0]), code)] + 1
                                         for c in cands])
            twin_ok = kind == "lake" and len(run) == 1 and (
                bool(exp) or self.NEW_PILE_TWIN and Card.parse(code).rank == 1) and \
                not misread and self.TWIN_ARRIVAL and (final or self.t_ms - landed >= self.wait_ms)
            if not cands:
                if twin_ok and self._twin_arrival(dest, code, landed, st):
                    return True
                if kind == "lake" and len(run) == 1 and not misread and \
                        self.HIDDEN_LANDING_ACE and buried is not None and \
                        self._hidden_landing(dest, code, landed, st, self.t_ms - landed, final,
                                             True):
                    return True
                if kind == "lake" and len(run) == 1 and self.TWIN_DEALT_DEPARTURE and \
                        self.DEALT_READ_ALTERNATIVE and self._twin_dealt_departure(
                            code, f"lake:{self.lake_map.get(dest, len(table.lake))}", landed,
                            dest):
                    return True  # (the deal corrected: the column is the source next pass)
                if kind == "lake" and len(run) == 1 and not misread and \
                        self._twin_of_played(dest, code, landed, st):
                    return True
                continue
            ranked = sorted(cands, key=lambda s: self._stale_gone_rank(
                s, code, landed, self._rank_of(s, code, landed, pool, lost, st), kind),
                            reverse=True)
            if len(pool) > 1 and not seen_gone and not any(
                    self.NERTZ_SHOWN_NEXT and s[0].endswith(":nertz") and
                    self._rank(s, code, landed, False, st)[1:3] == (2, True) for s in spots):
                # only a hidden card of some seat can have made it: the one seat whose arm
                # was over the pile as it landed laid it
                armed = [s for s in pool if self._rank(s, code, landed, True, st)[2]]
                if len(armed) == 1:
                    ranked = armed + [s for s in ranked if s is not armed[0]]
            if kind == "lake" and len(run) == 1 and self.LOOK_UNLIKE is not None:
                ranked = self._by_look(ranked, code, dest, functools.partial(
                    self._rank_of, code=code, t=landed, pool=pool, lost=lost, dest=st))
            best = ranked[0]
            if kind == "lake" and len(run) == 1 and self.TWIN_DEALT_DEPARTURE:
                seen_best, *_rest, dep_best = self._rank_of(best, code, landed, pool, lost, st)
                # (a guess among hidden cards, a place never seen with it, or one that
                # still shows it: no seen departure of the card itself)
                pile = f"lake:{self.lake_map.get(dest, len(table.lake))}"
                if (best in pool or not seen_best or dep_best == 1) and \
                        self._twin_dealt_departure(code, pile, landed, dest):
                    return True  # (the deal corrected: the column is the source next pass)
            glimpsed = None
            if self.EARLIER_WASTE_GLIMPSE and best not in pool:
                glimpsed = self._earlier_waste_glimpse(best, pool, code, landed)
                best = glimpsed or best
            score = self._rank_of(best, code, landed, pool, lost, st)[-1]
            if best in pool and score == 2:
                score = 3  # seen on the waste, and gone from it
            waited = self.t_ms - landed
            if score < 3 and not (final or waited >= self.wait_ms or buried is not None):
                continue
            if kind == "lake" and not final and self._armed_source_hidden(
                    best, ranked, code, landed, pool, lost, st, waited):
                continue
            if kind == "lake" and not final and self._waste_under_hand(
                    best, code, landed, pool, lost, st, waited):
                continue
            if score == 1 and self.SEEN_UNDER_HAND_LEFT:
                self._hand_reads_unseen = True
                try:
                    again = max(ranked, key=lambda s: self._stale_gone_rank(
                        s, code, landed, self._rank_of(s, code, landed, pool, lost, st), kind))
                    after = self._rank_of(again, code, landed, pool, lost, st)[-1]
                finally:
                    self._hand_reads_unseen = False
                if after == 3 and self._rank_of(again, code, landed, pool, lost, st)[-1] < 3:
                    best, score = again, 3  # (its reads there after the landing: under a hand)
            if score == 1:
                # (every seat's card still shows at its place: none of them landed)
                if twin_ok and self._twin_arrival(dest, code, landed, st):
                    return True
                if kind == "lake" and len(run) == 1 and not misread and \
                        self._hidden_landing(dest, code, landed, st, waited, final):
                    return True
                continue
            if glimpsed is not None:
                if not self._draw_glimpsed(best[2], code):
                    continue
            elif best in pool and not (self._bring_to_nertz_top(best[2], code)
                                       if best[0].endswith(":nertz")
                                       else self._bring_to_waste_top(best[2], code)):
                continue
            src, n, seat, is_retract = best
            t = int(landed)
            late: list[Move] = []  # identical cards whose hand reached the pile after
            # (a pile's misread top, long read so: the card landed as its source lost it)
            at_frame = self.frame if misread else st.stable_frame
            frames = (self._since_frame(src), at_frame)
            evidence = {"seen": list(seen), "expected": list(exp), "from": src,
                        "departure": score}
            if self.reads.get((dest, code)):
                evidence["reads"] = [[a, round(p, 3)] for a, p in self.reads[(dest, code)]]
            if buried is not None:
                evidence["why"] = (f"{code} showed on {dest} before {seen[-1]}, which builds "
                                   f"on it, covered it")
            if is_retract and self.RETRACT_SHOWN_AFTER and src.startswith("lake:"):
                pls = table.lake[int(src.split(":")[1])].placements
                put = max((pl.t_ms for pl in pls if pl.card.code == code), default=None)
                if put is not None and landed < put and \
                        self.seen_at.get((dest, code), -1.0) < put:
                    continue  # the layout's view from before the card left: no take-back
            if is_retract and src.startswith("lake:") and \
                    self._untie_top_for_take_back(code, src, seat, st.stable_t):
                return True  # (the take-back is legal now: committed next pass)
            if is_retract and self.RETRACT_COUNTED_SEEN_GONE and src.startswith("lake:") and \
                    not self._counted_card_left(src, code, score):
                continue
            if is_retract or (self._kind(src) == "river" and kind in ("nertz", "waste")) or (
                    self.COLUMN_TAKE_BACK and n == 1 and kind == "river" and
                    self._kind(src) == "river" and self._column_take_back(code, src, dest, t)):
                owner = seat
                if not is_retract:
                    owner = Place.parse(src).seat  # type: ignore[assignment]
                action: Action = Retract(owner, code, src, dest)
                why_not = table.is_legal(action)
                if self.NO_LEGAL_RETRACT and not is_retract and why_not is not True and \
                        why_not.rule == "retract_legal_card":
                    continue  # (a card correctly placed is never taken back: a misread)
            else:
                dst = dest
                if kind == "lake":
                    j = self.lake_map.get(dest)
                    if j is None:
                        j = len(table.lake)
                    dst = f"lake:{j}"
                    if not self._orphans_under(j, code, src, t, evidence,
                                               final or waited >= self.wait_ms
                                               or buried is not None, dest=dest):
                        continue  # a card that left with it may still land elsewhere
                    self._infer_missing(seat, code, j, t, evidence,
                                        at_deal=st.stable_frame < 0 or (
                                            self.DEAL_PILE_UNSETTLED
                                            and dest in self._deal_lake
                                            and not any(c for c, _t in st.tops[:-1])))
                    if dest not in self.lake_map and j < len(table.lake):
                        self.lake_map[dest] = j  # its inferred first card started it
                    self._orphans_under(j, code, src, t, evidence, True, commit=True,
                                        dest=dest, by=seat, late=late)
                if n == 1 and best not in lost:
                    src = self._via_column(seat, code, src, dest, t, evidence)
                mover = self._mover(seat, src, code, t, dest)
                if mover != seat:
                    evidence["arm_of"] = f"seat{mover}"
                if best in lost:
                    evidence["why"] = (f"{code} had left seat{seat}'s layout unseen and "
                                       f"shows again on {dest}")
                action = Move(mover, code, src, dst, n, under=under, lost=best in lost)
                if best in lost and kind == "river" and table.is_legal(action) is not True:
                    continue  # (a misread on a column is no evidence of a lost card)
            if hides_top:
                if table.is_legal(action) is not True and not (
                        isinstance(action, Move) and (self._recode_flagged_top(action) or
                                                      self._recode_dealt_under(action))):
                    continue  # only a legal placement may hide the card under it
                table = self.table
                assert table is not None
                evidence["hidden_under"] = exp[-1]
            if misread_under and table.is_legal(action) is not True:
                continue
            if kind == "lake" and self._ace_under_misplaced(action, t, st.stable_frame,
                                                            evidence):
                return True
            if kind == "river" and under and isinstance(action, Move) and \
                    self._slide_before_fill(action, t, st.stable_frame, evidence):
                return True
            if kind == "river" and not under and isinstance(action, Move) and exp and \
                    not hides_top and self.DEALT_MISREAD_BREACH and \
                    table.is_legal(action) is not True and \
                    not _fits(table, action.card, action.dst) and \
                    self._recode_dealt_under(action, breach=True):
                table = self.table
                assert table is not None
                evidence["why"] = (f"the deal misread {exp[-1]}: "
                                   f"{table.pile(action.dst)[0].code} fits {action.card}")
            if kind == "river" and not under and isinstance(action, Move) and exp and \
                    table.is_legal(action) is not True:
                self._bridge_column(action, exp[-1], t, evidence)
            if kind == "lake" and isinstance(action, Move) and score == 3 and \
                    self.table.is_legal(action) is not True and \
                    self._recode_twin_pile(action):  # type: ignore[union-attr]
                evidence["why"] = (f"the pile's cards, read with {action.card[-1]} as their "
                                   f"alternative, are of its suit")
            if kind == "lake" and isinstance(action, Move) and score == 3 and \
                    (renamed := self._twin_on_confused_pile(action, dest, src)) is not None:
                action = renamed
                evidence["why"] = (f"read {_twin(renamed.card)} on a pile "
                                   f"whose top was read as its twin: its twin")
            if kind == "lake" and isinstance(action, Move) and score == 3 and \
                    (moved := self._ace_under_unstarted_pile(action)) is not None:
                action = moved
            if kind == "lake" and isinstance(action, Move) and \
                    self.table.is_legal(action) is not True:  # type: ignore[union-attr]
                if not self._own_card_after_all(action) and \
                        not self._missing_under_misplaced(action):
                    self._unseen_base_under_run(action)
            earliest = int(st.before_seen_t) + 1 if 0 <= st.before_seen_t < t else None
            if earliest is None and kind == "lake" and not exp and isinstance(action, Move):
                earliest = self._new_pile_earliest(st.box, t)
            if self._commit(action, t, at_frame, frames=frames, evidence=evidence,
                            earliest=earliest):
                if kind == "lake" and dest not in self.lake_map:
                    self.lake_map[dest] = int(action.dst.split(":")[1])  # type: ignore[union-attr]
                for move in late:  # (a frame later: they landed after it, not in a tie)
                    self._commit(move, t + 1, self.frame, inferred=True, evidence={
                        "why": f"left {move.src} and never seen again; seat{move.seat}'s "
                               f"arm reached {dest} after seat{seat}'s, whose {code} it "
                               f"lies on"})
                source = self.states.get(self._obs_place_of(src))
                if buried is not None and source is not None and source.covered and \
                        source.stable and source.stable[-1] == code:
                    # its source, under hands since, still shows it: unknown until seen
                    # again (not a card taken back there)
                    source.stable = None
                return True
        return False

    #: a card read sure on a lake pile, where it is the pile's next card, that no seat was
    #: seen losing while every copy the engine has in plain view still shows at its place
    #: (and no place shows it where the engine has it not), came from a seat's hidden cards
    #: (drawn and played at once, or its waste misread): the seat whose arm reached the
    #: pile first, else any that holds it hidden, once it stayed this long (real path,
    #: tuned round 13: seat 2's 6H, read 6D on its waste, laid on the heart pile and never
    #: credited; every later heart on that pile was flagged); None: off
    HIDDEN_LANDING_MS: float | None = 3000.0
    #: ... also an Ace starting a pile; one covered by a card that builds on it also when
    #: its own read is unsure and no seat has a copy in view at all (`--seed 4` round 8:
    #: seat 0's AC, drawn and laid at once, never credited; seat 1's 2C laid on it waited
    #: behind it, and went to another pile 9 s later). A hidden placeholder of the seat's
    #: nertz pile in the deal hypothesis is exchanged with a stock card to be played
    HIDDEN_LANDING_ACE = True

    def _hidden_landing(self, dest: str, code: str, landed: float, st: _PlaceState,
                        waited: float, final: bool, built_on: bool = False) -> bool:
        """See :attr:`HIDDEN_LANDING_MS`: commit ``code``'s move onto pile ``dest`` from a
        seat's hidden cards; whether it was. ``built_on``: the pile shows a card that
        builds on it (its read need not be sure)."""
        table = self.table
        assert table is not None
        if self.HIDDEN_LANDING_MS is None or not (final or waited >= self.HIDDEN_LANDING_MS) \
                or code not in ALL_CODES or st.covered:
            return False
        j = self.lake_map.get(dest)
        card = Card.parse(code)
        if j is None and self.HIDDEN_LANDING_ACE and card.rank == 1:
            j = len(table.lake)  # (an Ace starting a pile)
        elif j is None or j >= len(table.lake) or table.lake[j].top is None or \
                table.lake[j].suit != card.suit or table.lake[j].next_rank != card.rank:
            return False
        if not built_on and \
                1.0 - sum(p for _a, p in self.reads.get((dest, code), ())) < self.SURE:
            return False
        if any(c.code == code for layout in table.layouts for c in layout.lost):
            return False  # (a seat's card recorded gone unseen is the likelier one)
        spots = self._free_spots(code, dest)
        for spot in spots:
            at = self.states.get(self._obs_place_of(spot[0]))
            view = at.stable if at is not None else None
            if not view or (code not in view if self._kind(spot[0]) == "river"
                            else view[-1] != code):
                return False  # (a place that does not show it now may have lost it)
        held = {self._obs_place_of(spot[0]) for spot in spots}
        if self._seat_places_showing(code) - held:
            return False  # (a place shows it where the engine has it not: out of step)
        for seat in self._arm_order(dest):
            where = table.where(code, seat)
            if self.HIDDEN_LANDING_ACE and self._hidden_in_nertz(table, seat, code) and \
                    self._nertz_placeholder_out(seat, code):
                table = self.table
                assert table is not None
                where = table.where(code, seat)
            if where is None or where.kind not in ("stock", "waste") or \
                    (seat, code) in self.named:
                continue
            move = Move(seat, code, f"seat{seat}:waste", f"lake:{j}")
            if not self._bring_to_waste_top(seat, code) or \
                    self.table.is_legal(move) is not True:
                return False
            if not self._commit(move, int(landed), st.stable_frame, inferred=True, evidence={
                    "why": f"{code} settled on {dest}, every seat's {code} in view still at "
                           f"its place: one of seat{seat}'s hidden cards", "from": move.src}):
                return False
            self.lake_map.setdefault(dest, j)
            return True
        return False

    def _nertz_placeholder_out(self, seat: int, code: str) -> bool:
        """Exchange ``code``, a hidden placeholder of ``seat``'s nertz pile in the deal
        hypothesis, with the deepest stock card never seen nor named, the engine rebuilt
        (the history must still replay); whether it was."""
        deal = self._deal_lists[seat]
        swap = next((c for c in reversed(deal["stock"]) if (seat, c) not in self.known
                     and (seat, c) not in self.named), None)
        if swap is None or code not in deal["nertz"]:
            return False
        saved = self._saved_deal()
        a, b = deal["nertz"].index(code), deal["stock"].index(swap)
        deal["nertz"][a], deal["stock"][b] = swap, code
        fresh = self._rebuilt(self.records)
        if fresh is None:
            self._deal_lists = saved
            return False
        self.table = fresh
        self.revision += 1
        return True

    def _seat_places_showing(self, code: str) -> set[str]:
        """The seats' places that show ``code`` settled now (a waste or nertz top, or a
        card of a column)."""
        return {name for name, st in self.states.items()
                if name.startswith("seat") and st.stable and
                (code in st.stable if self._kind(name) == "river" else st.stable[-1] == code)}

    #: a card recorded as gone unseen (:class:`~rules.moves.Unseen`: its place was seen
    #: empty, not where it went) that lands on the lake or on one of its seat's columns
    #: later is its seat's, played from the seat's lost cards (``Move(..., lost=True)``)
    #: rather than credited to an identical card the engine only guessed at (real path,
    #: round 18: seat 1's 2D, let go as unseen at 26.7 s, was credited at 39.9 s to seat
    #: 0's waste top, never seen)
    LOST_CARDS_BACK = True
    #: how lately before it landed a lost card must have shown in its seat's layout
    LOST_SEEN_MS = 15000.0
    #: a seat's card recorded gone unseen at most this long after the same code settled,
    #: uncredited, on a lake pile went there: its source was still read as showing it when
    #: it landed (a twin's misread, a hand's shadow), so its move waited for no source and
    #: the card's leaving came after (real path, round 14: seat 2's 9S settled on the spade
    #: pile at 55.2 s while its column, the 9C run laid on it, still read 9S; recorded gone
    #: at 56.1 s, it was credited to nobody, nor were the 10S and JS laid on it, and the QS
    #: on top was flagged); None: off
    LOST_AFTER_LANDING_MS: float | None = 3000.0

    #: a card seen gone from a source whose seat's arm was not over the pile as it landed
    #: waits, up to this long, while a source of the seat whose arm was over it is under a
    #: hand (its departure not seen yet; real path, 12 rounds: MAE 1.45 -> 1.40, round 19
    #: 4.0 -> 3.33); None: off
    ARMED_HIDDEN_WAIT_MS: float | None = 2000.0

    #: a lake card about to be credited to a source never seen holding it (a guess among a
    #: seat's hidden cards) waits, up to this long after it landed, while another seat's
    #: waste that showed the card before it landed has been under a hand since (its
    #: departure not seen yet: the waste still settled with it on top; the engine may hold
    #: it in the stock, the waste or low in the nertz pile). `--seed 10` round
    #: 2: seat 2's AD, seen on its waste 0.4 s before it landed on a new pile, the waste
    #: under seat 2's hand for 3 s after, went to a hidden AD of seat 3 a frame before
    #: the waste showed it gone; None: off
    WASTE_UNDER_HAND_MS: float | None = 5000.0

    def _waste_under_hand(self, best: tuple[str, int, int, bool], code: str, landed: float,
                          pool: list[tuple[str, int, int, bool]],
                          lost: list[tuple[str, int, int, bool]], dest: _PlaceState,
                          waited: float) -> bool:
        """See :attr:`WASTE_UNDER_HAND_MS`: whether to wait before choosing ``best``."""
        if self.WASTE_UNDER_HAND_MS is None or waited >= self.WASTE_UNDER_HAND_MS or \
                self._rank_of(best, code, landed, pool, lost, dest)[0]:
            return False
        table = self.table
        assert table is not None
        for seat in range(self.seats):
            wname = f"seat{seat}:waste"
            seen = self.seen_at.get((wname, code))
            wst = self.states.get(wname)
            where = table.where(code, seat)
            if seat == best[2] or seen is None or wst is None or not wst.stable or \
                    (seat, code) in self.named or where is None or \
                    where.kind not in ("waste", "stock", "nertz") or \
                    where.kind == "nertz" and table.layouts[seat].nertz[-1].code == code or \
                    not landed - self.pool_window_ms <= seen <= landed:
                continue
            if wst.stable[-1] == code and wst.covered_t > seen:
                return True  # (not seen since: its leaving shows once the hand goes)
        return False

    def _armed_source_hidden(self, best: tuple[str, int, int, bool],
                             ranked: list[tuple[str, int, int, bool]], code: str,
                             landed: float, pool: list[tuple[str, int, int, bool]],
                             lost: list[tuple[str, int, int, bool]], dest: _PlaceState,
                             waited: float) -> bool:
        """See :attr:`ARMED_HIDDEN_WAIT_MS`: whether to wait before choosing ``best``."""
        if self.ARMED_HIDDEN_WAIT_MS is None or waited >= self.ARMED_HIDDEN_WAIT_MS or \
                self._rank_of(best, code, landed, pool, lost, dest)[2]:
            return False
        for spot in ranked:
            if spot is best or spot[3]:
                continue
            _seen, dep, arm, *_rest = self._rank_of(spot, code, landed, pool, lost, dest)
            place = self.states.get(self._obs_place_of(spot[0]))
            if arm and dep == 2 and place is not None and place.covered:
                return True
        return False

    #: a lake card read X that no seat can have lost, as a seat's nertz top or waste top
    #: read X left it, is that seat's hidden twin of X (same rank, the other suit of its
    #: colour) when the seat's own X was played already: the camera reads the twin as X
    #: at the source and on the pile alike (real path, round 14: seat 0's nertz AS read
    #: AC there and on the new pile it started, seat 0's AC on the lake since 3.9 s; the
    #: pile went to another seat's hidden AC 12 s later); None: off
    TWIN_OF_PLAYED_MS: float | None = 1500.0

    def _twin_of_played(self, dest: str, code: str, landed: float, st: _PlaceState) -> bool:
        """See :attr:`TWIN_OF_PLAYED_MS`: commit the twin's move; whether it was."""
        table = self.table
        assert table is not None
        twin = _twin(code)
        if self.TWIN_OF_PLAYED_MS is None or twin is None:
            return False
        j = self.lake_map.get(dest, len(table.lake))
        found = []
        for seat in range(self.seats):
            where = table.where(twin, seat)
            if (seat, code) not in self.named or (seat, twin) in self.named or \
                    where is None or where.kind not in ("nertz", "stock", "waste") or \
                    any(c.code == code for c in table.layouts[seat].lost) or \
                    not self._played_as_seen(seat, code):
                continue
            for kind in ("nertz", "waste"):
                place = f"seat{seat}:{kind}"
                seen = self.seen_at.get((place, code))
                pst = self.states.get(place)
                if seen is not None and pst is not None and pst.stable is not None and \
                        landed - self.TWIN_OF_PLAYED_MS <= seen <= landed + 300 and \
                        (not pst.stable or pst.stable[-1] != code):
                    found.append((seat, place))
        if len(found) != 1:
            return False  # (none, or two seats: no telling which)
        card = Card.parse(twin)
        pile = table.lake[j] if j < len(table.lake) else None
        if not (card.rank == 1 if pile is None or pile.top is None
                else pile.suit == card.suit and pile.next_rank == card.rank):
            return False  # (only where the twin may lie)
        seat, src = found[0]
        if not (self._bring_to_nertz_top(seat, twin) if src.endswith(":nertz")
                else self._bring_to_waste_top(seat, twin)):
            return False
        action = Move(seat, twin, src, f"lake:{j}")
        if table.is_legal(action) is not True:
            return False
        if not self._commit(action, int(landed), st.stable_frame, evidence={
                "why": f"{dest} and {src} read {code}; seat{seat}'s {code} was played "
                       f"before: its {twin}", "from": src, "seen": [code]}):
            return False
        self.misreads[dest] = (twin, code)
        if dest not in self.lake_map:
            self.lake_map[dest] = j
        return True

    def _played_as_seen(self, seat: int, code: str) -> bool:
        """Whether ``seat``'s ``code`` was last moved by a move seen, not inferred, from a
        place that showed it (not a hidden card's guess)."""
        rec = next((r for r in reversed(self.records) if isinstance(r.action, Move)
                    and r.action.card == code and self._owner(r.action) == seat), None)
        return rec is not None and not rec.inferred and self.seen_at.get(
            (self._obs_place_of(rec.action.src), code)) is not None  # type: ignore[union-attr]

    def _lost_candidates(self, code: str, landed: float, dest: str
                         ) -> list[tuple[str, int, int, bool]]:
        """Seats whose lost cards hold ``code``, seen in the seat's layout after it was
        recorded gone and lately (within :attr:`LOST_SEEN_MS` of landing): (the place it was
        last seen at before ``dest``, else the place it left unseen, 1, seat, False). A lost
        card never seen again is no source: a misread would find one in it. A column takes
        only its own seat's lost cards."""
        table = self.table
        assert table is not None
        dseat = None if dest.startswith("lake:") else Place.parse(dest).seat
        out = []
        for seat in range(self.seats):
            if dseat is not None and seat != dseat or not any(
                    c.code == code and c.owner == seat for c in table.layouts[seat].lost):
                continue
            left = self._left_unseen(seat, code)
            if dseat is None and self._lost_after_landing(left, landed):
                out.append((left.action.src, 1, seat, False))  # type: ignore[attr-defined]
                continue
            prefix = f"seat{seat}:"
            seen = [(g, name) for (name, c), g in self.seen_at.items()
                    if c == code and name.startswith(prefix) and left.t_ms < g <= landed
                    and landed - g <= self.LOST_SEEN_MS and self._kind(name) != "stock"]
            before = [x for x in seen if x[1] != dest]
            if before:
                out.append((max(before)[1], 1, seat, False))
            elif seen:
                out.append((left.action.src, 1, seat, False))  # type: ignore[attr-defined]
        return out

    def _left_unseen(self, seat: int, code: str) -> _Record:
        """The last record of ``seat``'s ``code`` going unseen (the seat has it lost)."""
        return next(r for r in reversed(self.records) if isinstance(r.action, Unseen)
                    and r.action.seat == seat and r.action.card == code)

    def _lost_after_landing(self, left: _Record, landed: float) -> bool:
        """Whether the card recorded gone by ``left`` left just after its like settled on a
        lake pile at ``landed`` (:attr:`LOST_AFTER_LANDING_MS`)."""
        return self.LOST_AFTER_LANDING_MS is not None and \
            landed < left.t_ms <= landed + self.LOST_AFTER_LANDING_MS

    def _rank_of(self, spot: tuple[str, int, int, bool], code: str, t: float,
                 pool: list[tuple[str, int, int, bool]], lost: list[tuple[str, int, int, bool]],
                 dest: _PlaceState | None) -> tuple[bool, int, bool, float, int]:
        """:meth:`_rank` of a free, pooled or lost source."""
        if spot in lost:
            return self._lost_rank(spot, code, t, dest)
        return self._rank(spot, code, t, spot in pool, dest)

    def _lost_rank(self, spot: tuple[str, int, int, bool], code: str, t: float,
                   dest: _PlaceState | None) -> tuple[bool, int, bool, float, int]:
        """:meth:`_rank` for a lost card: when it left is unknown (2), unless it still
        shows at the place it was last seen after it landed (1: another deck's)."""
        seen = self.seen_at.get((spot[0], code))
        st = self.states.get(spot[0])
        dep = 2
        # (read at its source after it landed: another deck's, unless it went from there
        # only just after: the source still read so as it landed)
        later = seen is not None and t + 150 < seen <= self.t_ms and \
            not self._lost_after_landing(self._left_unseen(spot[2], code), t)
        if later or st is not None and st.stable and code in st.stable and not st.covered:
            dep = 1
        arm = dest is not None and spot[2] in self._arms_over(dest.box, t - 600, t)
        return (seen is not None, dep, arm, -abs(t - seen) if seen is not None else 0.0, dep)

    #: a card that counts on its lake pile (laid there legally) is taken back only when
    #: the pile was seen without it: not while the pile is out of view, and not when the
    #: pile shows the next card of its suit on it (real path, round 14: a read of AS on
    #: seat 3's waste took back its AS from the spade pile, under the 2S laid on it; the
    #: pile's ace then went to seat 2, whose own nertz AS was refused 30 s later)
    RETRACT_COUNTED_SEEN_GONE = True
    #: a card correctly placed is never taken back (RULES.md): a column card seen showing
    #: on its seat's nertz pile or waste, where it came from, while it lies legally on the
    #: column is a misread there, not a take-back (real path, round 1: seat 2's nertz KD,
    #: read QD, took back the QD laid on a column 30 s before, one nertz card too many).
    #: Take-backs from the lake are left as they were (oracle round 23: two real ones of
    #: cards the engine had as rightly placed, its pile's view being out of step). False:
    #: such take-backs are flagged ``retract_legal_card``
    NO_LEGAL_RETRACT = True

    def _counted_card_left(self, src: str, code: str, score: int) -> bool:
        """See :attr:`RETRACT_COUNTED_SEEN_GONE`: whether lake pile ``src`` (an engine
        place) was seen without its top ``code``, or that card does not count there."""
        table = self.table
        assert table is not None
        pls = table.lake[int(src.split(":")[1])].placements
        if not pls or pls[-1].card.code != code or not pls[-1].counts:
            return True
        if score < 3:
            return False
        st = self.states.get(self._obs_place_of(src))
        return not (st is not None and st.stable and _builds_up(st.stable[-1], code))

    #: a misplaced card lying on a lake pile (under a later card, its leaving unseen),
    #: glimpsed on one of its seat's columns since and gone from it again, when an
    #: identical card lands that no place was seen losing: taken back to that column, then
    #: played from it (oracle round 23: seat 6's 7S, taken back from under a misplaced 7D
    #: and played on the spade pile, was credited to a waste 7S seen 7.5 s before)
    RETRACT_VIA_COLUMN = True

    def _taken_back_via_column(self, code: str, landed: float) -> bool:
        """See :attr:`RETRACT_VIA_COLUMN`: commit the take-back (timed by the glimpse) when
        exactly one such card fits."""
        table = self.table
        assert table is not None
        found = []
        for j, f in enumerate(table.lake):
            for pl in f.placements:
                if pl.card.code != code or pl.counts or not pl.src.startswith(
                        f"seat{pl.seat}:river") or pl.seat != pl.card.owner:
                    continue
                col = pl.src
                g = self.seen_at.get((col, code))
                cst = self.states.get(col)
                lst = self.states.get(self._obs_place_of(f"lake:{j}"))
                if g is None or not pl.t_ms < g < landed or cst is None or \
                        cst.stable is None or code in cst.stable or lst is None or \
                        (lst.stable or ("",))[-1] == code:
                    continue  # (the pile must not show it on top still)
                found.append((pl.seat, f"lake:{j}", col, g))
        if len(found) != 1:
            return False
        seat, src, col, g = found[0]
        action = Retract(seat, code, src, col)
        if table.is_legal(action) is not True:
            return False
        return self._commit(action, int(max(g, table.now)), self.frame,
                            evidence={"why": f"{code} glimpsed on {col} after it lay on {src}, "
                                             f"gone from there as an identical card landed"})

    def _buried_arrival(self, dest: str, st: _PlaceState, exp: tuple[str, ...]
                        ) -> tuple[str, float] | None:
        """The card a lake pile showed on top before its present top, never committed,
        when the present top builds on it (same suit, one rank up) and it builds on the
        engine's top of the pile (or is an Ace starting it): it landed and was covered
        before its own move was decided (its source hidden under hands). (code, since)."""
        if len(st.tops) < 2 or not st.stable:
            return None
        (prev, prev_t), (cur, _t) = st.tops[-2], st.tops[-1]
        if prev is None or cur != st.stable[-1] or prev == cur or prev in exp or \
                prev not in ALL_CODES or cur not in ALL_CODES:
            return None
        if not _builds_up(cur, prev):
            return None
        if exp:
            if not _builds_up(prev, exp[-1]):
                return None
        elif Card.parse(prev).rank != 1:
            return None
        return prev, st.settled.get(prev, prev_t)  # (timed as any arrival: first shown)

    #: a waste card the engine holds on top only since more than this long after the camera
    #: last showed it there (the engine's guess of the cards under a played waste top, from
    #: its model of the stock) is not taken for one laid unseen on an identical lake top
    #: (`--seed 12` round 8: seat 2's 6D, last seen on its waste 5.8 s before and drawn
    #: over, was put under seat 3's nertz 6D on the lake, which was flagged 6D on 6D and
    #: did not count); None: off
    WASTE_TOP_SINCE_MS: float | None = 1000.0

    def _waste_top_since(self, seat: int) -> float:
        """Since when the engine has held its present waste top for ``seat``."""
        table = self.table
        assert table is not None
        waste = table.layouts[seat].waste
        top, since = self._waste_top.get(seat, (None, -1.0))
        return since if top == (waste[-1].code if waste else None) else self.t_ms

    def _note_waste_tops(self) -> None:
        """Record each seat's engine waste top that changed (see :meth:`_waste_top_since`)."""
        assert self.table is not None
        for seat in range(self.seats):
            waste = self.table.layouts[seat].waste
            self._waste_top[seat] = (waste[-1].code if waste else None,
                                     self._waste_top_since(seat))

    def _hidden_stacks(self, final: bool, urgent: set[tuple[str, str]] | None = None
                       ) -> bool:
        """A card gone from its layout that turns up nowhere, while a lake pile shows the
        same code on top (the engine's card of another deck, or the same move seen once):
        it was laid on that identical card, which hides it (a lost race for the pile). The
        pile is the one the seat's arm reached, or the only one showing that code."""
        table = self.table
        assert table is not None
        if urgent is not None and not urgent:
            return False
        tops: dict[str, list[str]] = {}
        for name, st in self.states.items():
            j = self.lake_map.get(name)
            if not name.startswith("lake:") or not st.stable or st.covered or j is None \
                    or j >= len(table.lake):
                continue
            pls = table.lake[j].placements
            if pls and pls[-1].card.code == st.stable[-1]:
                tops.setdefault(st.stable[-1], []).append(name)
        # piles where a card landed lately and others have since covered it: an identical
        # card may lie right under it (only insertion under it explains that)
        buried: dict[str, list[str]] = {}
        for name, j in self.lake_map.items():
            if j >= len(table.lake):
                continue
            for pl in table.lake[j].placements[:-1]:
                if pl.t_ms >= self.t_ms - self.pool_window_ms and name not in \
                        tops.get(pl.card.code, []):
                    buried.setdefault(pl.card.code, []).append(name)
        if not tops and not buried:
            return False
        for seat in range(self.seats):
            layout = table.layouts[seat]
            free = [(f"seat{seat}:nertz", layout.nertz[-1].code)] if layout.nertz else []
            if layout.waste:
                free.append((f"seat{seat}:waste", layout.waste[-1].code))
            free += [(f"seat{seat}:river{i}", col[-1].code)
                     for i, col in enumerate(layout.river) if col]
            for place, code in free:
                if urgent is not None and (place, code) not in urgent:
                    continue
                ready = final or urgent is not None
                st = self.states.get(place)
                left = self.seen_at.get((place, code))
                if code not in tops and code in buried and st is not None and \
                        st.stable is not None and not st.covered and left is not None and \
                        self._departed(place, code) == 3 and \
                        (ready or self.t_ms - st.stable_t >= self.wait_ms):
                    last = self.seen_last.get((seat, code))
                    if (last is None or last[0] == place or last[1] <= left) and \
                            len(buried[code]) == 1:
                        j = self.lake_map[buried[code][0]]
                        move = Move(self._stack_mover(seat, place, code, buried[code][0]),
                                    code, place, f"lake:{j}")
                        evidence = {"why": f"{code} left {place}, turned up nowhere, and an "
                                           f"identical {code} landed on "
                                           f"{buried[code][0]} as it left"}
                        if self._insert_under(move, left, st.stable_frame, evidence,
                                              above=True):
                            return True
                    continue
                if code not in tops or st is None or st.stable is None or st.covered or \
                        left is None or self._departed(place, code) != 3 or \
                        not (ready or self.t_ms - st.stable_t >= self.wait_ms):
                    continue
                last = self.seen_last.get((seat, code))
                if last is not None and last[0] != place and last[1] > left:
                    continue  # it shows elsewhere in the layout
                if self.WASTE_TOP_SINCE_MS is not None and place.endswith(":waste") and \
                        self._waste_top_since(seat) > left + self.WASTE_TOP_SINCE_MS:
                    continue  # the engine's waste top again only since: a guess, not seen
                piles = tops[code]
                armed = [p for p in piles if seat in self._arms_over(
                    self.states[p].box, left - 200, float("inf"))]
                pick = armed[0] if len(armed) == 1 else piles[0] if len(piles) == 1 else None
                if pick is None and len(armed) > 1 and urgent is not None:
                    # the arm passed over several: the pile it was over last before the
                    # next card showed on the pile the card left
                    nxt = min((t for (k, _c), t in self.nertz_first.items()
                               if k == seat and t > left), default=self.t_ms) + 500
                    when = {p: self._arms_over(self.states[p].box, left - 200, nxt).get(seat)
                            for p in armed}
                    timed = sorted((w, p) for p, w in when.items() if w is not None)
                    if timed and (len(timed) == 1 or timed[-1][0] > timed[-2][0]):
                        pick = timed[-1][1]
                if pick is None:
                    continue
                j = self.lake_map[pick]
                move = Move(self._stack_mover(seat, place, code, pick), code, place, f"lake:{j}")
                evidence = {"why": f"{code} left {place}, turned up nowhere, and {pick} "
                                   f"shows an identical {code}", "arm": bool(armed)}
                if self._recredit_top(move, left):
                    return True
                if self._insert_under(move, left, st.stable_frame, evidence):
                    return True
                # laid on top of its like (that card was there before this one left): a
                # misplacement the camera cannot tell by the code. Only in a race for the
                # pile (its top landed within RACE_MS before this card left) or with the
                # seat's arm seen over it: a card seen on its pile long after the
                # identical top was there, then lost from view (a pile at the frame's
                # edge), did not go there unseen
                top = table.lake[j].placements[-1].t_ms if table.lake[j].placements else None
                if not (armed or top is not None and top >= left - self.RACE_MS):
                    continue
                action: Action = move
                apart = self._looks_apart(place, pick, code)
                if self.TWIN_UNLIKE_UNSEEN and self.LOOK_UNLIKE is not None and \
                        apart is not None and apart > self.LOOK_UNLIKE:
                    # the pile's top never looked like this card: it was not laid there
                    action = Unseen(seat, code, place)
                    evidence = {"why": f"{code} left {place} and turned up nowhere; {pick} "
                                       f"shows an identical {code} of another deck's look "
                                       f"({apart:.0f} apart)"}
                if self._commit(action, st.stable_t, st.stable_frame, inferred=True,
                                evidence=evidence):
                    return True
        return False

    #: a card gone from its layout that turned up nowhere is laid on a pile's identical
    #: top (flagged) only when the pile ever showed that code looking like this card's
    #: deck; when every look of it there was another deck's (:attr:`LOOK_UNLIKE` apart) it
    #: left unseen (real path, round 13: seat 0's column 7D, misread, judged gone, flagged
    #: on a 7D pile that never changed its look; seat 2's nertz 10C, flagged for starting a
    #: pile, then seen on another pile: the right flag). False: off
    TWIN_UNLIKE_UNSEEN = True

    #: a card seen leaving its place just before an identical card showed landing on a
    #: pile, and turned up nowhere, is the card that landed when the pile's card was
    #: credited to a place that had not shown it for :attr:`RECREDIT_STALE_MS` (a card of
    #: a waste hidden under draws, judged gone): the pile's card is re-credited, and the
    #: waste keeps its own (real path round 0: seat 0's 10D, seen leaving its column
    #: 0.4 s before the pile showed a 10D, was credited to seat 1's waste 10D last seen
    #: 6.6 s before, and laid on it as a misplacement)
    RECREDIT_TOP = True
    #: the kinds of place a pile card may be re-credited from (a column top too: round
    #: 13, seat 0's 7H credited from its column, not seen there for 2 s, was seat 2's)
    RECREDIT_KINDS: tuple[str, ...] = ("waste", "nertz", "river")
    #: when the history does not replay with the pile card back at the place it was first
    #: credited from (later plays there need it gone), it left that place unseen (real
    #: path, round 13: seat 1's 4H, credited from its waste as seat 0's column 4H landed,
    #: had a 2S under it played later; seat 0's 4H was then laid on it, flagged)
    RECREDIT_TOP_LOSES = True
    RECREDIT_STALE_MS = 2000.0
    RECREDIT_SLACK_MS = 300.0

    def _recredit_top(self, move: Move, left: float) -> bool:
        """See :attr:`RECREDIT_TOP`: ``move`` is the card that turned up nowhere (it left
        its place at ``left``) onto the pile whose top is identical. Rewrite the top's
        record to come from ``move``'s place when the history then replays with no new
        rule broken."""
        table = self.table
        if not self.RECREDIT_TOP or table is None:
            return False
        r = next((i for i in range(len(self.records) - 1, -1, -1)
                  if isinstance(self.records[i].action, Move)
                  and self.records[i].action.dst == move.dst), None)
        if r is None or self.records[r].action.card != move.card:  # type: ignore[union-attr]
            return False
        rec = self.records[r]
        top = rec.action
        assert isinstance(top, Move)
        if top.src == move.src or self._kind(top.src) not in self.RECREDIT_KINDS or \
                left > rec.t_ms + self.RECREDIT_SLACK_MS:
            return False
        shown = self.seen_at.get((self._obs_place_of(top.src), move.card))
        if shown is not None and shown >= left - self.RECREDIT_STALE_MS:
            return False  # its own source showed it lately: no better evidence either way
        records = list(self.records)
        evidence = {**rec.evidence, "from": move.src,
                    "why": f"{move.card} left {move.src} as it landed; {top.src} had not "
                           f"shown one since {shown:.0f} ms" if shown is not None else
                           f"{move.card} left {move.src} as it landed; {top.src} never "
                           f"showed one"}
        records[r] = replace(rec, action=replace(top, seat=move.seat, src=move.src),
                             evidence=evidence)
        before = [x.flags for x in self.records]
        if not self._rewrite_history(records, before):
            if not self.RECREDIT_TOP_LOSES:
                return False
            # the pile's card came from elsewhere, and yet later plays need the card gone
            # from where it was credited from (a waste's cards under it): it left unseen
            records.insert(r + 1, _Record(Unseen(top.seat, top.card, top.src), rec.t_ms,
                                          rec.frame, rec.frames, True, {
                                              "why": f"{top.card} left {top.src} unseen: "
                                                     f"the {move.card} on {move.dst} was "
                                                     f"{move.src}'s"}))
            if not self._rewrite_history(records, [*before[:r + 1], [], *before[r + 1:]]):
                return False
            self.known.add((self._owner(top), top.card))
            self.named.add((self._owner(top), top.card))
        else:
            self._forget_unless_named(self._owner(top), top.card)
        owner = self._owner(move)
        self.known.add((owner, move.card))
        self.named.add((owner, move.card))
        return True

    #: a card that turned up nowhere, laid under or on an identical pile top, was moved
    #: by the seat whose arm grabbed it as it left (:meth:`_mover`, strict: not the looser
    #: sign of any other arm near it, which accused a seat in a round without mistakes),
    #: not always by its owner (oracle round 5: seat 0 took seat 5's 3D, flagged; seat
    #: 7's 3D on it then counts)
    HIDDEN_MOVER = True

    def _stack_mover(self, owner: int, place: str, code: str, pile: str) -> int:
        """The mover of ``owner``'s ``code`` from ``place`` onto observed lake ``pile``."""
        if not self.HIDDEN_MOVER:
            return owner
        return self._mover(owner, place, code, self.t_ms, pile, strict=True)

    #: how long before a card left its layout an identical card may have landed on the
    #: lake pile it is then laid on, unseen, for the two to have raced for it
    RACE_MS = 3000.0

    def _insert_under(self, move: Move, left: float, frame: int,
                      evidence: dict[str, Any], above: bool = False) -> bool:
        """Put a hidden card of a lake pile *under* the identical card seen on top when it
        left its layout first (it landed first: the top card is the one that lost the
        race), or at the same instant when both left within a frame or so (``tie_rule``
        decides). The engine is rewound to the top card's move and replayed."""
        table = self.table
        assert table is not None
        r = next((i for i in range(len(self.records) - 1, -1, -1)
                  if isinstance(self.records[i].action, Move)
                  and self.records[i].action.dst == move.dst
                  and self.records[i].action.card == move.card), None)
        if r is None:
            return False
        top = self.records[r]
        top_src = self._obs_place_of(top.action.src)  # type: ignore[union-attr]
        top_left = self.seen_at.get((top_src, move.card))
        if top_left is None:
            return False
        # (its seat's arm reached the pile after the top card's seat's: it landed later)
        later = self._arrived_later(move.seat, top.action.seat,  # type: ignore[union-attr]
                                    self._obs_place_of(move.dst), left, top_left)
        if left > top_left + 150 or later:
            if not above:
                return False  # it left later: it lies on top (the same code: no difference)
            # it left later and lies on the identical card, under what landed after it
            r += 1
            fresh = self._rebuilt(self.records[:r])
            if fresh is None:
                return False
            nxt = self.records[r].t_ms if r < len(self.records) else int(self.t_ms)
            t = max(fresh.now, min(int(left), nxt))
        else:
            fresh = self._rebuilt(self.records[:r])
            if fresh is None:
                return False
            t = top.t_ms if abs(left - top_left) <= 150 else max(fresh.now, top.t_ms - 1)
        return self._insert_at(r, fresh, move, t, frame, evidence,
                               f"an identical {move.card} lay under it")

    def _insert_at(self, r: int, fresh: Table, move: Action, t: int, frame: int,
                   evidence: dict[str, Any], why: str, inferred: bool = True) -> bool:
        """Put ``move`` (marked inferred) before record ``r``: ``fresh`` is the engine
        rebuilt up to it; the later records are replayed on it, and the flags the replay
        newly raises are announced with ``why``."""
        tail = self.records[r:]
        replayed: list[list[Flag]] = []
        try:
            flags = fresh.push(move, t)
            for rec in tail:
                again = fresh.push(rec.action, rec.t_ms)
                # (the camera cannot count a stock: its rule checks are not evidence, as
                # in :meth:`_commit`)
                replayed.append([] if isinstance(rec.action, Draw | Recycle | Rotate)
                                else again)
        except (ImpossibleAction, OrderError, ValueError):
            return False
        self.table = fresh
        self.revision += 1
        if isinstance(move, Move | Retract):
            owner = self._owner(move)
            self.known.add((owner, move.card))
            self.named.add((owner, move.card))
        self._pass.append(move)
        rec = _Record(move, t, frame, (frame, frame), inferred, evidence, None, flags)
        self.records.insert(r, rec)
        ev = action_to_event(move, t)
        ev.update(frame=frame)
        if inferred:
            ev["inferred"] = True
        if isinstance(move, Call):
            ev["valid"] = not flags
        self.events.append(ev)
        for fl in flags:
            self.events.append({**fl.to_event(), "frame": frame, "evidence": evidence})
        for old, new in zip(tail, replayed, strict=True):
            was = {(f.rule, f.seat, f.card) for f in old.flags}
            for fl in new:  # what the replay newly flags (the card that lost the race)
                if (fl.rule, fl.seat, fl.card) not in was:
                    self.events.append({**fl.to_event(), "frame": old.frame,
                                        "frames": list(old.frames),
                                        "evidence": {**old.evidence, "why": why}})
            old.flags = new
        return True

    def _ace_under_misplaced(self, action: Action, t: float, frame: int,
                             evidence: dict[str, Any]) -> bool:
        """An Ace that shows on a pile once the card(s) that seemed to start it (flagged: a
        card cannot start a pile) are taken off: the Ace lay under them, covered at once.
        Put the Ace's move before the first of them, so they become misplacements on it."""
        table = self.table
        assert table is not None
        if not isinstance(action, Move) or not action.dst.startswith("lake:") or \
                action.card not in ALL_CODES or Card.parse(action.card).rank != 1:
            return False
        j = int(action.dst.split(":")[1])
        if j >= len(table.lake):
            return False
        pls = table.lake[j].placements
        if not pls or any(pl.counts for pl in pls):
            return False  # (only misplaced cards lie there: the Ace may be under them all)
        r = next((i for i in range(len(self.records))
                  if isinstance(self.records[i].action, Move)
                  and self.records[i].action.dst == action.dst), None)
        if r is None:
            return False
        left = self.seen_at.get((self._obs_place_of(action.src), action.card))
        if left is None or left >= self.records[r].t_ms:
            return False  # it left its place after that card landed: it lies on it
        fresh = self._rebuilt(self.records[:r])
        if fresh is None:
            return False
        when = max(fresh.now, self.records[r].t_ms - 1)
        if when > t:
            return False
        return self._insert_at(r, fresh, action, when, frame,
                               {**evidence, "why": f"{action.card} showed when "
                                                   f"{pls[0].card.code} left the pile"},
                               f"{action.card} lay under it")

    def _untie_for_take_back(self, code: str, seat: int, shown_t: float) -> bool:
        """``seat``'s card lies right under another seat's identical card that landed at
        the same instant (a tie), and shows again in its layout, settled there at
        ``shown_t`` after it landed (not its place's view from before it left, kept while
        the place shows no new face: a nertz pile's next card still face down): the one
        taken back is the one that does not count. Swap the two landings (the engine
        rebuilt) so that it can be retracted (from under later cards too)."""
        table = self.table
        assert table is not None
        for j, f in enumerate(table.lake):
            pls = f.placements
            if not any(top.card.code == code and under.card.code == code
                       and under.card.owner == seat and top.card.owner != seat
                       and abs(top.t_ms - under.t_ms) <= 300
                       and (not self.UNTIE_SHOWN_AFTER or shown_t > under.t_ms)
                       for under, top in zip(pls, pls[1:], strict=False)):
                continue
            found = [i for i, r in enumerate(self.records) if isinstance(r.action, Move)
                     and r.action.dst == f"lake:{j}" and r.action.card == code]
            if len(found) < 2:
                continue
            a, b = found[-2], found[-1]
            records = list(self.records)
            ta, tb = records[a].t_ms, records[b].t_ms  # (each keeps its slot's time)
            if self.UNTIE_LATER and ta == tb:
                tb += 1  # (taken back: it landed after the other, no tie to keep it there)
            records[a], records[b] = replace(records[b], t_ms=ta), replace(records[a], t_ms=tb)
            fresh = self._rebuilt(records)
            if fresh is None or fresh.lake[j].placements[-1].card.owner != seat and not any(
                    p.card.code == code and p.card.owner == seat and not p.counts
                    for p in fresh.lake[j].placements):
                continue  # (retractable: on top, or misplaced under later cards)
            self.records, self.table = records, fresh
            self.revision += 1
            return True
        return False

    #: a tie is undone for a take-back only when the card settled in its layout after
    #: it landed (see :meth:`_untie_for_take_back`)
    UNTIE_SHOWN_AFTER = True
    #: a card taken back that tied on top of another seat's identical card is timed a
    #: millisecond after it, so that the rules' ``tie_rule`` "both" does not keep it
    #: counting (:meth:`_untie_top_for_take_back`, and in the swap of
    #: :meth:`_untie_for_take_back`). `--seed 5` round 2, pounce: seat 0's 4S laid on
    #: seat 1's 4S in the same frame and taken back 2 s later stayed on the pile, and its
    #: later plays were never credited
    UNTIE_LATER = True

    def _untie_top_for_take_back(self, code: str, src: str, seat: int, shown_t: float
                                 ) -> bool:
        """See :attr:`UNTIE_LATER`: ``seat``'s ``code`` on top of lake pile ``src``, tied
        with another seat's identical card right under it, shows again in its layout
        (settled there at ``shown_t``, after it landed): it landed after the other one.
        Its landing is timed a millisecond later (the engine rebuilt); whether it was."""
        table = self.table
        assert table is not None
        if not self.UNTIE_LATER or not src.startswith("lake:"):
            return False
        j = int(src.split(":")[1])
        pls = table.lake[j].placements
        if len(pls) < 2:
            return False
        under, top = pls[-2], pls[-1]
        if top.card.code != code or under.card.code != code or top.card.owner != seat or \
                under.card.owner == seat or top.t_ms != under.t_ms or \
                self.UNTIE_SHOWN_AFTER and shown_t <= top.t_ms:
            return False
        i = next((i for i in range(len(self.records) - 1, -1, -1)
                  if isinstance(a := self.records[i].action, Move) and a.card == code
                  and a.dst == src and self._owner(a) == seat), None)
        if i is None:
            return False
        records = list(self.records)
        records[i] = replace(records[i], t_ms=records[i].t_ms + 1)
        fresh = self._rebuilt(records)
        if fresh is None or fresh.lake[j].placements[-1].card.owner != seat or \
                fresh.lake[j].placements[-1].counts:
            return False
        self.records, self.table = records, fresh
        self.revision += 1
        return True

    #: a card misplaced on the lake, recorded from its seat's nertz pile or waste, that is
    #: then taken back to one of the seat's columns went to that column first (lying there
    #: too briefly to settle) and on to the lake from it: the lake move's source becomes the
    #: column, after a move to it, so that the take-back is the legal one (tuned round 1:
    #: seat 0's nertz 3C, laid on its column and at once on the diamond pile, was taken back
    #: to the column; the take-back was refused, the 3C left on the pile)
    MISPLACED_VIA_COLUMN = True

    def _misplaced_via_column(self, code: str, dest: str, landed: float) -> bool:
        """See :attr:`MISPLACED_VIA_COLUMN`: ``code`` settled on column ``dest`` at
        ``landed``; whether the history was rewritten (the engine rebuilt) so that it is
        taken back there."""
        table = self.table
        place = Place.parse(dest)
        seat = place.seat
        if not self.MISPLACED_VIA_COLUMN or table is None or seat is None or \
                place.kind != "river":
            return False
        for j, f in enumerate(table.lake):
            pl = next((p for p in f.placements
                       if p.card.code == code and p.card.owner == seat), None)
            if pl is None or pl.counts or pl.seat != seat or pl.src == dest:
                continue
            origin = Place.parse(pl.src)
            if origin.seat != seat or origin.kind not in ("nertz", "waste"):
                continue
            r = next((i for i in range(len(self.records) - 1, -1, -1)
                      if isinstance(a := self.records[i].action, Move) and a.card == code
                      and a.dst == f"lake:{j}" and a.src == pl.src and a.n == 1
                      and not a.lost), None)
            if r is None or self.records[r].t_ms >= landed:
                continue
            rec = self.records[r]
            left = self.seen_at.get((self._obs_place_of(pl.src), code))
            t0 = int(left) if left is not None and left < rec.t_ms else rec.t_ms - 1
            if r > 0:
                t0 = max(t0, self.records[r - 1].t_ms)
            to_column = _Record(Move(seat, code, pl.src, dest), t0, rec.frame, rec.frames,
                                True, {"why": f"{code}, laid on the lake from {pl.src}, was "
                                              f"taken back to {dest}: it lay there first"})
            to_lake = replace(rec, action=Move(rec.action.seat, code, dest,  # type: ignore[union-attr]
                                               f"lake:{j}"))
            records = [*self.records[:r], to_column, to_lake, *self.records[r + 1:]]
            # (the move to the column legal, no other record newly flagged, the take-back
            # legal after)
            before = [*(x.flags for x in self.records[:r]), [],
                      *(x.flags for x in self.records[r:])]
            if self._rewrite_history(records, before,
                                     then=Retract(seat, code, f"lake:{j}", dest)):
                return True
        return False

    def _rebuilt(self, records: list[_Record]) -> Table | None:
        """A fresh engine from the deal hypothesis with ``records`` replayed, or None when
        they do not replay."""
        replayed = self._replayed(records)
        return None if replayed is None else replayed[0]

    #: a history rewritten (a hidden card put in) that no longer replays because a later
    #: waste play finds another hidden card on the waste's top (the seat's stock cycle
    #: shifted by one) replays with the two hidden cards exchanged in the deal hypothesis
    #: (neither named before that play: the same history, the waste's order as the camera
    #: saw it), as the live tracker does when a waste shows a card it did not expect
    #: (`--seed 4` round 7: seat 0's AD, drawn and laid at once under seat 2's 2D, could
    #: not be put in, as seat 0's later 2D from its waste then found another card on top;
    #: the diamond pile's 2D to 5D were each flagged "cannot start a pile")
    REPAIR_WASTE_ORDER = True

    def _replayed(self, records: list[_Record],
                  repair: list[dict[str, list[Any]]] | None = None
                  ) -> tuple[Table, list[list[Flag]]] | None:
        """:meth:`_rebuilt`, and the flags each record raises (none for the stock's
        actions: the camera cannot count a stock, so their rule checks are not evidence).
        ``repair``: a copy of the deal hypothesis to replay from, in which a waste play
        that finds another hidden card on top exchanges the two (see
        :attr:`REPAIR_WASTE_ORDER`)."""
        deals = self._deal_lists if repair is None else repair
        try:
            table = Table.from_deals([{"seat": k, **d} for k, d in enumerate(deals)],
                                     self.rules, self.round_no)
            flags = []
            for i, rec in enumerate(records):
                act = rec.action
                if repair is not None and isinstance(act, Move) and \
                        act.src.endswith(":waste"):
                    self._exchange_to_waste_top(table, repair, act, records[:i])
                raised = table.push(act, rec.t_ms)
                flags.append([] if isinstance(act, Draw | Recycle | Rotate) else raised)
        except (ImpossibleAction, OrderError, ValueError):
            return None
        return table, flags

    #: whether a move seen only in glimpses (a nertz top seen later on a column, a card
    #: glimpsed on a column on its way) is committed even when it breaks a rule, and so
    #: flagged. Off: such a move is committed only when legal (or, for the nertz top, when
    #: the camera shows it lying on the column's top as the engine has it): an illegal
    #: one mostly means the engine's column is out of step with the table, and its flag
    #: accused a player of nothing they did (real path, 5 rounds: flags 101 -> 73, all 7
    #: right ones kept, moves found 278 -> 272, mean score error 4.07 -> 3.67; oracle: one
    #: move and one flag fewer in 24 rounds)
    INFER_ILLEGAL = False
    #: how long after a card was last seen in its place the hand that took it is still over
    #: the place
    TAKE_MS = 700.0
    #: the arm over the place just as the card left it is the hand that took it
    GRAB_MS = 200.0
    GRAB_COVER = 0.5
    #: the owner's arm over the place in the :attr:`GRAB_MS` before its card's last
    #: sighting counts against another seat's grab only if no frame since showed the place
    #: clear of every arm (oracle round 3: seat 2's arm grazed its waste, two clear frames
    #: showed the 6C, then seat 4's arm came 0.88 over it and took it; real round 7: seat
    #: 0's arm over its nertz pile until seat 1's arm covered it too: seat 0's)
    GRAB_OWNER_CLEARED = True
    #: with no grab seen, another seat's arm near the place as the card left names the
    #: taker only if the owner's arm was not over the place in this long before its last
    #: sighting, every frame since showing an arm over it or the place under a hand
    #: (`--seed 9` round 9, 5 seats: seat 2's hand over its column, cut off from its arm
    #: in the motion mask, was given to seat 3, whose arm was nearest; seat 2's 2D and 3D
    #: were flagged as taken by seat 3); None: off
    OWNER_RECENT_MS: float | None = 1000.0

    def _mover(self, owner: int, src: str, code: str, t: float, dest: str = "",
               strict: bool = False) -> int:
        """Who took a card from ``owner``'s layout: the owner, unless only another seat's
        arm was over the source place between the card's last sighting there and its
        landing (a card taken from another seat's layout). A card moved within its
        owner's layout is the owner's move."""
        st = self.states.get(self._obs_place_of(src))
        if st is None or not src.startswith("seat") or dest.startswith(f"seat{owner}:"):
            return owner
        left = self.seen_at.get((self._obs_place_of(src), code))
        if left is None:
            return owner  # never seen there (a blind pile): no sign of when it left
        # the arms over it as the card left (not the owner's coming back after): one
        # other seat's arm well over it in the next frame or two after its last sighting
        # (not one that hovered while it still showed), with the owner's arm not there as
        # it showed last, took it; else any arm over it before it could have landed
        grab = set(self._arms_over(st.box, left + 1, min(t, left + self.GRAB_MS) + 1,
                                   least=self.GRAB_COVER))
        if len(grab) == 1 and owner not in grab and not self._owner_at_last_sight(
                owner, st.box, left):
            return grab.pop()  # (the owner's arm not over it just before either)
        if strict:
            return owner  # (only a grab as it left: no looser sign of another hand)
        seats = set(self._arms_over(st.box, left - 200, min(t + 1, left + self.TAKE_MS)))
        if owner in seats or len(seats) != 1:
            return owner
        if self.OWNER_RECENT_MS is not None and self._owner_at_last_sight(
                owner, st.box, left, self.OWNER_RECENT_MS, st.hidden_log):
            return owner
        return seats.pop()

    def _owner_at_last_sight(self, owner: int, box: Any, left: float,
                             within: float | None = None, hidden: list[float] | None = None
                             ) -> bool:
        """Whether the owner's arm was over ``box`` in the ``within`` ms (default
        :attr:`GRAB_MS`) up to its card's last sighting at ``left``, and
        (:attr:`GRAB_OWNER_CLEARED`) no frame after it showed the place clear of every
        arm (nor, given the times ``hidden`` its view was under a hand, uncovered)."""
        within = self.GRAB_MS if within is None else within
        was = self._arms_over(box, left - within, left + 1).get(owner)
        if was is None or not self.GRAB_OWNER_CLEARED:
            return was is not None
        armed = {t for t, b, _s in self._arm_log
                 if was < t <= left and _overlap(box, b) > self.cover_limit}
        armed.update(t for t in hidden or () if was < t <= left)
        return not any(was < t <= left and t not in armed for t in self._frame_log)

    def _via_column(self, seat: int, code: str, src: str, dest: str, t: float,
                    evidence: dict[str, Any]) -> str:
        """A card that stopped on one of its seat's river columns on the way (glimpsed
        there under the hand, gone before the column settled) made two moves: commit the
        first (marked inferred) and return the column as the second move's source."""
        if not src.startswith("seat") or self._kind(src) == "river" and src == dest:
            return src
        left = self.seen_at.get((self._obs_place_of(src), code))
        if left is None:
            return src
        best: tuple[float, str] | None = None
        for i in range(self.rules.river_columns):
            col = f"seat{seat}:river{i}"
            if col in (src, dest):
                continue
            seen = self.seen_at.get((col, code))
            st = self.states.get(col)
            if seen is None or not left < seen < t or t - seen > self.orphan_window_ms or \
                    st is None or st.stable is None or code in st.stable:
                continue
            if best is None or seen > best[0]:
                best = (seen, col)
        if best is None:
            return src
        seen, col = best
        via = Move(seat, code, src, col)
        if not self.INFER_ILLEGAL and self.table.is_legal(via) is not True:  # type: ignore[union-attr]
            return src  # a glimpse is no evidence for a breach
        if not self._commit(via, seen, self.frame, inferred=True,
                            evidence={"why": f"{code} glimpsed on {col} between leaving "
                                             f"{src} and landing on {dest}"}):
            return src
        evidence["via"] = col
        return col

    def _taken_card_replayed(self, place: str, st: _PlaceState) -> bool:
        """The pile's top is a card taken from another seat's layout (flagged, it does not
        count); it went away (the card under it showed) and came back: the taker returned
        it and its owner played it. Commit the take-back and the owner's move."""
        table = self.table
        assert table is not None
        j = self.lake_map.get(place)
        if j is None or j >= len(table.lake) or len(st.tops) < 3 or \
                len(table.lake[j].placements) < 2:
            return False
        top = table.lake[j].placements[-1]
        code, under = top.card.code, table.lake[j].placements[-2].card.code
        (was, _t0), (dip, t1), (now, t2) = st.tops[-3:]
        if top.counts or top.card.owner == top.seat or was != code or dip != under or \
                now != code or t1 <= top.t_ms:
            return False
        rec = next((r for r in reversed(self.records) if isinstance(r.action, Move)
                    and r.action.dst == f"lake:{j}" and r.action.card == code), None)
        if rec is None or not rec.action.src.startswith(f"seat{top.card.owner}:"):
            return False
        src, owner = rec.action.src, top.card.owner
        if top.seat not in self._arms_over(st.box, t1 - 1000, t1 + 1):
            return False  # the taker's arm did not take it away
        if any(not spot[3] for spot in self._free_spots(under, place)):
            return False  # (another card like the one under it may have been laid on it)
        why = {"why": f"{code}, taken from seat{owner}'s layout, left {place} and came back"}
        if not self._commit(Retract(top.seat, code, f"lake:{j}", src), t1, st.stable_frame,
                            inferred=True, evidence=why):
            return False
        self._commit(Move(owner, code, src, f"lake:{j}"), t2, st.stable_frame,
                     evidence=why)
        return True

    def _under_top(self, place: str) -> str | None:
        """The code of the engine's card under the top of a lake pile."""
        j = self.lake_map.get(place)
        table = self.table
        if j is None or table is None or j >= len(table.lake):
            return None
        pls = table.lake[j].placements
        return pls[-2].card.code if len(pls) >= 2 else None

    #: a lake card that landed unseen at any source, read with the card under it among
    #: the reader's alternatives, is dropped when the pile shows that card again: it was
    #: the under card misread (it never landed), and the misread is remembered
    DROP_UNSEEN_TOP = True
    #: how long before the top landed the card under it must have shown on the pile
    SHOWN_MS = 1000.0
    #: ... also when the read was sure, if the card landed legally: no one takes a card
    #: that counts back off the lake, so the card under it showing again means the top was
    #: a misread (real path, round 0: a JS pile read QS for 2 s, credited to a hidden QS
    #: of seat 0's waste; seat 1's QS, laid there 11 s later, was taken for the same card)
    DROP_UNSEEN_LEGAL_TOP = True

    def _drop_unseen_top(self, dest: str) -> bool:
        """The engine's top card of lake pile ``dest`` came from no place where the camera
        ever saw it (a seat's hidden cards), its read had the card under it as an
        alternative, and the pile shows that card again: it was a misread of the card under
        it. Its move is taken out of the history (the engine rebuilt, the later records'
        flags checked again) and the misread remembered: that read over that card counts
        only with a card seen leaving its place."""
        table = self.table
        if not self.DROP_UNSEEN_TOP or table is None:
            return False
        j = self.lake_map.get(dest)
        if j is None or j >= len(table.lake) or len(table.lake[j].placements) < 2:
            return False
        pls = table.lake[j].placements
        top, under = pls[-1].card.code, pls[-2].card.code
        r = next((i for i in range(len(self.records) - 1, -1, -1)
                  if isinstance(self.records[i].action, Move)
                  and self.records[i].action.dst == f"lake:{j}"
                  and self.records[i].action.card == top), None)
        if r is None:
            return False
        rec = self.records[r]
        src = rec.action.src  # type: ignore[union-attr]
        seen = self.seen_at.get((self._obs_place_of(src), top))
        # (last seen at its place long before it landed: its leaving is no sign it moved,
        # see STALE_GONE_MS)
        stale = seen is not None and self.STALE_GONE_MS is not None and \
            self._kind(src) in self.STALE_GONE_KINDS and seen < rec.t_ms - self.STALE_GONE_MS
        if seen is not None and seen <= rec.t_ms + 300 and not stale:
            return False  # seen at its source before it landed: a card that moved
        if under not in [a for a, _p in rec.evidence.get("reads", ())] and \
                not (self.DROP_UNSEEN_LEGAL_TOP and not rec.flags):
            return False
        if self.states[dest].shown.get(under, float("inf")) > rec.t_ms - self.SHOWN_MS:
            return False  # the card under it had not shown there for long before: it may
            # be a misread too (a card inferred from a first read of the same misread)
        records = self.records[:r] + self.records[r + 1:]
        if not self._rewrite_history(records, [x.flags for x in records]):
            return False  # the history without it breaks a rule it did not: it stays
        owner = self._owner(rec.action)  # type: ignore[arg-type]
        self._forget_unless_named(owner, top)
        self.misreads[dest] = (under, top)
        wst = self.states.get(src)
        if src.endswith(":waste") and wst is not None and wst.stable and not wst.covered:
            # the card is back on that waste in the rebuilt engine, over what it shows:
            # the seen fan goes on top again, in exchange for hidden cards
            self._resync_waste(owner, list(wst.stable))
        return True

    #: a lake pile seen empty and settled after a take-back, whose engine cards are all
    #: inferred under the card taken back, held none of them: those moves are taken out of
    #: the history (oracle round 23: an AD inferred under a 3D that started a pile; the 3D
    #: was taken back, the place showed empty, and the AD's own pile elsewhere was then
    #: credited to another seat's hidden AD)
    DROP_INFERRED_UNDER_TAKEN_BACK = True

    def _drop_inferred_under_taken_back(self) -> bool:
        """See :attr:`DROP_INFERRED_UNDER_TAKEN_BACK`."""
        table = self.table
        if not self.DROP_INFERRED_UNDER_TAKEN_BACK or table is None:
            return False
        for name, st in self.states.items():
            j = self.lake_map.get(name)
            if not name.startswith("lake:") or st.stable != () or st.covered or j is None \
                    or j >= len(table.lake) or not table.lake[j].placements:
                continue
            dst = f"lake:{j}"
            touching = [i for i, rec in enumerate(self.records)
                        if isinstance(rec.action, Move) and rec.action.dst == dst
                        or isinstance(rec.action, Retract) and rec.action.src == dst]
            if not touching or not isinstance(self.records[touching[-1]].action, Retract):
                continue  # (a take-back was the last thing seen there)
            codes = [pl.card.code for pl in table.lake[j].placements]
            drop = [i for i in touching if isinstance(self.records[i].action, Move)
                    and self.records[i].inferred
                    and self.records[i].action.card in codes]  # type: ignore[union-attr]
            if len(drop) != len(codes):
                continue  # a card seen landing there lies on it: the view is the odd one
            records = [rec for i, rec in enumerate(self.records) if i not in drop]
            gone = [self.records[i].action for i in drop]
            replayed = self._replayed(records)
            if replayed is None:
                continue
            # a card misplaced on it stays misplaced, if under another rule (a 3D on an AD
            # needs a 2; on nothing, an Ace)
            before = [new if old and new and {(f.seat, f.card) for f in new}
                      == {(f.seat, f.card) for f in old} else old
                      for old, new in zip([x.flags for x in records], replayed[1],
                                          strict=True)]
            if not self._rewrite_history(records, before):
                continue
            for move in gone:
                self._forget_unless_named(self._owner(move), move.card)  # type: ignore[arg-type, union-attr]
            return True
        return False

    def _forget_unless_named(self, owner: int, code: str) -> None:
        """``owner``'s ``code`` is no longer known nor named, unless a record still moves it
        (after it was taken out of, or renamed in, the history)."""
        if not any(isinstance(x.action, Move | Retract) and x.action.card == code
                   and self._owner(x.action) == owner for x in self.records):
            self.known.discard((owner, code))
            self.named.discard((owner, code))

    def _exchange_to_waste_top(self, table: Table, deals: list[dict[str, list[Any]]],
                               move: Move, earlier: list[_Record]) -> None:
        """Put ``move``'s card on its seat's waste top in ``table`` (replaying) and in
        ``deals`` when it lies hidden in that seat's stock or waste and the waste's top is
        another card that no record in ``earlier`` names (see :attr:`REPAIR_WASTE_ORDER`)."""
        layout = table.layouts[move.seat]
        if not layout.waste or layout.waste[-1].code == move.card:
            return
        top = layout.waste[-1].code
        named = {a.card for r in earlier if isinstance(a := r.action, Move | Retract | Unseen)
                 and a.seat == move.seat}
        stock = deals[move.seat]["stock"]
        if move.card in named or top in named or move.card not in stock or top not in stock:
            return
        want = next(((lst, i) for lst in (layout.waste, layout.stock)
                     for i, c in enumerate(lst) if c.code == move.card), None)
        if want is None:
            return
        want[0][want[1]], layout.waste[-1] = layout.waste[-1], want[0][want[1]]
        a, b = stock.index(top), stock.index(move.card)
        stock[a], stock[b] = move.card, top

    def _rewrite_history(self, records: list[_Record], before: list[list[Flag]],
                         then: Action | None = None) -> bool:
        """Make ``records`` the history: the engine rebuilt from the deal hypothesis with
        them replayed, each record's flags as the replay raises them. Refused (nothing
        changed) when they do not replay, a record breaks a rule it did not break before
        (``before``: each one's flags until now), or ``then`` would not be legal after."""
        replayed = self._replayed(records)
        repaired = None
        if replayed is None and self.REPAIR_WASTE_ORDER:
            repaired = self._saved_deal()
            replayed = self._replayed(records, repair=repaired)
        if replayed is None:
            return False
        fresh, flags = replayed
        if any({(f.rule, f.seat, f.card) for f in new} - {(f.rule, f.seat, f.card) for f in old}
               for new, old in zip(flags, before, strict=True)):
            return False
        if then is not None and fresh.is_legal(then) is not True:
            return False
        if repaired is not None:
            self._deal_lists = repaired
        for rec, new in zip(records, flags, strict=True):
            rec.flags = new
        self.records, self.table = records, fresh
        self.revision += 1
        return True

    #: a column's top card whose move there was flagged for breaking the column's order,
    #: covered by a card that builds on the card under it with one card between, was
    #: misread: it is that card (see :meth:`_recode_flagged_top`). False: off
    RECODE_FLAGGED_TOP = True

    def _recode_flagged_top(self, move: Move) -> bool:
        """``move`` lays a card on a column whose top card came by a move of the same seat
        from its waste or nertz pile flagged for the column's colour or rank, and the card
        would build on the card under that top with one card between (a 7S on 9S over a
        "10C"): the top was misread, and is renamed in the history to the card between
        (exchanged with it among the seat's hidden cards, one never named) when the
        history still replays with no new rule broken and ``move`` is then legal."""
        table = self.table
        if not self.RECODE_FLAGGED_TOP or table is None or move.card not in ALL_CODES:
            return False
        col = table.pile(move.dst)
        if len(col) < 2 or col[-2].code not in ALL_CODES:
            return False
        r = next((i for i in range(len(self.records) - 1, -1, -1)
                  if isinstance(self.records[i].action, Move)
                  and self.records[i].action.dst == move.dst), None)  # type: ignore[union-attr]
        if r is None:
            return False
        rec = self.records[r]
        top = rec.action
        assert isinstance(top, Move)
        owner = self._owner(top)
        if top.card != col[-1].code or top.n != 1 or owner != move.seat or \
                self._kind(top.src) not in ("waste", "nertz") or \
                not any(f.rule in ("river_colour", "river_rank") for f in rec.flags):
            return False
        card, under = Card.parse(move.card), col[-2]
        options = [Card(card.rank + 1, s).code for s in "CDHS"
                   if card.rank < 13 and Card(card.rank + 1, s).is_red != card.is_red]
        # (one the reader gave as an alternative to the top's read first)
        reads = [a for a, _p in rec.evidence.get("reads", ())]
        options.sort(key=lambda c: reads.index(c) if c in reads else len(reads))
        for new in options:
            if not _builds_down(new, under.code) or (owner, new) in self.named:
                continue
            records = list(self.records)
            records[r] = replace(rec, action=replace(top, card=new),
                                 evidence={**rec.evidence, "recoded_from": top.card})
            before = [x.flags for x in self.records]
            before[r] = []  # (the renamed move breaks nothing now)
            if self._rename_hidden([(owner, top.card, new)], records, before, move):
                return True
        return False

    #: a card seen leaving its seat's waste or nertz pile that lands on a lake pile where
    #: only its suit breaks the rules is its twin (the other suit of its colour) when the
    #: twin builds on the pile, the reader gave the twin as an alternative, and the camera
    #: read the pile's top as the top's twin since it landed (the suits of a colour
    #: confused at that spot): exchanged with the twin among the seat's hidden cards, one
    #: never named (`--seed 8` round 7: seat 0's waste 3C, read 3S there and on the club
    #: pile, whose 2C read 2S; the 3S was flagged and seat 0's real 3S, laid 13 s later,
    #: credited to seat 2). False: off
    TWIN_ON_CONFUSED_PILE = True

    def _twin_on_confused_pile(self, move: Move, dest: str, seen_src: str) -> Move | None:
        """``move`` renamed to its card's twin, the seat's hidden twin exchanged with the
        card, per :attr:`TWIN_ON_CONFUSED_PILE`; None when the rule does not apply."""
        table = self.table
        if not self.TWIN_ON_CONFUSED_PILE or table is None or move.n != 1 or \
                self._kind(move.src) not in ("waste", "nertz"):
            return None
        why = table.is_legal(move)
        twin = _twin(move.card)
        seat = self._owner(move)
        if why is True or why.rule != "foundation_suit" or twin is None or \
                (seat, twin) in self.named or not _fits(table, twin, move.dst):
            return None
        j = int(move.dst.split(":")[1])
        top = table.lake[j].placements[-1] if j < len(table.lake) else None
        if top is None or self.pile_twin_read.get(dest, -1.0) < top.t_ms:
            return None
        alts = [a for place in (dest, self._obs_place_of(seen_src))
                for a, p in self.reads.get((place, move.card), ()) if p > 0]
        if twin not in alts:
            return None
        renamed = replace(move, card=twin)
        records = list(self.records)
        if not self._rename_hidden([(seat, move.card, twin)], records,
                                   [r.flags for r in records], renamed):
            return None
        return renamed

    #: when a card seen leaving its place lands one rank above a lake pile of the other
    #: suit of its colour, and each of the pile's cards was read with that suit as the
    #: reader's alternative, the pile is taken for that suit (see :meth:`_recode_twin_pile`)
    RECODE_TWIN_PILE = True
    #: ... also a pile of one Ace read in a suit of the other colour, with the card's suit
    #: among its reads: an Ace's index shows one small pip, often read in any suit (new
    #: rounds, seed 3, round 1: seat 0's AD read AC, AD 0.29, the 2D on it flagged)
    ACE_PILE_ANY_SUIT = True
    #: ... also a pile whose Ace, read sure in the twin suit, has cards of the landing
    #: card's suit flagged on it, building in order up to it: the second card of that suit
    #: to build on the Ace confirms the pile's suit, and the Ace is renamed without the
    #: reader's alternative, exchanged with the seat's twin Ace when that one lies alone
    #: on another pile (`--seed 4` round 8: seat 3's AC read AS and its AS read AC on two
    #: piles; the 2C, 3C and 4C laid on the "AS" each flagged `foundation_suit`)
    TWIN_PILE_CONFIRMED = True
    #: ... and, before any card confirms the pile, exchanged with the seat's twin Ace alone
    #: on another pile when that Ace was read with this pile's Ace's code as the reader's
    #: alternative (`--seed 8` round 1: seat 0's AC read AS and credited to seat 2's AS,
    #: so seat 2's AS, read rightly on the next pile, was taken for its AC; every club and
    #: spade laid on the two piles after was flagged `foundation_suit`)
    TWIN_ACE_SWAP_READ = True
    #: ... and a lone Ace read in another suit, the landing card's suit among its reads,
    #: with cards of that suit flagged on it building in order from the 3 up to the landing
    #: card: the Ace is renamed (the run's cards then lack only the 2, which
    #: :meth:`_missing_under_misplaced` then finds) (`--seed 12` round 7: seat 2's AD read
    #: AS, AD 0.34 its next read, the 2D on it missed; the 3D to the 10D laid on it were
    #: each flagged "on a S pile")
    ACE_UNDER_GAPPED_RUN = True

    def _recode_twin_pile(self, move: Move) -> bool:
        """A card seen leaving its place lands one rank above lake pile ``move.dst`` whose
        cards are all of the other suit of its colour (a spade on a club pile), and the
        reader gave each of them that suit as its alternative (a camera that confuses the
        suits of a colour): the pile is of the card's suit. Each of its cards is renamed in
        the history, exchanged with its twin among its seat's hidden cards (a waste or a
        nertz pile's card, the twin never named), when the history still replays with no
        new rule broken and the card then lands legally."""
        table = self.table
        if not self.RECODE_TWIN_PILE or table is None or move.card not in ALL_CODES:
            return False
        j = int(move.dst.split(":")[1])
        if j >= len(table.lake):
            return False
        card = Card.parse(move.card)
        read_suit = _TWIN_SUIT.get(card.suit)  # (the suit the pile's cards were read in)
        pls = table.lake[j].placements
        if read_suit is not None and self.ACE_PILE_ANY_SUIT and len(pls) == 1 and \
                pls[0].counts and not pls[0].card.is_joker and \
                pls[0].card.suit not in (card.suit, read_suit):
            read_suit = pls[0].card.suit  # (a lone Ace read in a suit of the other colour)
        # (a pile confirmed: the cards flagged on its Ace build on it in order, in the
        # landing card's suit; see TWIN_PILE_CONFIRMED)
        confirmed = self.TWIN_PILE_CONFIRMED and len(pls) > 1 and pls[0].counts and \
            all(not pl.counts and pl.card.suit == card.suit and pl.card.rank == k + 1
                for k, pl in enumerate(pls) if k)
        # (a lone Ace with a run of the landing card's suit flagged on it from the 3 up:
        # see ACE_UNDER_GAPPED_RUN)
        gapped = self.ACE_UNDER_GAPPED_RUN and not confirmed and len(pls) > 1 and \
            pls[0].counts and pls[0].card.rank == 1 and card.suit is not None and \
            pls[0].card.suit not in (None, card.suit) and card.rank == len(pls) + 2 and \
            all(not pl.counts and pl.card.suit == card.suit and pl.card.rank == k + 2
                for k, pl in enumerate(pls) if k)
        if gapped:
            confirmed, read_suit = True, pls[0].card.suit
        if read_suit is None or not pls or pls[0].card.rank != 1 or \
                pls[-1].card.rank + 1 != card.rank or \
                pls[0].card.suit != read_suit or not confirmed and \
                any(not pl.counts or pl.card.suit != read_suit for pl in pls):
            return False
        idx = [i for i, r in enumerate(self.records)
               if isinstance(r.action, Move) and r.action.dst == move.dst]
        if len(idx) != len(pls):
            return False
        records = list(self.records)
        swaps: list[tuple[int, str, str]] = []
        drop: set[int] = set()  # Unseen records a renamed card now explains
        reorder: list[tuple[int, str, int, int]] = []  # nertz cards that now leave earlier
        alternatives = 0
        for i in idx:
            action = records[i].action
            assert isinstance(action, Move)
            old = action.card
            new = Card(Card.parse(old).rank, card.suit).code  # (the card's suit for the pile's)
            if new == old:
                continue  # (a card of the pile's true suit, flagged on its misread Ace)
            owner = self._owner(action)
            in_reads = new in [a for a, _p in records[i].evidence.get("reads", ())]
            read_so = in_reads or \
                self.TWIN_ACE_SWAP_READ and new in records[i].evidence.get("seen", ())
            if gapped and not in_reads:
                return False  # (the Ace's own reads must name the run's suit)
            alternatives += read_so
            if self._kind(action.src) not in ("waste", "nertz") and \
                    not self._dealt_source(i) or \
                    not (read_so or self.TWIN_PILE_ONE_ALTERNATIVE):
                return False
            left = self._lost_before(owner, new, i) if self.TWIN_PILE_LOST else None
            near = None if left is not None else self._unseen_twin_near(new, records[i], drop)
            if near is not None:  # (another seat's card, gone unseen as this one landed)
                k, gone = near
                drop.add(k)
                renamed = replace(action, seat=gone.seat, card=new, src=gone.src,
                                  lost=k < i)
                if k > i and self._kind(gone.src) == "nertz" and self.TWIN_PILE_NERTZ_ORDER:
                    reorder.append((gone.seat, new, i, k))
                records[i] = replace(records[i], action=renamed, evidence={
                    **records[i].evidence, "recoded_from": old,
                    "why": f"{new} left {gone.src} unseen as the pile's {old} landed"})
                continue
            column = None
            if (owner, new) in self.named and left is None:
                column = self._twin_gone_from_column(owner, new)
                if column is None and Card.parse(old).rank == 1 and \
                        (confirmed or self.TWIN_ACE_SWAP_READ):
                    k = self._twin_ace_swap(owner, new, move.dst, records,
                                            read_as=None if confirmed else old)
                    if k is not None:  # (the seat's two Aces of the colour, read swapped)
                        records[k] = replace(records[k], action=replace(
                            records[k].action, card=old), evidence={  # type: ignore[type-var]
                                **records[k].evidence, "recoded_from": new})
                        records[i] = replace(records[i], action=replace(action, card=new),
                                             evidence={**records[i].evidence,
                                                       "recoded_from": old})
                        swaps.append((owner, old, new))  # (their dealt places too)
                        continue
                if column is None:
                    return False
            if column is not None:  # (the seat's named twin, gone from its column top)
                renamed = replace(action, card=new, src=column)
            elif left is None:
                swaps.append((owner, old, new))
                renamed = replace(action, card=new)
            else:  # (the seat's lost card, back from where it left: see Move.lost)
                renamed = replace(action, card=new, src=left, lost=True)
            records[i] = replace(records[i], action=renamed,
                                 evidence={**records[i].evidence, "recoded_from": old})
        if not alternatives and not confirmed:
            return False
        before = [r.flags for r in self.records]
        saved = self._saved_deal()
        for seat, code, i, k in reorder:
            self._leave_nertz_earlier(seat, code, records[i + 1:k])
        if gapped:  # (the run's cards, flagged for their suit, are flagged for the gap now)
            before = [[*f, *(replace(x, rule="foundation_rank") for x in f
                             if x.rule == "foundation_suit")] if k in idx else f
                      for k, f in enumerate(before)]
        records = [r for k, r in enumerate(records) if k not in drop]
        before = [f for k, f in enumerate(before) if k not in drop]
        if self._rename_hidden(swaps, records, before, None if gapped else move):
            return True
        self._deal_lists = saved
        return False

    def _twin_ace_swap(self, seat: int, ace: str, pile: str, records: list[_Record],
                       read_as: str | None = None) -> int | None:
        """The record of ``seat``'s ``ace`` starting another lake pile than ``pile``,
        alone on it (its twin read as it there: the two Aces read swapped), or None. See
        :attr:`TWIN_PILE_CONFIRMED`. With ``read_as``, the record's reads must hold that
        code among the reader's alternatives (see :attr:`TWIN_ACE_SWAP_READ`)."""
        table = self.table
        assert table is not None
        hits = [k for k, r in enumerate(records)
                if isinstance(r.action, Move) and r.action.card == ace
                and self._owner(r.action) == seat and r.action.dst.startswith("lake:")
                and r.action.dst != pile]
        if len(hits) != 1 or read_as is not None and read_as not in [
                a for a, _p in records[hits[0]].evidence.get("reads", ())]:
            return None
        j = int(records[hits[0]].action.dst.split(":")[1])  # type: ignore[union-attr]
        pls = table.lake[j].placements if j < len(table.lake) else []
        if len(pls) != 1 or pls[0].card.code != ace or pls[0].seat != seat:
            return None
        return hits[0]

    def _leave_nertz_earlier(self, seat: int, code: str, between: list[_Record]) -> None:
        """In the deal hypothesis, lay ``seat``'s nertz card ``code`` above the cards that
        leave the seat's nertz pile in ``between`` (records now after its leaving, which
        were before it): it left the pile before them (round 8 of the real path: seat 2's
        2C, recorded gone unseen after its 4S left, was the club pile's 2C read 2S, laid
        before the 4S)."""
        nertz = self._deal_lists[seat]["nertz"]
        src = f"seat{seat}:nertz"
        gone = [r.action.card for r in between  # type: ignore[union-attr]
                if isinstance(r.action, Move | Unseen) and r.action.src == src
                and self._owner(r.action) == seat and r.action.card in nertz]
        if code not in nertz or not gone:
            return
        nertz.remove(code)
        nertz.insert(max(nertz.index(c) for c in gone) + 1, code)

    #: a pile card renamed to its twin is the twin some seat was recorded losing unseen
    #: within this long of its landing (and never named since) rather than a hidden card
    #: of the seat credited with the misread card (real path, round 1: seat 0's 3S left its
    #: nertz pile unseen as the spade pile, read in clubs, got a "3C" from seat 2's waste).
    #: None: off
    TWIN_PILE_UNSEEN_MS: float | None = 4000.0

    #: such a twin gone unseen from its seat's nertz pile after nertz cards that left it
    #: later than the landing is laid above them in the deal hypothesis, so it leaves first
    #: (:meth:`_leave_nertz_earlier`); False: the recode is refused then
    TWIN_PILE_NERTZ_ORDER = True

    def _unseen_twin_near(self, code: str, rec: _Record, taken: set[int]
                          ) -> tuple[int, Unseen] | None:
        """The record index and :class:`~rules.moves.Unseen` of ``code`` closest in time to
        ``rec``'s landing, within :attr:`TWIN_PILE_UNSEEN_MS`, whose seat's copy of the
        card no later record names; None when there is none."""
        if self.TWIN_PILE_UNSEEN_MS is None:
            return None
        best: tuple[float, int, Unseen] | None = None
        for k, other in enumerate(self.records):
            a = other.action
            if k in taken or not isinstance(a, Unseen) or a.card != code or \
                    abs(other.t_ms - rec.t_ms) > self.TWIN_PILE_UNSEEN_MS:
                continue
            if any(getattr(b.action, "card", None) == code and
                   self._owner(b.action) == a.seat  # type: ignore[arg-type]
                   for b in self.records[k + 1:]):
                continue  # (the card showed again since)
            gap = abs(other.t_ms - rec.t_ms)
            if best is None or gap < best[0]:
                best = (gap, k, a)
        return None if best is None else (best[1], best[2])

    #: a lake card read X that no seat lost, landing as X's twin (same rank, the other suit
    #: of its colour) was seen leaving a seat's place, is that twin: the camera confuses
    #: the suits of a colour alike on the pile and elsewhere; when the twin does not fit
    #: the pile as the engine has it, the pile is renamed (:meth:`_recode_twin_pile`; real
    #: path, round 8: the club pile read AS 2S, then 3S for 10 s while seat 1's 3C left
    #: its waste; the 3C was never credited and the 5C to QC laid on it were each flagged)
    TWIN_ARRIVAL = True
    #: :attr:`TWIN_ARRIVAL` also for a new pile, its Ace read as its twin (real path,
    #: ``--seed 5`` round 0: seat 1's waste AC, read AS on the new pile as the waste lost
    #: it, never moved; the pile's 2C and 3C were flagged)
    NEW_PILE_TWIN = True

    def _twin_arrival(self, dest: str, code: str, landed: float, st: _PlaceState) -> bool:
        """See :attr:`TWIN_ARRIVAL`: commit the twin's move (the pile renamed first when
        needed); whether it was."""
        table = self.table
        assert table is not None
        twin = _twin(code)
        j = self.lake_map.get(dest)
        if j is None and self.NEW_PILE_TWIN and dest not in self._deal_lake:
            j = len(table.lake)  # (a new pile: its first card read as its twin)
        elif j is not None and j >= len(table.lake):
            return False
        if twin is None or j is None:
            return False
        if self.READ_FITS_KEEPS_PILE and self._fits_pile(code, j) and \
                not self._fits_pile(twin, j) and not self._pile_read_in(j, twin[-1]):
            return False  # (the read builds on the pile; its twin would rename the pile)
        free = self._free_spots(twin, dest)
        pool = self._waste_candidates(twin, dest, free, landed)
        spots = []
        for spot in free + pool:
            seen = self.seen_at.get((self._obs_place_of(spot[0]), twin))
            if spot[3] or spot[1] != 1 or seen is None or \
                    not landed - self.pool_window_ms <= seen <= landed + 300 or \
                    spot in free and self._rank(spot, twin, landed, False)[1] != 3:
                continue
            spots.append(spot)
        if len(spots) != 1:
            return False  # (none, or two seats that lost one: no telling which)
        src, _n, seat, _r = spots[0]
        if spots[0] in pool and not (self._bring_to_nertz_top(seat, twin)
                                     if src.endswith(":nertz")
                                     else self._bring_to_waste_top(seat, twin)):
            return False
        action = Move(seat, twin, src, f"lake:{j}")
        if self.table.is_legal(action) is not True and not self._recode_twin_pile(action):
            return False
        self.misreads[dest] = (twin, code)
        if not self._commit(action, int(landed), st.stable_frame, evidence={
                "why": f"{dest} read {code}, which no seat lost, as {twin} left {src}",
                "from": src, "seen": [code]}):
            return False
        self.lake_map.setdefault(dest, j)
        return True

    #: a card read on a pile where it builds, that no seat was seen losing, is not taken
    #: for its twin leaving a seat when the twin would need the pile renamed to its suit
    #: and none of the pile's cards was read with that suit as a next read of at least
    #: :attr:`PILE_ALT_MIN`: the read itself fits the pile (`--seed 9` round 8: the heart
    #: pile, read AH to 5H, was renamed to diamonds when seat 2's 6H, read 6H, landed
    #: before its column showed it gone and was taken for seat 3's 6D; the 6H to 10H were
    #: each flagged "on a D pile")
    READ_FITS_KEEPS_PILE = True
    PILE_ALT_MIN = 0.1

    def _pile_read_in(self, j: int, suit: str) -> bool:
        """Whether a card of lake pile ``j`` was read with a card of ``suit`` as a next
        read of at least :attr:`PILE_ALT_MIN`."""
        return any(a[-1] == suit and p >= self.PILE_ALT_MIN
                   for r in self.records if isinstance(r.action, Move)
                   and r.action.dst == f"lake:{j}" for a, p in r.evidence.get("reads", ()))

    def _fits_pile(self, code: str, j: int) -> bool:
        """Whether ``code`` builds legally on lake pile ``j`` (starts it, if new)."""
        table = self.table
        if table is None or code not in ALL_CODES:
            return False
        card = Card.parse(code)
        if j >= len(table.lake) or table.lake[j].top is None:
            return card.rank == 1
        f = table.lake[j]
        return f.suit == card.suit and card.rank == f.next_rank

    #: :meth:`_recode_twin_pile` needs the twin suit among the reader's alternatives of
    #: one of the pile's cards, not of each (real path, round 1: the spade pile read AC
    #: 2C 3C, only the AC and 3C with the spade as an alternative; the 4S, 5S, 6S and 7S
    #: laid on it were each flagged and counted for nobody)
    TWIN_PILE_ONE_ALTERNATIVE = True
    #: a pile card whose twin the seat lost (recorded :class:`~rules.moves.Unseen` before
    #: it landed) is renamed to that lost card (``lost=True``) instead of refusing the
    #: recode (round 1: seat 2's 2S, left its column unseen, read 2C on the pile)
    TWIN_PILE_LOST = True

    #: a pile card whose twin the seat is known to hold on top of one of its columns, a
    #: column the camera has settled since without it, is renamed to that twin played from
    #: the column (real path, round 1: seat 2's 2S, read 2C on the spade pile as it left
    #: its column, which the tracker never saw go: the pile's 4S to 7S were each flagged)
    TWIN_PILE_COLUMN = True

    def _twin_gone_from_column(self, seat: int, code: str) -> str | None:
        """The river column of ``seat`` whose top the engine has as ``code`` while the
        camera's settled view of the column no longer shows it; else None."""
        table = self.table
        if not self.TWIN_PILE_COLUMN or table is None:
            return None
        try:
            where = table.where(code, seat)
        except ValueError:
            return None
        if where is None or where.kind != "river":
            return None
        pile = table.pile(where)
        st = self.states.get(str(where))
        if not pile or pile[-1].code != code or st is None or st.stable is None or \
                code in st.stable:
            return None
        return str(where)

    def _lost_before(self, seat: int, code: str, i: int) -> str | None:
        """The place ``code`` of ``seat`` left unseen when the history's last record
        naming it before record ``i`` is that :class:`~rules.moves.Unseen` and no later
        record names it; else None."""
        last = None
        for k, rec in enumerate(self.records):
            a = rec.action
            if getattr(a, "card", None) == code and self._owner(a) == seat:  # type: ignore[arg-type]
                if k > i:
                    return None
                last = a
        return last.src if isinstance(last, Unseen) else None

    #: a pile card played straight from the column it was dealt to may be renamed too (the
    #: deal misread it; its twin then lies on the column in the deal hypothesis; seed-3
    #: round 8: seat 0's dealt 2S read 2C, the spade pile read AC 2C, its 3S to 10S each
    #: flagged)
    TWIN_PILE_DEALT = True

    def _dealt_source(self, i: int) -> bool:
        """Whether record ``i`` moves a column's dealt card, the first record to touch
        the column."""
        action = self.records[i].action
        if not self.TWIN_PILE_DEALT or not isinstance(action, Move) or action.n != 1 or \
                self._kind(action.src) != "river":
            return False
        seat = self._owner(action)
        col = int(action.src.rsplit("river", 1)[1])
        return self._deal_lists[seat]["river"][col] == [action.card] and not any(
            action.src in (getattr(r.action, "src", None), getattr(r.action, "dst", None))
            for r in self.records[:i])

    #: two Aces of a colour read swapped (see :meth:`_twin_ace_swap`), one of them dealt to
    #: a column, are exchanged in the deal's columns too (`--seed 10` round 0: seat 1's AS,
    #: dealt to a column and read AC, then its AC from the waste taken for its AS: the club
    #: pile's 2C to JC each flagged "on a S pile")
    TWIN_DEALT_SWAP = True

    def _rename_hidden(self, swaps: list[tuple[int, str, str]], records: list[_Record],
                       before: list[list[Flag]], then: Action | None) -> bool:
        """Exchange each ``(seat, old, new)`` in the deal hypothesis (both among the
        seat's nertz and stock cards) and make ``records`` the history
        (:meth:`_rewrite_history`, ``then`` legal after); ``new`` is then named. Nothing
        changes when refused."""
        saved = self._saved_deal()
        for owner, old, new in swaps:
            deal = self._deal_lists[owner]
            spots = [(lst, i) for lst in (deal["nertz"], deal["stock"])
                     for i, c in enumerate(lst) if c in (old, new)]
            # (a dealt column card renamed: see TWIN_PILE_DEALT)
            spots += [(lst, i) for lst in deal["river"] for i, c in enumerate(lst) if c == old]
            if len(spots) == 1 and self.TWIN_DEALT_SWAP:
                # (two cards read swapped, one of them dealt to a column as ``new``)
                spots += [(lst, i) for lst in deal["river"] for i, c in enumerate(lst)
                          if c == new]
            if len(spots) != 2:
                self._deal_lists = saved
                return False
            (la, ia), (lb, ib) = spots
            la[ia], lb[ib] = lb[ib], la[ia]
        if not self._rewrite_history(records, before, then=then):
            self._deal_lists = saved
            return False
        for owner, old, new in swaps:
            self._forget_unless_named(owner, old)
            self.named.add((owner, new))
            self.known.add((owner, new))
        return True

    #: a pile whose first card is no Ace and that grows legally on it had its Ace laid
    #: first, unseen: the Ace of its suit last seen on a seat's waste top just before (and
    #: hidden there since by a draw the tracker inferred) is moved there first
    ACE_FROM_WASTE = True

    def _ace_under_unstarted_pile(self, action: Move) -> Move | None:
        """``action`` builds legally on lake pile ``action.dst`` whose cards are all
        flagged (its first card is no Ace, the rest build on it in suit): the pile's Ace
        went there first, unseen. The Ace of that suit that a seat's waste showed on top
        within :attr:`pool_window_ms` before the pile's first card landed, and that the
        engine holds since in that waste (under draws), is moved from the waste to a new
        pile right after it was last seen there; the pile's cards then build on it (the
        piles made in between renumbered). Returns ``action`` renumbered, or None."""
        table = self.table
        if not self.ACE_FROM_WASTE or table is None or action.card not in ALL_CODES:
            return None
        j = int(action.dst.split(":")[1])
        if j >= len(table.lake):
            return None
        pls = table.lake[j].placements
        card = Card.parse(action.card)
        first = pls[0].card if pls else None
        if first is None or first.rank <= 1 or any(pl.counts for pl in pls) or \
                any(pl.card.suit != card.suit or pl.card.rank != first.rank + i
                    for i, pl in enumerate(pls)) or card.rank != first.rank + len(pls):
            return None
        r_first = next((i for i, r in enumerate(self.records) if isinstance(r.action, Move)
                        and r.action.dst == action.dst), None)
        if r_first is None:
            return None
        landed = self.records[r_first].t_ms
        ace = Card(1, card.suit).code
        for seat in range(self.seats):
            wname = f"seat{seat}:waste"
            seen = self.seen_at.get((wname, ace))
            where = table.where(ace, seat)
            if seen is None or not landed - self.pool_window_ms <= seen <= landed or \
                    where is None or where.kind != "waste" or (seat, ace) in self.named:
                continue
            ri = next((i for i, r in enumerate(self.records) if r.t_ms > seen), None)
            if ri is None or ri > r_first:
                continue
            before = self._rebuilt(self.records[:ri])
            if before is None:
                continue
            k = len(before.lake)

            def renumber(name: str, k: int = k) -> str:
                if not name.startswith("lake:"):
                    return name
                i = int(name.split(":")[1])
                return f"lake:{k if i == j else i + 1 if k <= i < j else i}"

            moved = Move(seat, ace, wname, f"lake:{k}")
            records = list(self.records[:ri])
            frame = self.records[ri].frame
            records.append(_Record(moved, max(before.now, int(seen) + 1), frame,
                                   (frame, frame), True,
                                   {"why": f"{first.code} started lake:{k} and {action.card} "
                                           f"built on it: its Ace, last seen on {wname}, "
                                           f"lay under it"}, None, []))
            for rec in self.records[ri:]:
                a = rec.action
                if isinstance(a, Move | Retract):
                    a = replace(a, src=renumber(a.src), dst=renumber(a.dst))
                records.append(replace(rec, action=a))
            flags = [r.flags for r in self.records[:ri]] + [[]] + \
                [r.flags for r in self.records[ri:]]
            then = replace(action, dst=renumber(action.dst))
            if not self._rewrite_history(records, flags, then=then):
                continue
            self.lake_map = {name: int(renumber(f"lake:{i}").split(":")[1])
                             for name, i in self.lake_map.items()}
            self.named.add((seat, ace))
            self.known.add((seat, ace))
            return then
        return None

    #: a card seen slid under a column's base is taken only when it may lie there: a
    #: column that shows an extra strip under its lowest card that may not lie there (not
    #: one rank up in the other colour) agrees with the engine's column: the strip is a
    #: misread (real path, round 7: "8D under QH", "JD under 9D", each an accusation of
    #: nothing that happened)
    LEGAL_SLIDE_UNDER = True

    #: a lake card is taken back only by a view of its layout place that settled after it
    #: landed, or that has shown the card since: a place whose settled view is still the
    #: one from before the card left, not seen showing it since (covered, or its new read
    #: held back), shows no take-back (real path round 7: seat 2's waste, its new read held
    #: back as its 2C left, kept its old view; the 2C was taken back and played again
    #: three times)
    RETRACT_SHOWN_AFTER = True

    #: a pile with one card missing under cards flagged for its lack, the next of them
    #: landing on them: the missing card went there first, unseen (see
    #: :meth:`_missing_under_misplaced`)
    MISSING_UNDER_RUN = True

    def _missing_under_misplaced(self, action: Move) -> bool:
        """``action`` lands on lake pile ``action.dst`` illegally, but builds in suit on
        the pile's cards that do not count, which run on from one rank above its counting
        top (or from a 2 on a pile with none: the Ace is missing). Players build only on
        what counts, so the one card missing went there first, unseen: a hidden card of a
        seat, played from its waste (the waste's hidden top then exchanged with it in the
        deal hypothesis, or already it; a draw first onto an empty waste), put before the
        first of those cards in the
        history, when the history then replays with no new rule broken and ``action``
        lands legally. Seats are tried from the one whose waste showed the missing card
        last, then the one that laid the first of them."""
        above = self._uncounted_on(action) if self.MISSING_UNDER_RUN else None
        if above is None:
            return False
        loose, top = above
        card = Card.parse(action.card)
        base = top.rank if top is not None else 0
        if card.is_joker or not loose or (top is not None and top.suit != card.suit):
            return False
        want, seen = base + 2, set()
        for pl in loose:  # (a card repeated, misplaced on its like, is passed over)
            if not pl.card.is_joker and pl.card.suit == card.suit and pl.card.rank == want:
                want += 1
            elif pl.card.code not in seen:
                return False
            seen.add(pl.card.code)
        first = loose[0].card
        if card.rank != want or want == base + 2 or first.rank != base + 2 or \
                first.suit != card.suit:
            return False
        missing = Card(base + 1, card.suit).code
        r = next((i for i, x in enumerate(self.records) if isinstance(x.action, Move)
                  and x.action.dst == action.dst and x.action.card == first.code), None)
        if r is None:
            return False
        fresh = self._rebuilt(self.records[:r])
        if fresh is None:
            return False
        # (a seat whose waste showed the missing card first, latest sighting first; then
        # the seat that laid the first of the cards on it)
        shown = {k: self.seen_at.get((f"seat{k}:waste", missing), -1.0)
                 for k in range(self.seats)}
        seats = sorted(range(self.seats), key=lambda k: (-shown[k], k != loose[0].seat))
        for k in seats:
            saved = self._saved_deal()
            added = self._waste_play(fresh, k, missing, action.dst, self.records[r],
                                     f"{action.card} built on {first.code}, which lay on the "
                                     f"pile without {missing}: {missing} went there first, "
                                     f"unseen (seat{k}'s hidden card)")
            if added is None:
                self._deal_lists = saved
                continue
            records = [*self.records[:r], *added, *self.records[r:]]
            before = [*(x.flags for x in self.records[:r]), *([] for _ in added),
                      *(x.flags for x in self.records[r:])]
            if not self._rewrite_history(records, before, then=action):
                self._deal_lists = saved
                continue
            self.known.add((k, missing))
            self.named.add((k, missing))
            return True
        if self.MISSING_TAKEN_BACK:
            back = self._taken_back_and_replayed(self.records, r, missing, action.dst, action)
            before = [*(x.flags for x in self.records[:r]), [], [],
                      *(x.flags for x in self.records[r:])]
            if back is not None and self._rewrite_history(
                    [*self.records[:r], *back, *self.records[r:]], before, then=action):
                return True
        if self.MISSING_FROM_TWIN_NERTZ and self._missing_from_twin_nertz(action, missing, r):
            return True
        return self.MISSING_FROM_HIDDEN and self._missing_from_hidden(action, missing, r, fresh)

    #: a card missing under a pile's run that lies lower on the same pile, flagged (it
    #: does not count), was taken back by its seat and laid again later, unseen both
    #: times (`--seed 9` round 1: seat 2's 6D laid on the 4D, taken back as the 5D came
    #: and laid again on it; the 8D to the KD were each flagged "needs rank 6")
    MISSING_TAKEN_BACK = True

    def _taken_back_and_replayed(self, records: list[_Record], hi: int, code: str, dst: str,
                                 action: Move) -> list[_Record] | None:
        """See :attr:`MISSING_TAKEN_BACK`: the take-back of ``code`` from lake pile
        ``dst`` and its move there again, both just before ``records[hi]``, or None when
        the pile holds no flagged ``code`` laid before that."""
        i = next((i for i in range(hi - 1, -1, -1)
                  if isinstance(x := records[i].action, Move) and x.dst == dst
                  and x.card == code and records[i].flags), None)
        if i is None:
            return None
        laid = records[i].action
        assert isinstance(laid, Move)
        if laid.n != 1 or laid.hidden or laid.lost:
            return None
        owner = self._owner(laid)
        nxt = records[hi]
        t = max(nxt.t_ms - 1, records[hi - 1].t_ms if hi > 0 else 0)
        why = (f"{action.card} built on the pile's run, which lay there without {code}: "
               f"seat{owner}'s {code}, flagged lower on the pile, was taken back and laid "
               f"again, unseen")
        return [_Record(Retract(owner, code, dst, laid.src), t, nxt.frame, nxt.frames, True,
                        {"why": why}, None, []),
                _Record(Move(owner, code, laid.src, dst), t, nxt.frame, nxt.frames, True,
                        {"why": why}, None, [])]

    #: ... else, when no seat's waste can have held it, the missing card was the nertz top
    #: of a seat read as the missing card's twin, which the camera saw give way to another
    #: top before the run's first card landed while the engine still holds it (`--seed 9`
    #: round 1: seat 2's nertz 5C, read 5S, went to the club pile unseen; the 6C to the
    #: KC were each flagged, the pile's counting top stuck at 4C, then at an inferred 5C)
    MISSING_FROM_TWIN_NERTZ = True

    def _missing_from_twin_nertz(self, action: Move, missing: str, r: int) -> bool:
        """See :attr:`MISSING_FROM_TWIN_NERTZ`: put ``missing``, played from a seat's
        nertz pile whose engine top is its twin, before record ``r`` (the first card of the
        pile's run), the two exchanged in the deal hypothesis. Whether the history was
        rewritten so."""
        table = self.table
        twin = _twin(missing)
        assert table is not None
        if twin is None:
            return False
        first = self.records[r]
        for k in range(self.seats):
            name = f"seat{k}:nertz"
            st = self.states.get(name)
            nertz = table.layouts[k].nertz
            if st is None or not nertz or nertz[-1].code != twin or \
                    (k, twin) not in self.nertz_tops or \
                    (k, missing) in self.named or (k, missing) in self.known:
                continue
            # (the pile settled on the twin, then on another top before the run's first
            # card landed: the real twin may show again later, from under it)
            gone = next((tb for (a, _ta), (b, tb) in zip(st.tops, st.tops[1:], strict=False)
                         if a == twin and b not in (None, twin) and tb <= first.t_ms), None)
            deal = self._deal_lists[k]["nertz"]
            if gone is None or missing not in deal or twin not in deal or \
                    not any(c.code == missing for c in nertz[:-1]):
                continue
            saved = self._saved_deal()
            a, b = deal.index(twin), deal.index(missing)
            deal[a], deal[b] = missing, twin
            t = max(int(gone) - 1, self.records[r - 1].t_ms if r > 0 else 0)
            added = _Record(Move(k, missing, name, action.dst), t, first.frame, first.frames,
                            True, {"why": f"{action.card} built on {first.action.card}, "  # type: ignore[union-attr]
                                          f"which lay on the pile without {missing}: "
                                          f"seat{k}'s nertz top, read {twin}, went "
                                          f"there first, unseen"}, None, [])
            records = [*self.records[:r], added, *self.records[r:]]
            before = [*(x.flags for x in self.records[:r]), [],
                      *(x.flags for x in self.records[r:])]
            if not self._rewrite_history(records, before, then=action):
                self._deal_lists = saved
                continue
            self.known.add((k, missing))
            self.named.add((k, missing))
            self.nertz_tops.discard((k, twin))
            self.known.discard((k, twin))
            return True
        return False

    #: ... and when no seat's nertz top either, a seat's hidden card went there unseen
    #: (:class:`~rules.moves.Move` ``hidden``): from the seat whose waste showed it last,
    #: else the seat that laid the run's first card, else any, from its stock or waste
    #: first, its nertz pile last (`--seed 10` round 9: a diamond pile's 7D never seen
    #: landing, its 8D, 9D and 10D each flagged "needs rank 7")
    MISSING_FROM_HIDDEN = True

    def _missing_from_hidden(self, action: Move, missing: str, r: int, fresh: Table) -> bool:
        """See :attr:`MISSING_FROM_HIDDEN`: put ``missing`` before record ``r`` as a hidden
        card of a seat that ``fresh`` (the engine before ``r``) holds unseen and unnamed.
        Whether the history was rewritten so."""
        first = self.records[r]
        laid = first.action.seat if isinstance(first.action, Move) else -1
        before = [*(x.flags for x in self.records[:r]), [],
                  *(x.flags for x in self.records[r:])]
        for k, kind, exchange in self._hidden_spots(fresh, missing, laid):
            saved = self._saved_deal()
            added = self._hidden_play(k, kind, exchange, missing, action, self.records, r)
            if self._rewrite_history([*self.records[:r], added, *self.records[r:]], before,
                                     then=action):
                self.known.add((k, missing))
                self.named.add((k, missing))
                return True
            self._deal_lists = saved
        return False

    def _hidden_spots(self, fresh: Table, code: str, laid: int
                      ) -> list[tuple[int, str, tuple[str, str] | None]]:
        """Where seats hold ``code`` unseen and unnamed in engine ``fresh``: (seat, place
        kind, exchange), the seat whose waste showed it last first, then ``laid`` (the
        seat that laid the run on it), then the rest; a stock or a waste under its top
        before a nertz pile under its top, whose placeholder is first tried in the stock,
        exchanged there with an unnamed card (``exchange``: (code, that card))."""
        shown = {k: self.seen_at.get((f"seat{k}:waste", code), -1.0)
                 for k in range(self.seats)}
        spots: list[tuple[int, int, str]] = []
        for k in range(self.seats):
            if (k, code) in self.named or (k, code) in self.known:
                continue
            lay = fresh.layouts[k]
            for rank, kind, pile in ((0, "stock", lay.stock), (0, "waste", lay.waste[:-1]),
                                     (1, "nertz", lay.nertz[:-1])):
                if any(c.code == code for c in pile):
                    spots.append((rank, k, kind))
        spots.sort(key=lambda x: (x[0], -shown[x[1]], x[1] != laid, x[1]))
        tries: list[tuple[int, str, tuple[str, str] | None]] = []
        for _rank, k, kind in spots:
            if kind == "nertz":  # (a placeholder there is as likely any hidden card)
                deal = self._deal_lists[k]
                spare = next((c for c in reversed(deal["stock"])
                              if (k, c) not in self.named and (k, c) not in self.known), None)
                if spare is not None and code in deal["nertz"]:
                    tries.append((k, "stock", (code, spare)))
            tries.append((k, kind, None))
        return tries

    def _hidden_play(self, seat: int, kind: str, exchange: tuple[str, str] | None,
                     code: str, action: Move, records: list[_Record], r: int) -> _Record:
        """The record of ``seat``'s hidden ``code`` going to ``action.dst`` unseen just
        before ``records[r]`` (the deal hypothesis changed for ``exchange``: the caller
        restores it when refused)."""
        if exchange is not None:
            deal = self._deal_lists[seat]
            a, b = deal["nertz"].index(exchange[0]), deal["stock"].index(exchange[1])
            deal["nertz"][a], deal["stock"][b] = exchange[1], exchange[0]
        nxt = records[r]
        t = max(nxt.t_ms - 1, records[r - 1].t_ms if r > 0 else 0)
        return _Record(Move(seat, code, f"seat{seat}:{kind}", action.dst, hidden=True), t,
                       nxt.frame, nxt.frames, True,
                       {"why": f"{action.card} built on the pile's run, which lay there "
                               f"without {code}: {code} went there first, unseen, from "
                               f"seat{seat}'s {kind}"}, None, [])

    def _saved_deal(self) -> list[dict[str, list[Any]]]:
        """A copy of the deal hypothesis to restore when a change to it is refused."""
        return [{key: list(v) for key, v in d.items()} for d in self._deal_lists]

    def _waste_play(self, fresh: Table, seat: int, code: str, dst: str, rec: _Record,
                    why: str) -> list[_Record] | None:
        """The records that play ``seat``'s hidden ``code`` from its waste to ``dst`` in
        engine state ``fresh``, just before record ``rec``: the card the waste showed then
        (its top, or on an empty waste the top of the cards a draw turns, that draw then
        recorded first) exchanged with it in the deal hypothesis, changed in place (the
        caller restores it when refused). None when the seat holds ``code`` nowhere hidden
        in its stock or waste, or that card cannot be exchanged (named, or seen)."""
        where = fresh.where(code, seat)
        layout = fresh.layouts[seat]
        hidden_nertz = self._hidden_in_nertz(fresh, seat, code)
        if where is None or not (where.kind in ("stock", "waste") or hidden_nertz) or \
                (seat, code) in self.named or not (layout.waste or layout.stock):
            return None
        drawn = not layout.waste
        top = (layout.stock[min(self.rules.draw, len(layout.stock)) - 1] if drawn
               else layout.waste[-1]).code
        stock = self._deal_lists[seat]["stock"]
        home = self._deal_lists[seat]["nertz"] if hidden_nertz else stock
        if top != code:
            if (seat, top) in self.named or (seat, top) in self.known or \
                    top not in stock or code not in home:
                return None
            a, b = stock.index(top), home.index(code)
            stock[a], home[b] = code, top
        t = max(fresh.now, rec.t_ms - 1)
        added = [_Record(Draw(seat), t, rec.frame, rec.frames, True, {}, None, [])] \
            if drawn else []
        added.append(_Record(Move(seat, code, f"seat{seat}:waste", dst), t, rec.frame,
                             rec.frames, True, {"why": why}, None, []))
        return added

    #: a lake pile's cards that do not count, running on in suit from above its counting
    #: top (repeats passed over), built on by at least this many cards in a row (the card
    #: landing included): the cards missing under that run went there unseen (see
    #: :meth:`_unseen_base_under_run`; real path round 14: a heart pile and a spade pile
    #: started before the deal was read, 15 of their cards flagged "cannot start a
    #: pile"); None: off
    UNSEEN_BASE_RUN: int | None = 3
    #: the missing cards under such a run, when the history does not replay with one
    #: played from the waste of the seat tried first (that seat's later draws then turn
    #: other cards), come from the next seat's waste that can hold it, and so on (real
    #: path, `--seed 4` round 3: an A♣ tried on the waste of seat 2, which misread one
    #: as it, refused; seat 3's, where it was, never tried)
    UNSEEN_BASE_OTHER_SEATS = True

    def _unseen_base_under_run(self, action: Move) -> bool:
        """``action`` lands on lake pile ``action.dst`` illegally, but continues a run of
        :attr:`UNSEEN_BASE_RUN` or more cards, with it, of the pile's cards that do not
        count: one suit in rank order from above the pile's counting top, flagged only
        because the cards under them were never seen (an Ace, or more, covered at once;
        a pile started before the deal was read). Players build only on what counts, so
        those cards went there first. Each missing card, lowest first, is:

        - a card the pile holds below the run with its code (flagged for the lack of the
          cards under it, it now counts);
        - else a seat's card recorded as gone unseen while the pile was there and before
          the run (that record made its move to the pile);
        - else a hidden card of a seat, played from its waste at the latest moment
          between its neighbours in rank where that waste's top can be exchanged for it
          (see :meth:`_waste_spot`): the seat whose waste showed it last first, then the
          seat that laid the run's first card.

        Made so when the history then replays with no new rule broken and ``action``
        lands legally."""
        need = self.UNSEEN_BASE_RUN
        above = self._uncounted_on(action) if need is not None else None
        if above is None:
            return False
        loose, top = above
        card = Card.parse(action.card)
        if card.is_joker or (top is not None and top.suit != card.suit):
            return False
        base = top.rank if top is not None else 0
        run: list[Any] = []
        want = card.rank - 1
        for pl in reversed(loose):
            c = pl.card
            if not c.is_joker and c.suit == card.suit and c.rank == want and want > base:
                run.append(pl)
                want -= 1
            elif not (c.code == card.code or any(c.code == x.card.code for x in run)):
                break  # (a card repeated, misplaced on its like, is passed over)
        if len(run) + 1 < need or want <= base:
            return False
        dst, first = action.dst, run[-1]
        on_pile = [i for i, x in enumerate(self.records)
                   if isinstance(x.action, Move) and x.action.dst == dst]
        r_first = next((i for i in on_pile if self.records[i].action.card == first.card.code
                        and self.records[i].action.seat == first.seat), None)
        if r_first is None:
            return False
        missing = [Card(rank, card.suit).code for rank in range(base + 1, want + 1)]
        records = list(self.records)
        before = [x.flags for x in records]
        # each missing card's own record: the pile's, below the run, or a card gone unseen;
        # all after the pile's counting top landed
        anchors: dict[str, _Record] = {}
        pos = on_pile[0] if top is None else 1 + max(
            (i for i in on_pile if i < r_first and records[i].action.card == top.code),
            default=on_pile[0])
        start = pos
        for code in missing:
            i = next((i for i in range(pos, r_first)
                      if getattr(records[i].action, "card", None) == code and (
                          i in on_pile or isinstance(records[i].action, Unseen))), None)
            if i is None:
                continue
            rec = records[i]
            if isinstance(rec.action, Unseen):
                rec = records[i] = replace(rec, action=Move(
                    rec.action.seat, code, rec.action.src, dst), evidence={
                    **rec.evidence, "why": f"{action.card} built on {first.card.code} and "
                                           f"the run under it: {code}, gone unseen, went "
                                           f"there"})
            anchors[code], pos = rec, i + 1
        saved = self._saved_deal()
        j = int(dst.split(":")[1])
        first_lo = start
        if base == 0 and missing[0] not in anchors:
            # (the Ace may have started the pile any time after the pile before it was)
            first_lo = 1 + max((i for i, x in enumerate(records[:start])
                                if isinstance(x.action, Move)
                                and x.action.dst == f"lake:{j - 1}"), default=-1)
        refused: set[tuple[int, str]] = set()
        base_records, base_before = records, before
        for _try in range(self.seats if self.UNSEEN_BASE_OTHER_SEATS else 1):
            records, before = list(base_records), list(base_before)
            named: list[tuple[int, str]] = []
            lo = first_lo
            for n, code in enumerate(missing):
                if code in anchors:
                    lo = next(i for i, x in enumerate(records) if x is anchors[code]) + 1
                    continue
                nxt = next((anchors[c] for c in missing[n + 1:] if c in anchors),
                           self.records[r_first])
                hi = next(i for i, x in enumerate(records) if x is nxt)
                shown = {k: self.seen_at.get((f"seat{k}:waste", code), -1.0)
                         for k in range(self.seats)}
                order = sorted((k for k in range(self.seats) if (k, code) not in refused),
                               key=lambda k: (-shown[k], k != first.seat))
                spot = self._waste_spot(records, lo, hi, code, order)
                fresh = self._rebuilt(records[:spot[0]]) if spot is not None else None
                added = None if fresh is None or spot is None else self._waste_play(
                    fresh, spot[1], code, dst, records[spot[0]],
                    f"{action.card} built on {first.card.code} and the run under it, which "
                    f"lay on the pile without {code}: {code} went there first, unseen "
                    f"(seat{spot[1]}'s hidden card)")
                if (spot is None or added is None) and self.MISSING_TAKEN_BACK:
                    back = self._taken_back_and_replayed(records, hi, code, dst, action)
                    if back is not None:
                        added, spot = back, (hi, back[0].action.seat)
                if (spot is None or added is None) and self.MISSING_FROM_HIDDEN:
                    # (no waste can have held it: a seat's hidden card, see
                    # MISSING_FROM_HIDDEN; the first place that holds it)
                    fresh = self._rebuilt(records[:hi])
                    tries = [] if fresh is None else [
                        x for x in self._hidden_spots(fresh, code, first.seat)
                        if (x[0], code) not in refused]
                    if tries:
                        k, kind, exchange = tries[0]
                        added = [self._hidden_play(k, kind, exchange, code, action, records,
                                                   hi)]
                        spot = (hi, k)
                if spot is None or added is None:
                    self._deal_lists = saved
                    return False
                i = spot[0]
                records[i:i] = added
                before[i:i] = [[] for _ in added]
                named.append((spot[1], code))
                lo = i + len(added)
            if self._rewrite_history(records, before, then=action):
                self.known.update(named)
                self.named.update(named)
                return True
            # (that seat's later draws no longer replay: another seat's waste, if any)
            self._deal_lists = [{key: list(v) for key, v in d.items()} for d in saved]
            refused.update(named)
        self._deal_lists = saved
        return False

    def _waste_spot(self, records: list[_Record], lo: int, hi: int, code: str,
                    seats: list[int]) -> tuple[int, int] | None:
        """Where in history ``records`` a seat can have played its hidden ``code`` from
        its waste: the latest index in ``lo``..``hi`` (before that record) at which the
        seat's waste top (on an empty waste, the top of the cards a draw turns) is
        ``code`` or a card never named nor seen that can be exchanged for it, while
        ``code`` lies hidden in its stock or waste; the first of ``seats`` that has one.
        None when none has."""
        try:
            table = Table.from_deals([{"seat": k, **d} for k, d in enumerate(self._deal_lists)],
                                     self.rules, self.round_no)
            best: dict[int, int] = {}
            for i, rec in enumerate(records[:hi + 1]):
                if i >= lo:
                    for k in seats:
                        if self._waste_swappable(table, k, code):
                            best[k] = i
                if i < hi:
                    table.push(rec.action, rec.t_ms)
        except (ImpossibleAction, OrderError, ValueError):
            return None
        k = next((k for k in seats if k in best), None)
        return None if k is None else (best[k], k)

    def _waste_swappable(self, table: Table, seat: int, code: str) -> bool:
        """Whether ``seat``'s waste top in ``table`` (or the top a draw turns onto an empty
        waste) is ``code``, or a card that can be exchanged for it in the deal hypothesis
        (neither named nor seen), ``code`` lying hidden in the seat's stock or waste."""
        if (seat, code) in self.named:
            return False
        layout = table.layouts[seat]
        if not (layout.waste or layout.stock):
            return False
        where = table.where(code, seat)
        if where is None or not (where.kind in ("stock", "waste")
                                 or self._hidden_in_nertz(table, seat, code)):
            return False
        top = (layout.waste[-1] if layout.waste
               else layout.stock[min(self.rules.draw, len(layout.stock)) - 1]).code
        return top == code or ((seat, top) not in self.named and (seat, top) not in self.known)

    #: a hidden card of a seat's nertz pile (under its top, never seen nor named) may be
    #: the card a missing-card inference plays from the seat's waste, exchanged with the
    #: waste's top in the deal hypothesis as a hidden stock card is: the deal hypothesis
    #: fills the hidden nertz cards in deck order (A♣, 2♣, … first), so without this no
    #: club below the King was ever found missing under a lake pile (real path, `--seed 4`
    #: round 3: a club pile's Ace unseen, its 2 to K each flagged "cannot start a pile")
    HIDDEN_NERTZ_WASTE_PLAY = True

    def _hidden_in_nertz(self, table: Table, seat: int, code: str) -> bool:
        """Whether ``code`` lies in ``seat``'s nertz pile in ``table`` under its top, never
        seen nor named (a placeholder of the deal hypothesis), and its deal list holds it
        there (:attr:`HIDDEN_NERTZ_WASTE_PLAY`)."""
        if not self.HIDDEN_NERTZ_WASTE_PLAY or (seat, code) in self.known or \
                (seat, code) in self.named:
            return False
        nertz = table.layouts[seat].nertz
        return any(c.code == code for c in nertz[:-1]) and \
            code in self._deal_lists[seat]["nertz"]

    #: a slide under seen only after the seat filled its last empty column (the slid card
    #: showed late, a strip under its column) went first, while a column was empty: put
    #: before that fill in the history when it came at most this long before (see
    #: :meth:`_slide_before_fill`); None: off
    SLIDE_BEFORE_FILL_MS: float | None = 3000.0
    #: also before a fill from the same nertz pile (its next card, the slid one read only
    #: after it: the engine's hidden order of the pile is a guess, rebuilt with the slide
    #: first when the pile's shown tops allow)
    SLIDE_BEFORE_NERTZ_FILL = True

    def _swap_nertz_pair(self, seat: int, upper: str, lower: str) -> bool:
        """Exchange two neighbouring cards of ``seat``'s dealt nertz pile in the deal
        hypothesis, ``upper`` lying right over ``lower``: whether they were so (see
        :attr:`SLIDE_BEFORE_NERTZ_FILL`)."""
        pile = self._deal_lists[seat]["nertz"]
        if upper not in pile or lower not in pile or \
                pile.index(upper) != pile.index(lower) + 1:
            return False
        i = pile.index(lower)
        pile[i], pile[i + 1] = upper, lower
        return True

    def _slide_before_fill(self, action: Move, t: float, frame: int,
                           evidence: dict[str, Any]) -> bool:
        """``action`` slides a card under a column while the engine has no empty column in
        the seat's river (it would be flagged: a slide under stands in for filling one).
        When the seat's last empty column was filled at most :attr:`SLIDE_BEFORE_FILL_MS`
        before, the slide went first: put it right before that fill (the engine rebuilt,
        the later records replayed), when nothing then breaks a rule it did not break
        before and the slide itself is legal there."""
        table = self.table
        if self.SLIDE_BEFORE_FILL_MS is None or table is None:
            return False
        reason = table.is_legal(action)
        if reason is True or reason.rule != "slide_under_needs_empty_column":
            return False
        seat = action.seat
        for r in range(len(self.records) - 1, -1, -1):
            rec = self.records[r]
            if rec.t_ms < t - self.SLIDE_BEFORE_FILL_MS:
                return False
            a = rec.action
            if not (isinstance(a, Move) and a.dst.startswith(f"seat{seat}:river")
                    and not a.under and (a.src != action.src or self.SLIDE_BEFORE_NERTZ_FILL
                                         and self._kind(a.src) == "nertz")):
                continue
            swapped = a.src == action.src and self._swap_nertz_pair(seat, a.card, action.card)
            fresh = self._rebuilt(self.records[:r])
            column = fresh.layouts[seat].river[Place.parse(a.dst).index or 0] \
                if fresh is not None else None
            if fresh is None or column or fresh.is_legal(action) is not True:
                if swapped:
                    self._swap_nertz_pair(seat, action.card, a.card)
                if fresh is not None and column:
                    continue  # (it did not fill an empty column)
                return False
            when = max(fresh.now, rec.t_ms - 1)
            records = [*self.records[:r],
                       _Record(action, when, frame, (frame, frame), False,
                               {**evidence, "why": f"{action.card} slid under while "
                                                   f"{a.dst} was still empty: seen only "
                                                   f"after {a.card} filled it"}, None, []),
                       *self.records[r:]]
            before = [*(x.flags for x in self.records[:r]), [],
                      *(x.flags for x in self.records[r:])]
            if not self._rewrite_history(records, before):
                if swapped:
                    self._swap_nertz_pair(seat, action.card, a.card)
                return False
            owner = self._owner(action)
            self.known.add((owner, action.card))
            self.named.add((owner, action.card))
            return True
        return False

    def _uncounted_on(self, action: Move) -> tuple[list[Any], Card | None] | None:
        """The placements of lake pile ``action.dst`` above its counting top (misplaced:
        they do not count) and that top's card (None: nothing counts), or None when the
        pile does not exist yet or ``action`` moves no card code."""
        table = self.table
        if table is None or action.card not in ALL_CODES:
            return None
        j = int(action.dst.split(":")[1])
        if j >= len(table.lake):
            return None
        pls = table.lake[j].placements
        last = max((i for i, pl in enumerate(pls) if pl.counts), default=-1)
        return pls[last + 1:], (pls[last].card if last >= 0 else None)

    #: a lake card credited to another seat than its layout's (a card taken from another
    #: seat's layout, flagged, so it does not count) on which the next card of its suit
    #: lands: players build only on what counts, so the taking was the arms' misjudgement
    #: and the card its owner's move (see :meth:`_own_card_after_all`)
    OWN_CARD_BUILT_ON = True

    def _own_card_after_all(self, action: Move) -> bool:
        """``action`` lands on lake pile ``action.dst`` illegally, but would build on it if
        the pile's cards that do not count did: those cards run on in suit and rank from
        the pile's counting top, and the first of them was flagged only as taken from
        another seat's layout (the mover judged from the arms over its place). That move
        is re-credited to the layout's owner in the history, when it replays with no new
        rule broken and ``action`` then lands legally."""
        above = self._uncounted_on(action) if self.OWN_CARD_BUILT_ON else None
        if above is None:
            return False
        loose, top = above
        card = Card.parse(action.card)
        base = top.rank if top is not None else 0
        if not loose or any(pl.card.is_joker or pl.card.suit != card.suit
                            or pl.card.rank != base + 1 + i for i, pl in enumerate(loose)) \
                or card.rank != base + 1 + len(loose):
            return False
        first = loose[0].card.code
        idx = [i for i, r in enumerate(self.records) if isinstance(r.action, Move)
               and r.action.dst == action.dst and r.action.card == first]
        if not idx:
            return False
        rec = self.records[idx[-1]]
        taken = rec.action
        assert isinstance(taken, Move)
        owner = self._owner(taken)
        if owner == taken.seat or [f.rule for f in rec.flags] != ["not_your_card"]:
            return False
        records = list(self.records)
        evidence = {k: v for k, v in rec.evidence.items() if k != "arm_of"}
        evidence["why"] = (f"{action.card} built on it: players build only on a card that "
                           f"counts, so seat{owner} played it, not seat{taken.seat}")
        records[idx[-1]] = replace(rec, action=replace(taken, seat=owner), evidence=evidence)
        before = [r.flags for r in self.records]
        before[idx[-1]] = []
        return self._rewrite_history(records, before, then=action)

    def _handed_since_top(self, place: str, st: _PlaceState) -> bool:
        """Whether the engine's top card of a lake pile was placed legally (it stays) and a
        hand has been over the pile since it landed: a card like the one under it showing
        there then is another card laid on it, not the top taken back (nor a misread)."""
        j = self.lake_map.get(place)
        table = self.table
        if j is None or table is None or j >= len(table.lake):
            return False
        pls = table.lake[j].placements
        if not pls or not pls[-1].counts:
            return False
        return bool(self._arms_over(st.box, pls[-1].t_ms + 300, st.stable_t + 300))

    def _tail(self, engine_place: str, code: str) -> tuple[str, ...]:
        """The engine's cards of a layout pile from ``code`` to its top."""
        codes = [c.code for c in self.table.pile(engine_place)]  # type: ignore[union-attr]
        return tuple(codes[codes.index(code):]) if code in codes else ()

    #: a card last seen at its place more than this long before it landed elsewhere left
    #: unseen long before (under a later draw, say): its being gone is no sign that it is
    #: the card that landed (real path, 12 rounds: of the waste credits whose card was
    #: last seen over 2 s before the landing and gone since, all 5 were wrong, 3 of them
    #: beating a column seen under the arm of the seat that played it); a nertz top too
    #: (round 2: seat 1's waste AC, under its hand, lost to seat 2's nertz AC glimpsed
    #: 6.6 s before; 12 rounds MAE 1.14 -> 1.10)
    STALE_GONE_MS: float | None = 3000.0
    STALE_GONE_KINDS: tuple[str, ...] = ("waste", "nertz")

    def _stale_gone_rank(self, spot: tuple[str, int, int, bool], code: str, t: float,
                         rank: tuple[bool, int, bool, float, int], kind: str
                         ) -> tuple[bool, int, bool, float, int]:
        """``rank`` for ordering the sources of a card that landed on a place of ``kind``:
        for the lake, a card seen gone from its place that was last seen there long before
        it landed (:attr:`STALE_GONE_MS`) ranks as a place not seen now."""
        seen = self.seen_at.get((self._obs_place_of(spot[0]), code))
        if kind == "lake" and rank[1] == 3 and self.STALE_GONE_MS is not None and \
                seen is not None and not spot[3] and \
                self._kind(spot[0]) in self.STALE_GONE_KINDS and t - seen > self.STALE_GONE_MS:
            return (rank[0], 2, *rank[2:])
        return rank

    def _rank(self, spot: tuple[str, int, int, bool], code: str, t: float, pooled: bool,
              dest: _PlaceState | None = None) -> tuple[bool, int, bool, float, int]:
        """How likely a source is: seen holding the card at all, departure evidence, the
        seat's arm over the destination as the card landed, and how recently the card was
        seen there (before the arrival)."""
        seen = self.seen_at.get((self._obs_place_of(spot[0]), code))
        dep = 3 if spot[0].endswith(":waste") and spot[3] is False and \
            self._waste_gone(spot[2], code) else self._departed(spot[0], code)
        if pooled and spot[0].endswith(":waste"):
            dep = 2  # a waste card may only be hidden under a later draw
        arm = dest is not None and spot[2] in self._arms_over(dest.box, t - 600, t)
        brief = self.SHOWN_BRIEFLY_MS
        if seen is not None and t + 150 < seen <= self.t_ms and not spot[3] and not (
                self._hand_reads_unseen and dep == 3 and self.clear_at.get(
                    (self._obs_place_of(spot[0]), code), -1.0) <= t + 150):
            flight = self.IN_FLIGHT_GLIMPSE_MS
            in_flight = flight is not None and arm and dep == 3 and seen - t <= flight and \
                not spot[0].endswith(":waste")  # (glimpsed landing in its seat's hand)
            if not in_flight:
                dep = 1  # still seen at its place after it landed elsewhere: another deck's
            if brief is not None and arm and spot[0].endswith(":waste") and \
                    seen - t <= brief <= self.t_ms - seen:
                dep = 2  # shown there only just after, not since, and its seat's arm laid
                # it: the card under it read as it (a twin), not the card itself
        elif pooled and spot[0].endswith(":nertz") and seen is not None and t <= seen:
            dep = 1  # a hidden card showing on its nertz pile as the other one landed
        return (seen is not None, dep, arm, -abs(t - seen) if seen is not None else 0.0, dep)

    #: a card that every source still showed after it landed, one of them only while a
    #: hand was over it and showing it gone since, came from there: a read under a hand
    #: is no sighting when nothing else explains the landing (the 2S of
    #: `test_a_read_that_builds_on_its_pile_is_not_taken_for_its_twin_renaming_the_pile`,
    #: its waste read with it under the hand that laid it, never credited although the
    #: waste then showed it gone); False: any read counts
    SEEN_UNDER_HAND_LEFT = True

    #: a waste that showed the card at most this long after it landed elsewhere, and not
    #: since for as long, whose seat's arm was over the landing, is no evidence the card
    #: stayed there (round 13 of the real path: seat 0's 5C under its 5S read 5S for 0.6 s
    #: after the 5S landed; the pile's 5S never credited, its 7S to KS each flagged);
    #: None: off
    SHOWN_BRIEFLY_MS: float | None = 1500.0
    #: a nertz or column card seen gone from its place, last seen there at most this long
    #: after its landing elsewhere was first glimpsed, its seat's arm over the landing, left
    #: for it: the landing was glimpsed in the hand that carried it, over the destination
    #: while the place still showed the card under the same hand (real path, ``--seed 5``
    #: round 6: seat 0's nertz KS, read on its empty column in flight 0.2 s before the pile
    #: stopped showing it, was taken for another deck's KS and never moved); None: off
    IN_FLIGHT_GLIMPSE_MS: float | None = 1500.0

    #: two identical cards leave for one pile and one landing shows: a card glimpsed on a
    #: waste (its draw never committed) that left first landed first (see below)
    EARLIER_WASTE_GLIMPSE = True

    def _earlier_waste_glimpse(self, best: tuple[str, int, int, bool],
                               pool: list[tuple[str, int, int, bool]], code: str,
                               landed: float) -> tuple[str, int, int, bool] | None:
        """Instead of ``best`` (a card seen leaving its place), a card glimpsed on a
        seat's waste that left it earlier (None if none): the draw that turned it up was
        never committed,
        and the waste shows again the very top it had before (so the card did not go
        under a later draw: it was played). Two identical cards raced for the pile and the
        one that left first lies under the other, which :meth:`_hidden_stacks` then lays
        on it as a lost race."""
        left = self.seen_at.get((self._obs_place_of(best[0]), code))
        if left is None or best[3]:
            return None
        table = self.table
        assert table is not None
        for cand in pool:
            wname, _n, seat, _r = cand
            if not wname.endswith(":waste"):
                continue
            seen = self.seen_at.get((wname, code))
            st = self.states.get(wname)
            waste = table.layouts[seat].waste
            where = table.where(code, seat)
            stock = table.layouts[seat].stock
            if seen is None or seen + 150 >= left or seen > landed or \
                    landed - seen > self.RACE_MS or where is None or where.kind != "stock" or \
                    not stock or min(self.rules.draw, len(stock)) != 1 or \
                    st is None or not st.stable or st.covered or not waste or \
                    st.stable[-1] != waste[-1].code or \
                    (seat, waste[-1].code) not in self.known or \
                    st.shown.get(waste[-1].code, float("inf")) >= seen or \
                    self.last_stock_t.get(seat, -1.0) >= seen:
                continue  # (the top showed before the glimpse, and no stock action since:
                # the card went on it and left it)
            return cand
        return None

    def _draw_glimpsed(self, seat: int, code: str) -> bool:
        """Commit the draw that turned up ``code`` (glimpsed on the waste, see
        :meth:`_earlier_waste_glimpse`), timed by the glimpse."""
        table = self.table
        assert table is not None
        layout = table.layouts[seat]
        t = self.seen_at.get((f"seat{seat}:waste", code), self.t_ms)
        if not layout.stock or not self._commit(Draw(seat), t, self.frame, inferred=True):
            return False
        top = layout.waste[-1].code
        if top != code:
            self._swap(seat, top, code)
        return layout.waste[-1].code == code

    #: a waste under a hand whose settled top is the card (the engine's waste out of step,
    #: holding it deeper or in the stock) may have lost it to the landing: a pooled source
    #: too (real path, round 18: seat 0's 3H, drawn in plain view with the engine's stock
    #: and waste out of order, went to the lake under the hand and was credited to the 3H
    #: seat 1's waste had shown 3.6 s before)
    COVERED_WASTE_POOL = True
    #: ... when the card settled on top there at most this long before it landed (a top
    #: shown for longer under the hand is no likelier than any other: round 13's 3H, 4 s on
    #: seat 0's covered waste, was taken for a missing card under a pile)
    COVERED_WASTE_FRESH_MS = 2000.0

    def _covered_waste_top(self, seat: int, code: str, t: float) -> bool:
        """Whether ``seat``'s waste is under a hand, its settled top ``code``, which
        settled there at most :attr:`COVERED_WASTE_FRESH_MS` before ``t``."""
        st = self.states.get(f"seat{seat}:waste")
        return st is not None and st.covered and bool(st.stable) and st.stable[-1] == code \
            and 0.0 <= t - st.settled.get(code, -1e9) <= self.COVERED_WASTE_FRESH_MS

    def _shown_gone(self, place: str, code: str, rival: str) -> bool:
        """Whether the camera showed ``code`` of ``place``'s seat where the engine has it
        (settled on top there no earlier than ``rival``, when that did) and its settled
        view there no longer shows it (it left there)."""
        table = self.table
        seat = Place.parse(place).seat
        if table is None or seat is None:
            return False
        where = table.where(code, seat)
        if where is None:
            return False
        name = self._obs_place_of(str(where))
        st = self.states.get(name)
        return st is not None and st.stable is not None and code not in st.stable and \
            (name, code) in self.seen_at and \
            st.settled.get(code, -1.0) >= st.settled.get(rival, -1.0)

    def _waste_gone(self, seat: int, code: str) -> bool:
        st = self.states.get(f"seat{seat}:waste")
        return st is not None and st.stable is not None and code not in st.stable

    #: a waste that showed the card looking this like the card now on the lake pile (the
    #: same card, by its look) is its source even when the engine holds the seat's copy
    #: hidden in the nertz pile as known: that placement was a guess from a read (real
    #: path, round 13: seat 2's 10S, glimpsed on its waste 8 apart from the pile's, went
    #: uncredited, and the JS on it, because a swap had put seat 2's 10S in its nertz
    #: pile); None: off
    KNOWN_NERTZ_LOOK: float | None = 15.0

    #: a nertz pile seen empty (its top not turned yet) when a card of the seat that no
    #: place was seen losing landed, and whose next top showed only after the landing, is
    #: that card's source: it was turned and played unseen before that top (`--seed 10`
    #: round 8: seat 1's 6H, played under a hand 2 s after its pile showed empty and 0.35 s
    #: before the 10D under it showed, was taken for a card drawn and played unseen from
    #: the waste, and the seat counted a nertz card too many); False: off
    BLIND_BEFORE_REVEAL = True

    def _waste_candidates(self, code: str, dest: str, spots: list[tuple[str, int, int, bool]],
                          t: float) -> list[tuple[str, int, int, bool]]:
        """Wastes that showed ``code`` lately (and show it no more) while the engine holds it
        among that seat's hidden cards: the card was drawn and played from there. ``dest``:
        the observed place it landed on."""
        table = self.table
        assert table is not None
        dseat = None if dest.startswith("lake:") else Place.parse(dest).seat
        out = []
        for seat in range(self.seats):
            wname = f"seat{seat}:waste"
            if dseat is not None and seat != dseat or (seat, code) in self.named:
                continue
            if any(s[0] == wname for s in spots):
                continue
            seen = self.seen_at.get((wname, code))
            where = table.where(code, seat)
            nertz = table.layouts[seat].nertz
            # (the deal hypothesis may hold it low in the nertz pile: it showed on the waste)
            hidden_nertz = where is not None and where.kind == "nertz" and bool(nertz) and \
                nertz[-1].code != code and ((seat, code) not in self.known or (
                    self.KNOWN_NERTZ_LOOK is not None and seen is not None and
                    (apart := self._looks_apart(wname, dest, code)) is not None and
                    apart <= self.KNOWN_NERTZ_LOOK))
            if seen is not None and t - seen <= self.pool_window_ms and \
                    (self._waste_gone(seat, code) or self.COVERED_WASTE_POOL and
                     self._covered_waste_top(seat, code, t)) and where is not None and \
                    (where.kind in ("stock", "waste") or hidden_nertz):
                out.append((wname, 1, seat, False))
            # a nertz top seen and gone while the engine still holds it hidden (its reveal
            # was never committed: the card was turned and played at once)
            nname = f"seat{seat}:nertz"
            seen = self.seen_at.get((nname, code))
            nertz = table.layouts[seat].nertz
            nst = self.states.get(nname)
            # or a nertz pile the camera cannot see (seen empty, the engine holds cards):
            # its top is unknown, and a card of the seat that shows up from nowhere left it
            # (also one just seen empty that shows a new top now: the card turned and
            # played unseen came off it as the next one was turned)
            blind = seen is None and nst is not None and (
                nst.stable == () or bool(nst.stable) and bool(nertz) and
                abs(t - nst.refilled_t) <= 1000 and nst.stable[-1] != nertz[-1].code) and \
                (seat, code) not in self.known and self.seen_at.get((wname, code)) is None
            if (blind or seen is not None and t - seen <= self.pool_window_ms) and nertz and \
                    nertz[-1].code != code and (seat, nertz[-1].code) not in self.named and \
                    (seat, nertz[-1].code) not in self.nertz_tops and \
                    self._departed(nname, code) == 3 and where is not None and \
                    where.kind in ("stock", "waste", "nertz") and \
                    not any(s[0] == nname for s in spots):
                out.append((nname, 1, seat, False))
            elif self.BLIND_BEFORE_REVEAL and seen is None and nst is not None and nertz and \
                    nertz[-1].code != code and (seat, nertz[-1].code) in self.nertz_tops and \
                    (seat, nertz[-1].code) not in self.named and \
                    nst.empty_t <= t < nst.refilled_t and \
                    self.nertz_first.get((seat, nertz[-1].code), float("inf")) > t and \
                    (seat, code) not in self.known and self.seen_at.get((wname, code)) is None \
                    and where is not None and where.kind in ("stock", "waste", "nertz") and \
                    not any(s[0] == nname for s in spots):
                out.append((nname, 1, seat, False))  # (lifted above that top when taken)
            elif (self._skipped_nertz_card(seat, code, t)
                  or self._under_a_departed_nertz_top(seat, code, t)
                  or self._settled_over_nertz_top(seat, code, t)) and \
                    not any(s[0] == nname for s in spots):
                out.append((nname, 1, seat, False))
        return out

    #: a card the seat's nertz pile showed settled on top after the engine's top was last
    #: seen there, gone from it lately while the engine holds it hidden, came off the
    #: nertz pile (the engine's top, often a misread, left or lies under it unseen; real
    #: path, round 8: seat 0's 2H, settled on its pile over a 5C read 5S, was credited
    #: to its waste)
    NERTZ_SETTLED_OVER_TOP = True

    def _settled_over_nertz_top(self, seat: int, code: str, t: float) -> bool:
        """See :attr:`NERTZ_SETTLED_OVER_TOP`."""
        if not self.NERTZ_SETTLED_OVER_TOP:
            return False
        gone = self._gone_nertz_card(seat, code, t)
        st = self.states.get(f"seat{seat}:nertz")
        if gone is None or st is None:
            return False
        top, _seen = gone
        settled = st.shown.get(code)
        last_top = self.seen_at.get((f"seat{seat}:nertz", top))
        return settled is not None and last_top is not None and settled > last_top

    def _gone_nertz_card(self, seat: int, code: str, t: float) -> tuple[str, float] | None:
        """``code`` showed on the seat's nertz pile lately and is gone from it, while the
        engine holds it hidden under another top: (that top, when ``code`` was last seen
        there), else None."""
        table = self.table
        assert table is not None
        nertz = table.layouts[seat].nertz
        nname = f"seat{seat}:nertz"
        seen = self.seen_at.get((nname, code))
        if not nertz or seen is None or t - seen > self.pool_window_ms or \
                nertz[-1].code == code or (seat, code) in self.named:
            return None
        where = table.where(code, seat)
        if where is None or where.kind not in ("stock", "waste", "nertz") or \
                self._departed(nname, code) != 3:
            return None
        return nertz[-1].code, seen

    def _under_a_departed_nertz_top(self, seat: int, code: str, t: float) -> bool:
        """The engine's nertz top was seen in the seat's layout after it left the pile (its
        landing is not committed yet), and ``code`` showed on the pile after it and is gone:
        ``code`` was the next nertz card, played too."""
        gone = self._gone_nertz_card(seat, code, t)
        if gone is None:
            return False
        top, seen = gone
        nname, prefix = f"seat{seat}:nertz", f"seat{seat}:"
        left = self.seen_at.get((nname, top))
        return left is not None and seen > left and any(
            name.startswith(prefix) and name != nname and c == top and g > left
            for (name, c), g in self.seen_at.items())

    def _skipped_nertz_card(self, seat: int, code: str, t: float) -> bool:
        """``code`` showed on the seat's nertz pile after its previous top left and before
        the top the engine has now was first seen there, and is gone from it: it was turned
        and played between two committed views (the engine never had it as a top)."""
        gone = self._gone_nertz_card(seat, code, t)
        if gone is None:
            return False
        top, seen = gone
        first = self.nertz_first.get((seat, top))
        return (seat, top) in self.nertz_tops and first is not None and first > seen

    def _lift_above_nertz_top(self, seat: int, code: str) -> bool:
        """Put the hidden ``code`` right above the engine's nertz top in the deal hypothesis
        (a hidden card from low in the pile takes its old place) and rebuild the engine:
        the card was turned and played unseen before the top showed."""
        table = self.table
        assert table is not None
        deal = self._deal_lists[seat]
        nz, stock = deal["nertz"], deal["stock"]
        top = table.layouts[seat].nertz[-1].code
        if top not in nz:
            return False
        saved = {k: [list(x) if isinstance(x, list) else x for x in v]
                 for k, v in deal.items()}
        q = nz.index(top)
        if code in nz:
            p = nz.index(code)
            if p > q:
                return False
            nz.pop(p)
            nz.insert(q, code)  # right above the top (q moved down by one)
        elif code in stock:
            low = next((c for c in nz[:q] if (seat, c) not in self.known
                        and (seat, c) not in self.named), None)
            if low is None:
                return False
            stock[stock.index(code)] = low
            nz.remove(low)
            nz.insert(q, code)
        else:
            return False
        fresh = self._rebuilt(self.records)
        if fresh is None or not fresh.layouts[seat].nertz or \
                fresh.layouts[seat].nertz[-1].code != code:
            self._deal_lists[seat] = saved
            return False
        self.table = fresh
        self.known.add((seat, code))
        return True

    def _bring_to_nertz_top(self, seat: int, code: str) -> bool:
        """Make ``code`` the engine's nertz top of ``seat`` (exchanging hidden cards, or
        lifting a card played unseen above the top that showed after it)."""
        nertz = self.table.layouts[seat].nertz  # type: ignore[union-attr]
        if nertz and nertz[-1].code != code and (seat, nertz[-1].code) in self.nertz_tops:
            if not self._lift_above_nertz_top(seat, code):
                return False
            nertz = self.table.layouts[seat].nertz  # type: ignore[union-attr]
        if nertz and nertz[-1].code != code:
            self._swap(seat, nertz[-1].code, code)
        ok = bool(nertz) and nertz[-1].code == code
        if ok:
            self.nertz_tops.add((seat, code))
        return ok

    def _bring_to_waste_top(self, seat: int, code: str, t: float | None = None) -> bool:
        """Make ``code`` the engine's waste top of ``seat`` (a draw first when the engine's
        waste is empty, at ``t``, by default now), exchanging hidden, never-moved cards."""
        table = self.table
        assert table is not None
        t = self.t_ms if t is None else t
        layout = table.layouts[seat]
        if not layout.waste:
            if not layout.stock or not self._commit(Draw(seat), t, self.frame,
                                                    inferred=True):
                return False
        top = layout.waste[-1].code
        if top != code and (seat, top) in self.named:
            # a card seen on the waste lies there: ``code`` was drawn onto it, unseen
            pooled = any(lst[i].code == code for lst, i in self._pool(seat))
            if not layout.stock or not pooled or (seat, code) in self.named or \
                    not self._commit(Draw(seat), t, self.frame, inferred=True):
                return False
            top = layout.waste[-1].code
            if (seat, top) in self.named:
                return False
        if top != code:
            self._swap(seat, top, code)
        return bool(layout.waste) and layout.waste[-1].code == code

    def _orphans_under(self, j: int, code: str, src: str, t: int, evidence: dict[str, Any],
                       ready: bool, commit: bool = False, dest: str | None = None,
                       by: int | None = None, late: list[Move] | None = None) -> bool:
        """Free cards seen leaving a layout shortly before ``code`` lands on pile ``j`` and
        seen nowhere since went there first, hidden under it (two cards landing together,
        a card covered at once): commit those moves first (marked inferred). A card that
        shows on another pile too is taken for that one, unless it was glimpsed on this
        pile (``dest``, the observed place) before ``code`` covered it. An identical card
        whose seat's arm reached the pile a frame or more after seat ``by``'s lies on top
        instead: it goes to ``late``, for the caller to commit after ``code``'s move."""
        table = self.table
        assert table is not None
        lake_tops = {c for name, st in self.states.items() if name.startswith("lake:")
                     for c in ((st.stable or ())[-1:] + ((st.top,) if st.top else ()))}
        new_pile = j >= len(table.lake)
        ace = Card.parse(code).rank == 1 if code in ALL_CODES else False
        y_seen = self.seen_at.get((self._obs_place_of(src), code), t)
        if src.startswith("seat"):  # it may have passed through one of its seat's columns
            prefix = src.split(":")[0] + ":"
            y_seen = max([y_seen] + [g for (name, c), g in self.seen_at.items()
                                     if c == code and name.startswith(prefix) and g <= t])
        in_hand = {c.code for c in self._loose}
        st = self.states.get(dest) if dest is not None else None
        glimpsed = {c: g for c, g in (st.glimpsed if st is not None else {}).items()
                    if g <= t and c != code}
        # cards glimpsed on another pile that now shows something else: hidden there
        elsewhere: dict[str, float] = {}
        for name, other in self.states.items():
            if name == dest or not name.startswith("lake:"):
                continue
            for c, g in (*other.glimpsed.items(), *other.first.items()):
                if c != (other.stable or ("",))[-1] and c != other.top:
                    elsewhere[c] = max(g, elsewhere.get(c, g))
        # piles elsewhere showing the same code that the engine has not put there yet: an
        # identical card that left is landing there, not hidden under this one
        same_elsewhere = False
        for name, other in self.states.items():
            if name == dest or not name.startswith("lake:"):
                continue
            shows = other.top == code or (other.stable or ("",))[-1] == code
            k = self.lake_map.get(name)
            has = k is not None and k < len(table.lake) and table.lake[k].top is not None \
                and table.lake[k].top.card.code == code
            same_elsewhere = same_elsewhere or (shows and not has)
        found = []
        for seat in range(self.seats):
            layout = table.layouts[seat]
            free = []
            if layout.nertz:
                free.append((f"seat{seat}:nertz", layout.nertz[-1].code))
            for i, col in enumerate(layout.river):  # (a waste top is also hidden by draws)
                if col:
                    free.append((f"seat{seat}:river{i}", col[-1].code))
            for place, card in free:
                if place == src or (seat, card) in self.named and card == code:
                    continue
                seen = self.seen_at.get((place, card))
                if seen is None or not t - self.orphan_window_ms <= seen <= y_seen + 300 \
                        or card in in_hand:
                    continue  # it left after the card that landed, or is still in a hand
                if self._departed(place, card) != 3 or \
                        card in lake_tops - {code} - set(glimpsed):
                    continue
                if card not in glimpsed and elsewhere.get(card, -1.0) >= seen:
                    continue  # glimpsed on another pile since it left: it lies there
                if card == code and same_elsewhere and dest is not None:
                    continue
                last = self.seen_last.get((seat, card))
                if last is not None and last[0] != place and last[1] > seen:
                    continue  # seen again in the layout: not on the lake
                legal = not new_pile and table.is_legal(
                    Move(seat, card, place, f"lake:{j}")) is True
                if not (new_pile and not ace or card == code or legal):
                    continue  # (nothing lies under an Ace that starts a pile)
                if new_pile and not legal and card != code and self.ORPHAN_BUILT_ON and \
                        not _builds_up(code, card) and card not in glimpsed:
                    continue  # (two misplacements, one hidden under the other, never seen
                    # there: unlikelier than a card that left unseen for elsewhere)
                if not legal and (card != code or self.SURE_TWIN_ORPHANS) and \
                        self.SURE_ORPHANS and \
                        self.sure_at.get((place, card), -1.0) < seen - self.SURE_SLACK_MS:
                    continue  # a breach inferred from a card last read unsure: no evidence
                found.append((seen, seat, place, card, legal))
        if not ready and any(self.t_ms - f[0] < self.orphan_settle_ms and not f[4]
                             for f in found):
            return False  # (the next card of the pile, gone, is surely under it)
        if not commit:
            return True
        for seen, seat, place, card, _legal in sorted(found):
            move = Move(seat, card, place, f"lake:{min(j, len(table.lake))}")
            if late is not None and card == code and \
                    self._arrived_later(seat, by, dest, seen, y_seen):
                late.append(move)
                continue
            why = {"why": f"left {place} and never seen again before {code} landed on "
                          f"lake:{j}"}
            if self.ORPHAN_VIA_COLUMN:  # (glimpsed on one of its seat's columns since)
                move = replace(move, src=self._via_column(seat, card, place, dest or "", t,
                                                          why))
            if self._commit(move, t, self.frame, inferred=True, evidence=why):
                evidence["inferred_under"] = evidence.get("inferred_under", []) + [card]
        if new_pile and not ace and st is not None and dest is not None and \
                self.GLIMPSED_ACE_UNDER and not any(Card.parse(f[3]).rank == 1
                                                    for f in found if f[3] in ALL_CODES):
            if not self._glimpsed_ace_under(j, code, t, dest, st, evidence) and \
                    self.LOST_ACE_UNDER:
                self._lost_ace_under(j, code, t, dest, st, evidence)
        return True

    #: a card that left unseen is taken to lie under a new pile's first card that is no
    #: Ace, which it may not (a misplacement, flagged), only when it was read sure (at
    #: least :attr:`SURE`) at its last sightings: a card last read unsure may be a misread
    #: that went away, and the flag would accuse its seat of nothing (real path round 7:
    #: a 6C and a 5H, misreads of a column's strip and a nertz top, laid under a new 8S
    #: pile, both flagged)
    SURE_ORPHANS = True
    SURE_SLACK_MS = 300.0
    #: ... also an identical card hidden under the landing one where that breaks the pile's
    #: order (``--seed 4`` round 1: seat 1's nertz top, misread 2S for a moment, "went" under
    #: seat 0's 2S on a club pile: one card laid twice, both flagged)
    SURE_TWIN_ORPHANS = True
    #: ... and only when the new pile's first card builds on it in suit or the pile's place
    #: showed it before that card covered it (tuned round 1: a 6S gone from a column laid
    #: under a misplaced 10C that started a pile, a second flag for nothing seen)
    ORPHAN_BUILT_ON = True

    #: a new pile's first card that is no Ace, laid under the arms of a seat whose waste
    #: lost an Ace by hand (the waste showed what lay under it) in the moments before, the
    #: Ace seen nowhere since: the Ace lies under it (oracle round 11: seat 0's AS, covered
    #: 90 ms after it landed by another seat's misplaced QC)
    LOST_ACE_UNDER = True
    LOST_ACE_MS = 1500.0

    def _lost_ace_under(self, j: int, code: str, t: int, dest: str, st: _PlaceState,
                        evidence: dict[str, Any]) -> bool:
        """See :attr:`LOST_ACE_UNDER`: commit the Ace's move first (marked inferred)."""
        table = self.table
        assert table is not None
        # cards on lake piles the engine does not explain yet, each pile once: an Ace there
        # is the lost one unless another seat's Ace was seen leaving its place for it
        shown: dict[str, int] = {}
        for name, other in self.states.items():
            if not name.startswith("lake:") or name == dest:
                continue
            k = self.lake_map.get(name)
            held = {pl.card.code for pl in table.lake[k].placements} \
                if k is not None and k < len(table.lake) else set()
            for c in set((other.stable or ())[-1:] + ((other.top,) if other.top else ())):
                if c not in held:
                    shown[c] = shown.get(c, 0) + 1
        found = []
        for k in self._arms_over(st.box, t - 1000, t + 1, least=self.GRAB_COVER):
            wname = f"seat{k}:waste"
            wst = self.states.get(wname)
            waste = table.layouts[k].waste
            for i, card in enumerate(waste):
                a = card.code
                g = self.seen_at.get((wname, a))
                if card.rank != 1 or (k, a) in self.named or wst is None or \
                        g is None or not t - self.LOST_ACE_MS <= g < t or \
                        not self._waste_gone(k, a):
                    continue
                others = [sp for sp in self._free_spots(a, dest) if sp[2] != k and not sp[3]
                          and self._departed(sp[0], a) == 3]
                if shown.get(a, 0) > len(others):
                    continue  # it shows on a pile of its own
                under = wst.settled.get(waste[i - 1].code, -1.0) if i else wst.empty_t
                if under > g:  # (the waste showed what lay under it: taken by hand)
                    found.append((k, a))
        if len(found) != 1 or not self._bring_to_waste_top(*found[0]):
            return False
        k, ace = found[0]
        if not self._commit(Move(k, ace, f"seat{k}:waste", f"lake:{min(j, len(table.lake))}"),
                            t, self.frame, inferred=True,
                            evidence={"why": f"{ace} taken from seat{k}'s waste by hand and "
                                             f"seen nowhere since; seat{k}'s arm over {dest} "
                                             f"as {code} covered it"}):
            return False
        evidence["inferred_under"] = evidence.get("inferred_under", []) + [ace]
        return True

    #: a new pile's first card that is no Ace, where the pile was glimpsed showing an Ace
    #: just before, with one seat's arm over it: that seat drew the Ace and played it
    #: unseen, and it lies under (see :meth:`_glimpsed_ace_under`)
    GLIMPSED_ACE_UNDER = True
    #: ... also a 2 starting the pile where the glimpse was read as another card with the
    #: 2's Ace among the reader's next reads (`--seed 12` round 1: seat 2's AH, drawn and
    #: laid under its hand, read JH (AH 0.03); the 2H on it was flagged "cannot start a
    #: pile", and the heart pile's 4H to 9H after it); False: an Ace read only
    GLIMPSED_ACE_ALTERNATIVE = True
    #: ... and of two seats whose arms were over the pile then, the one whose arm was
    #: there before the glimpse's frame (the other's came with it: `--seed 12` round 1,
    #: seat 0's arm laying a 10C on seat 2's AH); False: no seat then
    GLIMPSED_ACE_ARM_BEFORE = True

    def _glimpsed_ace_under(self, j: int, code: str, t: int, dest: str, st: _PlaceState,
                            evidence: dict[str, Any]) -> bool:
        """``code``, no Ace, lands first on new pile ``j`` (observed place ``dest``) that
        was glimpsed showing one Ace before: the one seat whose arm was well over the pile
        in the half second before that glimpse, and that holds the Ace hidden (in its stock
        or waste, or under its nertz top, never named), laid it there from its waste
        (drawn and played under the hand): commit that move first (marked inferred)."""
        table = self.table
        assert table is not None
        aces = {c: g for c, g in (*st.glimpsed.items(), *st.first.items())
                if c != code and g <= t and c in ALL_CODES and Card.parse(c).rank == 1}
        if not aces and self.GLIMPSED_ACE_ALTERNATIVE and code in ALL_CODES and \
                Card.parse(code).rank == 2:
            # (the glimpse read as another card, the pile's Ace among its next reads)
            want = Card(1, Card.parse(code).suit).code
            times = [g for c, g in (*st.glimpsed.items(), *st.first.items())
                     if c != code and g <= t
                     and want in [a for a, _p in self.reads.get((dest, c), ())]]
            aces = {want: times[-1]} if times else {}
        if len(aces) != 1:
            return False
        (ace, glimpse), = aces.items()
        seats = []
        for k in self._arms_over(st.box, glimpse - 500, glimpse + 1, least=self.GRAB_COVER):
            where = table.where(ace, k)
            nertz = table.layouts[k].nertz
            hidden = where is not None and (where.kind in ("stock", "waste") or (
                where.kind == "nertz" and nertz and nertz[-1].code != ace
                and (k, ace) not in self.known))
            if hidden and (k, ace) not in self.named:
                seats.append(k)
        if len(seats) > 1 and self.GLIMPSED_ACE_ARM_BEFORE:
            # (an arm that first came over the pile with the glimpse found the Ace there)
            before = self._arms_over(st.box, glimpse - 500, glimpse, least=self.GRAB_COVER)
            seats = [k for k in seats if k in before]
        if len(seats) != 1 or not self._bring_to_waste_top(seats[0], ace, t):
            return False
        k = seats[0]
        if self._commit(Move(k, ace, f"seat{k}:waste", f"lake:{min(j, len(table.lake))}"), t,
                        self.frame, inferred=True,
                        evidence={"why": f"{ace} glimpsed on {dest} before {code} covered "
                                         f"it, seat{k}'s arm over it just before"}):
            evidence["inferred_under"] = evidence.get("inferred_under", []) + [ace]
            return True
        return False

    #: a card that left unseen for a pile and was glimpsed on one of its seat's columns on
    #: the way made two moves (see :meth:`_via_column`)
    ORPHAN_VIA_COLUMN = True

    #: of two identical cards raced for one pile, showing as one, the one whose seat's arm
    #: reached the pile a frame or more later lies on top: a card that left unseen on the
    #: card seen landing (see :meth:`_orphans_under`), a card that turned up nowhere on
    #: the identical top (see :meth:`_insert_under`), whichever left first
    ARM_ORDER_ORPHANS = True

    def _arrived_later(self, seat: int, other: int | None, place: str | None, left: float,
                       other_left: float) -> bool:
        """Whether ``seat``'s arm first came well over observed ``place`` (more than
        :attr:`GRAB_COVER` of it) after its card left its place (``left``) a frame or more
        after ``other``'s did after its own card left (``other_left``)."""
        st = self.states.get(place) if place is not None else None
        if not self.ARM_ORDER_ORPHANS or other is None or other == seat or st is None or \
                st.box is None:
            return False
        first: dict[int, float] = {}
        for t, b, s in self._arm_log:
            since = left if s == seat else other_left
            if s in (seat, other) and s not in first and t > since and \
                    _overlap(st.box, b) > self.GRAB_COVER:
                first[s] = t
        return seat in first and other in first and first[seat] > first[other]

    def _since_frame(self, engine_place: str) -> int:
        st = self.states.get(self._obs_place_of(engine_place))
        return st.top_frame if st is not None else self.frame

    #: a lake pile already built when the deal was read (the camera started late, or read
    #: the deal late) holds the cards under its top: each from a hidden card (the seat
    #: credited with the top first) when no seat was seen losing it (real path round 14:
    #: the deal read at 17 s, a heart pile and a spade pile at 3; their 15 later cards
    #: were flagged "cannot start a pile")
    DEAL_PILE_UNDER = True
    #: a pile showing a card when the deal was read is taken for built before only when
    #: it can have been by then: at most one card per this long of video before the deal
    #: was read (reader v2.2's round 7: a 5S read on a pile 2.6 s in was a misread, and
    #: the AS-4S put under it made the round worse)
    DEAL_PILE_MS_PER_CARD = 1000.0
    #: so is a pile that showed a card when the deal was read, its read not yet settled
    #: then (an unsure read), whose first settled top is the card landing on it (real
    #: path, `--seed 4` round 3: a 2S pile at the deal, read unsure; the 3S laid on it
    #: started a pile, and its 4S to KS were each flagged "cannot start a pile")
    DEAL_PILE_UNSETTLED = True

    def _built_before_deal(self, code: str) -> bool:
        """Whether a pile showing ``code`` when the deal was read can have been built
        before it (see :attr:`DEAL_PILE_UNDER`)."""
        card = Card.parse(code)
        return self.DEAL_PILE_UNDER and not card.is_joker and \
            card.rank * self.DEAL_PILE_MS_PER_CARD <= self.deal_t_ms

    def _infer_missing(self, seat: int, code: str, j: int, t: int,
                       evidence: dict[str, Any], at_deal: bool = False) -> None:
        """A foundation seen at 5♥ and then at 7♥ had a 6♥ played: when a seat lost the
        missing card(s), commit those moves first (marked inferred). ``at_deal``: the pile
        showed ``code`` when the deal was read (see :attr:`DEAL_PILE_UNDER`)."""
        table = self.table
        assert table is not None
        f = table.lake[j] if j < len(table.lake) else None
        card = Card.parse(code)
        if card.suit is None:
            return
        if f is not None and f.top is not None:
            if f.suit != card.suit or card.rank <= f.next_rank:
                return
            start, after = f.next_rank, f.top.card.code
        else:  # a pile started (or left empty by a take-back) with a non-Ace: the Ace and
            start, after = 1, "an empty pile"  # the rest may be under it, unseen
        # (a pile started: all its cards under the landing one found, or none: see
        # WHOLE_RUN_UNDER_START)
        whole = self.WHOLE_RUN_UNDER_START and start == 1 and card.rank > 2 and not at_deal
        if whole:  # (what to restore when the run under it is not found whole)
            n0, flags0 = len(self.records), [r.flags for r in self.records]
            deal0, known0, named0 = self._saved_deal(), set(self.known), set(self.named)
        for rank in range(start, card.rank):
            missing = Card(rank, card.suit).code
            spots = [s for s in self._free_spots(missing, f"lake:{j}")
                     if not s[3] and s[1] == 1 and self._departed(s[0], missing) == 3
                     and (s[0], missing) in self.seen_at]  # (not a hidden card's guess)
            if not spots and f is not None and f.placements and \
                    not f.placements[-1].counts and f.placements[-1].card.code == missing:
                # a misplaced identical card lies on top: the counting one is hidden by it
                spots = self._seen_on_a_waste(missing, t)
            if not spots and self.INFER_SEEN_GONE and self._shown_on_pile(j, missing):
                # a card seen lately on a seat's nertz top or waste and gone from there,
                # that the engine holds among the seat's hidden cards (its reveal or draw
                # never committed), and that the pile itself showed or was read as
                # (the pile's observed place: the waste's looks are compared with its own)
                pile = self._obs_place_of(f"lake:{j}")
                for cand in self._waste_candidates(missing, pile, [], t):
                    if (self._bring_to_nertz_top(cand[2], missing)
                            if cand[0].endswith(":nertz")
                            else self._bring_to_waste_top(cand[2], missing)):
                        spots = [cand]
                        break
            why = f"{code} seen on lake:{j} after {after}"
            unsure = 1.0 - sum(p for _a, p in evidence.get("reads", ())) < self.SURE
            settled = self.SETTLED_ON_PILE and self._settled_on_pile(j, missing)
            if not spots and at_deal and self._built_before_deal(code):
                # a pile already built when the deal was read: its cards under the top
                # went there before, from hidden cards (the seat's own first)
                spots = self._hidden_card(seat, missing, busy=evidence.get("from"))
                why = (f"{code} on lake:{j} when the deal was read: {missing} under it "
                       f"(one of seat{spots[0][2]}'s hidden cards)" if spots else why)
            if not spots and self.INFER_HIDDEN and card.rank - start == 1 and \
                    (unsure or settled):
                # one card between, and the reader unsure of the card that landed: likelier
                # a card missed than a rank skipped. A hidden card of the seat (else of
                # another) went there unseen (turned and played at once, covered before it
                # settled). (A sure read of a skip is flagged, as before.)
                spots = self._hidden_card(seat, missing, busy=evidence.get("from"))
                why += f" ({missing} unseen: one of seat{spots[0][2]}'s hidden cards)" \
                    if spots else ""
            if not spots or table.is_legal(Move(spots[0][2], missing, spots[0][0],
                                                f"lake:{j}")) is not True:
                if whole and len(self.records) > n0 and \
                        self._rewrite_history(self.records[:n0], flags0):
                    self._deal_lists, self.known, self.named = deal0, known0, named0
                    evidence.pop("inferred_before", None)
                return
            src, _n, owner, _r = spots[0]
            move = Move(owner, missing, src, f"lake:{j}")
            why_ev: dict[str, Any] = {"why": why, "from": src}
            if self.ORPHAN_VIA_COLUMN:
                move = replace(move, src=self._via_column(owner, missing, src,
                                                          self._obs_place_of(move.dst), t,
                                                          why_ev))
            self._commit(move, t, self.frame, inferred=True, evidence=why_ev)
            evidence["inferred_before"] = evidence.get("inferred_before", []) + [missing]

    #: whether a card missing between a pile's top and a card seen landing on it may be
    #: one seen lately on a nertz top or waste and gone, that the engine holds hidden
    INFER_SEEN_GONE = True
    #: a card seen starting a pile (no Ace, no 2) has the cards under it inferred only when
    #: all of them are found: a high card on an empty spot is likelier misplaced (on an Ace
    #: it covered at once) than laid on a run of cards all missed, and a part of that run
    #: taken from the seats steals cards from the piles they went to (`--seed 8` round 3:
    #: seat 1's 9S, misplaced on seat 0's unseen AD, had seat 0's AS and seat 3's 2S laid
    #: under it, and the diamonds then built on the AD were each flagged on a spade pile)
    WHOLE_RUN_UNDER_START = True

    def _shown_on_pile(self, j: int, code: str) -> bool:
        """Whether lake pile ``j``'s place showed ``code`` (glimpsed, or settled) since the
        engine's top card landed there, or had it among the reader's alternatives of a card
        read there (a pile read 2D with 3D as the next read, the 3D laid on it)."""
        table = self.table
        if table is None or j >= len(table.lake) or not table.lake[j].placements:
            return False
        top = table.lake[j].placements[-1]
        place = self._obs_place_of(f"lake:{j}")
        st = self.states.get(place)
        if st is not None and any(seen.get(code, -1.0) >= top.t_ms
                                  for seen in (st.first, st.glimpsed, st.shown)):
            return True
        return any(p == place and any(a == code for a, _p in alts)
                   for (p, _c), alts in self.reads.items())

    #: a single card missing between a pile's top and a card seen landing on it, that the
    #: pile itself showed settled on top since the engine's top landed, is inferred from a
    #: hidden card even when the landing card is read sure (one seat drew and played it
    #: unseen; without it, every later card of the pile is flagged)
    SETTLED_ON_PILE = True

    def _settled_on_pile(self, j: int, code: str) -> bool:
        """Whether lake pile ``j``'s place showed ``code`` settled on top, uncovered, since
        the engine's top card that counts landed there (and no card that does not count,
        laid on it since, explains it)."""
        table = self.table
        top = table.lake[j].top if table is not None and j < len(table.lake) else None
        st = self.states.get(self._obs_place_of(f"lake:{j}"))
        if top is None or st is None or st.shown.get(code, -1.0) < top.t_ms:
            return False
        return not any(pl.card.code == code and pl.t_ms >= top.t_ms
                       for pl in table.lake[j].placements if not pl.counts)

    #: whether a single card missing between a pile's top and a card seen landing on it,
    #: read unsure, is inferred from a hidden card when no seat was seen losing it
    INFER_HIDDEN = True

    def _hidden_card(self, seat: int, code: str, busy: str | None = None
                     ) -> list[tuple[str, int, int, bool]]:
        """A waste as the source of ``code`` where the engine holds it among a seat's stock
        or waste cards, never moved (``seat`` first, then the others): made that waste's
        top. Not waste ``busy``, whose top is the card about to land on it."""
        table = self.table
        assert table is not None
        for k in [seat] + [s for s in range(self.seats) if s != seat]:
            where = table.where(code, k)
            if where is None or where.kind not in ("stock", "waste") or \
                    (k, code) in self.named or busy == f"seat{k}:waste":
                continue
            if self._bring_to_waste_top(k, code):
                return [(f"seat{k}:waste", 1, k, False)]
        return []

    def _bridge_column(self, move: Move, top: str, t: float, evidence: dict[str, Any]) -> None:
        """A column seen at 9♠ and then at 7♠ had a red 8 laid between, hidden by the 7♠: when
        exactly one such card of the column's seat has left its place (or its waste) unseen,
        commit that move first (marked inferred)."""
        table = self.table
        assert table is not None
        if top not in ALL_CODES or move.card not in ALL_CODES:
            return
        low, high = Card.parse(move.card), Card.parse(top)
        if high.rank - low.rank != 2 or low.is_red != high.is_red:
            return
        seat = Place.parse(move.dst).seat
        suits = "DH" if not high.is_red else "CS"
        found = []
        for suit in suits:
            code = Card(high.rank - 1, suit).code
            spots = [sp for sp in self._free_spots(code, move.dst)
                     if sp[2] == seat and not sp[3] and sp[1] == 1 and sp[0] != move.src
                     and self._departed(sp[0], code) == 3 and (sp[0], code) in self.seen_at]
            if not spots:
                spots = self._seen_on_a_waste(code, t, bring=False, only_seat=seat)
            found += [(code, sp) for sp in spots]
        if len(found) != 1:
            return
        code, (src, _n, _seat, _r) = found[0]
        if src.endswith(":waste") and not self._bring_to_waste_top(seat, code):
            return
        bridge = Move(seat, code, src, move.dst)
        if table.is_legal(bridge) is not True:
            return
        if self._commit(bridge, t, self.frame, inferred=True,
                        evidence={"why": f"{move.card} seen on {top} in {move.dst}",
                                  "from": src}):
            evidence["inferred_before"] = evidence.get("inferred_before", []) + [code]

    def _seen_on_a_waste(self, code: str, t: float, bring: bool = True,
                         only_seat: int | None = None) -> list[tuple[str, int, int, bool]]:
        """The one seat (of all, or ``only_seat``) whose waste showed ``code`` lately, gone
        from it since, while the engine keeps it among that seat's hidden cards (its waste
        order was taken for out of step): that waste as a source, with ``code`` made its
        engine top unless ``bring`` is False."""
        table = self.table
        assert table is not None
        seats = []
        for seat in range(self.seats) if only_seat is None else (only_seat,):
            wname = f"seat{seat}:waste"
            seen = self.seen_at.get((wname, code))
            where = table.where(code, seat)
            st = self.states.get(wname)
            if seen is None or not t - self.pool_window_ms <= seen <= t or where is None \
                    or where.kind not in ("stock", "waste") or (seat, code) in self.named \
                    or st is None or code in (st.stable or ()):
                continue
            seats.append(seat)
        if len(seats) != 1 or bring and not self._bring_to_waste_top(seats[0], code):
            return []
        return [(f"seat{seats[0]}:waste", 1, seats[0], False)]

    def _stock_waste(self, final: bool) -> bool:
        """New cards on a waste: draws (a whole stock's worth when the stock shows empty, a
        recycle first when the engine's stock is empty); an emptied waste with a stock
        again: a recycle. The seen cards are then put in place among the seat's hidden
        cards (see :meth:`_resync_waste`)."""
        table = self.table
        assert table is not None
        for seat in range(self.seats):
            wname, sname = f"seat{seat}:waste", f"seat{seat}:stock"
            wst, sst = self.states.get(wname), self.states.get(sname)
            if wst is None or wst.stable is None or not self._dirty(wname):
                continue
            seen = wst.stable
            layout = table.layouts[seat]
            waste = [c.code for c in layout.waste]
            stock_now: bool | None = None
            if sst is not None and sst.stable is not None:
                stock_now = sst.stable == ("back",)
            elif sst is None:
                stock_now = False
            waited = final or self.t_ms - wst.stable_t >= self.wait_ms
            if stock_now is None and not waited:
                continue
            plan: list[Action] = []
            if not seen:
                n = -(-len(layout.stock) // self.rules.draw)
                if stock_now and len(waste) >= 1 and (len(waste) >= 2 or not layout.stock) \
                        and n + 1 <= self._draw_budget(seat, wst.stable_t):
                    plan = [Draw(seat)] * n
                    plan.append(Recycle(seat))
                else:
                    continue
            else:
                top = seen[-1]
                if waste and top == waste[-1]:
                    continue  # the same top: lower fan cards are reveals
                if self._retract_under(seat, seen, waste, wst):
                    return True
                if self.DEPARTURE_BEFORE_DRAW and waste and not waited and \
                        top not in waste and self._showing_elsewhere(seat, waste[-1], wname,
                                                                     wst.stable_t):
                    continue  # the top left first (its arrival not settled yet): not a draw
                if top in (waste[:-1] if layout.stock else waste[-3:-1]) and not waited:
                    continue  # the top left: a departure, wait for where it went (with the
                    # engine's stock empty, a card deeper in its waste shows only after a
                    # recycle and draws)
                k = min(len(seen), len(waste) - 1)
                if k >= min(2, len(seen)) and seen[-k:] == tuple(waste[-1 - k:-1]) and any(
                        name.startswith("lake:") and (other.stable or ("",))[-1] == waste[-1]
                        for name, other in self.states.items()):
                    continue  # the top left and a pile shows its like: it lies under that
                if any(s[0] != wname and not s[3] and s[2] == seat
                       and self._departed(s[0], top) == 3
                       for s in self._free_spots(top, wname)):
                    continue  # an arrival (a misplaced river card taken back)
                where = table.where(top, seat) if top in self._deck() else None
                if where is None or where.kind not in ("stock", "waste", "nertz") or \
                        where.kind == "nertz" and layout.nertz and \
                        layout.nertz[-1].code == top:
                    continue  # no draw turns it up: the engine has it elsewhere
                if not layout.stock:
                    if not layout.waste:
                        continue
                    plan.append(Recycle(seat))
                    stock_len = len(layout.waste)
                else:
                    stock_len = len(layout.stock)
                draws = 1
                if stock_now is False:
                    draws = max(1, -(-stock_len // self.rules.draw))
                    if draws > self._draw_budget(seat, wst.stable_t):
                        draws = 1  # no hand turns a whole stock that fast: a misread
                plan += [Draw(seat)] * draws
            recycles = sum(isinstance(a, Recycle) for a in plan)
            if recycles and wst.stable_t - self.last_recycle_t.get(seat, -1e9) < 2000:
                continue  # no hand goes through its whole stock twice in two seconds
            if self._commit_plan(seat, plan, list(seen), wst):
                if recycles:
                    self.last_recycle_t[seat] = wst.stable_t
                return True
        return False

    #: a waste that shows a new top while the engine's top shows arriving elsewhere (read
    #: on top of one of the seat's columns or a lake pile, not settled there yet) lost that
    #: card first: the new top is the card under it (a fan read short, its middle card
    #: missed), not a draw; the move is taken first (on the 12 real-path rounds it waits
    #: for 45 such arrivals, round 0's seat 1 5S among them, which went to its column as
    #: the waste showed the 4H under it; 951 / 1092 found / reported, MAE 1.53 -> 956 /
    #: 1100, 1.42)
    DEPARTURE_BEFORE_DRAW = True

    def _showing_elsewhere(self, seat: int, code: str, src: str, since: float) -> bool:
        """Whether ``code`` (``seat``'s card at ``src``) was read lately (from ``since``
        less half a second) on top of another place of the seat or of a lake pile whose
        settled view does not show it yet."""
        for name, st in self.states.items():
            if name == src:
                continue
            kind = self._kind(name)
            if kind == "lake" or name.startswith(f"seat{seat}:") and kind == "river":
                if st.top == code and st.top_t >= since - 500 and \
                        (not st.stable or st.stable[-1] != code):
                    return True
        return False

    def _retract_under(self, seat: int, seen: tuple[str, ...], waste: list[str],
                       wst: _PlaceState) -> bool:
        """A misplaced card of the seat taken back from the lake onto its waste, then
        covered by a draw before the waste settled: the fan shows it under the new top.
        Commit the take-back first (timed when the pile changed), so the draw lands on it."""
        table = self.table
        assert table is not None
        wname = f"seat{seat}:waste"
        for under in reversed(seen[:-1]):
            if under in waste:
                continue
            spots = [sp for sp in self._free_spots(under, wname)
                     if sp[3] and sp[2] == seat and self._departed(sp[0], under) == 3]
            if len(spots) != 1:
                continue
            src = spots[0][0]
            lake = self._obs_place_of(src)
            lst = self.states.get(lake)
            j = self.lake_map.get(lake)
            pls = table.lake[j].placements if j is not None and j < len(table.lake) else []
            if lst is None or lst.stable_t > wst.stable_t or not pls or \
                    pls[-1].card.code != under:
                continue  # it must still be the pile's top (nothing landed on it since)
            t = int(min(max(lst.stable_t, table.now), wst.stable_t))
            return self._commit(Retract(seat, under, src, wname), t, wst.stable_frame,
                                evidence={"why": f"{under} shows under the waste's new top "
                                                 f"{seen[-1]}, gone from {src}"})
        if not self.RETRACT_GLIMPSED:
            return False
        for under, glimpse in sorted(wst.glimpsed.items(), key=lambda kv: -kv[1]):
            if under in seen or under in waste or under not in self._deck():
                continue
            spots = [sp for sp in self._free_spots(under, wname)
                     if not sp[3] and sp[1] == 1 and sp[2] == seat
                     and self._kind(sp[0]) == "river" and self._departed(sp[0], under) == 3]
            if len(spots) != 1:
                continue
            src = spots[0][0]
            left = self.seen_at.get((src, under))
            action = Retract(seat, under, src, wname)
            column = table.pile(Place.parse(src))
            cst = self.states.get(src)
            if left is None or not left < glimpse <= wst.stable_t or \
                    table.is_legal(action) is not True or len(column) < 2 or \
                    cst is None or not cst.stable or cst.stable[-1] != column[-2].code:
                continue  # (only a misplaced card goes back where it came from, and its
                # column shows again the card it lay on: not a misread one read better)
            return self._commit(action, int(max(glimpse, table.now)), wst.stable_frame,
                                evidence={"why": f"{under}, gone from {src}, glimpsed on the "
                                                 f"waste before {seen[-1]} covered it"})
        return False

    #: a misplaced river card gone from its column and glimpsed on its waste (never
    #: settled there: a draw covered it at once) was taken back then, before the draw
    #: (oracle round 3: seat 2's QD, taken back and drawn on within half a second, was
    #: taken back only 9 s later, when the stock's next pass showed it, and the seat's
    #: waste stayed out of step for the rest of the round)
    RETRACT_GLIMPSED = True

    def _draw_budget(self, seat: int, t: float) -> int:
        """How many stock actions a hand can make since the seat's last one."""
        last = self.last_stock_t.get(seat, 0.0)
        return 1 + int(max(0.0, t - last) / self.draw_ms)

    def _commit_plan(self, seat: int, plan: list[Action], seen: list[str],
                     wst: _PlaceState) -> bool:
        table = self.table
        assert table is not None
        t = int(wst.stable_t)
        done = False
        for i, action in enumerate(plan):
            last = i == len(plan) - 1
            if last and seen and isinstance(action, Draw):
                self._resync_waste(seat, seen, pending_draw=True)
            cards = None
            if isinstance(action, Draw):
                cards = [c.code for c in table.layouts[seat].stock[:self.rules.draw]]
            if not self._commit(action, t, wst.stable_frame, inferred=not last,
                                cards=cards, evidence={"waste": seen}):
                break
            done = True
        if seen:
            self._resync_waste(seat, seen)
        return done

    def _pool(self, seat: int) -> list[tuple[list[Card], int]]:
        """The hidden positions of a seat: under the nertz top, the stock, the waste."""
        layout = self.table.layouts[seat]  # type: ignore[union-attr]
        out = [(layout.nertz, i) for i in range(len(layout.nertz) - 1)]
        out += [(layout.stock, i) for i in range(len(layout.stock))]
        out += [(layout.waste, i) for i in range(len(layout.waste))]
        return out

    def _resync_waste(self, seat: int, seen: list[str], pending_draw: bool = False) -> None:
        """Put the seen fan on top of the engine's waste (or, before a draw, into the
        stock cards that draw will turn) by exchanging hidden, never-moved cards."""
        table = self.table
        assert table is not None
        layout = table.layouts[seat]
        if pending_draw:
            k = min(self.rules.draw, len(layout.stock))
            slots = [(layout.waste, i) for i in range(len(layout.waste))]
            slots += [(layout.stock, i) for i in range(k)]
        else:
            slots = [(layout.waste, i) for i in range(len(layout.waste))]
        slots = slots[-len(seen):]
        for (lst, i), want in zip(slots, seen[-len(slots):], strict=False):
            have = lst[i].code
            if have != want:
                self._swap(seat, have, want, protect=[id(lst), i])
            self.known.add((seat, want))

    def _lost_nertz_top(self, seat: int, have: str, st: _PlaceState) -> bool:
        """The engine's nertz top was seen there, the camera has long shown another top, and
        the card has since been seen on one of the seat's river columns: it was moved there
        unseen (commit that move, marked inferred), so the pile is not stuck on it."""
        if self.t_ms - st.stable_t < self.wait_ms:
            return False
        left = self.seen_at.get((f"seat{seat}:nertz", have))
        last = self.seen_last.get((seat, have))
        if left is None or last is None or last[1] <= left or \
                self._kind(last[0]) != "river":
            return False
        move = Move(seat, have, f"seat{seat}:nertz", last[0])
        if not self.INFER_ILLEGAL and self.table.is_legal(move) is not True:  # type: ignore[union-attr]
            # a breach only where the camera shows the card lying on the column's top as
            # the engine has it (else the engine's column is what is wrong)
            col = self.table.pile(last[0])  # type: ignore[union-attr]
            cst = self.states.get(last[0])
            seen = cst.stable if cst is not None and cst.stable else ()
            if not (col and len(seen) >= 2 and seen[-1] == have and seen[-2] == col[-1].code):
                return False
        return self._commit(move, st.stable_t,
                            st.stable_frame, inferred=True,
                            evidence={"why": f"{have} left the nertz pile unseen and was "
                                             f"seen on {last[0]}"})

    #: a nertz top the engine holds, that the camera has since shown two other tops
    #: over in turn (the first for :attr:`wait_ms` and a little more), left the pile:
    #: when no move to where it was seen since explains it (:meth:`_lost_nertz_top`), it
    #: is taken out as
    #: :class:`~rules.moves.Unseen` so the pile's later plays are seen (real path, unseen
    #: round 20: seat 3's pile stuck on a misread KC, 6 of its 12 nertz plays missed)
    PASSED_NERTZ_TOP = True
    PASSED_SLACK_MS = 500.0
    #: the same after one new top shown this long in plain view (longer than a card
    #: stays in the hand that took it: 4 s in the race test), when it is one of the
    #: seat's unplaced cards (not a card the seat has elsewhere: a take-back, a misread);
    #: a card of the old top's rank, or the reader's other read of it, is the old top
    #: misread: the engine's top is renamed to it, the count kept (real path, round 14:
    #: seat 2's pile stuck on a 7H while the camera showed 6C, then JH; 12 rounds
    #: 933 / 1098 found / reported, flags 92 -> 932 / 1088, 89, MAE 1.80 -> 1.76;
    #: after 3 s: 932 / 1085, 88, 1.81; taking a misread top out too: 931 / 1083, 87, 1.69)
    PASSED_ONE_TOP_MS: float | None = 4500.0
    PASSED_MISREAD_SWAP = True

    #: a nertz top the two-tops rule would take out, that is a likely misread of a card
    #: the pile has lost since the top was last seen there, was that card: it is renamed
    #: to the camera's top, not counted a second time (real path, round 13: seat 2's 10C,
    #: read 10S on its pile, left for a pile, and its 10S was taken out too; 12 rounds:
    #: MAE 1.63 -> 1.58, round 13's seat 2 exact, moves and flags unchanged)
    PASSED_TWICE_GUARD = True

    def _left_as(self, seat: int, read: str, since: float) -> bool:
        """A card ``read`` may be a misread of left the seat's nertz pile after ``since``
        (less a frame)."""
        name = f"seat{seat}:nertz"
        return any(isinstance(rec.action, Move) and rec.action.src == name and
                   rec.action.card != read and rec.t_ms >= since - 150 and
                   self._likely_misread(name, read, rec.action.card)
                   for rec in reversed(self.records[-60:]))

    def _likely_misread(self, place: str, read: str | None, card: str) -> bool:
        """``read`` at ``place`` may be ``card`` misread: the same rank (a suit of the
        same colour or not), or ``card`` among the reader's other likely reads of it."""
        if read is None or read not in ALL_CODES or card not in ALL_CODES:
            return False
        return Card.parse(read).rank == Card.parse(card).rank or \
            card in (a for a, _p in self.reads.get((place, read), ()))

    def _unplaced(self, seat: int, code: str | None) -> bool:
        """``code`` is one of the seat's cards the engine has not placed: in its stock,
        waste or nertz pile, never seen there."""
        if self.table is None or code is None or code not in self._deck():
            return False
        where = self.table.where(code, seat)
        return where is not None and where.kind in ("stock", "waste", "nertz") and \
            (seat, code) not in self.known

    def _top_shown_over(self, seat: int, have: str, st: _PlaceState
                        ) -> tuple[str, float] | None:
        """The camera's settled nertz top and since when, in plain view, when it is another
        of the seat's unplaced cards that settled after ``have`` was last seen there."""
        last = self.seen_at.get((f"seat{seat}:nertz", have))
        if not st.tops or not st.stable or st.covered or last is None:
            return None
        b, tb = st.tops[-1]
        if b is None or b != st.stable[-1] or b == have or last >= tb or \
                not self._unplaced(seat, b):
            return None
        return b, tb

    def _rename_nertz_top(self, seat: int, have: str, want: str) -> bool:
        """The engine's nertz top ``have`` was ``want`` misread: exchange the two (both
        never moved), the count unchanged. Whether the top is now ``want``."""
        if (seat, have) in self.named or (seat, want) in self.named:
            return False
        self._swap(seat, have, want)
        nertz = self.table.layouts[seat].nertz  # type: ignore[union-attr]
        if nertz and nertz[-1].code == want:
            self.known.add((seat, want))
            return True
        return False

    def _passed_nertz_top(self, seat: int, have: str, st: _PlaceState) -> bool:
        """See :attr:`PASSED_NERTZ_TOP`: commit the card's unseen leaving (inferred),
        timed when the first of the two tops settled."""
        if not self.PASSED_NERTZ_TOP or not st.tops:
            return False
        last = self.seen_at.get((f"seat{seat}:nertz", have))
        wait = self.PASSED_ONE_TOP_MS
        over = self._top_shown_over(seat, have, st) if wait is not None else None
        if over is not None and wait is not None and self.t_ms - over[1] >= wait:
            b, tb = over
            if self.PASSED_MISREAD_SWAP and \
                    self._likely_misread(f"seat{seat}:nertz", b, have) and \
                    self._rename_nertz_top(seat, have, b):
                # the engine's top was this card misread (a suit of its rank, or the
                # reader's other read): it takes the card shown, the count unchanged
                return True
            return self._commit(Unseen(seat, have, f"seat{seat}:nertz"), tb, st.stable_frame,
                                inferred=True,
                                evidence={"why": f"the camera showed {b} on seat{seat}'s "
                                                 f"nertz pile over {have} for "
                                                 f"{self.t_ms - tb:.0f} ms"})
        if len(st.tops) < 2:
            return False
        (a, ta), (b, tb) = st.tops[-2:]
        if a is None or b is None or have in (a, b) or a == b or last is None or \
                last >= ta or self.t_ms - ta < self.wait_ms + self.PASSED_SLACK_MS:
            return False  # (the first new top settled lately: its landing may be pending)
        if self.PASSED_TWICE_GUARD and self._left_as(seat, have, last) and \
                self._rename_nertz_top(seat, have, b):
            # the engine's top was a card that has left since, misread: not a second card
            return True
        return self._commit(Unseen(seat, have, f"seat{seat}:nertz"), ta, st.stable_frame,
                            inferred=True,
                            evidence={"why": f"the camera showed {a}, then {b}, on "
                                             f"seat{seat}'s nertz pile over {have}"})

    #: a nertz top the engine holds that the camera never showed on the pile (brought up
    #: from the seat's hidden cards for a landing elsewhere) gives way to the top the
    #: camera shows (real path, unseen round 18: seat 1's pile stuck on a hidden 6D from
    #: its second card on, 10 of its 11 nertz plays missed, its score 4 against 23)
    UNSEEN_TOP_YIELDS = True

    #: a card the camera shows on its seat's nertz pile, in plain view, that the tracker
    #: recorded leaving that pile unseen (inferred: the pile showed other cards over it)
    #: and that no other place showed since, never left: the card that left was another,
    #: misread as it (real path, round 14: seat 0's QS read KS, then QS; the pile blank
    #: while its KD was on it; "KS" taken for gone under 10D, the true KS shown 5 s later
    #: never counted as leaving, the seat's nertz count 3 against 1). The record is renamed
    #: to the hidden card the engine has on top, the two exchanged in the deal; the count
    #: stays. False: off
    RECODE_LEFT_NERTZ_TOP = True

    def _recode_left_nertz_top(self, seat: int, want: str, have: str, st: _PlaceState
                               ) -> bool:
        """See :attr:`RECODE_LEFT_NERTZ_TOP`: ``want`` shown on ``seat``'s nertz pile
        (``st``), ``have`` the engine's hidden top there. Whether the history was renamed."""
        name = f"seat{seat}:nertz"
        if not self.RECODE_LEFT_NERTZ_TOP or st.covered or (seat, have) in self.named or \
                (seat, have) in self.known:
            return False
        r = next((i for i in range(len(self.records) - 1, -1, -1)
                  if isinstance(self.records[i].action, Unseen)
                  and self.records[i].action.seat == seat
                  and self.records[i].action.card == want), None)
        if r is None:
            return False
        rec = self.records[r]
        if not rec.inferred or rec.action.src != name or \
                st.settled.get(want, st.stable_t) <= rec.t_ms or any(
                    place != name and c == want and g > rec.t_ms
                    and place.startswith(f"seat{seat}:")
                    for (place, c), g in self.seen_at.items()) or any(
                    isinstance(x.action, Move) and x.action.card == want
                    and self._owner(x.action) == seat for x in self.records[r:]):
            return False
        records = list(self.records)
        why = "; ".join(w for w in (rec.evidence.get("why", ""), f"{want} shown on {name} "
                                    f"since: the card that left was another") if w)
        records[r] = replace(rec, action=replace(rec.action, card=have),
                             evidence={**rec.evidence, "recoded_from": want, "why": why})
        before = [x.flags for x in self.records]
        if not self._rename_hidden([(seat, want, have)], records, before, None):
            return False
        self.known.add((seat, want))
        self.nertz_tops.add((seat, want))
        return True

    def _reveals(self) -> bool:
        """A newly turned nertz top, or lower fan cards of a waste, that the engine holds
        elsewhere among the seat's hidden cards."""
        table = self.table
        assert table is not None
        done = False
        for seat in range(self.seats):
            name = f"seat{seat}:nertz"
            st = self.states.get(name)
            nertz = table.layouts[seat].nertz
            if st is not None and st.stable and nertz:
                want, have = st.stable[-1], nertz[-1].code
                # (a top the engine holds only because a landing elsewhere brought a hidden
                # card up, never seen on this pile, does not hold the pile: the camera's
                # top replaces it, else the pile stays stuck on it for the round)
                shown = (seat, have) in self.nertz_tops and (
                    not self.UNSEEN_TOP_YIELDS or self.seen_at.get((name, have)) is not None)
                if want != have and shown and self._lost_nertz_top(seat, have, st):
                    return True
                if want != have and shown and self._passed_nertz_top(seat, have, st):
                    return True
                if want != have and not shown and (seat, want) not in self.named:
                    where = table.where(want, seat) if want in self._deck() else None
                    if where is not None and where.kind in ("nertz", "stock", "waste"):
                        self._swap(seat, have, want)
                        done = True
                    elif self._recode_left_nertz_top(seat, want, have, st):
                        return True
                if nertz[-1].code == want:
                    self.known.add((seat, want))
                    self.nertz_tops.add((seat, want))
            wst = self.states.get(f"seat{seat}:waste")
            waste = table.layouts[seat].waste
            if wst is None or not wst.stable or not waste or wst.stable[-1] != waste[-1].code:
                continue
            if tuple(c.code for c in waste[-len(wst.stable):]) != wst.stable:
                before = [c.code for c in waste]
                self._resync_waste(seat, list(wst.stable))
                done = done or before != [c.code for c in waste]
        return done

    def _swap(self, seat: int, have: str, want: str, protect: list[int] | None = None) -> None:
        """Exchange two hidden, never-moved cards of a seat in the engine and in the deal
        hypothesis (equivalent: nothing in the history names either card)."""
        table = self.table
        assert table is not None
        if (seat, have) in self.named or (seat, want) in self.named or want not in self._deck():
            return
        a, b = Card.parse(have, seat), Card.parse(want, seat)
        pool = self._pool(seat)
        layout = table.layouts[seat]
        if layout.nertz and layout.nertz[-1] in (a, b):
            pool.append((layout.nertz, len(layout.nertz) - 1))
        pos_a = next(((lst, i) for lst, i in pool if lst[i] == a), None)
        pos_b = next(((lst, i) for lst, i in pool if lst[i] == b), None)
        if pos_a is None or pos_b is None:
            return
        pos_a[0][pos_a[1]], pos_b[0][pos_b[1]] = b, a
        deal = self._deal_lists[seat]
        dl = [deal["nertz"], deal["stock"]]
        da = next(((lst, i) for lst in dl for i, c in enumerate(lst) if c == have), None)
        db = next(((lst, i) for lst in dl for i, c in enumerate(lst) if c == want), None)
        if da is not None and db is not None:
            da[0][da[1]], db[0][db[1]] = want, have
        self.known.add((seat, want))

    # --- committing ---------------------------------------------------------------------
    #: a card's move back to the place this reconcile took it from, by any way round, is
    #: refused like a direct undo (fresh `--seed 7` round 9 with the GPU localiser: seat
    #: 0's 10D went lake -> waste (taken back) -> column -> the same lake pile 32 times in
    #: one frame, 96 moves and flags, until the pass limit)
    NO_RETURN_IN_PASS = True
    #: ... and in a later pass, while the place it would go back to has not settled on a
    #: new view since the card left it (`--seed 9` round 9: a stale view of seat 2's
    #: column, never settled again after its run left, sent the run back and forth
    #: between two columns 17 times)
    NO_STALE_RETURN = True

    def _stale_return(self, move: Move) -> bool:
        """Whether ``move`` takes its card back where the card's last committed move took
        it from, while that place still shows the view it settled on before then."""
        prev = next((r for r in reversed(self.records)
                     if isinstance(r.action, Move | Retract) and r.action.card == move.card),
                    None)
        if prev is None or not isinstance(prev.action, Move) or prev.committed < 0 or \
                prev.action.src != move.dst or prev.action.dst != move.src:
            return False
        st = self.states.get(self._obs_place_of(move.dst))
        return st is not None and st.stable_frame <= prev.committed

    def _commit(self, action: Action, t: float, frame: int, *, inferred: bool = False,
                frames: tuple[int, int] | None = None, evidence: dict[str, Any] | None = None,
                cards: list[str] | None = None, earliest: int | None = None) -> bool:
        table = self.table
        assert table is not None
        t_ms = max(int(t), table.now)
        try:
            flags = table.push(action, t_ms)
        except (ImpossibleAction, OrderError, ValueError):
            return False
        if isinstance(action, Move | Retract):
            self.known.add((self._owner(action), action.card))
            self.named.add((self._owner(action), action.card))
        if isinstance(action, Move | Retract) and any(
                isinstance(a, Move | Retract) and a.card == action.card
                and a.src == action.dst and a.seat == action.seat
                and (type(a) is not type(action) and a.dst == action.src
                     or self.NO_RETURN_IN_PASS) for a in self._pass):
            table.pop()
            return False  # undoing what this pass did: an oscillation, not evidence
        if self.NO_STALE_RETURN and isinstance(action, Move) and self._stale_return(action):
            table.pop()
            return False
        if isinstance(action, Draw | Recycle | Rotate):
            self.last_stock_t[action.seat] = float(t_ms)
            flags = []  # the camera cannot count a stock: its rule checks are not evidence
        self._pass.append(action)
        rec = _Record(action, t_ms, frame, frames or (frame, frame), inferred,
                      evidence or {}, cards, flags, earliest, committed=self.frame)
        self.records.append(rec)
        if isinstance(action, EndRound):
            return True  # finish() writes the round_end with the scores
        ev = action_to_event(action, t_ms)
        ev["frame"] = frame
        if cards is not None:
            ev["cards"] = cards
        if isinstance(action, Move) and evidence and evidence.get("reads"):
            ev["reads"] = evidence["reads"]  # what else the card may have been
        if isinstance(action, Call):
            ev["valid"] = not flags
        if inferred:
            ev["inferred"] = True
        self.events.append(ev)
        for fl in flags:
            if not self._reported(fl):
                continue
            fe = fl.to_event()
            fe.update(frame=frame, frames=list(rec.frames), evidence=rec.evidence)
            self.events.append(fe)
        return True

    def _owner(self, action: Move | Retract) -> int:
        src = Place.parse(action.src)
        if src.seat is not None:
            return src.seat
        dst = Place.parse(action.dst)
        return dst.seat if dst.seat is not None else action.seat

    #: how much later than a call a move may be timed and still count as made before it
    #: (at 10 fps a card laid as the word is said shows a frame later and settles frames
    #: after that, more under a hand: `--seed 3` rounds 1 and 9, cards laid 60 ms and
    #: 10 ms before the call, timed 340 and 380 ms after it, flagged ``round_over`` at
    #: 300 ms)
    CALL_SLACK_MS = 400.0

    def _apply_calls(self, until: float) -> None:
        while self._pending_calls and self._pending_calls[0][1] <= until:
            seat, t = self._pending_calls.pop(0)
            evidence: dict[str, Any] = {"input": "call"}
            left = self.table.nertz_count(seat) if self.table is not None else 0
            # moves already decided after the call's time come after it (and may break
            # the end of the round): put the call in its place and replay them
            # (a move is timed by the first frame that shows it settled: up to a few
            # frames late, so those within CALL_SLACK_MS of the call stay before it)
            r = next((i for i, rec in enumerate(self.records)
                      if rec.t_ms > t + self.CALL_SLACK_MS
                      and not self._maybe_before(rec, t)), None)
            seen_empty = self._nertz_seen_empty(seat, t)
            if not left and seen_empty and self.NERTZ_MOVES_BEFORE_CALL_DECIDED:
                r = self._nertz_moves_before_call(seat, t, r)
            if left and seen_empty:
                # the camera shows the pile empty since before the call while the tracker
                # still counts cards in it: they left unseen (or taken for waste cards).
                # The pile is what the players see, so the call is true: those cards
                # leave the engine's pile, marked inferred (see _empty_nertz_unseen)
                r = self._nertz_moves_before_call(seat, t, r)
                gone = self._empty_nertz_unseen(seat, t, r)
                r = None if r is None else r + gone
                left = self.table.nertz_count(seat) if self.table is not None else 0
                evidence["camera"] = "nertz pile seen empty"
                evidence["why"] = (
                    f"the camera saw seat{seat}'s nertz pile empty at the call: "
                    f"{gone} card(s) the tracker still counted left it unseen"
                    if not left else
                    f"the camera saw seat{seat}'s nertz pile empty at the call, while the "
                    f"tracker counts {left} card(s) in it: review")
            kept = self.records
            if self._retime_before_call(t, r) and r is None:
                r = len(self.records)  # (to put the call after the retimed ones)
            fresh = self._rebuilt(self.records[:r]) if r is not None else None
            if fresh is None or not self._insert_at(
                    r, fresh, Call(seat), max(int(t), fresh.now), self.frame, evidence,
                    "it came after the call", inferred=False):
                self.records = kept  # (their own times, as the engine has them)
                self._commit(Call(seat), t, self.frame, evidence=evidence)

    #: a card whose arrival showed later than a call (and :attr:`CALL_SLACK_MS`) but whose
    #: place last showed it absent no later than the call and ``call_grace_ms`` may have
    #: landed in time: it stays before the call, timed at the call, and counts (real path,
    #: round 14: seat 2's 6C landed under a hand 20 ms before seat 3's call, the pile last
    #: read without it 80 ms before; first read 320 ms after, it was flagged
    #: ``round_over``). False: off
    LANDED_BEFORE_CALL = True

    #: a card that starts a new lake pile has no earlier view of its place to time it by:
    #: it may have landed as soon as an arm first covered the spot, in the run of frames
    #: under an arm that ended at most :attr:`NEW_PILE_UNREAD_MS` before the card first
    #: showed (the reader misses a card just laid for a frame or two after the hand goes).
    #: `--seed 9` round 2: seat 0's last nertz card AC, laid 410 ms after seat 2's call
    #: under a hand over the spot from 320 ms after it, first read 820 ms after it, was
    #: flagged ``round_over`` and did not count. None: off
    NEW_PILE_UNREAD_MS: float | None = 600.0

    def _new_pile_earliest(self, box: Any, t: float) -> int | None:
        """The earliest time a card first seen at ``t`` on a new lake pile at ``box`` may
        have landed (see :attr:`NEW_PILE_UNREAD_MS`); None: not known."""
        if self.NEW_PILE_UNREAD_MS is None or box is None:
            return None
        under = {ft for ft, b, _s in self._arm_log
                 if ft < t and _overlap(box, b) > self.cover_limit}
        frames = [ft for ft in self._frame_log if ft < t]
        if not under or max(under) < t - self.NEW_PILE_UNREAD_MS or max(under) not in frames:
            return None
        i = frames.index(max(under))
        while i > 0 and frames[i - 1] in under:
            i -= 1
        return int(frames[i - 1]) + 1 if i > 0 else None  # (a run older than the log: unknown)

    def _maybe_before(self, rec: _Record, t: float) -> bool:
        """May ``rec``'s move have landed by a call at ``t`` (its grace included)?"""
        return self.LANDED_BEFORE_CALL and rec.earliest is not None and \
            isinstance(rec.action, Move) and \
            rec.earliest <= t + self.rules.call_grace_ms

    def _retime_before_call(self, t: float, r: int | None) -> bool:
        """Time the records before ``r`` that showed later than a call at ``t`` but may
        have landed by it (:meth:`_maybe_before`) at the call (never before the record
        ahead of them); whether any was."""
        changed = False
        records = list(self.records)
        prev = 0
        for i, rec in enumerate(records[:r]):
            if rec.t_ms > t + self.CALL_SLACK_MS and self._maybe_before(rec, t):
                when = max(prev, int(t))
                records[i] = replace(rec, t_ms=when, evidence={
                    **rec.evidence, "timed": f"showed at {rec.t_ms} ms, last seen without "
                                             f"it at {rec.earliest - 1} ms: by the call"})
                changed = True
            prev = records[i].t_ms
        if changed:
            self.records = records
        return changed

    #: the caller's nertz pile seen empty before the call: moves from it decided after the
    #: call's place in the history (with the records committed with them) are put before
    #: the call, at its time: the pile was empty, so they were made (seed-3 round 2: seat
    #: 0's 6S and 5D, settled on its column before the call but timed 0.6 s after it, left
    #: the pile "full" and the true call was judged false)
    NERTZ_MOVES_BEFORE_CALL = True
    #: ... also when those moves were decided before the call came to be applied (the
    #: tracker counts the pile empty then, but the call's place in the history is before
    #: them: `--seed 7` round 2, seat 0's last nertz card, 9H, settled on its pile 0.6 s
    #: after the call, so the true call was judged false, -5, and the round's end inferred)
    NERTZ_MOVES_BEFORE_CALL_DECIDED = True

    def _nertz_moves_before_call(self, seat: int, t: float, r: int | None) -> int | None:
        """See :attr:`NERTZ_MOVES_BEFORE_CALL`; the call's new place in the history."""
        if not self.NERTZ_MOVES_BEFORE_CALL or r is None:
            return r
        src = f"seat{seat}:nertz"
        later = self.records[r:]
        times = {rec.t_ms for rec in later if getattr(rec.action, "src", None) == src
                 and self._owner(rec.action) == seat}  # type: ignore[arg-type]
        moved = [rec for rec in later if rec.t_ms in times and
                 getattr(rec.action, "seat", None) == seat]
        if not moved:
            return r
        prev = self.records[r - 1].t_ms if r else 0
        when = max(prev, int(t))
        keep = [rec for rec in later if not any(rec is m for m in moved)]
        records = [*self.records[:r], *(replace(m, t_ms=when, evidence={
            **m.evidence, "timed": f"showed at {m.t_ms} ms; the caller's nertz pile was "
                                   f"seen empty before the call"}) for m in moved), *keep]
        before = [*(x.flags for x in self.records[:r]), *(m.flags for m in moved),
                  *(x.flags for x in keep)]
        if not self._rewrite_history(records, before):
            return r
        return r + len(moved)

    def _nertz_seen_empty(self, seat: int, t: float) -> bool:
        """Has the camera shown ``seat``'s nertz pile empty since no later than just after
        ``t`` (see :meth:`_nertz_empty_since`)?"""
        since = self._nertz_empty_since(seat)
        if since is not None and since <= t + self.CALL_SLACK_MS:
            return True
        # (shown empty across the call, cards over the spot only after it: a nertz pile
        # is never filled again, so what shows there later belongs to another place)
        st = self.states.get(f"seat{seat}:nertz")
        return self.EMPTY_ACROSS_CALL and st is not None and any(
            start <= t + self.CALL_SLACK_MS and end >= t for start, end in st.bare_runs)

    #: a caller's nertz pile the camera showed empty (a few views, no hand on it) from no
    #: later than just after the call until after the call is empty at the call, even when
    #: a card shows on its spot later (real path, `--seed 4` round 1: seat 1's pile seen
    #: empty at the call, then its 8-card column's exposed 6H mapped onto the spot; the
    #: true call was judged false)
    EMPTY_ACROSS_CALL = True

    def _nertz_empty_since(self, seat: int) -> float | None:
        """Since when the camera shows ``seat``'s nertz pile empty: in every view since, a
        few at least, with no hand and no other place's card over the spot (views under a
        hand do not count, and do not break the run: hands about it can keep the pile from
        settling). None when it shows cards, or is not in view now (a place missing from
        the observations is not seen empty)."""
        st = self.states.get(f"seat{seat}:nertz")
        if st is None or not st.in_view or st.bare_since is None or \
                st.bare_n < self.min_frames:
            return None
        return st.bare_since

    #: a place whose last seen box is under another place's card more than this is hidden
    HIDDEN_BY_CARD = 0.25
    #: a nertz pile is seen empty only where no other place's card lies over its spot (its
    #: top card's largest recent box, :func:`_spot`), not over its last box alone: a read of
    #: the index alone gives a box a tenth of the card's (`--seed 4` round 2: seat 1's pile
    #: under seat 2's waste, its index read now and then, was taken for emptied and called)
    NERTZ_SPOT = True
    #: the spot follows the top card only in views without a hand over it: a card lifted
    #: off the pile in a hand is larger and elsewhere (``--seed 11`` round 1: the box of
    #: seat 2's JS in the hand that took it was 1.5 times the card's and reached over the
    #: next column, whose card then kept the emptied pile from ever being seen empty, and
    #: the seat's true call was judged false). False: every view
    SPOT_IN_PLAIN_VIEW = True

    def _under_other_cards(self, name: str, box: Any, obs: Observation) -> bool:
        """Is ``name``'s spot (its cards' last box) under a card of another place?"""
        if box is None:
            return False
        return any(_overlap(box, c.box) > self.HIDDEN_BY_CARD
                   for other, v in obs.places.items() if other != name for c in v.cards)

    def _empty_nertz_unseen(self, seat: int, t: float, r: int | None) -> int:
        """Take the cards the engine still has in ``seat``'s nertz pile out of it at ``t``
        (before record ``r`` when later records exist), all marked inferred: each to a lake
        pile or river column of the seat that the camera shows it on and the engine lacks
        it (a hidden card of the seat shown there taken for it), else as left unseen
        (:class:`~rules.moves.Unseen`: it scores nowhere). Returns how many left."""
        gone = 0
        src = f"seat{seat}:nertz"
        while self.table is not None and self.table.nertz_count(seat):
            table = self.table if r is None else self._rebuilt(self.records[:r])
            if table is None:
                break
            at = max(int(t), table.now)
            top = table.layouts[seat].nertz[-1].code
            found = self._nertz_card_seen_elsewhere(table, seat, at)
            action: Action = Unseen(seat, top, src)
            seen_on = None
            if found is not None:
                move, want, seen_on = found
                if want != top:
                    self._swap(seat, top, want)
                    table = self.table if r is None else self._rebuilt(self.records[:r])
                    if table is None:
                        break
                if table.layouts[seat].nertz[-1].code == want:
                    action = move
                else:
                    seen_on = None
            evidence = {"why": f"the camera saw seat{seat}'s nertz pile empty while the "
                               f"tracker still counted this card in it",
                        "seen_on": seen_on or "nowhere"}
            if isinstance(action, Move) and table.is_legal(action, at) is not True:
                action, seen_on = Unseen(seat, want, src), None
                evidence["seen_on"] = "nowhere"
            if r is None:
                ok = self._commit(action, at, self.frame, inferred=True, evidence=evidence)
            else:
                ok = self._insert_at(r, table, action, at, self.frame, evidence,
                                     "a nertz card that left unseen came before it")
                r += 1
            if not ok:
                break
            if seen_on and seen_on.startswith("lake:") and seen_on not in self.lake_map:
                self.lake_map[seen_on] = int(action.dst.split(":")[1])  # type: ignore[union-attr]
            gone += 1
        return gone

    def _nertz_card_seen_elsewhere(self, table: Table, seat: int, t: int
                                   ) -> tuple[Move, str, str] | None:
        """A legal, unflagged move of ``seat``'s nertz top (or of a hidden card of the seat
        in its place) to where the camera shows that card and the engine does not have it:
        a lake pile's top or one of the seat's river columns' top. (move, card, place)."""
        src = f"seat{seat}:nertz"
        top = table.layouts[seat].nertz[-1].code
        free = (seat, top) not in self.known and (seat, top) not in self.named

        def candidate(code: str) -> bool:
            if code == top:
                return True
            where = table.where(code, seat) if code in self._deck() else None
            return (free and where is not None and where.kind in ("nertz", "stock", "waste")
                    and (seat, code) not in self.known and (seat, code) not in self.named)

        for name in sorted(self.states):
            st = self.states[name]
            if not st.stable or not candidate(st.stable[-1]):
                continue
            code = st.stable[-1]
            if name.startswith("lake:"):
                j = self.lake_map.get(name)
                if j is not None and j < len(table.lake):
                    pile = table.lake[j].placements
                    if pile and pile[-1].card.code == code:
                        continue  # the engine has it there already
                elif Card.parse(code).rank != 1:
                    continue
                else:
                    j = len(table.lake)
                dst = f"lake:{j}"
            elif name.startswith(f"seat{seat}:river"):
                col = table.pile(name)
                if col and col[-1].code == code:
                    continue
                dst = name
            else:
                continue
            if _fits(table, code, dst):
                return Move(seat, code, src, dst), code, name
        return None


def _fits(table: Table, code: str, dst: str) -> bool:
    """Would ``code`` lie legally on ``dst`` (a lake pile, a river column) now?"""
    card = Card.parse(code)
    place = Place.parse(dst)
    if place.is_lake:
        if place.index == len(table.lake):
            return card.rank == 1
        if place.index is None or place.index > len(table.lake):
            return False
        f = table.lake[place.index]
        return not f.set_aside and f.top is not None and f.suit == card.suit and \
            f.next_rank == card.rank
    col = table.pile(place)
    return not col or is_run([col[-1], card])


def _in_order(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """Is ``part`` ``whole`` with some cards left out, in the same order?"""
    it = iter(whole)
    return all(c in it for c in part)


def _new_on_column(exp: tuple[str, ...], seen: tuple[str, ...]) -> int | None:
    """Where new cards start on a column seen with its old top read right but some lower
    cards read otherwise, not found (one or two) or one extra (half-hidden strips): the
    index in ``seen`` of the first new card, when it builds down on the old top and most
    of the lower cards seen are the column's; else None."""
    if not exp or exp[-1] not in seen:
        return None
    i = len(seen) - 1 - seen[::-1].index(exp[-1])
    below = seen[:i]
    if not len(exp) - 3 <= i <= len(exp) or i + 1 >= len(seen) or \
            not _builds_down(seen[i + 1], exp[-1]) or set(seen[i + 1:]) & set(exp):
        return None
    if 2 * sum(c in exp[:-1] for c in below) < len(below):
        return None
    return i + 1


def _builds_down(card: str, base: str) -> bool:
    """Whether ``card`` may lie on ``base`` in a river column: one rank lower, the other
    colour (codes only; jokers and unknown codes do not)."""
    if card not in ALL_CODES or base not in ALL_CODES:
        return False
    c, b = Card.parse(card), Card.parse(base)
    return c.is_red != b.is_red and c.rank == b.rank - 1


def _builds_up(card: str, base: str) -> bool:
    """Whether ``card`` may lie on ``base`` on a lake pile: the same suit, one rank higher
    (codes only; jokers and unknown codes do not)."""
    if card not in ALL_CODES or base not in ALL_CODES:
        return False
    c, b = Card.parse(card), Card.parse(base)
    return c.suit == b.suit and c.rank == b.rank + 1


#: the other suit of each suit's colour
_TWIN_SUIT = {"C": "S", "S": "C", "D": "H", "H": "D"}


def _twin(code: str) -> str | None:
    """The card of the same rank in the other suit of its colour (5S → 5C), or None for
    a code that is no plain card."""
    if code not in ALL_CODES:
        return None
    card = Card.parse(code)
    suit = _TWIN_SUIT.get(card.suit)  # type: ignore[arg-type]
    return None if suit is None else Card(card.rank, suit).code


def _covered_run(exp: tuple[str, ...], seen: tuple[str, ...]) -> bool:
    """Seen = the expected column without its top card, then new cards: a run laid on the
    old top that hides its index (a card's code may appear once only)."""
    run = seen[len(exp) - 1:]
    return bool(run) and exp[-1] not in run and not set(run) & set(exp)


def _union(boxes: list[tuple[float, float, float, float]]
           ) -> tuple[float, float, float, float]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))


def _spot(spot: tuple[float, float, float, float] | None,
          box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """A pile's spot after its top card was seen in ``box``: the box, unless it is a small
    part of the spot (an index read while the rest of the card is hidden)."""
    if spot is None or _overlap(box, spot) == 0.0:
        return box  # (the first view, or the pile is elsewhere now: a camera bump)
    area = (box[2] - box[0]) * (box[3] - box[1])
    return box if area >= 0.6 * (spot[2] - spot[0]) * (spot[3] - spot[1]) else spot


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
             ) -> float:
    """Share of box ``a`` under box ``b``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = max(1e-6, (a[2] - a[0]) * (a[3] - a[1]))
    return max(0.0, w) * max(0.0, h) / area


def oracle_observations(label_lines: Iterable[dict[str, Any]]) -> Iterable[Observation]:
    """Observations of a perfect detector and table model from render labels (the header
    line is skipped)."""
    from .observation import observation_from_labels

    for line in label_lines:
        if line.get("type") == "header":
            continue
        yield observation_from_labels(line)


@functools.lru_cache(maxsize=4096)
def _place_kind(place: str) -> str:
    """``lake``, ``nertz``, ``river``, ``waste`` or ``stock`` of a place name (asked some
    hundred thousand times a minute: kept)."""
    if place.startswith("lake:"):
        return "lake"
    kind = place.split(":", 1)[1]
    return "river" if kind.startswith("river") else kind
