"""``nertz replay``: a recorded video → events.jsonl, report.json and report.html.

The frames go through an *observer* (``(image, frame, t_ms) -> Observation``) and the
:class:`vision.tracker.Tracker`. Two observers are built in: :func:`pipeline_observer` (the
real path: :class:`vision.detector.CardDetector` → :class:`vision.table_model.TableModel`
from a table profile) and :func:`oracle_observer` (what a perfect detector and table model
would see, from the renderer's ``*.labels.jsonl``; for measuring the tracker alone).

The real path detects only where something changed
(:class:`vision.incremental.ChangeGatedDetector`; ``every_frame=True`` runs the detector on
every observed frame instead) and observes about ``observe_fps`` frames a second: the
frames between are only grabbed, not converted (:func:`replay_video`).
"""

from __future__ import annotations

import html
import inspect
import json
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules import HouseRules
from rules.log import write_log
from vision.observation import Observation, observation_from_labels
from vision.tracker import Tracker

Observer = Callable[[np.ndarray, int, float], Observation]

__all__ = ["ReplayError", "model_observer", "oracle_observer", "pipeline_observer", "read_calls",
           "replay_video"]


class ReplayError(ValueError):
    """A video, profile or calls file that cannot be used; one line says why."""


def oracle_observer(labels: str | Path) -> Observer:
    """Observations from render labels (frame number → the labelled frame)."""
    try:
        lines = [json.loads(x) for x in Path(labels).read_text().splitlines() if x.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise ReplayError(f"cannot read labels {labels}: {exc}") from None
    by_frame = {ln["frame"]: ln for ln in lines if ln.get("type") != "header"}

    def observe(image: np.ndarray, frame: int, t_ms: float) -> Observation:
        line = by_frame.get(frame)
        if line is None:
            return Observation(frame, t_ms, table_found=False)
        obs = observation_from_labels(line)
        obs.t_ms = t_ms
        return obs

    return observe


def pipeline_observer(profile: str | Path, models: str | Path | None = None,
                      every_frame: bool = False, observe_fps: float | None = 10.0,
                      **gate: Any) -> Observer:
    """The real path: card detector → table model of a saved table profile (see
    :func:`model_observer`)."""
    from vision.detector import CardDetector, ModelError
    from vision.table_model import TableModel

    try:
        model = TableModel.load(profile)
        detector = CardDetector.load(models)
        return model_observer(model, detector, every_frame, observe_fps, **gate)
    except (ModelError, OSError, ValueError, TypeError) as exc:
        raise ReplayError(f"cannot load the pipeline: {exc}") from None


def model_observer(model: Any, detector: Any, every_frame: bool = False,
                   observe_fps: float | None = 10.0, **gate: Any) -> Observer:
    """Frames → ``detector`` → ``model`` (a :class:`vision.table_model.TableModel`).

    By default the detector runs only where the frame changed and has settled since
    (:class:`vision.incremental.ChangeGatedDetector`, options in ``gate``, e.g.
    ``full_every_ms``), and a place whose picture changed and is not read again yet counts
    as covered (:func:`vision.incremental.mark_pending`); ``every_frame=True`` runs the
    detector on every frame the observer gets (the old path, for comparison).
    ``observe_fps`` is the rate :func:`replay_video` feeds it at (None: every frame of the
    video). The observer carries ``model``, ``gate`` (the change gate, None for every
    frame), ``observe_fps`` and ``timing`` (seconds spent in the detector, gate included,
    and in the table model)."""
    from vision.incremental import ChangeGatedDetector, mark_pending

    if getattr(detector, "turned_pass", None):
        detector.turned_pass = 0.0  # a table camera's frames: one look (not a photo's two)
    if getattr(detector, "close_ups", None):
        detector.close_ups = False  # and never a close-up of a card or two
    if getattr(detector, "photos", None):
        detector.photos = False  # nor a photo of cards at any angle (rival scales, …)
    if getattr(model, "back_check", False) is None:  # the deal's stock vetted by it too
        model.back_check = getattr(detector, "back_check", None)
    gated = None if every_frame else ChangeGatedDetector(detector, **gate)

    def spot(place: str) -> tuple[float, float, float, float] | None:
        try:  # the table model's box of an empty place
            return model.place_box(place)
        except Exception:  # noqa: BLE001 - a place it cannot map: leave it alone
            return None

    timing = {"detector_s": 0.0, "table_model_s": 0.0}
    card_px = getattr(model, "card_px", None)
    scale_for = getattr(detector, "scale_for", None)
    try:  # (a TableModel takes the grey frame; a stand-in model may not)
        takes_grey = "grey" in inspect.signature(model.observe).parameters
    except (TypeError, ValueError):
        takes_grey = False

    def observe(image: np.ndarray, frame: int, t_ms: float) -> Observation:
        t0 = time.perf_counter()
        # (one grey copy for the gate and the table model)
        grey = (cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image) \
            if gated is not None or takes_grey else None
        dets = detector(image) if gated is None else gated(image, t_ms, grey)
        t1 = time.perf_counter()
        obs = (model.observe(image, dets, frame, t_ms, grey=grey) if takes_grey
               else model.observe(image, dets, frame, t_ms))
        timing["detector_s"] += t1 - t0
        timing["table_model_s"] += time.perf_counter() - t1
        if gated is None:
            return obs
        if card_px is not None and scale_for is not None:
            # the cards' size the table's calibration gives: a check on the frame's own
            px = card_px() if getattr(model, "camera", "ok") == "ok" else None
            gated.expect_scale(scale_for(px) if px else None)
        return mark_pending(obs, gated, spot)

    observe.model = model  # type: ignore[attr-defined]
    observe.timing = timing  # type: ignore[attr-defined]
    observe.gate = gated  # type: ignore[attr-defined]
    observe.observe_fps = observe_fps  # type: ignore[attr-defined]
    return observe


def read_calls(path: str | Path) -> list[tuple[int, float]]:
    """Calls from a JSON Lines file: ``{"seat": 2, "t_ms": 61000}`` per line."""
    out = []
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise ReplayError(f"cannot read calls file {path}: {exc}") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
            if ev.get("type", "call") != "call":
                continue
            out.append((int(ev["seat"]), float(ev["t_ms"])))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            raise ReplayError(f"calls file {path}: line {n} is not a call "
                              '{"seat": K, "t_ms": T}') from None
    return sorted(out, key=lambda c: c[1])


def _thumb(image: np.ndarray, width: int = 480) -> np.ndarray:
    h, w = image.shape[:2]
    if w <= width:
        return image.copy()
    while w >= 2 * width:  # halve by a Gaussian pyramid step: ~3x cheaper than INTER_AREA
        image = cv2.pyrDown(image)
        h, w = image.shape[:2]
    return cv2.resize(image, (width, int(round(h * width / w))), interpolation=cv2.INTER_LINEAR)


class _FrameReader:
    """The observed frames of an open ``cv2.VideoCapture``, decoded on a thread ahead of the
    caller: ``(frame number, image, thumbnail)`` for every ``stride``-th frame, the frames
    between only grabbed. Decoding runs while the caller observes (OpenCV lets go of the
    GIL), so the second core decodes while the first runs the table model and tracker.
    :attr:`frames`: how many frames the stream gave (valid once iteration ends)."""

    AHEAD = 3  #: decoded frames held ready (each 2.8 MB at 1280×720)

    def __init__(self, cap: cv2.VideoCapture, stride: int) -> None:
        self.cap, self.stride = cap, stride
        self.frames = 0
        self._queue: queue.Queue[tuple[int, np.ndarray, np.ndarray] | None] = queue.Queue(
            self.AHEAD)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="replay-decode", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        cap, frame = self.cap, 0
        try:
            while not self._stop.is_set():
                if frame % self.stride:  # not observed: the stream advances, no image
                    if not cap.grab():
                        break
                    frame += 1
                    continue
                ok, image = cap.read()
                if not ok or image is None:
                    break
                self._put((frame, image, _thumb(image)))
                frame += 1
        except cv2.error:  # a stream OpenCV gives up on ends like a truncated one
            pass
        finally:
            self.frames = frame
            self._put(None)  # the end

    def _put(self, item: tuple[int, np.ndarray, np.ndarray] | None) -> None:
        """Hand ``item`` to the caller, waiting while the queue is full (not once told to
        stop)."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def __iter__(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        while (item := self._queue.get()) is not None:
            yield item
        self._thread.join()

    def close(self) -> None:
        """Stop decoding (the caller stopped early, or is done) and release the video."""
        self._stop.set()
        self._thread.join()
        self.cap.release()


#: the observer failing on this many observed frames in a row ends the replay (a frame it
#: fails on is skipped; one bad frame must not lose the rest of the round)
MAX_FAILED_IN_A_ROW = 30
#: failures named in the report (the count has them all)
MAX_FAILURES_LISTED = 20


def replay_video(video: str | Path, out_dir: str | Path, observer: Observer, rules: HouseRules,
                 seats: int, calls: list[tuple[int, float]] | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 keep_frames: int = 120, observe_fps: float | None = None) -> dict[str, Any]:
    """Run a video through the observer and the tracker; write ``events.jsonl``,
    ``report.json`` and ``report.html`` to ``out_dir`` (also when the video ends early:
    ``report["error"]`` then says why, and everything decided up to the last good frame is
    kept). A frame the observer fails on is skipped (``report["frames_failed"]``, the first
    :data:`MAX_FAILURES_LISTED` in ``report["failures"]``); :data:`MAX_FAILED_IN_A_ROW`
    failures in a row end the replay with an error. Returns the report.

    ``observe_fps`` (default: the observer's own ``observe_fps``, else every frame; 0 or
    less: every frame): the observer sees every k-th frame, k = the video's fps divided by
    it, rounded (at least 1); the frames between are grabbed without being decoded into
    images. Frame numbers and times stay the video's."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "crops").mkdir(exist_ok=True)
    cap = cv2.VideoCapture(str(video))
    if not Path(video).is_file() or not cap.isOpened():
        raise ReplayError(f"cannot read {video}: not a video file OpenCV can open")
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    if not 1.0 <= fps <= 240.0:
        fps = 30.0
    total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    if observe_fps is None:
        observe_fps = getattr(observer, "observe_fps", None)
    stride = max(1, int(round(fps / observe_fps))) if observe_fps and observe_fps > 0 else 1
    tracker = Tracker(rules, seats)
    pending = list(calls or [])
    recent: deque[tuple[int, np.ndarray]] = deque(maxlen=keep_frames)
    crops: list[dict[str, Any]] = []
    frame = observed = table_frames = 0
    # the table model's markers (when the observer has one): the most found in one frame
    model = getattr(observer, "model", None)
    layout = getattr(getattr(model, "profile", None), "markers", None)
    marker_ids = set(layout.ids) if layout is not None else set()
    most_markers = -1  # (-1: none looked for)
    error = None
    failed: list[str] = []  # frames the observer failed on (skipped)
    in_a_row = 0
    reader = _FrameReader(cap, stride)
    try:
        for frame, image, thumb in reader:
            observed += 1
            t_ms = frame * 1000.0 / fps
            while pending and pending[0][1] <= t_ms:
                tracker.call(*pending.pop(0))
            try:
                obs = observer(image, frame, t_ms)
            except Exception as exc:  # noqa: BLE001 - a bad frame must not lose the round
                failed.append(f"frame {frame}: {type(exc).__name__}: {exc}")
                in_a_row += 1
                if in_a_row >= MAX_FAILED_IN_A_ROW:
                    error = (f"frame {frame}: the observer failed on {in_a_row} frames in a "
                             f"row (the first: {failed[-in_a_row]}); the report holds what "
                             f"was decided up to frame {frame - in_a_row * stride}")
                    break
                if progress is not None:  # a frame it cannot look at is skipped
                    progress(frame + 1, total)
                continue
            in_a_row = 0
            recent.append((frame, thumb))
            table_frames += bool(obs.table_found)
            seen = getattr(model, "markers_in_view", None)
            if seen is not None and marker_ids:
                most_markers = max(most_markers, len(seen & marker_ids))
            for ev in tracker.update(obs):
                if ev["type"] == "flag":
                    crops.append(_save_crops(out, len(crops), ev, recent))
            if progress is not None:
                progress(frame + 1, total)
    finally:
        reader.close()
    frame = reader.frames if error is None else frame
    if progress is not None and error is None:
        progress(frame, total)
    if frame == 0:
        error = error or f"cannot read {video}: no frame could be decoded"
    elif error is None and total and frame < total - 1:
        error = (f"{video} is truncated: decoded {frame} of {total} frames; the report "
                 f"holds what was decided up to frame {frame - 1}")
    for seat, t in pending:
        tracker.call(seat, t)
    for ev in tracker.finish():
        if ev["type"] == "flag":
            crops.append(_save_crops(out, len(crops), ev, recent))
    events = tracker.log() if tracker.dealt else []
    write_log(events, out / "events.jsonl")
    report = tracker.report()
    report.update(video=str(video), fps=fps, frames=frame, frames_expected=total,
                  frames_observed=observed, stride=stride, error=error,
                  calls_input=calls is not None, frames_failed=len(failed),
                  failures=failed[:MAX_FAILURES_LISTED])
    gate = getattr(observer, "gate", None)
    if gate is not None:
        report["detector"] = gate.stats.as_dict()
    if getattr(observer, "timing", None) is not None:
        report["timing"] = {k: round(v, 3) for k, v in observer.timing.items()}
    report["frames_with_table"] = table_frames
    if not tracker.dealt and observed:
        markers = ("no markers in view" if most_markers <= 0 else
                   f"at most {most_markers} of its {len(marker_ids)} markers in view at once, 3 "
                   f"needed (cards or hands on the others?)")
        report["note"] = (
            f"the table was not found in any of the {observed} frames looked at: "
            f"{markers}, or the profile is for another table or camera"
            if not table_frames else
            f"no deal was seen (the table was found in {table_frames} of {observed} frames "
            f"looked at): every seat's nertz top, river cards and stock must show at once "
            f"in their places; check that the profile's seats and places match this table")
    if report.get("end_inferred"):
        report["note"] = ("no call input: the round end was inferred from the first emptied "
                          "nertz pile and play stopping" if tracker.table is not None
                          and tracker.table.nertz_emptied_at else
                          "no call input and no emptied nertz pile: the round stalled")
    for fl, crop in zip(report.get("flags", []), crops, strict=False):
        fl["crops"] = crop
    report["rounds"] = [{"round": report["round"], "score": report.get("score"),
                         "nertz_counts": report.get("nertz_counts"),
                         "flags": len(report.get("flags", []))}]
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "report.html").write_text(_html(report, events))
    return report


def _save_crops(out: Path, i: int, ev: dict[str, Any],
                recent: deque[tuple[int, np.ndarray]]) -> dict[str, Any]:
    first, last = ev.get("frames", [ev.get("frame", 0)] * 2)
    before = next((img for f, img in recent if f >= max(0, first - 3)), None)
    after = recent[-1][1] if recent else None
    names = {}
    for tag, img in (("before", before), ("after", after)):
        if img is not None:
            name = f"crops/flag{i:03d}-{tag}.jpg"
            cv2.imwrite(str(out / name), img, [cv2.IMWRITE_JPEG_QUALITY, 80])
            names[tag] = name
    return names


def _html(report: dict[str, Any], events: list[dict[str, Any]]) -> str:
    e = html.escape
    score = report.get("score") or {}
    seats = report.get("seats", 0)
    rows = "".join(
        f"<tr><td>seat{k}</td><td>{(score.get('lake_cards') or [0] * seats)[k]}</td>"
        f"<td>{(report.get('nertz_counts') or [0] * seats)[k]}</td>"
        f"<td><b>{(score.get('scores') or [0] * seats)[k]}</b></td></tr>" for k in range(seats))
    flags = []
    for fl in report.get("flags", []):
        imgs = "".join(f'<figure><img src="{e(v)}" width="320"><figcaption>{e(k)}'
                       "</figcaption></figure>" for k, v in (fl.get("crops") or {}).items())
        state = " (corrected)" if fl.get("corrected") else ""
        flags.append(f"<div class='flag'><h3>{e(fl['rule'])}{state}: seat{fl.get('seat')} "
                     f"{e(str(fl.get('card') or ''))} {e(str(fl.get('place') or ''))}</h3>"
                     f"<p>{fl['t_ms'] / 1000:.1f} s, frames {fl.get('frames')}</p>"
                     + (f"<p class='why'>{e(str(why))}</p>"
                        if (why := (fl.get("evidence") or {}).get("why")) else "")
                     + f"{imgs}</div>")
    end = max([ev["t_ms"] for ev in events] or [1]) or 1
    marks = "".join(
        f"<div class='m {e(ev['type'])}' style='left:{100 * ev['t_ms'] / end:.2f}%' "
        f"title='{e(ev['type'])} {e(str(ev.get('card', '')))} seat{ev.get('seat', '')} "
        f"{ev['t_ms'] / 1000:.1f}s'></div>"
        for ev in events
        if ev["type"] in ("move", "flag", "call", "retract", "unseen", "round_end"))
    err = f"<p class='err'>{e(report['error'])}</p>" if report.get("error") else ""
    note = f"<p>{e(report['note'])}</p>" if report.get("note") else ""
    if report.get("frames_failed"):
        note += (f"<p class='err'>{report['frames_failed']} frame(s) could not be looked at "
                 f"and were skipped: {e('; '.join(report.get('failures') or []))}</p>")
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Nertz replay</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 10px}}.tl{{position:relative;height:30px;
background:#eee;margin:1em 0}}.m{{position:absolute;top:4px;width:3px;height:22px;
background:#48c}}.m.flag{{background:#d22}}.m.call{{background:#2a2;width:5px}}
.m.retract{{background:#fa0}}.m.unseen{{background:#999}}figure{{display:inline-block;margin:4px}}
.err{{color:#b00}}</style></head><body><h1>Nertz replay: {e(str(report.get('video')))}</h1>
{err}{note}<h2>Scoreboard (end: {e(str(score.get('reason')))})</h2>
<table><tr><th>seat</th><th>lake cards</th><th>nertz left</th><th>score</th></tr>{rows}
</table><h2>Timeline</h2><div class="tl">{marks}</div>
<p>blue: move, orange: retract, grey: a card that left unseen, red: flag, green: call</p>
<h2>Flags ({len(flags)})</h2>{''.join(flags) or '<p>none</p>'}</body></html>
"""
