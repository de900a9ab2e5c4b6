"""SQLite persistence for the referee service: tables, players, rounds, the append-only event
log of each round, corrections with their audit trail, uploads and replay jobs.

One file in WAL mode: :meth:`Store.append_events` returns only after the events are committed,
so an event that was announced survives a crash (``kill -9``) of the server; with
``synchronous="FULL"`` also a power cut (an fsync per commit). Corrections never change a
recorded event: they are stored beside it and applied when the round's *effective* log is read
(:meth:`Store.effective_events`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["NotFound", "Store", "StoreError", "hash_token", "new_token"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    seats INTEGER NOT NULL,
    rules TEXT NOT NULL,            -- JSON: every house-rule option
    profile_toml TEXT NOT NULL DEFAULT '',
    backs TEXT NOT NULL DEFAULT '{}',        -- JSON: seat -> {"design", "image"}
    calibration TEXT NOT NULL DEFAULT 'null', -- JSON: {"image_size", "corners"}
    token_hash TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    table_id INTEGER NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS rounds (
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables(id),
    round_no INTEGER NOT NULL,
    status TEXT NOT NULL,           -- running | ended | stopped
    source TEXT NOT NULL,           -- JSON: the source's description (kind, arguments)
    source_pos INTEGER NOT NULL DEFAULT 0,  -- how far the source was consumed
    score TEXT,                     -- JSON: the last computed RoundScore
    started_at REAL NOT NULL,
    ended_at REAL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,         -- global order, for WebSocket resumption
    round_id INTEGER NOT NULL REFERENCES rounds(id),
    seq INTEGER NOT NULL,           -- 1, 2, ... within the round
    data TEXT NOT NULL,             -- the event-log line (JSON)
    origin TEXT NOT NULL,           -- source | call | referee | api
    recorded_at REAL NOT NULL,
    UNIQUE (round_id, seq)
);
CREATE TABLE IF NOT EXISTS corrections (
    id INTEGER PRIMARY KEY,
    round_id INTEGER NOT NULL REFERENCES rounds(id),
    seq INTEGER NOT NULL,           -- the corrected event
    action TEXT NOT NULL,           -- replace | delete
    data TEXT,                      -- the replacing event (JSON), for replace
    previous TEXT NOT NULL,         -- the event as it read before (JSON)
    who TEXT NOT NULL,
    why TEXT NOT NULL,
    at REAL NOT NULL,
    scores_before TEXT,
    scores_after TEXT
);
CREATE TABLE IF NOT EXISTS uploads (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,             -- log | video | image
    path TEXT NOT NULL,             -- server-chosen file name
    size INTEGER NOT NULL,
    display_name TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    upload_id TEXT NOT NULL REFERENCES uploads(id),
    status TEXT NOT NULL,           -- queued | running | done | failed
    progress REAL NOT NULL DEFAULT 0,
    message TEXT NOT NULL DEFAULT '',
    out_dir TEXT NOT NULL,
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS events_round ON events(round_id, seq);
"""


class StoreError(ValueError):
    """A request the store cannot satisfy (bad reference, bad state)."""


class NotFound(StoreError):
    """No such table, round, event, upload or job."""


def new_token() -> str:
    """A fresh random bearer token."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _check(token: str | None, digest: str) -> bool:
    return token is not None and hmac.compare_digest(hash_token(token), digest)


class Store:
    """The service's SQLite database. Thread-safe: one connection behind a lock."""

    def __init__(self, path: str | Path, synchronous: str = "NORMAL") -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                   isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
            raise StoreError(f"synchronous must be FULL, NORMAL or EXTRA, not {synchronous!r}")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _one(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Row | None:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchone()

    def _all(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchall()

    # --- tables and players -----------------------------------------------------------
    def create_table(self, name: str, seats: int, rules: dict[str, Any], players: list[str],
                     profile_toml: str = "") -> tuple[int, str, list[str]]:
        """Create a table; returns (id, table token, one token per seat)."""
        token = new_token()
        seat_tokens = [new_token() for _ in range(seats)]
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO tables (name, seats, rules, profile_toml, token_hash, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (name, seats, json.dumps(rules), profile_toml, hash_token(token), time.time()))
            table_id = int(cur.lastrowid or 0)
            for seat in range(seats):
                db.execute("INSERT INTO players (table_id, seat, name, token_hash) "
                           "VALUES (?, ?, ?, ?)",
                           (table_id, seat, players[seat], hash_token(seat_tokens[seat])))
        return table_id, token, seat_tokens

    def table(self, table_id: int) -> dict[str, Any]:
        row = self._one("SELECT * FROM tables WHERE id = ?", (table_id,))
        if row is None:
            raise NotFound(f"no table {table_id}")
        players = self._all("SELECT seat, name FROM players WHERE table_id = ? ORDER BY seat",
                            (table_id,))
        return {"id": row["id"], "name": row["name"], "seats": row["seats"],
                "rules": json.loads(row["rules"]), "profile_toml": row["profile_toml"],
                "backs": json.loads(row["backs"]),
                "calibration": json.loads(row["calibration"]),
                "players": [p["name"] for p in players], "created_at": row["created_at"]}

    def tables(self) -> list[dict[str, Any]]:
        return [self.table(r["id"]) for r in self._all("SELECT id FROM tables ORDER BY id")]

    def check_table_token(self, table_id: int, token: str | None) -> bool:
        row = self._one("SELECT token_hash FROM tables WHERE id = ?", (table_id,))
        if row is None:
            raise NotFound(f"no table {table_id}")
        return _check(token, row["token_hash"])

    def check_seat_token(self, table_id: int, seat: int, token: str | None) -> bool:
        row = self._one("SELECT token_hash FROM players WHERE table_id = ? AND seat = ?",
                        (table_id, seat))
        return row is not None and _check(token, row["token_hash"])

    def update_table(self, table_id: int, **fields: Any) -> None:
        """Set ``rules``, ``profile_toml``, ``backs``, ``calibration`` or ``name``."""
        allowed = {"rules", "profile_toml", "backs", "calibration", "name"}
        bad = set(fields) - allowed
        if bad:
            raise StoreError(f"cannot set {sorted(bad)[0]!r} of a table")
        self.table(table_id)
        with self._tx() as db:
            for key, value in fields.items():
                if key in ("rules", "backs", "calibration"):
                    value = json.dumps(value)
                db.execute(f"UPDATE tables SET {key} = ? WHERE id = ?", (value, table_id))

    def set_player(self, table_id: int, seat: int, name: str) -> None:
        with self._tx() as db:
            cur = db.execute("UPDATE players SET name = ? WHERE table_id = ? AND seat = ?",
                             (name, table_id, seat))
            if cur.rowcount == 0:
                raise NotFound(f"table {table_id} has no seat {seat}")

    # --- rounds -----------------------------------------------------------------------
    def create_round(self, table_id: int, source: dict[str, Any]) -> tuple[int, int]:
        """A new running round of a table; returns (round id, round number)."""
        self.table(table_id)
        with self._tx() as db:
            running = db.execute("SELECT id FROM rounds WHERE table_id = ? AND status = "
                                 "'running'", (table_id,)).fetchone()
            if running is not None:
                raise StoreError(f"table {table_id} already has a running round "
                                 f"({running['id']}); end it first")
            last = db.execute("SELECT MAX(round_no) AS n FROM rounds WHERE table_id = ? AND "
                              "status = 'ended'", (table_id,)).fetchone()
            round_no = (last["n"] or 0) + 1
            cur = db.execute("INSERT INTO rounds (table_id, round_no, status, source, "
                             "started_at) VALUES (?, ?, 'running', ?, ?)",
                             (table_id, round_no, json.dumps(source), time.time()))
            return int(cur.lastrowid or 0), round_no

    def round(self, round_id: int) -> dict[str, Any]:
        row = self._one("SELECT * FROM rounds WHERE id = ?", (round_id,))
        if row is None:
            raise NotFound(f"no round {round_id}")
        return self._round_dict(row)

    @staticmethod
    def _round_dict(row: sqlite3.Row) -> dict[str, Any]:
        return {"id": row["id"], "table_id": row["table_id"], "round_no": row["round_no"],
                "status": row["status"], "source": json.loads(row["source"]),
                "source_pos": row["source_pos"],
                "score": json.loads(row["score"]) if row["score"] else None,
                "started_at": row["started_at"], "ended_at": row["ended_at"]}

    def rounds(self, table_id: int | None = None, status: str | None = None
               ) -> list[dict[str, Any]]:
        sql, args = "SELECT * FROM rounds WHERE 1=1", []
        if table_id is not None:
            sql += " AND table_id = ?"
            args.append(table_id)
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        return [self._round_dict(r) for r in self._all(sql + " ORDER BY id", args)]

    def finish_round(self, round_id: int, status: str, score: dict[str, Any] | None) -> None:
        with self._tx() as db:
            db.execute("UPDATE rounds SET status = ?, score = ?, ended_at = ? WHERE id = ?",
                       (status, json.dumps(score) if score is not None else None, time.time(),
                        round_id))

    def set_score(self, round_id: int, score: dict[str, Any] | None) -> None:
        with self._tx() as db:
            db.execute("UPDATE rounds SET score = ? WHERE id = ?",
                       (json.dumps(score) if score is not None else None, round_id))

    # --- events -----------------------------------------------------------------------
    def append_events(self, round_id: int, events: list[dict[str, Any]], origin: str,
                      source_pos: int | None = None, score: dict[str, Any] | None = None,
                      end_status: str | None = None) -> list[tuple[int, int]]:
        """Commit events (and the source position, score, end) in one transaction; returns
        (global id, seq) per event. Returns only once the commit is durable."""
        now = time.time()
        out = []
        with self._tx() as db:
            row = db.execute("SELECT status FROM rounds WHERE id = ?", (round_id,)).fetchone()
            if row is None:
                raise NotFound(f"no round {round_id}")
            if row["status"] != "running" and events:
                raise StoreError(f"round {round_id} is {row['status']}; no more events")
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) AS s FROM events WHERE round_id "
                             "= ?", (round_id,)).fetchone()["s"]
            for event in events:
                seq += 1
                cur = db.execute("INSERT INTO events (round_id, seq, data, origin, "
                                 "recorded_at) VALUES (?, ?, ?, ?, ?)",
                                 (round_id, seq, json.dumps(event, separators=(",", ":")),
                                  origin, now))
                out.append((int(cur.lastrowid or 0), seq))
            if source_pos is not None:
                db.execute("UPDATE rounds SET source_pos = ? WHERE id = ?",
                           (source_pos, round_id))
            if score is not None:
                db.execute("UPDATE rounds SET score = ? WHERE id = ?",
                           (json.dumps(score), round_id))
            if end_status is not None:
                db.execute("UPDATE rounds SET status = ?, ended_at = ? WHERE id = ?",
                           (end_status, now, round_id))
        return out

    def events(self, round_id: int, after_seq: int = 0) -> list[dict[str, Any]]:
        """The recorded events of a round as stored (no corrections): ``{"id", "seq",
        "origin", "event"}``."""
        rows = self._all("SELECT id, seq, origin, data FROM events WHERE round_id = ? AND "
                         "seq > ? ORDER BY seq", (round_id, after_seq))
        return [{"id": r["id"], "seq": r["seq"], "origin": r["origin"],
                 "event": json.loads(r["data"])} for r in rows]

    def event(self, round_id: int, seq: int) -> dict[str, Any]:
        row = self._one("SELECT data FROM events WHERE round_id = ? AND seq = ?",
                        (round_id, seq))
        if row is None:
            raise NotFound(f"round {round_id} has no event {seq}")
        return json.loads(row["data"])

    def effective_events(self, round_id: int) -> list[tuple[int, dict[str, Any]]]:
        """(seq, event) of the round with every correction applied, in order."""
        fixes: dict[int, dict[str, Any] | None] = {}
        for c in self.corrections(round_id):
            fixes[c["seq"]] = c["event"] if c["action"] == "replace" else None
        out = []
        for e in self.events(round_id):
            if e["seq"] in fixes:
                if fixes[e["seq"]] is None:
                    continue
                out.append((e["seq"], dict(fixes[e["seq"]] or {})))
            else:
                out.append((e["seq"], e["event"]))
        return out

    # --- corrections ------------------------------------------------------------------
    def add_correction(self, round_id: int, seq: int, action: str,
                       event: dict[str, Any] | None, who: str, why: str,
                       scores_before: dict[str, Any] | None,
                       scores_after: dict[str, Any] | None) -> int:
        previous = self.effective_events_map(round_id).get(seq)
        if previous is None:
            raise NotFound(f"round {round_id} has no event {seq} (or it was deleted)")
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO corrections (round_id, seq, action, data, previous, who, why, at,"
                " scores_before, scores_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (round_id, seq, action, json.dumps(event) if event is not None else None,
                 json.dumps(previous), who, why, time.time(), json.dumps(scores_before),
                 json.dumps(scores_after)))
            if scores_after is not None:
                db.execute("UPDATE rounds SET score = ? WHERE id = ?",
                           (json.dumps(scores_after), round_id))
            return int(cur.lastrowid or 0)

    def effective_events_map(self, round_id: int) -> dict[int, dict[str, Any]]:
        return dict(self.effective_events(round_id))

    def corrections(self, round_id: int) -> list[dict[str, Any]]:
        rows = self._all("SELECT * FROM corrections WHERE round_id = ? ORDER BY id",
                         (round_id,))
        return [{"id": r["id"], "seq": r["seq"], "action": r["action"],
                 "event": json.loads(r["data"]) if r["data"] else None,
                 "previous": json.loads(r["previous"]), "who": r["who"], "why": r["why"],
                 "at": r["at"],
                 "scores_before": json.loads(r["scores_before"]) if r["scores_before"]
                 else None,
                 "scores_after": json.loads(r["scores_after"]) if r["scores_after"] else None}
                for r in rows]

    # --- uploads and jobs -------------------------------------------------------------
    def add_upload(self, upload_id: str, kind: str, path: str, size: int,
                   display_name: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO uploads (id, kind, path, size, display_name, created_at) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (upload_id, kind, path, size, display_name, time.time()))

    def upload(self, upload_id: str) -> dict[str, Any]:
        row = self._one("SELECT * FROM uploads WHERE id = ?", (upload_id,))
        if row is None:
            raise NotFound(f"no upload {upload_id!r}")
        return dict(row)

    def add_job(self, job_id: str, upload_id: str, out_dir: str) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO jobs (id, upload_id, status, out_dir, created_at) "
                       "VALUES (?, ?, 'queued', ?, ?)", (job_id, upload_id, out_dir,
                                                         time.time()))

    def update_job(self, job_id: str, status: str | None = None,
                   progress: float | None = None, message: str | None = None) -> None:
        with self._tx() as db:
            if status is not None:
                db.execute("UPDATE jobs SET status = ? WHERE id = ?", (status, job_id))
                if status in ("done", "failed"):
                    db.execute("UPDATE jobs SET finished_at = ? WHERE id = ?",
                               (time.time(), job_id))
            if progress is not None:
                db.execute("UPDATE jobs SET progress = ? WHERE id = ?", (progress, job_id))
            if message is not None:
                db.execute("UPDATE jobs SET message = ? WHERE id = ?", (message, job_id))

    def job(self, job_id: str) -> dict[str, Any]:
        row = self._one("SELECT * FROM jobs WHERE id = ?", (job_id,))
        if row is None:
            raise NotFound(f"no replay job {job_id!r}")
        return dict(row)

    def jobs(self, status: str | None = None) -> list[dict[str, Any]]:
        if status is None:
            return [dict(r) for r in self._all("SELECT * FROM jobs ORDER BY created_at")]
        return [dict(r) for r in self._all("SELECT * FROM jobs WHERE status = ? ORDER BY "
                                           "created_at", (status,))]
