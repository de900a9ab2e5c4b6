"""The referee service: a FastAPI app over :mod:`referee.store` and :mod:`referee.live`.

``create_app(db_path)`` gives the app ``nertz serve`` runs: REST for tables, rounds, calls,
corrections and replays under ``/api``, a WebSocket per table (``/api/tables/{id}/ws``)
streaming events, scores and flags, the web pages under ``/`` and OpenAPI docs at ``/docs``.

Every event is committed to SQLite before it is announced. A table token (returned once,
when the table is created) is needed to change rules, start or end rounds, correct events
and post events or frames; each seat's token lets that player call for their own seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import uuid
from collections import deque
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from rules import PRESETS, HouseRules, RulesError
from rules.log import LogError, replay, write_log
from rules.moves import ACTION_TYPES
from rules.scoring import Match, RoundScore

from .live import (
    REVISED_WHY,
    Batch,
    RoundEngine,
    SourceError,
    VisionPipeline,
    open_source,
    rebuild,
    split_at_end,
    store_revisions,
)
from .store import NotFound, Store, StoreError

__all__ = ["ServiceError", "create_app"]

WEB = Path(__file__).with_name("web")
DEFAULT_MAX_UPLOAD = 512 * 1024 * 1024


class ServiceError(ValueError):
    """A request the service refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# --- request bodies -----------------------------------------------------------------------
class TableIn(BaseModel):
    """A new table: seats, players' names, house rules (a preset plus options)."""

    name: str = Field("table", max_length=100)
    seats: int = Field(4, ge=2, le=8)
    players: list[Annotated[str, Field(max_length=60)]] | None = None
    preset: str = "nertz"
    options: dict[str, Any] = Field(default_factory=dict)


class RulesIn(BaseModel):
    preset: str = "nertz"
    options: dict[str, Any] = Field(default_factory=dict)


class ProfileIn(BaseModel):
    """A table profile as TOML text (seats, backs, zones or markers, ``[rules]``)."""

    toml: str = Field(..., max_length=200_000)


class PlayerIn(BaseModel):
    name: str = Field(..., min_length=1, max_length=60)


class CalibrationIn(BaseModel):
    """Four table corners clicked on a camera image, clockwise from the top left."""

    image_size: tuple[int, int]
    corners: list[tuple[float, float]] = Field(..., min_length=4, max_length=4)


class SourceIn(BaseModel):
    """Where a round's events come from."""

    kind: Literal["simulate", "log", "events", "video", "camera", "frames"] = "simulate"
    seed: int = 0
    mistakes: float = Field(0.0, ge=0, le=1)
    speed: float = Field(1.0, ge=0, le=1000)
    upload_id: str | None = Field(None, max_length=64)
    round: int = Field(1, ge=1, le=1000)
    index: int = Field(0, ge=0, le=16)
    labels_upload_id: str | None = Field(
        None, max_length=64, description="video or frames: an uploaded *.labels.jsonl of the "
        "renderer, read instead of the detector (oracle observations, as nertz replay "
        "--oracle)")


class CallIn(BaseModel):
    seat: int = Field(..., ge=0, le=7)


class EndIn(BaseModel):
    reason: Literal["stall", "abandon"] = "stall"


class ChangeIn(BaseModel):
    """One corrected event: replace it with ``event``, or delete it."""

    seq: int = Field(..., ge=1)
    action: Literal["replace", "delete"] = "replace"
    event: dict[str, Any] | None = None


class CorrectionIn(BaseModel):
    """A correction of misread events, with who made it and why (kept in the audit)."""

    changes: list[ChangeIn] = Field(..., min_length=1, max_length=50)
    who: str = Field(..., min_length=1, max_length=60)
    why: str = Field(..., min_length=1, max_length=500)


class ReplayIn(BaseModel):
    """Replay an upload; a video also needs a table whose profile (camera, seats) it uses."""

    upload_id: str = Field(..., max_length=64)
    table_id: int | None = None


Auth = Annotated[str | None, Header(description="Bearer <table token or seat token>")]
XToken = Annotated[str | None, Header(alias="X-Token", description="or the token here")]


# --- sniffing uploads ---------------------------------------------------------------------
def sniff(head: bytes) -> str | None:
    """``log``, ``video``, ``image`` or ``labels`` (a renderer's ``*.labels.jsonl``) by
    content (never by name), or ``None``."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") or head.startswith(b"\xff\xd8\xff"):
        return "image"
    if head[4:8] == b"ftyp" or (head[:4] == b"RIFF" and head[8:12] == b"AVI ") or \
            head.startswith(b"\x1a\x45\xdf\xa3"):
        return "video"
    try:
        text = head.decode("utf-8", errors="strict" if len(head) < 65536 else "ignore")
    except UnicodeDecodeError:
        return None
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        event = json.loads(first)
    except json.JSONDecodeError:
        return None
    if isinstance(event, dict) and event.get("type") == "header" and "fps" in event:
        return "labels"
    return "log" if isinstance(event, dict) and "type" in event else None


_EXT = {"log": ".jsonl", "video": ".video", "image": ".img", "labels": ".labels.jsonl"}


# --- live rounds --------------------------------------------------------------------------
class RoundSession:
    """One running round: its engine, its source task, the latest frame."""

    def __init__(self, round_id: int, table_id: int, engine: RoundEngine,
                 source: dict[str, Any]) -> None:
        self.round_id = round_id
        self.table_id = table_id
        self.engine = engine
        self.source = source
        self.speed = float(source.get("speed", 1.0) or 0.0)
        self.task: asyncio.Task[None] | None = None
        self._pipeline: VisionPipeline | None = None
        self.jpeg: bytes | None = None
        self.problems: deque[str] = deque(maxlen=50)
        self.error: str | None = None
        self.lock = asyncio.Lock()
        #: the vision tracker's history revision the stored events are in line with
        self.revision = 0
        self._t0 = time.monotonic()
        self.sync_clock()

    @property
    def pipeline(self) -> VisionPipeline | None:
        """The round's vision pipeline, if its source has one; the engine asks its tracker
        for scores and the table where it cannot replay the deal itself."""
        return self._pipeline

    @pipeline.setter
    def pipeline(self, pipeline: VisionPipeline | None) -> None:
        self._pipeline = pipeline
        self.engine.source = pipeline

    def sync_clock(self) -> None:
        speed = self.speed or 1.0
        self._t0 = time.monotonic() - self.engine.last_t / 1000.0 / speed

    def clock(self) -> int:
        """The round's time now, in ms (never before the last event)."""
        if self.speed <= 0:
            return self.engine.last_t
        return max(self.engine.last_t, int((time.monotonic() - self._t0) * 1000 * self.speed))


class Service:
    """The app's state: the store, the running rounds, WebSocket subscribers, replay jobs."""

    def __init__(self, db_path: str | Path, data_dir: Path | None, max_upload: int,
                 camera: int | None, synchronous: str) -> None:
        self.store = Store(db_path, synchronous=synchronous)
        self.data_dir = Path(data_dir) if data_dir else Path(f"{db_path}.files")
        (self.data_dir / "uploads").mkdir(parents=True, exist_ok=True)
        (self.data_dir / "replays").mkdir(parents=True, exist_ok=True)
        self.max_upload = max_upload
        self.camera = camera
        self.sessions: dict[int, RoundSession] = {}
        self.subscribers: dict[int, set[asyncio.Queue[dict[str, Any]]]] = {}
        self.jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay")
        self._standings: dict[int, dict[str, Any]] = {}

    # --- helpers ----------------------------------------------------------------------
    def rules_of(self, table: dict[str, Any]) -> HouseRules:
        return HouseRules.from_dict(table["rules"])

    def upload_path(self, upload_id: str) -> Path:
        up = self.store.upload(upload_id)
        return self.data_dir / "uploads" / up["path"]

    def session(self, round_id: int) -> RoundSession:
        rnd = self.store.round(round_id)
        s = self.sessions.get(round_id)
        if s is None:
            raise ServiceError(f"round {round_id} is {rnd['status']}, not running", 409)
        return s

    # --- broadcasting -----------------------------------------------------------------
    def publish(self, table_id: int, message: dict[str, Any]) -> None:
        for q in list(self.subscribers.get(table_id, ())):
            try:
                q.put_nowait(message)
            except asyncio.QueueFull:  # a client that does not read: drop it
                self.subscribers[table_id].discard(q)
                with contextlib.suppress(asyncio.QueueFull):
                    q.put_nowait({"kind": "overflow"})

    def scores_message(self, s: RoundSession) -> dict[str, Any]:
        return {"kind": "scores", "round_id": s.round_id, "score": s.engine.score(),
                "emptied": list(s.engine.emptied), "ended": s.engine.ended,
                "state": s.engine.state(), "standings": self.standings(s.table_id, cached=True)}

    def record(self, s: RoundSession, events: list[dict[str, Any]], origin: str,
               pos: int | None = None, may_end: bool = True) -> list[dict[str, Any]]:
        """Commit events, then announce them; returns them with their seq."""
        if not events and pos is None:
            return []
        ending = may_end and s.engine.ended and s.round_id in self.sessions
        try:
            ids = self.store.append_events(s.round_id, events, origin, source_pos=pos,
                                           score=s.engine.score(),
                                           end_status="ended" if ending else None)
        except Exception:
            self._reload(s)  # the engine must never run ahead of the log
            raise
        if ending:
            self._standings.pop(s.table_id, None)
        out = []
        for (gid, seq), event in zip(ids, events, strict=True):
            msg = {"kind": "event", "round_id": s.round_id, "id": gid, "seq": seq,
                   "event": event}
            out.append({"seq": seq, "event": event})
            self.publish(s.table_id, msg)
        if events:
            self.publish(s.table_id, self.scores_message(s))
        if ending:
            self.sessions.pop(s.round_id, None)
            self.publish(s.table_id, {"kind": "round_end", "round_id": s.round_id,
                                      "score": s.engine.score(),
                                      "standings": self.standings(s.table_id)})
            if s.task is not None and s.task is not asyncio.current_task():
                s.task.cancel()
        return out

    def record_revised(self, s: RoundSession, events: list[dict[str, Any]], origin: str,
                       pos: int | None = None) -> list[dict[str, Any]]:
        """:meth:`record`, with the stored events brought in line with the vision
        tracker's history after it (:meth:`revise`); a batch that ends the round is stored
        up to its end first, so that what the revision adds lies before the round's end."""
        if s.pipeline is None:
            return self.record(s, events, origin, pos)
        before, end = split_at_end(events)
        if not end:
            out = self.record(s, events, origin, pos)
            self.revise(s)
            return out
        out = self.record(s, before, origin, may_end=False)
        self.revise(s)
        return out + self.record(s, end, origin, pos)

    def revise(self, s: RoundSession) -> None:
        """When the vision tracker has rewritten its history since the last look (a move
        dropped, renamed, renumbered, put before others; flags decided again), store that
        (:func:`referee.live.store_revisions`) and announce it. The scores do not change:
        they come from the tracker already."""
        tracker = getattr(s.pipeline, "tracker", None)
        if tracker is None or tracker.revision == s.revision:
            return
        s.revision = tracker.revision
        score = s.engine.score()
        fixed, appended = store_revisions(self.store, s.round_id, tracker, score)
        for gid, seq, event in appended:
            self.publish(s.table_id, {"kind": "event", "round_id": s.round_id, "id": gid,
                                      "seq": seq, "event": event})
        if fixed or appended:
            self.publish(s.table_id, {"kind": "correction", "round_id": s.round_id,
                                      "score": score, "who": "tracker", "why": REVISED_WHY,
                                      "standings": self.standings(s.table_id, cached=True)})

    def problem(self, s: RoundSession, messages: list[str]) -> None:
        for m in messages:
            s.problems.append(m)
            self.publish(s.table_id, {"kind": "problem", "round_id": s.round_id,
                                      "message": m})

    def _reload(self, s: RoundSession) -> None:
        table = self.store.table(s.table_id)
        rnd = self.store.round(s.round_id)
        s.engine = self.engine_from_log(table, rnd)

    def engine_from_log(self, table: dict[str, Any], rnd: dict[str, Any]) -> RoundEngine:
        events = [e for _seq, e in self.store.effective_events(rnd["id"])]
        engine, _log, _probs = rebuild(table["seats"], self.rules_of(table), rnd["round_no"],
                                       events)
        return engine

    # --- rounds -----------------------------------------------------------------------
    async def start_round(self, table_id: int, source: dict[str, Any]) -> dict[str, Any]:
        table = self.store.table(table_id)
        rules = self.rules_of(table)
        if source.get("kind") in ("log", "video") and not source.get("upload_id"):
            raise ServiceError(f"a {source['kind']} source needs an upload_id (POST "
                               "/api/uploads first)", 422)
        if source.get("upload_id"):
            up = self.store.upload(str(source["upload_id"]))
            want = "log" if source["kind"] == "log" else "video"
            if up["kind"] != want:
                raise ServiceError(f"upload {up['id']} is a {up['kind']}, not a {want}", 422)
        if source.get("labels_upload_id"):
            up = self.store.upload(str(source["labels_upload_id"]))
            if up["kind"] != "labels":
                raise ServiceError(f"upload {up['id']} is a {up['kind']}, not render labels",
                                   422)
        probe_no = len(self.store.rounds(table_id, "ended")) + 1
        it, pipeline = open_source(source, table, rules, probe_no, self.upload_path, 0,
                                   camera_allowed=self.camera is not None)
        round_id, round_no = self.store.create_round(table_id, source)
        s = RoundSession(round_id, table_id, RoundEngine(table["seats"], rules, round_no),
                         source)
        s.pipeline = pipeline
        if pipeline is not None and source.get("kind") in ("camera", "frames"):
            pipeline.frames_dir = self.frames_dir(round_id)
        self.sessions[round_id] = s
        if it is None:  # events or frames from the API: record the round's start now
            out, _ = s.engine.feed({"type": "round_start", "t_ms": 0})
            self.record(s, out, "referee")
        else:
            s.task = asyncio.create_task(self.run_source(s, it))
        self.publish(table_id, {"kind": "round_start", "round_id": round_id,
                                "round_no": round_no})
        return self.store.round(round_id)

    async def resume(self) -> None:
        """Continue every running round from its log (after a restart)."""
        for rnd in self.store.rounds(status="running"):
            table = self.store.table(rnd["table_id"])
            engine = self.engine_from_log(table, rnd)
            s = RoundSession(rnd["id"], rnd["table_id"], engine, rnd["source"])
            self.sessions[rnd["id"]] = s
            if engine.ended:
                self.store.finish_round(rnd["id"], "ended", engine.score())
                self.sessions.pop(rnd["id"], None)
                continue
            try:
                it, s.pipeline = open_source(rnd["source"], table, engine.rules,
                                             rnd["round_no"], self.upload_path,
                                             rnd["source_pos"],
                                             camera_allowed=self.camera is not None)
            except (SourceError, NotFound) as exc:
                s.error = f"cannot resume the source: {exc}"
                continue
            if s.pipeline is not None and rnd["source"].get("kind") in ("camera", "frames"):
                s.pipeline.frames_dir = self.frames_dir(rnd["id"])
            if it is not None:
                s.task = asyncio.create_task(self.run_source(s, it))

    def frames_dir(self, round_id: int) -> Path:
        """Where a camera or frames round keeps its frames for review."""
        return self.data_dir / "frames" / str(round_id)

    async def run_source(self, s: RoundSession, it: AsyncIterator[Batch]) -> None:
        try:
            async for batch in it:
                async with s.lock:
                    out: list[dict[str, Any]] = []
                    for event in batch.events:
                        recorded, probs = s.engine.feed(event)
                        out.extend(recorded)
                        if probs:
                            self.problem(s, probs)
                    if batch.jpeg is not None:
                        s.jpeg = batch.jpeg
                    if s.pipeline is not None:
                        self.problem(s, s.pipeline.failure_notes())
                    if s.round_id not in self.sessions:
                        return
                    self.record_revised(s, out, "source", pos=batch.pos)
                    if s.engine.ended:
                        return
            async with s.lock:
                if not s.engine.ended and s.round_id in self.sessions:
                    self.problem(s, ["the source ended without a round end: scored as a "
                                     "stall"])
                    self.record(s, s.engine.end("stall"), "referee")
        except asyncio.CancelledError:
            raise
        except (SourceError, StoreError, OSError, ValueError) as exc:
            s.error = str(exc)
            self.problem(s, [f"the source stopped: {exc}"])

    async def call(self, s: RoundSession, seat: int) -> list[dict[str, Any]]:
        if not 0 <= seat < s.engine.seats:
            raise ServiceError(f"the table has seats 0-{s.engine.seats - 1}, not {seat}", 422)
        async with s.lock:
            t = s.clock()
            reported = (s.pipeline.call(seat, t) if s.pipeline is not None
                        else [{"type": "call", "t_ms": t, "seat": seat}])
            out: list[dict[str, Any]] = []
            for event in reported:
                recorded, probs = s.engine.feed(event)
                out.extend(recorded)
                if probs:
                    self.problem(s, probs)
            if not out:
                raise ServiceError("the call could not be recorded (the round is over?)", 409)
            return self.record_revised(s, out, "call")

    async def end_round(self, s: RoundSession, reason: str) -> list[dict[str, Any]]:
        async with s.lock:
            out = s.engine.end(reason, s.clock())
            recorded = self.record_revised(s, out, "referee")
        if s.task is not None:
            s.task.cancel()
        return recorded

    async def post_events(self, s: RoundSession, events: list[dict[str, Any]]
                          ) -> tuple[list[dict[str, Any]], list[str]]:
        if s.source.get("kind") != "events":
            raise ServiceError("events can be posted only to a round whose source is "
                               "'events'", 409)
        async with s.lock:
            out: list[dict[str, Any]] = []
            problems: list[str] = []
            for event in events:
                recorded, probs = s.engine.feed(event)
                out.extend(recorded)
                problems.extend(probs)
            self.problem(s, problems)
            return self.record(s, out, "api"), problems

    async def post_frame(self, s: RoundSession, jpeg: bytes) -> list[dict[str, Any]]:
        if s.source.get("kind") != "frames" or s.pipeline is None:
            raise ServiceError("frames can be posted only to a round whose source is "
                               "'frames'", 409)
        import cv2
        import numpy as np

        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise ServiceError("the frame is not a readable JPEG or PNG image", 415)
        t = s.clock()
        n = s.pipeline.frame
        await asyncio.to_thread(s.pipeline.keep, n, jpeg)
        events = await asyncio.to_thread(s.pipeline.process, image, t)
        for e in events:
            e.setdefault("frame", n)
        async with s.lock:
            s.jpeg = jpeg
            self.problem(s, s.pipeline.failure_notes())
            out: list[dict[str, Any]] = []
            for event in events:
                recorded, probs = s.engine.feed(event)
                out.extend(recorded)
                self.problem(s, probs)
            return self.record_revised(s, out, "source")

    # --- reading rounds ---------------------------------------------------------------
    def round_log(self, round_id: int) -> tuple[list[dict[str, Any]], RoundEngine, list[str]]:
        """The round as the rules give it with every correction applied: ([{seq, event,
        derived, corrected}], engine, problems)."""
        rnd = self.store.round(round_id)
        table = self.store.table(rnd["table_id"])
        corrected = {c["seq"] for c in self.store.corrections(round_id)}
        engine = RoundEngine(table["seats"], self.rules_of(table), rnd["round_no"])
        rows: list[dict[str, Any]] = []
        problems: list[str] = []
        for seq, event in self.store.effective_events(round_id):
            out, probs = engine.feed(event)
            problems.extend(probs)
            for e in out:
                derived = e["type"] in ("flag", "round_end") and event["type"] != e["type"]
                rows.append({"seq": seq, "event": e, "derived": derived,
                             "corrected": seq in corrected})
        return rows, engine, problems

    def standings(self, table_id: int, cached: bool = False) -> dict[str, Any]:
        """Match standings over the table's ended rounds (``cached``: the last computed)."""
        if cached and table_id in self._standings:
            return self._standings[table_id]
        table = self.store.table(table_id)
        rules = self.rules_of(table)
        match = Match(rules, table["seats"])
        rounds = []
        for rnd in self.store.rounds(table_id, "ended"):
            sc = rnd["score"]
            if not sc:
                continue
            score = RoundScore(sc["lake_cards"], sc["nertz_left"], sc["false_calls"],
                               sc["bonus"], sc["scores"], sc.get("caller"), sc.get("reason"),
                               sc.get("team_scores"))
            match.rounds.append(score)
            rounds.append({"round_id": rnd["id"], "round_no": rnd["round_no"],
                           "scores": sc["scores"], "reason": sc.get("reason")})
        out = {**match.standings(), "target": rules.target,
               "fixed_rounds": rules.fixed_rounds, "per_round": rounds}
        self._standings[table_id] = out
        return out

    async def correct(self, round_id: int, body: CorrectionIn) -> dict[str, Any]:
        rnd = self.store.round(round_id)
        table = self.store.table(rnd["table_id"])
        s = self.sessions.get(round_id)
        lock = s.lock if s is not None else asyncio.Lock()
        async with lock:
            effective = dict(self.store.effective_events(round_id))
            changed = dict(effective)
            for ch in body.changes:
                if ch.seq not in effective:
                    raise ServiceError(f"round {round_id} has no event {ch.seq} (or it was "
                                       "deleted)", 404)
                old = effective[ch.seq]
                if old["type"] not in (*ACTION_TYPES, "deal"):
                    raise ServiceError(f"event {ch.seq} is a {old['type']}, which the referee "
                                       "derives; correct the move or call behind it", 422)
                if ch.action == "delete":
                    if old["type"] == "deal":
                        raise ServiceError("a deal can be corrected but not deleted", 422)
                    changed.pop(ch.seq)
                    continue
                new = ch.event
                if not isinstance(new, dict) or not isinstance(new.get("type"), str):
                    raise ServiceError("a replace needs the corrected event (an object with "
                                       "a 'type')", 422)
                if (old["type"] == "deal") != (new["type"] == "deal") or (
                        old["type"] == "deal" and new.get("seat") != old.get("seat")):
                    raise ServiceError("a deal is replaced only by the same seat's deal", 422)
                if new["type"] not in (*ACTION_TYPES, "deal"):
                    raise ServiceError(f"cannot replace an event by a {new['type']!r}", 422)
                new = {**new, "t_ms": old["t_ms"]}
                changed[ch.seq] = new
            seats, rules = table["seats"], self.rules_of(table)
            _e0, _l0, before_probs = rebuild(seats, rules, rnd["round_no"],
                                             [e for _q, e in sorted(effective.items())])
            engine, log, probs = rebuild(seats, rules, rnd["round_no"],
                                         [e for _q, e in sorted(changed.items())])
            if len(probs) > len(before_probs):
                new_probs = [p for p in probs if p not in before_probs] or probs
                raise ServiceError(f"the correction makes the log impossible: {new_probs[0]}",
                                   422)
            scores_before = (s.engine.score() if s is not None else rnd["score"])
            scores_after = engine.score()
            checked = None
            if engine.ended:
                checked = _replay_score(log)
                if checked is not None:
                    scores_after = checked
            ids = []
            for ch in body.changes:
                ids.append(self.store.add_correction(
                    round_id, ch.seq, ch.action, changed.get(ch.seq), body.who, body.why,
                    scores_before, scores_after))
            if s is not None:
                s.engine = engine
                if engine.ended and round_id in self.sessions:
                    self.store.finish_round(round_id, "ended", scores_after)
                    self.sessions.pop(round_id, None)
                    if s.task is not None:
                        s.task.cancel()
        msg = {"kind": "correction", "round_id": round_id, "score": scores_after,
               "who": body.who, "why": body.why,
               "standings": self.standings(table["id"])}
        self.publish(table["id"], msg)
        return {"corrections": ids, "scores_before": scores_before,
                "scores_after": scores_after, "replayed": checked is not None}

    # --- replay jobs ------------------------------------------------------------------
    def submit_job(self, upload_id: str, table_id: int | None = None) -> dict[str, Any]:
        up = self.store.upload(upload_id)
        profile = self.store.table(table_id)["profile_toml"] if table_id is not None else ""
        if up["kind"] not in ("log", "video"):
            raise ServiceError(f"upload {upload_id} is an {up['kind']}; a replay needs a "
                               "video or an event log", 422)
        job_id = uuid.uuid4().hex[:16]
        out_dir = self.data_dir / "replays" / job_id
        self.store.add_job(job_id, upload_id, str(out_dir))
        if profile:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "profile.toml").write_text(profile, encoding="utf-8")
        self.jobs.submit(self._run_job, job_id)
        return self.store.job(job_id)

    def _run_job(self, job_id: str) -> None:
        job = self.store.job(job_id)
        up = self.store.upload(job["upload_id"])
        out_dir = Path(job["out_dir"])
        out_dir.mkdir(parents=True, exist_ok=True)
        self.store.update_job(job_id, status="running", progress=0.0)
        try:
            path = self.data_dir / "uploads" / up["path"]
            if up["kind"] == "log":
                _log_report(path, out_dir)
            else:
                self._video_replay(job_id, path, out_dir)
            self.store.update_job(job_id, status="done", progress=1.0, message="done")
        except (ValueError, OSError, subprocess.SubprocessError) as exc:
            self.store.update_job(job_id, status="failed", message=str(exc).splitlines()[0]
                                  if str(exc) else type(exc).__name__)

    def _video_replay(self, job_id: str, path: Path, out_dir: Path) -> None:
        if importlib.util.find_spec("referee.replay") is None:
            raise ServiceError("replaying a video needs referee.replay (issue 6), not "
                               "available in this build")
        profile = out_dir / "profile.toml"
        if not profile.is_file():
            raise ServiceError("a video replay needs a table with a profile (table_id)")
        proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "replay", str(path),
                                 "--out", str(out_dir), "--profile", str(profile)],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        last = ""
        assert proc.stderr is not None
        for line in proc.stderr:
            last = line.strip() or last
            m = re.search(r"(\d+(?:\.\d+)?)\s*%", line) or re.search(r"(\d+)\s*/\s*(\d+)",
                                                                      line)
            if m is not None:
                frac = (float(m.group(1)) / 100 if m.re.pattern.endswith("%")
                        else int(m.group(1)) / max(1, int(m.group(2))))
                self.store.update_job(job_id, progress=min(0.99, frac))
        if proc.wait() != 0:
            raise ServiceError(f"nertz replay failed: {last or 'exit ' + str(proc.returncode)}")


def _replay_score(log: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The round's score as :func:`rules.log.replay` recomputes it from the log."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "round.jsonl"
        write_log(log, path)
        try:
            result = replay(path)
        except LogError:
            return None
    return result.rounds[0].score.to_dict() if result.rounds else None


def _log_report(path: Path, out_dir: Path) -> None:
    """report.json and report.html of an uploaded event log, replayed by the rules."""
    try:
        result = replay(path)
    except LogError as exc:
        raise ServiceError(f"the log cannot be replayed: {exc}") from None
    rounds = []
    for r in result.rounds:
        rounds.append({"round": r.round_no, **r.score.to_dict(),
                       "flags": [{**f.to_event(), "corrected": f.corrected} for f in r.flags],
                       "calls": [{"seat": c[0], "t_ms": c[1], "valid": c[2]}
                                 for c in r.table.calls],
                       "problems": r.problems})
    report = {"source": "log", "rounds": rounds, "match": result.match.standings(),
              "consistent": result.consistent, "problems": result.problems}
    (out_dir / "report.json").write_text(json.dumps(report, indent=1))
    (out_dir / "events.jsonl").write_bytes(path.read_bytes())
    rows = "".join(
        f"<tr><td>{r['round']}</td>" + "".join(f"<td>{s}</td>" for s in r["scores"])
        + f"<td>{len(r['flags'])}</td><td>{r['reason']}</td></tr>" for r in rounds)
    flags = "".join(
        f"<li>round {r['round']} · {f['t_ms']} ms · seat {f.get('seat')} · {f['rule']} · "
        f"{f.get('card') or ''} {f.get('place') or ''}"
        f"{' (corrected)' if f['corrected'] else ''}</li>" for r in rounds for f in r["flags"])
    (out_dir / "report.html").write_text(
        "<!doctype html><meta charset=utf-8><title>Nertz report</title>"
        "<link rel=stylesheet href=/static/style.css><h1>Nertz report</h1>"
        f"<table class=score><tr><th>round</th><th colspan=99>scores per seat</th></tr>{rows}"
        f"</table><p>match: {json.dumps(report['match'])}</p><h2>flags</h2><ul>{flags}</ul>")


# --- the app ------------------------------------------------------------------------------
#: an id or index in a request path (SQLite's integers are 64-bit: a larger one is a 422,
#: not a server error)
RowId = Annotated[int, PathParam(ge=0, le=2**63 - 1)]

def create_app(db_path: str | Path = "nertz.db", data_dir: str | Path | None = None,
               max_upload: int = DEFAULT_MAX_UPLOAD, camera: int | None = None,
               synchronous: str = "FULL") -> FastAPI:
    """The referee's FastAPI app over the SQLite database at ``db_path`` (created if new);
    uploads and replay reports go to ``data_dir`` (default ``<db_path>.files``)."""
    svc = Service(db_path, Path(data_dir) if data_dir else None, max_upload, camera,
                  synchronous)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await svc.resume()
        for job in svc.store.jobs("queued") + svc.store.jobs("running"):
            svc.jobs.submit(svc._run_job, job["id"])
        yield
        for s in list(svc.sessions.values()):
            if s.task is not None:
                s.task.cancel()
        svc.jobs.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="Nertz referee", version="0.1.0", lifespan=lifespan,
                  description="Live scoring of Nertz tables: tables, rounds, calls, "
                              "corrections, replays; a WebSocket per table.")
    app.state.service = svc
    from .review import LabelsCache

    labels_cache = LabelsCache()

    @app.exception_handler(ServiceError)
    async def _service_error(_r: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(NotFound)
    async def _not_found(_r: Request, exc: NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(StoreError)
    async def _store_error(_r: Request, exc: StoreError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(RulesError)
    @app.exception_handler(SourceError)
    async def _unprocessable(_r: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_r: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        if errs:
            e = errs[0]
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "request"
            msg = f"{where}: {e.get('msg', 'invalid')}"
        else:
            msg = "invalid request"
        return JSONResponse({"detail": msg}, status_code=422)

    def token_of(authorization: str | None, x_token: str | None) -> str | None:
        if x_token:
            return x_token
        if authorization and authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return None

    def require_table(table_id: int, authorization: str | None,
                      x_token: str | None) -> None:
        if not svc.store.check_table_token(table_id, token_of(authorization, x_token)):
            raise ServiceError(f"this needs table {table_id}'s token (Authorization: Bearer "
                               "…)", 403)

    # --- tables ---
    @app.get("/api/presets", tags=["tables"])
    def presets() -> dict[str, Any]:
        """House-rule presets and every option of each."""
        return {name: HouseRules.preset(name).to_dict() for name in PRESETS}

    @app.post("/api/tables", status_code=201, tags=["tables"])
    def create_table(body: TableIn) -> dict[str, Any]:
        """Create a table. The answer holds the table token and one token per seat: keep
        them, they are not shown again."""
        rules = HouseRules.preset(body.preset).to_dict() if not body.options else \
            HouseRules.from_dict({**HouseRules.preset(body.preset).to_dict(),
                                  **body.options}).to_dict()
        players = list(body.players or [])
        if len(players) > body.seats:
            raise ServiceError(f"{len(players)} players for {body.seats} seats", 422)
        players += [f"seat {k}" for k in range(len(players), body.seats)]
        tid, token, seat_tokens = svc.store.create_table(body.name, body.seats, rules, players)
        return {"table": svc.store.table(tid), "token": token, "seat_tokens": seat_tokens}

    @app.get("/api/tables", tags=["tables"])
    def list_tables() -> list[dict[str, Any]]:
        return svc.store.tables()

    @app.get("/api/tables/{table_id}", tags=["tables"])
    def get_table(table_id: RowId) -> dict[str, Any]:
        table = svc.store.table(table_id)
        running = [r["id"] for r in svc.store.rounds(table_id, "running")]
        return {**table, "running_round": running[0] if running else None}

    @app.put("/api/tables/{table_id}/rules", tags=["tables"])
    def set_rules(table_id: RowId, body: RulesIn, authorization: Auth = None,
                  x_token: XToken = None) -> dict[str, Any]:
        """Change the house rules (from the next round on)."""
        require_table(table_id, authorization, x_token)
        rules = HouseRules.from_dict({**HouseRules.preset(body.preset).to_dict(),
                                      **body.options})
        svc.store.update_table(table_id, rules=rules.to_dict())
        svc._standings.pop(table_id, None)
        return svc.store.table(table_id)

    @app.put("/api/tables/{table_id}/profile", tags=["tables"])
    def set_profile(table_id: RowId, body: ProfileIn, authorization: Auth = None,
                    x_token: XToken = None) -> dict[str, Any]:
        """Store the table profile (TOML); its ``[rules]`` (or top-level options with a
        ``preset``) become the house rules."""
        require_table(table_id, authorization, x_token)
        try:
            data = tomllib.loads(body.toml)
        except tomllib.TOMLDecodeError as exc:
            raise ServiceError(f"the profile is not valid TOML: {exc}", 422) from None
        table = svc.store.table(table_id)
        seats = data.get("seats")
        if isinstance(seats, list):
            seats = len(seats)
        if seats is not None and seats != table["seats"]:
            raise ServiceError(f"the profile has {seats} seats, the table {table['seats']}",
                               422)
        fields: dict[str, Any] = {"profile_toml": body.toml}
        if isinstance(data.get("rules"), dict):
            fields["rules"] = HouseRules.from_dict(data["rules"]).to_dict()
        svc.store.update_table(table_id, **fields)
        return svc.store.table(table_id)

    @app.put("/api/tables/{table_id}/seats/{seat}", tags=["tables"])
    def set_player(table_id: RowId, seat: RowId, body: PlayerIn, authorization: Auth = None,
                   x_token: XToken = None) -> dict[str, Any]:
        require_table(table_id, authorization, x_token)
        svc.store.set_player(table_id, seat, body.name)
        return svc.store.table(table_id)

    @app.post("/api/tables/{table_id}/seats/{seat}/back", tags=["tables"])
    async def register_back(table_id: RowId, seat: RowId, request: Request,
                            authorization: Auth = None, x_token: XToken = None
                            ) -> dict[str, Any]:
        """Register a seat's back design from a photo of one card back (JPEG or PNG body):
        it joins the table's back-design registry (saved with the table profile) and the
        profile's seat gets that ``back``."""
        require_table(table_id, authorization, x_token)
        table = svc.store.table(table_id)
        if not 0 <= seat < table["seats"]:
            raise ServiceError(f"the table has seats 0-{table['seats'] - 1}, not {seat}", 422)
        up = await receive_upload(request, {"image"})
        from .backs import BackPhotoError, register_back

        photo = svc.upload_path(up["id"]).read_bytes()
        try:
            backs, toml = await asyncio.to_thread(
                register_back, dict(table["backs"]), table["profile_toml"], seat,
                f"table{table_id}-seat{seat}", photo)
        except BackPhotoError as exc:
            raise ServiceError(str(exc), 422) from None
        backs[str(seat)]["image"] = up["id"]
        svc.store.update_table(table_id, backs=backs, profile_toml=toml)
        out = svc.store.table(table_id)
        registry = out["backs"].pop("registry", None)
        out["backs"]["registered"] = list((registry or {}).get("designs", {}))
        return out

    @app.put("/api/tables/{table_id}/calibration", tags=["tables"])
    def set_calibration(table_id: RowId, body: CalibrationIn, authorization: Auth = None,
                        x_token: XToken = None) -> dict[str, Any]:
        """Four table corners clicked on the camera image (when there are no markers)."""
        require_table(table_id, authorization, x_token)
        w, h = body.image_size
        if w <= 0 or h <= 0:
            raise ServiceError("image_size must be positive", 422)
        for x, y in body.corners:
            if not (0 <= x <= w and 0 <= y <= h):
                raise ServiceError(f"corner ({x}, {y}) lies outside the {w}×{h} image", 422)
        svc.store.update_table(table_id, calibration={"image_size": [w, h],
                                                      "corners": [list(c) for c in
                                                                  body.corners]})
        return svc.store.table(table_id)

    @app.get("/api/tables/{table_id}/standings", tags=["rounds"])
    def standings(table_id: RowId) -> dict[str, Any]:
        """Match standings over the table's ended rounds."""
        return svc.standings(table_id)

    # --- rounds ---
    @app.get("/api/tables/{table_id}/rounds", tags=["rounds"])
    def list_rounds(table_id: RowId) -> list[dict[str, Any]]:
        svc.store.table(table_id)
        return svc.store.rounds(table_id)

    @app.post("/api/tables/{table_id}/rounds", status_code=201, tags=["rounds"])
    async def start_round(table_id: RowId, body: SourceIn, authorization: Auth = None,
                          x_token: XToken = None) -> dict[str, Any]:
        """Start a round from a source: ``simulate`` (the bots, as if live), ``log`` (an
        uploaded event log), ``events`` (posted to …/events), ``video`` (an uploaded
        video), ``camera``, ``frames`` (posted to …/frames)."""
        require_table(table_id, authorization, x_token)
        return await svc.start_round(table_id, body.model_dump())

    def round_info(round_id: int) -> dict[str, Any]:
        rnd = svc.store.round(round_id)
        s = svc.sessions.get(round_id)
        if s is not None:
            rnd.update(score=s.engine.score(), problems=list(s.problems), error=s.error,
                       t_ms=s.engine.last_t, emptied=s.engine.emptied,
                       passthrough=s.engine.passthrough, has_frame=s.jpeg is not None)
        return rnd

    @app.get("/api/rounds/{round_id}", tags=["rounds"])
    def get_round(round_id: RowId) -> dict[str, Any]:
        return round_info(round_id)

    @app.get("/api/rounds/{round_id}/events", tags=["rounds"])
    def round_events(round_id: RowId, after: Annotated[int, Query(ge=0)] = 0
                     ) -> list[dict[str, Any]]:
        """The round's events as the rules give them with every correction applied
        (``derived``: a flag or end the referee computed; ``corrected``: a changed event)."""
        rows, _engine, _p = svc.round_log(round_id)
        return [r for r in rows if r["seq"] > after]

    @app.get("/api/rounds/{round_id}/recorded", tags=["rounds"])
    def recorded_events(round_id: RowId, after: Annotated[int, Query(ge=0)] = 0
                        ) -> list[dict[str, Any]]:
        """The events exactly as recorded (append-only; corrections not applied)."""
        svc.store.round(round_id)
        return svc.store.events(round_id, after)

    @app.get("/api/rounds/{round_id}/log.jsonl", tags=["rounds"], response_class=PlainTextResponse)
    def round_log(round_id: RowId) -> PlainTextResponse:
        """The corrected round as an event log (``nertz check`` accepts it once ended)."""
        rows, _e, _p = svc.round_log(round_id)
        text = "".join(json.dumps(r["event"], separators=(",", ":")) + "\n" for r in rows)
        return PlainTextResponse(text, media_type="application/x-ndjson")

    @app.get("/api/rounds/{round_id}/scores", tags=["rounds"])
    def round_scores(round_id: RowId) -> dict[str, Any]:
        rnd = svc.store.round(round_id)
        s = svc.sessions.get(round_id)
        return {"round_id": round_id, "status": rnd["status"],
                "score": s.engine.score() if s is not None else rnd["score"],
                "standings": svc.standings(rnd["table_id"])}

    @app.get("/api/rounds/{round_id}/state", tags=["rounds"])
    def round_state(round_id: RowId) -> dict[str, Any]:
        """What lies on the table now (or at the end), for the live view."""
        s = svc.sessions.get(round_id)
        if s is not None:
            return s.engine.state()
        _rows, engine, _p = svc.round_log(round_id)
        return engine.state()

    @app.get("/api/rounds/{round_id}/flags", tags=["rounds"])
    def round_flags(round_id: RowId) -> list[dict[str, Any]]:
        """Every flag of the round, with the event that raised it, its neighbours, and the
        video frame it was seen in (``frame``, for frame-by-frame review; null if none)."""
        rows, _e, _p = svc.round_log(round_id)
        out = []
        for i, r in enumerate(rows):
            if r["event"]["type"] != "flag":
                continue
            cause = next((x for x in reversed(rows[:i]) if not x["derived"]
                          and x["seq"] == r["seq"]), None)
            frame = r["event"].get("frame", (cause or {"event": {}})["event"].get("frame"))
            out.append({"seq": r["seq"], "flag": r["event"],
                        "event": cause["event"] if cause else None, "frame": frame,
                        "context": [x for x in rows[max(0, i - 6):i + 4]]})
        return out

    @app.get("/api/rounds/{round_id}/events/{seq}/suggestions", tags=["corrections"])
    def suggestions(round_id: RowId, seq: RowId) -> list[dict[str, Any]]:
        """Likely alternative reads of a move: legal moves of the same seat just before it
        whose card the reader also found likely (the move's ``reads``), or that share its
        destination, source, rank or suit."""
        rnd = svc.store.round(round_id)
        table = svc.store.table(rnd["table_id"])
        effective = svc.store.effective_events(round_id)
        target = dict(effective).get(seq)
        if target is None:
            raise ServiceError(f"round {round_id} has no event {seq}", 404)
        if target["type"] != "move":
            return []
        before = [e for q, e in effective if q < seq]
        engine, _l, _p = rebuild(table["seats"], svc.rules_of(table), rnd["round_no"], before)
        return [{**m, "t_ms": target["t_ms"]} for m in
                engine.suggestions(target["seat"], target.get("card"), target.get("to"),
                                   target.get("from"), target.get("reads"))
                if not (m["card"] == target.get("card") and m["to"] == target.get("to"))]

    @app.post("/api/rounds/{round_id}/calls", tags=["rounds"])
    async def call(round_id: RowId, body: CallIn, authorization: Auth = None,
                   x_token: XToken = None) -> dict[str, Any]:
        """A player calls "Nertz!" for their seat (seat token), or the table token holder
        for any seat. Answers with the recorded call (``valid``) and what followed."""
        rnd = svc.store.round(round_id)
        token = token_of(authorization, x_token)
        if not (svc.store.check_table_token(rnd["table_id"], token)
                or svc.store.check_seat_token(rnd["table_id"], body.seat, token)):
            raise ServiceError(f"a call for seat {body.seat} needs that seat's token or the "
                               "table token", 403)
        s = svc.session(round_id)
        recorded = await svc.call(s, body.seat)
        return {"events": recorded, "score": s.engine.score()}

    @app.post("/api/rounds/{round_id}/end", tags=["rounds"])
    async def end_round(round_id: RowId, body: EndIn, authorization: Auth = None,
                        x_token: XToken = None) -> dict[str, Any]:
        """End a running round as a stall (scored) or abandoned."""
        rnd = svc.store.round(round_id)
        require_table(rnd["table_id"], authorization, x_token)
        s = svc.session(round_id)
        events = await svc.end_round(s, body.reason)
        return {"events": events, "score": s.engine.score(),
                "standings": svc.standings(rnd["table_id"])}

    @app.post("/api/rounds/{round_id}/events", tags=["rounds"])
    async def post_events(round_id: RowId, request: Request, authorization: Auth = None,
                          x_token: XToken = None) -> dict[str, Any]:
        """Events from a client (an event object, a list of them, or JSON Lines), for a
        round whose source is ``events``."""
        rnd = svc.store.round(round_id)
        require_table(rnd["table_id"], authorization, x_token)
        body = await read_limited(request, 4 * 1024 * 1024)
        events = parse_events(body)
        s = svc.session(round_id)
        recorded, problems = await svc.post_events(s, events)
        return {"events": recorded, "problems": problems, "score": s.engine.score()}

    @app.post("/api/rounds/{round_id}/frames", tags=["rounds"])
    async def post_frame(round_id: RowId, request: Request, authorization: Auth = None,
                         x_token: XToken = None) -> dict[str, Any]:
        """One camera frame (JPEG or PNG body) from a remote client, for a round whose
        source is ``frames``."""
        rnd = svc.store.round(round_id)
        require_table(rnd["table_id"], authorization, x_token)
        body = await read_limited(request, 16 * 1024 * 1024)
        if sniff(body[:16]) != "image":
            raise ServiceError("a frame must be a JPEG or PNG image", 415)
        s = svc.session(round_id)
        return {"events": await svc.post_frame(s, body)}

    @app.get("/api/rounds/{round_id}/frame.jpg", tags=["rounds"],
             responses={200: {"content": {"image/jpeg": {}}}})
    def latest_frame(round_id: RowId) -> Response:
        """The latest camera frame of a running round."""
        svc.store.round(round_id)
        s = svc.sessions.get(round_id)
        if s is None or s.jpeg is None:
            raise ServiceError(f"round {round_id} has no camera frame", 404)
        return Response(s.jpeg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # --- frame-by-frame review ---
    def frame_sources(round_id: int) -> tuple[Path | None, Path | None, Path | None, float]:
        """(video, kept frames folder, labels, fps) of a round."""
        from .review import frame_count

        rnd = svc.store.round(round_id)
        src = rnd["source"]
        video = kept = labels = None
        if src.get("kind") == "video" and src.get("upload_id"):
            video = svc.upload_path(str(src["upload_id"]))
        elif src.get("kind") in ("camera", "frames"):
            kept = svc.frames_dir(round_id)
        if src.get("labels_upload_id"):
            labels = svc.upload_path(str(src["labels_upload_id"]))
        fps = frame_count(video, None)[1] if video is not None else None
        return video, kept, labels, fps or 0.0

    @app.get("/api/rounds/{round_id}/frames", tags=["review"])
    def round_frames(round_id: RowId) -> dict[str, Any]:
        """How many frames of the round can be reviewed, and at what rate."""
        from .review import frame_count

        video, kept, labels, fps = frame_sources(round_id)
        count, _fps = frame_count(video, kept)
        return {"round_id": round_id, "count": count, "fps": fps or None,
                "from": "video" if video else "kept" if kept else None,
                "labels": labels is not None}

    @app.get("/api/rounds/{round_id}/frames/{n}.jpg", tags=["review"],
             responses={200: {"content": {"image/jpeg": {}}}})
    def round_frame(round_id: RowId, n: RowId, overlay: bool = True) -> Response:
        """Frame ``n`` of the round (from its video, or as a camera round kept it) as a
        JPEG, with the overlay: frame and time, the cards seen (render-labels sources), and
        the events recorded at that frame, flags in red."""
        import cv2

        from .review import FrameError, draw_overlay, read_frame

        video, kept, labels, fps = frame_sources(round_id)
        try:
            image = read_frame(video, kept, n)
        except FrameError as exc:
            raise ServiceError(f"round {round_id}: {exc}", 404) from None
        if overlay:
            rows, _e, _p = svc.round_log(round_id)
            seqs = {r["seq"] for r in rows if r["event"].get("frame") == n}
            events = [r["event"] for r in rows if r["seq"] in seqs]
            line = None
            if labels is not None and labels.is_file():
                line = labels_cache.get(labels).get(n)
            t_ms = n * 1000.0 / fps if fps else None
            image = draw_overlay(image, n, t_ms, events, line)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise ServiceError(f"frame {n} cannot be encoded", 422)
        return Response(buf.tobytes(), media_type="image/jpeg")

    # --- corrections ---
    @app.post("/api/rounds/{round_id}/corrections", tags=["corrections"])
    async def correct(round_id: RowId, body: CorrectionIn, authorization: Auth = None,
                      x_token: XToken = None) -> dict[str, Any]:
        """Correct misread events (replace or delete); the scores are recomputed and the
        change is kept with who made it and why."""
        rnd = svc.store.round(round_id)
        require_table(rnd["table_id"], authorization, x_token)
        return await svc.correct(round_id, body)

    @app.get("/api/rounds/{round_id}/corrections", tags=["corrections"])
    def corrections(round_id: RowId) -> list[dict[str, Any]]:
        """The audit trail: every correction of the round, oldest first."""
        svc.store.round(round_id)
        return svc.store.corrections(round_id)

    # --- uploads and replays ---
    async def read_limited(request: Request, limit: int) -> bytes:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > limit:
            raise ServiceError(f"the body is larger than the limit of {limit} bytes", 413)
        chunks, n = [], 0
        async for chunk in request.stream():
            n += len(chunk)
            if n > limit:
                raise ServiceError(f"the body is larger than the limit of {limit} bytes", 413)
            chunks.append(chunk)
        return b"".join(chunks)

    async def receive_upload(request: Request, kinds: set[str]) -> dict[str, Any]:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > svc.max_upload:
            raise ServiceError(f"the upload is larger than the limit of {svc.max_upload} "
                               "bytes", 413)
        upload_id = uuid.uuid4().hex[:16]
        tmp = svc.data_dir / "uploads" / f"{upload_id}.part"
        n = 0
        head = b""
        try:
            with open(tmp, "wb") as fh:
                async for chunk in request.stream():
                    n += len(chunk)
                    if n > svc.max_upload:
                        raise ServiceError(f"the upload is larger than the limit of "
                                           f"{svc.max_upload} bytes", 413)
                    if len(head) < 65536:
                        head += chunk[:65536 - len(head)]
                    fh.write(chunk)
            if n == 0:
                raise ServiceError("the upload is empty", 422)
            kind = sniff(head)
            if kind is None or kind not in kinds:
                raise ServiceError(f"the upload is not a {' or '.join(sorted(kinds))} (by its "
                                   "content)", 415)
            name = f"{upload_id}{_EXT[kind]}"
            tmp.rename(svc.data_dir / "uploads" / name)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        display = re.sub(r"[^\w.\- ]", "_", request.headers.get("x-filename", ""))[:80]
        svc.store.add_upload(upload_id, kind, name, n, display or name)
        return {"id": upload_id, "kind": kind, "size": n, "display_name": display or name}

    @app.post("/api/uploads", status_code=201, tags=["replays"],
              openapi_extra={"requestBody": {"content": {"application/octet-stream": {
                  "schema": {"type": "string", "format": "binary"}}}}})
    async def upload(request: Request) -> dict[str, Any]:
        """Upload an event log (JSON Lines), a video, or a renderer's ``*.labels.jsonl`` (for
        an oracle video source) as the raw body; its kind is found from its content, and it is
        stored under a name the server picks."""
        return await receive_upload(request, {"log", "video", "labels"})

    @app.post("/api/replays", status_code=202, tags=["replays"])
    def start_replay(body: ReplayIn) -> dict[str, Any]:
        """Replay an uploaded video (through ``nertz replay``) or event log in the
        background; poll the job for progress, then fetch its report."""
        return svc.submit_job(body.upload_id, body.table_id)

    @app.get("/api/replays/{job_id}", tags=["replays"])
    def replay_job(job_id: str) -> dict[str, Any]:
        job = svc.store.job(job_id)
        job.pop("out_dir", None)
        return job

    @app.get("/api/replays/{job_id}/report", tags=["replays"])
    def replay_report(job_id: str) -> Any:
        job = svc.store.job(job_id)
        if job["status"] != "done":
            raise ServiceError(f"replay {job_id} is {job['status']}: no report yet", 409)
        path = Path(job["out_dir"]) / "report.json"
        if not path.is_file():
            raise ServiceError(f"replay {job_id} wrote no report.json", 404)
        return json.loads(path.read_text())

    @app.get("/api/replays/{job_id}/report.html", tags=["replays"], response_class=HTMLResponse)
    def replay_report_html(job_id: str) -> Response:
        job = svc.store.job(job_id)
        path = Path(job["out_dir"]) / "report.html"
        if job["status"] != "done" or not path.is_file():
            raise ServiceError(f"replay {job_id} has no HTML report (status {job['status']})",
                               404)
        return FileResponse(path, media_type="text/html")

    # --- live stream ---
    @app.websocket("/api/tables/{table_id}/ws")
    async def table_ws(ws: WebSocket, table_id: RowId) -> None:
        """Events, scores, flags and round starts/ends of a table as they are committed.
        First message: ``hello`` with the latest round's events so far."""
        try:
            svc.store.table(table_id)
        except NotFound:
            await ws.close(code=4404, reason=f"no table {table_id}")
            return
        await ws.accept()
        q: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=5000)
        svc.subscribers.setdefault(table_id, set()).add(q)
        try:
            rounds = svc.store.rounds(table_id)
            hello: dict[str, Any] = {"kind": "hello", "table_id": table_id, "round": None,
                                     "events": [], "standings": svc.standings(table_id)}
            if rounds:
                last = rounds[-1]
                rows, engine, _p = svc.round_log(last["id"])
                s = svc.sessions.get(last["id"])
                hello.update(round=round_info(last["id"]), events=rows,
                             score=(s.engine if s else engine).score(),
                             state=(s.engine if s else engine).state())
            await ws.send_json(hello)
            while True:
                msg = await q.get()
                await ws.send_json(msg)
                if msg.get("kind") == "overflow":
                    await ws.close(code=1013, reason="client too slow")
                    return
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            svc.subscribers.get(table_id, set()).discard(q)

    # --- pages ---
    if WEB.is_dir():
        app.mount("/static", StaticFiles(directory=WEB), name="static")

    def page(name: str) -> FileResponse:
        return FileResponse(WEB / name, media_type="text/html")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return page("index.html")

    @app.get("/live", include_in_schema=False)
    def live_page() -> FileResponse:
        return page("live.html")

    @app.get("/setup", include_in_schema=False)
    def setup_page() -> FileResponse:
        return page("setup.html")

    @app.get("/review", include_in_schema=False)
    def review_page() -> FileResponse:
        return page("review.html")

    return app


def parse_events(body: bytes) -> list[dict[str, Any]]:
    """Events from a JSON object, a JSON list, or JSON Lines."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError("events must be UTF-8 JSON", 415) from None
    try:
        data = json.loads(text)
        items = data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        try:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            raise ServiceError("events must be a JSON object, a list, or JSON Lines",
                               422) from None
    if not items or not all(isinstance(e, dict) for e in items):
        raise ServiceError("events must be JSON objects", 422)
    return items
