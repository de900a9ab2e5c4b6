"""A live round: the rules engine fed event by event, and the sources events come from.

:class:`RoundEngine` turns what a source reports (moves, draws, calls, a round end) into the
events to record: the action itself (a call with ``valid``), the flags the rules raise, and
the ``round_end`` with the scores once the round is over. Its output for a whole round is a
log that :func:`rules.log.replay` accepts. A source whose deal is not a whole deck per seat
(a camera that saw only part of it) runs in *pass-through* mode: its events are recorded as
they come, the scores counted from the moves.

Sources (all pluggable, see :func:`open_source`):

* ``simulate`` — the bot simulator's log of a fresh round, played as if live;
* ``log`` — an uploaded event log played as if live;
* ``events`` — events posted by a client (a tracker running elsewhere);
* ``video`` / ``camera`` / ``frames`` — frames through the vision pipeline
  (:class:`VisionPipeline`: table model, detector, ``vision.tracker.Tracker``).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rules import HouseRules, RulesError
from rules.cards import CardCodeError, PlaceError
from rules.log import LogError, read_events
from rules.moves import ACTION_TYPES, EndRound, action_from_event
from rules.simulator import simulate_round
from rules.table import ImpossibleAction, OrderError, Table

__all__ = ["Batch", "RoundEngine", "SourceError", "VisionPipeline", "log_source",
           "open_source", "rebuild", "revisions", "split_at_end", "store_revisions",
           "video_source"]


class SourceError(ValueError):
    """A source that cannot be opened or read; the message says why in one line."""


#: the event types a tracker's revised history can change after they were announced
REVISED_TYPES = ("move", "retract", "flag")


def _revised_key(event: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(event.get(k) for k in ("type", "seat", "card", "from", "to", "n", "rule",
                                        "place"))


def _same_action(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether ``new`` is ``old`` revised: the same seat's move (or retract) from the same
    place, renumbered (another lake pile) or renamed (another code); a flag of the same seat,
    card and rule on another place."""
    if old.get("type") != new.get("type") or old.get("seat") != new.get("seat"):
        return False
    if old["type"] == "flag":
        return old.get("card") == new.get("card") and old.get("rule") == new.get("rule")
    return old.get("from") == new.get("from") and (old.get("card") == new.get("card")
                                                   or old.get("to") == new.get("to"))


def revisions(stored: list[tuple[int, dict[str, Any]]], final: list[dict[str, Any]],
              settled: Sequence[dict[str, Any]] = ()
              ) -> tuple[list[tuple[int, str, dict[str, Any] | None]], list[dict[str, Any]]]:
    """What brings a round's stored events in line with a source's revised history: the
    corrections ``(seq, "replace" | "delete", event)`` of stored moves, retracts and flags
    that the history no longer holds as they are (a renumbered or renamed move is
    replaced, a dropped one deleted), and the history's events never stored (to append).
    ``stored``: (seq, event) as recorded with the source's own corrections applied;
    ``final``: the source's whole history (other types are left alone); ``settled``: the
    events as the source reported them that a person has corrected since (leave out of
    ``stored``): they stand for their like in the history, and are never revised."""
    pool: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for e in final:
        if e.get("type") in REVISED_TYPES:
            pool.setdefault(_revised_key(e), []).append(e)
    for e in settled:  # (its like as it is, or revised)
        same = pool.get(_revised_key(e)) or next(
            (lst for lst in pool.values() if lst and _same_action(e, lst[0])), None)
        if same:
            same.pop(0)
    stale = []
    for seq, e in stored:
        if e.get("type") not in REVISED_TYPES:
            continue
        same = pool.get(_revised_key(e))
        if same:
            same.pop(0)
        else:
            stale.append((seq, e))
    rest = sorted((e for same in pool.values() for e in same), key=lambda e: e["t_ms"])
    fixes: list[tuple[int, str, dict[str, Any] | None]] = []
    for seq, e in stale:
        k = next((i for i, f in enumerate(rest) if _same_action(e, f)), None)
        if k is None:
            fixes.append((seq, "delete", None))
        else:
            fixes.append((seq, "replace", {**rest.pop(k), "t_ms": e["t_ms"]}))
    return fixes, rest


#: why the stored events of a vision round are corrected by "tracker"
REVISED_WHY = "the tracker revised its history: later frames explained earlier ones"


def store_revisions(store: Any, round_id: int, tracker: Any, score: dict[str, Any] | None
                    ) -> tuple[int, list[tuple[int, int, dict[str, Any]]]]:
    """Bring a round's stored events in line with its vision tracker's history
    (:func:`revisions`): corrections by "tracker" in the store's audit trail, and the
    events never stored appended while the round is running. A person's correction
    stands: the event as reported stands for its like and is never revised. Returns the
    number of corrections and the appended events as (id, seq, event)."""
    people = {c["seq"] for c in store.corrections(round_id) if c["who"] != "tracker"}
    effective = dict(store.effective_events(round_id))
    stored, settled = [], []
    for row in store.events(round_id):
        if row["seq"] in people:
            settled.append(row["event"])
        elif row["seq"] in effective:
            stored.append((row["seq"], effective[row["seq"]]))
    fixes, new = revisions(stored, tracker.log(), settled)
    for seq, action, event in fixes:
        store.add_correction(round_id, seq, action, event, "tracker", REVISED_WHY, score,
                             score)
    appended: list[tuple[int, int, dict[str, Any]]] = []
    if new and store.round(round_id)["status"] == "running":
        ids = store.append_events(round_id, new, "tracker", score=score)
        appended = [(gid, seq, e) for (gid, seq), e in zip(ids, new, strict=True)]
    return len(fixes), appended


def split_at_end(events: list[dict[str, Any]]
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the events before the round's end, the end and what follows it): what a revision
    appends goes in between."""
    end = next((i for i, e in enumerate(events) if e.get("type") == "round_end"),
               len(events))
    return events[:end], events[end:]


class RoundEngine:
    """The rules engine of one round, fed the events of a source as they arrive."""

    def __init__(self, seats: int, rules: HouseRules, round_no: int = 1) -> None:
        self.seats = seats
        self.rules = rules
        self.round_no = round_no
        self.table: Table | None = None
        self.deals: list[dict[str, Any]] = []
        self.started = False
        self.ended = False
        self.last_t = 0
        self.passthrough = False
        self.passthrough_reason = ""
        self._lake = [0] * seats
        self._nertz = [0] * seats
        self._false = [0] * seats
        self._final: dict[str, Any] | None = None
        self.emptied: list[int] = []
        #: the source's own rules engine, where it has one: an object with ``score()`` (a
        #: score dict or None) and ``table()`` (a :class:`Table` or None), as
        #: :class:`VisionPipeline` (its tracker knows the hidden cards' hypothesis, who owns
        #: each lake card, which placements count, and puts late-decided moves in their
        #: place). Asked, when scores or the table are wanted, instead of this engine's
        #: tallies where the deal cannot be replayed here.
        self.source: Any = None

    # --- feeding ----------------------------------------------------------------------
    def feed(self, event: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
        """Apply one reported event; returns (events to record, problems). A problem is an
        event that could not be applied (it is not recorded; the round goes on)."""
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            return [], ["an event must be a JSON object with a 'type'"]
        kind = event["type"]
        if self.ended:
            if kind in ("round_end", "match_end", "flag"):
                return [], []
            return [], [f"{kind} after the round's end: ignored"]
        t = event.get("t_ms", self.last_t)
        if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
            return [], [f"t_ms must be a non-negative number, got {t!r}"]
        t = max(int(t), self.last_t)
        out: list[dict[str, Any]] = []
        if not self.started:
            self.started = True
            start = {"type": "round_start", "t_ms": 0}
            if kind == "round_start":
                start.update({k: v for k, v in event.items() if k not in ("rules", "seats",
                                                                          "round")})
            if event.get("seats", self.seats) != self.seats:
                self.started = False
                return [], [f"the source has {event.get('seats')} seats, the table "
                            f"{self.seats}"]
            start.update({"t_ms": 0, "round": self.round_no, "seats": self.seats,
                          "rules": self.rules.to_dict()})
            out.append(start)
            if kind == "round_start":
                return out, []
        elif kind == "round_start":
            return [], [] if not self.deals else ["a second round_start in one round: ignored"]
        if kind == "match_end":
            return out, []
        if kind == "deal":
            return self._deal(event, out)
        if len(self.deals) < self.seats:
            return out, [f"{kind} before every seat's deal: ignored"]
        if kind == "flag":
            if self.passthrough:
                out.append({**event, "t_ms": t})
                self.last_t = t
            return out, []
        if kind == "round_end":
            return self._end(event, t, out)
        if kind not in ACTION_TYPES:
            return out, [f"unknown event type {kind!r}: ignored"]
        if self.passthrough:
            return self._pass(event, t, out)
        assert self.table is not None
        try:
            action = action_from_event(event)
            flags = self.table.push(action, t)
        except (ImpossibleAction, OrderError, CardCodeError, PlaceError, ValueError) as exc:
            return out, [f"{kind} at {t} ms cannot be applied: {exc}"]
        self.last_t = t
        recorded = {**event, "t_ms": t}
        if kind == "call":
            recorded["valid"] = self.table.calls[-1][2]
        out.append(recorded)
        out.extend(f.to_event() for f in flags)
        for seat in sorted(self.table.nertz_emptied_at):
            if seat not in self.emptied:
                self.emptied.append(seat)
        if self.table.ended:
            out.append(self._end_event(t))
        return out, []

    def _deal(self, event: dict[str, Any], out: list[dict[str, Any]]
              ) -> tuple[list[dict[str, Any]], list[str]]:
        if len(self.deals) >= self.seats:
            return out, ["a deal after every seat was dealt: ignored"]
        if event.get("seat") != len(self.deals):
            return out, [f"deal of seat {event.get('seat')!r} out of order (expected seat "
                         f"{len(self.deals)})"]
        deal = {**event, "t_ms": 0}
        self.deals.append(deal)
        out.append(deal)
        nertz = deal.get("nertz")
        self._nertz[len(self.deals) - 1] = len(nertz) if isinstance(nertz, list) else 0
        if len(self.deals) == self.seats:
            try:
                self.table = Table.from_deals(self.deals, self.rules, self.round_no)
            except (ValueError, CardCodeError, KeyError, TypeError) as exc:
                self.passthrough = True
                self.passthrough_reason = f"deal not replayable by the rules: {exc}"
        return out, []

    def _pass(self, event: dict[str, Any], t: int, out: list[dict[str, Any]]
              ) -> tuple[list[dict[str, Any]], list[str]]:
        seat = event.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            return out, [f"{event['type']} with a bad seat {seat!r}: ignored"]
        self.last_t = t
        recorded = {**event, "t_ms": t}
        kind = event["type"]
        n = event.get("n", 1) if isinstance(event.get("n", 1), int) else 1
        if kind == "move" and str(event.get("to", "")).startswith("lake:"):
            self._lake[seat] += n
        # a nertz card leaves the pile once: by a move, or unseen (its later move back into
        # play, marked ``lost``, takes nothing more from the pile)
        if kind in ("move", "unseen") and event.get("from") == f"seat{seat}:nertz" and \
                not event.get("lost"):
            self._nertz[seat] = max(0, self._nertz[seat] - n)
            if self._nertz[seat] == 0 and seat not in self.emptied:
                self.emptied.append(seat)
        if kind == "call":
            recorded.setdefault("valid", self._nertz[seat] == 0)
            if not recorded["valid"]:
                self._false[seat] += 1
        out.append(recorded)
        if kind == "call" and recorded["valid"]:
            out.append(self._end_event(t, "call", seat))
        return out, []

    def _end(self, event: dict[str, Any], t: int, out: list[dict[str, Any]]
             ) -> tuple[list[dict[str, Any]], list[str]]:
        reason = event.get("reason", "stall")
        problems = []
        if reason not in ("stall", "abandon"):
            problems.append(f"round_end says {reason!r} but no true call ended the round; "
                            "scored as a stall")
            reason = "stall"
        self.last_t = t
        if not self.passthrough:
            assert self.table is not None
            self.table.push(EndRound(reason), t)
        out.append(self._end_event(t, reason))
        return out, problems

    def end(self, reason: str, t_ms: int | None = None) -> list[dict[str, Any]]:
        """End the round now (stall or abandon); returns the events to record."""
        if reason not in ("stall", "abandon"):
            raise ValueError(f"a round is ended as stall or abandon, not {reason!r}")
        if self.ended:
            return []
        if len(self.deals) < self.seats:
            self.passthrough = True
            self.passthrough_reason = "ended before the deal was complete"
        out, _ = self.feed({"type": "round_end", "t_ms": max(t_ms or 0, self.last_t),
                            "reason": reason})
        if not self.ended:  # the source had not started: nothing but the end
            self.ended = True
            self._final = self._score(reason, None)
            out.append({"type": "round_end", "t_ms": self.last_t, **self._final})
        return out

    def _end_event(self, t: int, reason: str | None = None, caller: int | None = None
                   ) -> dict[str, Any]:
        self.ended = True
        self._final = self._score(reason, caller)
        return {"type": "round_end", "t_ms": t, **self._final}

    def _score(self, reason: str | None = None, caller: int | None = None) -> dict[str, Any]:
        if self.table is not None and not self.passthrough:
            return self.table.score().to_dict()
        own = self.source.score() if self.source is not None else None
        if own is not None:
            return dict(own)
        from rules.scoring import score_round

        return score_round(self.rules, list(self._lake), list(self._nertz), list(self._false),
                           caller, reason).to_dict()

    # --- looking ----------------------------------------------------------------------
    def score(self) -> dict[str, Any]:
        """The round's score as it stands (final once ended)."""
        if self._final is not None:
            return dict(self._final)
        return self._score()

    def state(self) -> dict[str, Any]:
        """What is on the table now, for the live view's schematic."""
        tb = self.table if self.table is not None and not self.passthrough else \
            self.source.table() if self.source is not None else None
        if tb is None:
            return {"lake": [], "seats": [{"nertz": self._nertz[k]} for k in range(self.seats)],
                    "passthrough": self.passthrough, "t_ms": self.last_t}
        lake = []
        for j, f in enumerate(tb.lake):
            top = f.top
            lake.append({"place": f"lake:{j}", "count": len(f.placements),
                         "top": top.card.code if top else None,
                         "owner": top.card.owner if top else None})
        seats = []
        for k, lay in enumerate(tb.layouts):
            seats.append({"nertz": len(lay.nertz),
                          "nertz_top": lay.nertz[-1].code if lay.nertz else None,
                          "river": [[c.code for c in col] for col in lay.river],
                          "waste_top": lay.waste[-1].code if lay.waste else None,
                          "stock": len(lay.stock), "seat": k})
        return {"lake": lake, "seats": seats, "passthrough": self.passthrough,
                "t_ms": self.last_t}

    def suggestions(self, seat: int, card: str | None, dst: str | None, src: str | None,
                    reads: list[Any] | None = None) -> list[dict[str, Any]]:
        """Legal moves of ``seat`` now that look most like a misread one (the card reader's
        other likely reads of the card first, then same destination, same source, same
        rank or suit), best first."""
        if self.table is None or self.passthrough or self.table.ended:
            return []
        likely = {str(r[0]): float(r[1]) for r in reads or () if len(r) == 2}
        scored = []
        for move in self.table.card_moves(seat):
            s = 0.0
            if move.card in likely:
                s += 6 + likely[move.card]
            s += 3 if move.dst == dst else 0
            s += 2 if move.src == src else 0
            if card and move.card:
                s += 2 if move.card[:-1] == card[:-1] else 0
                s += 1 if move.card[-1] == card[-1] else 0
            if s:
                scored.append((s, {"type": "move", "seat": seat, "card": move.card,
                                   "from": move.src, "to": move.dst, "n": move.n}))
        scored.sort(key=lambda x: -x[0])
        return [m for _s, m in scored[:8]]


def rebuild(seats: int, rules: HouseRules, round_no: int, events: list[dict[str, Any]]
            ) -> tuple[RoundEngine, list[dict[str, Any]], list[str]]:
    """A fresh engine fed a round's (corrected) events: (engine, the round's log as the
    rules now give it, problems)."""
    engine = RoundEngine(seats, rules, round_no)
    log: list[dict[str, Any]] = []
    problems: list[str] = []
    for event in events:
        out, probs = engine.feed(event)
        log.extend(out)
        problems.extend(probs)
    return engine, log, problems


# --- sources --------------------------------------------------------------------------
@dataclass
class Batch:
    """What a source produced at one step: events, the position to resume after them, and
    the frame (JPEG bytes) it came from, if any."""

    events: list[dict[str, Any]]
    pos: int
    jpeg: bytes | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def _log_events(source: dict[str, Any], seats: int, rules: HouseRules, round_no: int,
                uploads: Callable[[str], Path]) -> list[dict[str, Any]]:
    kind = source["kind"]
    if kind == "simulate":
        seed = source.get("seed", 0)
        mistakes = source.get("mistakes", 0.0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SourceError(f"seed must be an integer, got {seed!r}")
        if not isinstance(mistakes, (int, float)) or not 0 <= mistakes <= 1:
            raise SourceError(f"mistakes is a rate between 0 and 1, got {mistakes!r}")
        return simulate_round(seats, rules, seed, float(mistakes), round_no)
    path = uploads(str(source.get("upload_id", "")))
    try:
        events = [e for _n, e in read_events(path)]
    except LogError as exc:
        raise SourceError(f"the uploaded log cannot be read: {exc}") from None
    want = source.get("round", 1)
    starts = [i for i, e in enumerate(events) if e["type"] == "round_start"]
    if not isinstance(want, int) or not 1 <= want <= len(starts):
        raise SourceError(f"the log has {len(starts)} round(s); no round {want!r}")
    begin = starts[want - 1]
    end = starts[want] if want < len(starts) else len(events)
    chunk = events[begin:end]
    if chunk[0].get("seats") != seats:
        raise SourceError(f"the log's round has {chunk[0].get('seats')} seats, the table "
                          f"{seats}")
    return chunk


async def log_source(events: list[dict[str, Any]], speed: float, start: int = 0
                     ) -> AsyncIterator[Batch]:
    """Play events as if live: each at its ``t_ms`` divided by ``speed`` (0: at once),
    resuming at index ``start`` with the clock set to that event."""
    if start >= len(events):
        return
    t_base = events[start].get("t_ms", 0) if start else 0
    wall0 = time.monotonic()
    i = start
    while i < len(events):
        t = events[i].get("t_ms", 0)
        j = i
        while j < len(events) and events[j].get("t_ms", 0) == t:  # same instant together
            j += 1
        if speed > 0:
            delay = (t - t_base) / 1000.0 / speed - (time.monotonic() - wall0)
            if delay > 0:
                await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        yield Batch(events[i:j], j)
        i = j


class VisionPipeline:
    """Frames → events: the table profile's observer (card detector → table model, as
    :func:`referee.replay.pipeline_observer` builds it) and ``vision.tracker.Tracker``;
    with ``labels`` (a renderer's ``*.labels.jsonl``) the oracle observer instead, as
    ``nertz replay --oracle`` (no profile needed). The table's registered back designs are
    saved beside its profile (``<profile>.backs.json``) for the table model. Raises
    :class:`SourceError` when those are not available or the table has no profile."""

    def __init__(self, table: dict[str, Any], rules: HouseRules, round_no: int = 1,
                 profile_dir: Path | None = None, labels: Path | None = None) -> None:
        try:
            from vision.tracker import Tracker

            from .replay import ReplayError, oracle_observer, pipeline_observer
        except ImportError as exc:
            raise SourceError(f"frame sources need vision.tracker and referee.replay, not "
                              f"available here: {exc}") from None
        if labels is None and not table.get("profile_toml"):
            raise SourceError("frame sources need the table's profile (nertz calibrate, "
                              "then PUT /api/tables/{id}/profile)")
        #: where a live source's frames are kept for review (``<n:06d>.jpg``), if anywhere
        self.frames_dir: Path | None = None
        self.labels = labels
        try:
            if labels is not None:
                self.observe = oracle_observer(labels)
            else:
                folder = profile_dir or Path(tempfile.mkdtemp(prefix="nertz-profile-"))
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / f"table{table['id']}.toml"
                path.write_text(table["profile_toml"], encoding="utf-8")
                registry = (table.get("backs") or {}).get("registry")
                if registry:
                    path.with_suffix(".backs.json").write_text(json.dumps(registry),
                                                               encoding="utf-8")
                self.observe = pipeline_observer(path)
            self.tracker = Tracker(rules, table["seats"], round_no=round_no)
        except (ReplayError, ValueError) as exc:
            raise SourceError(f"cannot set up the vision pipeline: {exc}") from None
        self.frame = 0
        #: frames the observer failed on and skipped, in all and in a row now; the last
        #: failure ("frame N: Error: message")
        self.failed = 0
        self.failed_in_a_row = 0
        self.last_failure: str | None = None
        self._noted = 0  # failures announced by failure_notes() so far

    def keep(self, n: int, jpeg: bytes) -> None:
        """Keep frame ``n`` (JPEG) for review, when this source keeps frames."""
        if self.frames_dir is not None:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
            (self.frames_dir / f"{n:06d}.jpg").write_bytes(jpeg)

    def process(self, image: Any, t_ms: int) -> list[dict[str, Any]]:
        """One frame in, the tracker's events out. A frame the observer fails on is skipped
        (no events; :attr:`failed`), as ``nertz replay`` skips it; failing on
        ``referee.replay.MAX_FAILED_IN_A_ROW`` frames in a row raises :class:`SourceError`
        (what was recorded stays)."""
        from . import replay

        n = self.frame
        self.frame += 1
        try:
            obs = self.observe(image, n, t_ms)
        except Exception as exc:  # noqa: BLE001 - one bad frame must not stop the round
            self.failed += 1
            self.failed_in_a_row += 1
            self.last_failure = f"frame {n}: {type(exc).__name__}: {exc}"
            if self.failed_in_a_row >= replay.MAX_FAILED_IN_A_ROW:
                raise SourceError(f"the vision pipeline failed on {self.failed_in_a_row} "
                                  f"frames in a row (the last: {self.last_failure})") from None
            return []
        self.failed_in_a_row = 0
        return list(self.tracker.update(obs))

    #: after the first skipped frame, one note per this many more
    NOTE_EVERY = 100

    def failure_notes(self) -> list[str]:
        """A problem to announce for the frames skipped since the last call: the first
        skipped frame, then one note per :attr:`NOTE_EVERY` more (none otherwise)."""
        if self.failed <= self._noted or (self._noted and
                                          self.failed < self._noted + self.NOTE_EVERY):
            return []
        self._noted = self.failed
        return [f"a frame was skipped: the vision pipeline failed on it ({self.last_failure}); "
                f"{self.failed} skipped so far"]

    def call(self, seat: int, t_ms: int) -> list[dict[str, Any]]:
        """A call pressed on the page, as the tracker records it."""
        return list(self.tracker.call(seat, t_ms) or [])

    def finish(self) -> list[dict[str, Any]]:
        """The source ended: the tracker's last events (the end of the round)."""
        return list(self.tracker.finish() or [])

    def table(self) -> Table | None:
        """The tracker's rules engine (its table as it sees it now; None before the deal)."""
        return self.tracker.table

    def score(self) -> dict[str, Any] | None:
        """The round's score as the tracker's rules engine holds it now (None before the
        deal)."""
        table = self.tracker.table
        return table.score().to_dict() if table is not None else None


async def video_source(target: str | int, pipeline: VisionPipeline, speed: float,
                       start: int = 0) -> AsyncIterator[Batch]:
    """Frames of a video file (played as if live) or a camera index through the pipeline."""
    import cv2

    cap = await asyncio.to_thread(cv2.VideoCapture, target)
    if not cap.isOpened():
        raise SourceError(f"cannot open {'camera' if isinstance(target, int) else 'video'} "
                          f"{target!r}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    live = isinstance(target, int)
    if start and not live:
        cap.set(cv2.CAP_PROP_POS_FRAMES, start)
    n = start
    pipeline.frame = start
    wall0 = time.monotonic()
    last_jpeg = 0.0
    try:
        while True:
            ok, image = await asyncio.to_thread(cap.read)
            if not ok:
                break
            t_ms = int((time.monotonic() - wall0) * 1000) if live else int(n * 1000 / fps)
            events = await asyncio.to_thread(pipeline.process, image, t_ms)
            for e in events:
                e.setdefault("frame", n)
            n += 1
            jpeg = None
            if live and pipeline.frames_dir is not None:  # a camera: keep every frame
                ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
                if ok:
                    await asyncio.to_thread(pipeline.keep, n - 1, buf.tobytes())
            if time.monotonic() - last_jpeg > 0.2:
                last_jpeg = time.monotonic()
                ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
                jpeg = buf.tobytes() if ok else None
            yield Batch(events, n, jpeg, {"frame": n, "fps": fps})
            if not live and speed > 0:
                delay = (n - start) / fps / speed - (time.monotonic() - wall0)
                if delay > 0:
                    await asyncio.sleep(delay)
        yield Batch(pipeline.finish(), n)
    finally:
        cap.release()


def open_source(source: dict[str, Any], table: dict[str, Any], rules: HouseRules,
                round_no: int, uploads: Callable[[str], Path], start: int = 0,
                camera_allowed: bool = False
                ) -> tuple[AsyncIterator[Batch] | None, VisionPipeline | None]:
    """(the batches of a source, its vision pipeline); no batches for sources fed through
    the API (``events``, ``frames``). Raises :class:`SourceError` for one that cannot run."""
    kind = source.get("kind")
    speed = source.get("speed", 1.0)
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or speed < 0:
        raise SourceError(f"speed must be a non-negative number, got {speed!r}")
    if kind in ("simulate", "log"):
        try:
            events = _log_events(source, table["seats"], rules, round_no, uploads)
        except RulesError as exc:
            raise SourceError(str(exc)) from None
        return log_source(events, float(speed), start), None
    if kind == "events":
        return None, None
    if kind in ("video", "camera", "frames"):
        if kind == "camera" and not camera_allowed:
            raise SourceError("this server was not started with a camera (nertz serve "
                              "--camera N)")
        labels = source.get("labels_upload_id")
        if labels and kind not in ("video", "frames"):
            raise SourceError("labels (oracle observations) go with a video or frames "
                              "source only")
        pipeline = VisionPipeline(table, rules, round_no,
                                  labels=uploads(str(labels)) if labels else None)
        if kind == "frames":
            return None, pipeline
        target: str | int = (int(source.get("index", 0)) if kind == "camera"
                             else str(uploads(str(source.get("upload_id", "")))))
        return video_source(target, pipeline, float(speed), start), pipeline
    raise SourceError(f"unknown source kind {kind!r}; known: simulate, log, events, video, "
                      "camera, frames")
