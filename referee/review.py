"""Frame-by-frame review of a recorded round: frame N of its source, with an overlay.

A ``video`` round's frames are read again from its uploaded video; a ``camera`` or
``frames`` round keeps every frame it processed as ``<n:06d>.jpg`` (see
:meth:`referee.live.VisionPipeline.keep`). The overlay draws the frame number and time, the
cards the observer saw in that frame when render labels were its source (boxes with codes,
hands), and the round's events recorded at that frame (flags in red).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["FrameError", "LabelsCache", "draw_overlay", "frame_count", "read_frame"]


class FrameError(ValueError):
    """A frame that does not exist or cannot be read; the message says which."""


def read_frame(video: Path | None, kept: Path | None, n: int) -> np.ndarray:
    """Frame ``n`` (0-based) of a video file or of a folder of kept frames."""
    if n < 0:
        raise FrameError(f"frame {n}: frames count from 0")
    if kept is not None:
        path = kept / f"{n:06d}.jpg"
        image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            raise FrameError(f"frame {n} was not kept")
        return image
    if video is None:
        raise FrameError("this round has no frames (its source is not a video or camera)")
    cap = cv2.VideoCapture(str(video))
    try:
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        if not cap.isOpened():
            raise FrameError("the round's video cannot be opened")
        if total and n >= total:
            raise FrameError(f"frame {n}: the video has frames 0-{total - 1}")
        cap.set(cv2.CAP_PROP_POS_FRAMES, n)
        ok, image = cap.read()
    finally:
        cap.release()
    if not ok or image is None:
        raise FrameError(f"frame {n} cannot be decoded")
    return image


def frame_count(video: Path | None, kept: Path | None) -> tuple[int, float | None]:
    """(number of frames, fps or None) of a video file or a folder of kept frames."""
    if kept is not None:
        names = sorted(kept.glob("*.jpg")) if kept.is_dir() else []
        return (int(names[-1].stem) + 1 if names else 0), None
    if video is None:
        return 0, None
    cap = cv2.VideoCapture(str(video))
    try:
        return int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0), (cap.get(cv2.CAP_PROP_FPS) or None)
    finally:
        cap.release()


class LabelsCache:
    """Parsed ``*.labels.jsonl`` files (frame → line), the few most recent."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._cache: OrderedDict[str, dict[int, dict[str, Any]]] = OrderedDict()

    def get(self, path: Path) -> dict[int, dict[str, Any]]:
        key = str(path)
        if key not in self._cache:
            lines = (json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip())
            self._cache[key] = {ln["frame"]: ln for ln in lines if ln.get("type") != "header"}
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        return self._cache[key]


def _describe(e: dict[str, Any]) -> str:
    kind = e.get("type", "?")
    seat = f"seat{e['seat']} " if "seat" in e else ""
    if kind == "move":
        lost = " (had left unseen)" if e.get("lost") else \
            " (unseen, from its hidden cards)" if e.get("hidden") else ""
        return f"move {seat}{e.get('card')} {e.get('from')} -> {e.get('to')}{lost}"
    if kind == "flag":
        return f"FLAG {seat}{e.get('rule')} {e.get('card') or ''} {e.get('place') or ''}"
    if kind == "call":
        return f"call {seat}{'valid' if e.get('valid') else 'FALSE'}"
    if kind == "draw":
        return f"draw {seat}{' '.join(e.get('cards') or [])}"
    if kind == "round_end":
        return f"round end ({e.get('reason')}) scores {e.get('scores')}"
    return f"{kind} {seat}{e.get('card') or ''}".strip()


def draw_overlay(image: np.ndarray, n: int, t_ms: float | None, events: list[dict[str, Any]],
                 labels: dict[str, Any] | None = None) -> np.ndarray:
    """The frame with the overlay; small frames are enlarged (×2 or ×3) to read it."""
    h, w = image.shape[:2]
    k = 3 if w < 400 else 2 if w < 800 else 1
    out = cv2.resize(image, (w * k, h * k), interpolation=cv2.INTER_CUBIC) if k > 1 else \
        image.copy()
    font = cv2.FONT_HERSHEY_SIMPLEX
    if labels is not None:
        for hand in labels.get("hands", []):
            x1, y1, x2, y2 = (int(v * k) for v in hand["box"])
            cv2.rectangle(out, (x1, y1), (x2, y2), (0, 200, 255), 1)
        for card in labels.get("cards", []):
            x1, y1, x2, y2 = (int(v * k) for v in card["box"])
            back = card.get("code") == "back"
            colour = (150, 150, 150) if back else (60, 200, 60)
            cv2.rectangle(out, (x1, y1), (x2, y2), colour, 1)
            if not back and card.get("place"):
                cv2.putText(out, str(card["code"]), (x1 + 1, max(10, y1 - 2)), font, 0.35,
                            (0, 90, 0), 1, cv2.LINE_AA)

    def text(line: str, y: int, colour: tuple[int, int, int]) -> None:
        (tw, th), _base = cv2.getTextSize(line, font, 0.5, 1)
        x2, y1 = min(out.shape[1], tw + 10), max(0, y - th - 4)
        out[y1:y + 5, 0:x2] = (out[y1:y + 5, 0:x2] * 0.3).astype(out.dtype)
        cv2.putText(out, line, (6, y), font, 0.5, colour, 1, cv2.LINE_AA)

    when = f" - {t_ms / 1000:.2f} s" if t_ms is not None else ""
    text(f"frame {n}{when}", 18, (255, 255, 255))
    for i, e in enumerate(events[:8]):
        colour = (60, 60, 255) if e.get("type") == "flag" or e.get("valid") is False \
            else (255, 255, 200)
        text(_describe(e), 38 + 18 * i, colour)
    return out
