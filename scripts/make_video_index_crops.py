"""Index crops cut from rendered webcam videos, as the camera path sees them: simulated
rounds of the *training* decks rendered at 10 fps under random cameras (turned any way,
tilted, with lens distortion and light drift), coded by the video writer, then each visible
corner index cut out around a box jittered as the localiser's would be and turned upright
by the quarter turn the reader would use. Adds the crops
``scripts.make_index_crops`` cannot give: few-pixel indices turned up to 45°, smeared by
the codec's chroma subsampling, in fanned columns with their neighbours. ``none`` crops
come from the corners of face-down cards and from the table. Layout as
``scripts.make_index_crops`` (``OUT/{train,val}/<class>/*.png``); ``--val-rounds`` rounds of
the held-out decks go to ``val``.

    python -m scripts.make_video_index_crops --out datasets/index_video --rounds 24 \
        --val-rounds 2 --seed 51
"""

from __future__ import annotations

import argparse
import json
import math
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.crops import CROP_SIZE, crop_square

NONE = "none"
PRESETS = ("nertz", "single-draw", "pounce", "racing-demon", "klondike-draw")
SIZES = ((1280, 720), (1280, 720), (1280, 720), (1920, 1080), (960, 540))


def upright_turn(quad: list[list[float]], corner: str = "tl") -> int:
    """``np.rot90``'s ``k`` (counter-clockwise quarter turns) that brings the index of
    ``quad`` (its corners clockwise from the top left in the card's own frame) nearest
    upright; a bottom-right index (``corner`` ``br``) is printed upside down on its card."""
    (x0, y0), (x1, y1) = quad[0], quad[1]
    dx, dy = x1 - x0, y1 - y0
    best, best_k = -2.0, 0
    for k in range(4):
        cos = dx / max(math.hypot(dx, dy), 1e-6)
        if cos > best:
            best, best_k = cos, k
        dx, dy = dy, -dx  # a vector under one more counter-clockwise turn of the image
    return (best_k + (2 if corner == "br" else 0)) % 4


def jittered(box: list[float], rng: random.Random, amount: float = 0.12) -> tuple[float, ...]:
    """``box`` with each side moved by up to ``amount`` of its size."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    return (x1 + rng.uniform(-amount, amount) * w, y1 + rng.uniform(-amount, amount) * h,
            x2 + rng.uniform(-amount, amount) * w, y2 + rng.uniform(-amount, amount) * h)


def frame_crops(frame: np.ndarray, label: dict, rng: random.Random, min_visible: float = 0.6,
                none_share: float = 0.15) -> Iterator[tuple[str, np.ndarray]]:
    """(class, crop) of each index at least ``min_visible`` shown in one labelled frame, and
    about ``none_share`` as many ``none`` crops (face-down corners, the table)."""
    count = 0
    backs = []
    for card in label["cards"]:
        if not card["face_up"]:
            if card["visible"] >= 0.95:  # (not a card under a pile's top)
                backs.append(card)
            continue
        for index in card["indices"]:
            if index["visible"] < min_visible:
                continue
            box = jittered(index["box"], rng)
            crop = crop_square(frame, box, CROP_SIZE, context=rng.uniform(1.15, 1.6))
            turn = upright_turn(index["quad"], index["corner"])
            yield card["code"], np.ascontiguousarray(np.rot90(crop, turn))
            count += 1
    h, w = frame.shape[:2]
    for _ in range(round(count * none_share)):
        if backs and rng.random() < 0.6:  # a face-down card's corner: never an index
            card = rng.choice(backs)
            x1, y1, x2, y2 = card["box"]
            side = rng.uniform(0.15, 0.35) * min(x2 - x1, y2 - y1)
            cx, cy = rng.uniform(x1 + side, x2 - side), rng.uniform(y1 + side, y2 - side)
        else:
            side = rng.uniform(6, 30)
            cx, cy = rng.uniform(side, w - side), rng.uniform(side, h - side)
            if any(c["box"][0] - side < cx < c["box"][2] + side
                   and c["box"][1] - side < cy < c["box"][3] + side for c in label["cards"]):
                continue  # near a card: it may hold an index
        crop = crop_square(frame, (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2))
        yield NONE, np.ascontiguousarray(np.rot90(crop, rng.randrange(4)))


def random_camera(rng: random.Random, size: tuple[int, int]):  # noqa: ANN201
    """A webcam over the table turned any way: yaw anywhere in ±45° around a quarter turn,
    so that the seats' cards lie askew as at a real table."""
    from vision.render.camera import Camera

    return Camera(width=size[0], height=size[1], tilt_deg=rng.uniform(0, 25),
                  yaw_deg=rng.uniform(-45, 45) + rng.choice([0, 90, 180, 270]),
                  roll_deg=rng.uniform(-4, 4), hfov_deg=rng.uniform(58, 90),
                  k1=rng.choice([0.0, rng.uniform(-0.15, 0.05)]))


def render_round(i: int, split: str, seed: int, work: Path) -> tuple[Path, Path]:
    """Simulate and render round ``i``: the video and its labels."""
    from vision.render.video import VideoSettings, render_video

    rng = random.Random(f"video-index:{seed}:{split}:{i}")
    seats = [2, 3, 4, 5, 6, 8][i % 6]
    events = simulate_round(seats, HouseRules.preset(PRESETS[i % len(PRESETS)]),
                            seed=seed * 1000 + i, mistakes=0.05)
    log = work / f"{split}{i}.jsonl"
    write_log(events, log)
    size = SIZES[i % len(SIZES)]
    settings = VideoSettings(fps=10, size=size, seed=rng.randrange(10**6),
                             camera=random_camera(rng, size), split=split,
                             markers=rng.random() < 0.5)
    video = work / f"{split}{i}.mp4"
    render_video(log, video, settings)
    return video, video.with_suffix(".labels.jsonl")


def labelled_frames(video: Path, labels: Path, every: int = 1
                    ) -> Iterator[tuple[np.ndarray, dict]]:
    """(frame, its label) of every ``every``-th frame of a rendered video, read in step with
    its ``.labels.jsonl`` (the header line skipped), until either ends."""
    cap = cv2.VideoCapture(str(video))
    try:
        with labels.open() as fh:
            for line in fh:
                label = json.loads(line)
                if label.get("type") == "header":
                    continue
                ok, frame = cap.read()
                if not ok:
                    break
                if label["frame"] % every == 0:
                    yield frame, label
    finally:
        cap.release()


def harvest(video: Path, labels: Path, out: Path, prefix: str, every: int,
            rng: random.Random) -> int:
    """Write the crops of every ``every``-th frame of ``video`` under ``out``; the count."""
    count = 0
    for frame, label in labelled_frames(video, labels, every):
        for code, crop in frame_crops(frame, label, rng):
            folder = out / code
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{prefix}-{label['frame']}-{count}.png"), crop)
            count += 1
    return count


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("datasets/index_video"))
    parser.add_argument("--rounds", type=int, default=24, help="training-deck rounds")
    parser.add_argument("--val-rounds", type=int, default=2, help="held-out-deck rounds")
    parser.add_argument("--every", type=int, default=8, help="crop every N-th frame")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    jobs = [("train", i) for i in range(args.rounds)] + [("val", i) for i in range(args.val_rounds)]
    total = 0
    for split, i in jobs:
        with tempfile.TemporaryDirectory() as tmp:
            video, labels = render_round(i, "train" if split == "train" else "test", args.seed,
                                         Path(tmp))
            rng = random.Random(f"video-index-crops:{args.seed}:{split}:{i}")
            n = harvest(video, labels, args.out / split, f"{split}{i}", args.every, rng)
        total += n
        print(f"{split:5s} round {i:3d}: {n} crops", flush=True)
    print(f"{total} crops in {args.out}")


if __name__ == "__main__":
    main()
