"""Backs in a table camera's frames: which the localiser finds, which it reports where no
back lies (a hand over the table, a card in flight), and what the back check makes of each.

Held-out rounds are simulated and rendered (test-split decks, a random webcam and light per
round, 2-5 seats); every ``--every``-th frame goes through the detector as the replay runs
it (photos off: one look, no rival scales) with the back check off, on the whole frame. A
``back`` box is *on a back* when it overlaps a labelled face-down card (IoU >= 0.3), *on a
hand* when it is on no back and its centre lies in a hand's box, else *elsewhere*. A
labelled back at least half visible is *found* when a back box overlaps it (IoU >= 0.3).
Then each back check (``--check``: ONNX files; ``none``) is applied to the same boxes at
its threshold and the figures are given again::

    python -m scripts.eval_video_backs --models models /tmp/gpu51 \\
        --check models/back_check.onnx /tmp/new/back_check.onnx --cache /tmp/vb
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box of ``a`` (N×4) with every box of ``b`` (M×4): N×M."""
    if not len(a) or not len(b):
        return np.zeros((len(a), len(b)))
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area = lambda r: (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])  # noqa: E731
    return inter / np.maximum(area(a)[:, None] + area(b)[None, :] - inter, 1e-6)


def render_round(n: int, seed: int, size: tuple[int, int], fps: float, seconds: float,
                 work: Path) -> Path:
    """Round ``n``'s video (kept in ``work``; rendered once)."""
    from rules.log import write_log
    from rules.options import HouseRules
    from rules.simulator import simulate_round
    from vision.render.video import VideoSettings, render_video

    seats = 2 + n % 4
    video = work / f"backs_{seed}_{n}_{size[0]}x{size[1]}_{fps:g}_{seconds:g}.mp4"
    if not video.with_suffix(".labels.jsonl").exists():
        log = video.with_suffix(".jsonl")
        write_log(simulate_round(seats, HouseRules(), seed=seed * 1000 + n), log)
        render_video(log, video, VideoSettings(fps=fps, size=size, seed=seed * 1000 + n,
                                               split="test", max_seconds=seconds))
    return video


def frame_backs(video: Path, models: Path, every: int) -> list[dict[str, Any]]:
    """Per sampled frame: the back boxes (and their frame), the labelled backs and hands."""
    from vision.detector import BACK, CardDetector

    detector = CardDetector.load(models)
    detector.back_check = None
    detector.photos, detector.turned_pass = False, 0.0
    labels = [json.loads(x) for x in video.with_suffix(".labels.jsonl").read_text().splitlines()]
    cap = cv2.VideoCapture(str(video))
    out = []
    for n, lab in enumerate(labels[1:]):
        ok, image = cap.read()
        if not ok:
            break
        if n % every:
            continue
        dets = detector(image)
        backs = [c for c in lab["cards"] if not c["face_up"]]
        out.append({
            "image": image,
            "boxes": dets.xyxy[dets.class_id == BACK].astype(np.float32),
            "backs": np.array([c["box"] for c in backs], np.float32).reshape(-1, 4),
            "shown": np.array([c["visible"] >= 0.5 for c in backs], bool),
            "hands": np.array([h["box"] for h in lab.get("hands", [])],
                              np.float32).reshape(-1, 4)})
    return out


def tally(frames: list[dict[str, Any]], keep: list[np.ndarray]) -> dict[str, int]:
    """Backs shown and found, and back boxes on a back, on a hand and elsewhere."""
    t = {"shown": 0, "found": 0, "on back": 0, "on hand": 0, "elsewhere": 0}
    for f, k in zip(frames, keep, strict=True):
        boxes = f["boxes"][k]
        iou = _iou(boxes, f["backs"])
        t["shown"] += int(f["shown"].sum())
        t["found"] += int(((iou >= 0.3).any(axis=0) & f["shown"]).sum())
        on_back = (iou >= 0.3).any(axis=1)
        c = (boxes[:, :2] + boxes[:, 2:]) / 2
        h = f["hands"]
        on_hand = ((c[:, None, 0] > h[None, :, 0]) & (c[:, None, 0] < h[None, :, 2])
                   & (c[:, None, 1] > h[None, :, 1]) & (c[:, None, 1] < h[None, :, 3])
                   ).any(axis=1) & ~on_back
        t["on back"] += int(on_back.sum())
        t["on hand"] += int(on_hand.sum())
        t["elsewhere"] += int((~on_back & ~on_hand).sum())
    return t


def main(argv: list[str] | None = None) -> None:
    from vision.back_check import BackCheck

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, nargs="+", default=[Path("models")],
                    help="models folders whose localisers are compared")
    ap.add_argument("--check", nargs="+", default=["none", "models/back_check.onnx"],
                    help="back checks to apply (ONNX files; none: no check)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--every", type=int, default=4, help="look at every Nth frame")
    ap.add_argument("--cache", type=Path, default=Path("runs/video_backs"))
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    args.cache.mkdir(parents=True, exist_ok=True)
    videos = [render_round(n, args.seed, size, args.fps, args.seconds, args.cache)  # type: ignore[arg-type]
              for n in range(args.rounds)]
    checks = {c: None if c == "none" else BackCheck(c) for c in args.check}
    print("localiser | check | backs shown, found | back boxes on a back, on a hand, "
          "elsewhere | frames")
    for models in args.models:
        frames = [f for v in videos for f in frame_backs(v, models, args.every)]
        for name, check in checks.items():
            keep = [np.ones(len(f["boxes"]), bool) if check is None or not len(f["boxes"])
                    else check(f["image"], f["boxes"]) >= check.THRESHOLD for f in frames]
            t = tally(frames, keep)
            print(f"{models} | {name} | {t['shown']}, {t['found']} "
                  f"({t['found'] / max(1, t['shown']):.3f}) | {t['on back']}, {t['on hand']}, "
                  f"{t['elsewhere']} | {len(frames)}", flush=True)


if __name__ == "__main__":
    main()
