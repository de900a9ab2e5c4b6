"""How well the detector reads the index strips of fanned river columns and wastes, seat by
seat, on sampled frames of rendered videos: each face-up river or waste card whose index
shows whole counts as read right when a report covering its index centre carries its code,
wrong when reports cover it with other codes only, and missed when none covers it. Seats
askew to the camera show their indices turned and small, which is where the index reader
fails (``scripts.diag_reads --by-seat`` gives the same view through the tracker's kept
observations).

    python -m scripts.diag_strips cache/real28/r1 cache/real28/r13 --every 40
    python -m scripts.diag_strips cache/real28/r1 --models DIR     # another set of models
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from scripts.make_video_index_crops import labelled_frames
from vision.detector import CardDetector


def round_files(folder: Path) -> tuple[Path, Path]:
    """The video and its labels in a round folder (as ``scripts.eval_replay`` caches them)."""
    videos = sorted(folder.glob("*.mp4"))
    if not videos:
        raise SystemExit(f"no video in {folder}")
    labels = videos[0].with_suffix(".labels.jsonl")
    if not labels.is_file():
        raise SystemExit(f"no labels beside {videos[0]}")
    return videos[0], labels


def tally_frame(detections, label: dict, tally: Counter, min_visible: float = 0.9) -> None:  # noqa: ANN001
    """Add one frame's river and waste strips to ``tally``, keyed (seat, kind, outcome)
    with outcome ``n`` (strips), ``right`` or ``wrong``."""
    boxes = detections.xyxy
    for card in label["cards"]:
        place = card.get("place") or ""
        if not card["face_up"] or not (":river" in place or ":waste" in place):
            continue
        shown = [i for i in card["indices"] if i["visible"] >= min_visible]
        if not shown:
            continue
        codes = set()
        for index in shown:
            x1, y1, x2, y2 = index["box"]
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            inside = ((boxes[:, 0] - 3 <= cx) & (cx <= boxes[:, 2] + 3)
                      & (boxes[:, 1] - 3 <= cy) & (cy <= boxes[:, 3] + 3))
            codes.update(str(c) for c in detections.code[np.nonzero(inside)[0]])
        key = (place.split(":")[0], "river" if ":river" in place else "waste")
        tally[key + ("n",)] += 1
        if card["code"] in codes:
            tally[key + ("right",)] += 1
        elif codes:
            tally[key + ("wrong",)] += 1


def strips(folder: Path, detector: CardDetector, every: int) -> Counter:
    """The tally of every ``every``-th frame of one round folder (frame 0, the deal, left
    out)."""
    tally: Counter = Counter()
    for frame, label in labelled_frames(*round_files(folder), every):
        if label["frame"]:
            tally_frame(detector(frame), label, tally)
    return tally


def summary(tally: Counter) -> list[str]:
    """One line per seat and kind: right / strips, and how many were read wrong."""
    out = []
    for seat in sorted({k[0] for k in tally}, key=lambda s: int(s[4:])):
        for kind in ("river", "waste"):
            n = tally[(seat, kind, "n")]
            if n:
                out.append(f"{seat}.{kind} {tally[(seat, kind, 'right')]}/{n} "
                           f"(wrong {tally[(seat, kind, 'wrong')]})")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", type=Path, nargs="+", help="round folders (video + labels)")
    parser.add_argument("--every", type=int, default=40, help="read every N-th frame")
    parser.add_argument("--models", type=Path, default=None, help="default: models/")
    args = parser.parse_args(argv)
    detector = CardDetector.load(args.models)
    detector.scale = 1.0  # a table camera's frame: no scale search
    total: Counter = Counter()
    for folder in args.rounds:
        tally = strips(folder, detector, args.every)
        print(f"{folder}: " + " | ".join(summary(tally)), flush=True)
        total.update(tally)
    n = sum(v for k, v in total.items() if k[2] == "n")
    right = sum(v for k, v in total.items() if k[2] == "right")
    wrong = sum(v for k, v in total.items() if k[2] == "wrong")
    print(f"all: {right} of {n} strips read right ({right / max(n, 1):.3f}), "
          f"{wrong} wrong, {n - right - wrong} not reported")


if __name__ == "__main__":
    main()
