"""``nertz live``: the live pipeline in a terminal, without the web page.

Frames from a camera (or a video file played as if live) go through the same
:class:`referee.live.VisionPipeline` and :class:`referee.live.RoundEngine` as the service;
every event is committed to the SQLite store (a table and a round of ``--db``, which
``nertz serve`` shows afterwards) before the scoreboard shows it. Keys ``1``–``8`` call
"Nertz!" for seats 0–7, ``q`` stops. A camera that cannot be opened or stops sending frames
ends with one line; what was recorded stays in the store (the round marked ``stopped``).
"""

from __future__ import annotations

import contextlib
import os
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import cv2

from rules import HouseRules

from .live import RoundEngine, SourceError, VisionPipeline, split_at_end, store_revisions
from .store import Store

__all__ = ["LiveError", "LiveSession", "keys", "open_capture", "run"]


class LiveError(ValueError):
    """A camera or video that cannot be used, or one that stopped; one line says why."""


class Capture(Protocol):
    def isOpened(self) -> bool: ...  # noqa: N802 - OpenCV's name
    def read(self) -> tuple[bool, Any]: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


def open_capture(target: str | int) -> Capture:
    """An OpenCV capture of a camera index or a video file; :class:`LiveError` if neither
    opens."""
    if isinstance(target, str) and not Path(target).is_file():
        raise LiveError(f"cannot open video {target}: no such file")
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # one line, ours
    try:
        cap = cv2.VideoCapture(target)
    finally:
        cv2.utils.logging.setLogLevel(level)
    if not cap.isOpened():
        what = f"camera {target}" if isinstance(target, int) else f"video {target}"
        raise LiveError(f"cannot open {what} (not connected, busy, or not a video)")
    return cap


class LiveSession:
    """One round recorded into the store: frames in, committed events out."""

    def __init__(self, db: str | Path, seats: int, rules: HouseRules, source: dict[str, Any],
                 profile: Path | None = None, labels: Path | None = None,
                 players: list[str] | None = None, keep_frames: bool = False) -> None:
        self.store = Store(db)
        toml = profile.read_text(encoding="utf-8") if profile is not None else ""
        names = (players or [])[:seats] + [f"seat {k}" for k in range(len(players or []),
                                                                         seats)]
        self.table_id, _tok, _seat_tokens = self.store.create_table(
            "nertz live", seats, rules.to_dict(), names, profile_toml=toml)
        self.players = names
        table = self.store.table(self.table_id)
        self.round_id, round_no = self.store.create_round(self.table_id, source)
        self.engine = RoundEngine(seats, rules, round_no)
        try:
            self.pipeline = VisionPipeline(table, rules, round_no, labels=labels)
        except SourceError:
            self.store.finish_round(self.round_id, "stopped", None)
            raise
        if keep_frames:  # where nertz serve's review finds a camera round's frames
            self.pipeline.frames_dir = Path(f"{db}.files") / "frames" / str(self.round_id)
        self.recent: deque[dict[str, Any]] = deque(maxlen=10)
        self.problems: deque[str] = deque(maxlen=3)
        self.frames = 0
        self.recorded = 0
        self.presses: list[tuple[int, int]] = []
        self.revision = 0  # the tracker's history revision the store is in line with

    def _commit(self, reported: list[dict[str, Any]], pos: int | None = None) -> None:
        out: list[dict[str, Any]] = []
        for event in reported:
            recorded, probs = self.engine.feed(event)
            out.extend(recorded)
            self.problems.extend(probs)
        for e in out:
            if e["type"] == "call" and self.presses:
                self.presses = [p for p in self.presses if p[0] != e.get("seat")
                                or p[1] > e["t_ms"]]
        before, end = split_at_end(out)
        if not end:
            self._append(out, pos)
            self._revise()
        else:  # what the tracker's revision adds goes before the round's end
            self._append(before, None, may_end=False)
            self._revise()
            self._append(end, pos)

    def _append(self, out: list[dict[str, Any]], pos: int | None, may_end: bool = True
                ) -> None:
        if not out:
            return
        self.store.append_events(self.round_id, out, "source", source_pos=pos,
                                 score=self.engine.score(),
                                 end_status="ended" if may_end and self.engine.ended
                                 else None)
        self.recorded += len(out)
        self.recent.extend(out)

    def _revise(self) -> None:
        """The tracker rewrote what it announced: stored as corrections by "tracker" and
        its moves never stored appended (:func:`referee.live.store_revisions`)."""
        tracker = self.pipeline.tracker
        if tracker.revision == self.revision:
            return
        self.revision = tracker.revision
        _fixed, appended = store_revisions(self.store, self.round_id, tracker,
                                           self.engine.score())
        self.recorded += len(appended)
        self.recent.extend(e for _gid, _seq, e in appended)

    def frame(self, image: Any, n: int, t_ms: int) -> None:
        """One frame through the pipeline; its events committed."""
        events = self.pipeline.process(image, t_ms)
        for e in events:
            e.setdefault("frame", n)
        self.frames = n + 1
        self._commit(events, pos=n + 1)

    def call(self, seat: int, t_ms: int) -> None:
        """"Nertz!" for a seat (a key press). The tracker applies it once the frames up to
        then are decided; until then it is kept here, so that stopping cannot lose it."""
        if 0 <= seat < self.engine.seats and not self.engine.ended:
            self.presses.append((seat, t_ms))
            self._commit(self.pipeline.call(seat, t_ms))

    def finish(self) -> None:
        """The source ended: the tracker's last events, then a stall if nothing ended it."""
        if not self.engine.ended:
            self._commit(self.pipeline.finish())
        if not self.engine.ended:
            self._commit(self.engine.end("stall", self.engine.last_t))

    def stop(self) -> None:
        """Stopped early (camera lost, or ``q``): keep everything, mark the round stopped."""
        if not self.engine.ended and self.presses:  # calls the tracker had not applied yet
            self._commit([{"type": "call", "seat": k, "t_ms": max(t, self.engine.last_t)}
                          for k, t in self.presses])
            self.presses = []
        if not self.engine.ended:
            self.store.finish_round(self.round_id, "stopped", self.engine.score())

    def view(self, status: str) -> Any:
        """The scoreboard, the latest events and a status line (rich renderables)."""
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        score = self.engine.score()
        state = self.engine.state()
        board = Table(title=f"round {self.engine.round_no} · table {self.table_id}",
                      expand=False)
        for col in ("key", "seat", "nertz left", "lake cards", "score"):
            board.add_column(col, justify="right" if col != "seat" else "left")
        for k in range(self.engine.seats):
            left = state["seats"][k].get("nertz", "?") if k < len(state["seats"]) else "?"
            lake = (score.get("lake_cards") or [0] * self.engine.seats)[k]
            pts = (score.get("scores") or [0] * self.engine.seats)[k]
            name = self.players[k] + ("  NERTZ EMPTY" if k in self.engine.emptied else "")
            board.add_row(str(k + 1), name, str(left), str(lake), f"[bold]{pts}[/bold]")
        events = Text()
        for e in list(self.recent)[-8:]:
            style = "red" if e["type"] == "flag" or e.get("valid") is False else ""
            events.append(f"{e['t_ms'] / 1000:7.1f} s  {_describe(e)}\n", style=style)
        lines = [board, events]
        for p in self.problems:
            lines.append(Text(f"note: {p}", style="yellow"))
        lines.append(Text(status, style="dim"))
        return Group(*lines)


def _describe(e: dict[str, Any]) -> str:
    seat = f"seat{e['seat']} " if "seat" in e else ""
    kind = e["type"]
    if kind == "move":
        lost = " (had left unseen)" if e.get("lost") else \
            " (unseen, from its hidden cards)" if e.get("hidden") else ""
        return f"{seat}{e.get('card')} {e.get('from')} → {e.get('to')}{lost}"
    if kind == "flag":
        return f"FLAG {seat}{e.get('rule')} {e.get('card') or ''}"
    if kind == "call":
        return f"{seat}calls Nertz! ({'valid' if e.get('valid') else 'false'})"
    if kind == "round_end":
        return f"round end ({e.get('reason')}): {e.get('scores')}"
    return f"{kind} {seat}".strip()


@contextlib.contextmanager
def keys() -> Iterator[queue.Queue[str]]:
    """Key presses of the terminal (cbreak mode) in a queue; empty when stdin is no tty."""
    q: queue.Queue[str] = queue.Queue()
    if not sys.stdin.isatty() or os.name != "posix":
        yield q
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    stop = threading.Event()

    def read() -> None:
        import select

        while not stop.is_set():
            ready, _w, _x = select.select([fd], [], [], 0.1)
            if ready:
                q.put(os.read(fd, 1).decode(errors="ignore"))

    tty.setcbreak(fd)
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield q
    finally:
        stop.set()
        thread.join(1)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def run(session: LiveSession, cap: Capture, live: bool, speed: float = 1.0,
        key_queue: queue.Queue[str] | None = None,
        show: Callable[[Any], None] | None = None, name: str = "camera") -> str:
    """Play the capture through the session until it ends, the round ends or ``q``;
    returns why it stopped. Raises :class:`LiveError` when a camera stops sending frames
    (everything recorded until then is kept)."""
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    if not 1 <= fps <= 240:
        fps = 30.0
    wall0 = time.monotonic()
    last_show = 0.0
    n = 0
    try:
        while True:
            ok, image = cap.read()
            if not ok or image is None:
                if live:
                    session.stop()
                    raise LiveError(
                        f"{name} stopped sending frames after {n} frame(s); the round's "
                        f"{session.recorded} event(s) are kept in the database (round "
                        f"{session.round_id}, marked stopped)")
                session.finish()
                return "the video ended"
            t_ms = int((time.monotonic() - wall0) * 1000) if live else int(n * 1000 / fps)
            while key_queue is not None and not key_queue.empty():
                key = key_queue.get()
                if key in ("q", "Q"):
                    session.stop()
                    return "stopped (q)"
                if key.isdigit() and 1 <= int(key) <= 8:
                    session.call(int(key) - 1, t_ms)
            if live:
                ok_jpeg, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
                if ok_jpeg:
                    session.pipeline.keep(n, buf.tobytes())
            session.frame(image, n, t_ms)
            n += 1
            if session.engine.ended:
                return "the round ended"
            now = time.monotonic()
            if show is not None and now - last_show > 0.2:
                last_show = now
                rate = n / max(1e-6, now - wall0)
                show(session.view(f"frame {n} · {rate:.1f} fps · keys 1-{session.engine.seats}"
                                  f": Nertz! for that seat · q: stop"))
            if not live and speed > 0:
                delay = n / fps / speed - (time.monotonic() - wall0)
                if delay > 0:
                    time.sleep(delay)
    finally:
        cap.release()
        if show is not None:
            show(session.view(f"{n} frame(s), {session.recorded} event(s) recorded"))
