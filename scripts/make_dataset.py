"""Export detector datasets in YOLO format (and index crops for the classifier) from rendered
still scenes and from frames of rendered videos.

Classes: 0 ``index`` (a corner index at least 60 % visible), 1 ``face`` (a face-up card at
least half visible: its whole outline's box), 2 ``back`` (a face-down card at least half
visible). Splits: ``train`` draws faces and backs from the training decks, ``val`` and
``test`` from the held-out decks, each split with its own seeds, so no deck design and no
scene is shared between training and evaluation.

Images are cut into square tiles (``--tile``, at the camera's own resolution, so small
indices stay small) or kept whole (``--tile 0``); a box is kept in a tile when most of it
lies inside.

    python -m scripts.make_dataset --out datasets/cards --stills 600 --tile 320
    python -m scripts.make_dataset --out datasets/cards --videos round.jsonl --every 20
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.cards import ALL_CODES
from vision.crops import crop_square
from vision.detections import tiles as detection_tiles
from vision.render import decks
from vision.render.camera import Lighting, Photometry

CLASSES = ("index", "face", "back")
TILE_OVERLAP = 64  # pixels shared by neighbouring tiles (as at run time)
__all__ = ["ALL_CODES", "CLASSES", "main", "split_of", "tiles", "video_frames", "yolo_boxes"]
SPLITS = {"train": 0.8, "val": 0.1, "test": 0.1}


def split_of(i: int, n: int) -> str:
    """Deterministic split of scene ``i`` of ``n``: the first 80 % train, then val, test."""
    if i < int(n * SPLITS["train"]):
        return "train"
    if i < int(n * (SPLITS["train"] + SPLITS["val"])):
        return "val"
    return "test"


def yolo_boxes(cards: list[dict[str, Any]], min_visible: float = 0.5
               ) -> list[tuple[int, list[float]]]:
    """(class, [x1, y1, x2, y2]) for every labelled object of a frame."""
    out: list[tuple[int, list[float]]] = []
    for c in cards:
        if c.get("place") is None and c.get("face_up") and not c.get("indices"):
            continue  # a card in a hand, index hidden
        for ix in c.get("indices", []):
            out.append((0, list(ix["box"])))
        if c["visible"] >= min_visible:
            out.append((1 if c["face_up"] else 2, list(c["box"])))
    return out


def tiles(width: int, height: int, tile: int) -> list[tuple[int, int, int, int]]:
    """The tiles a frame is cut into: those the detector sees at run time, or the whole
    frame for ``tile`` 0."""
    if tile <= 0 or (tile >= width and tile >= height):
        return [(0, 0, width, height)]
    return list(detection_tiles(width, height, tile, overlap=TILE_OVERLAP))


def write_sample(out: Path, split: str, name: str, image: np.ndarray,
                 boxes: list[tuple[int, list[float]]], tile: int,
                 keep_empty: float, rng: random.Random) -> int:
    """Write an image's tiles and YOLO label files; returns the number of tiles written."""
    h, w = image.shape[:2]
    written = 0
    for tx0, ty0, tx1, ty1 in tiles(w, h, tile):
        tw, th = tx1 - tx0, ty1 - ty0
        lines = []
        for cls, (x1, y1, x2, y2) in boxes:
            cx1, cy1 = max(x1, tx0), max(y1, ty0)
            cx2, cy2 = min(x2, tx1), min(y2, ty1)
            if cx2 <= cx1 or cy2 <= cy1:
                continue
            area = (x2 - x1) * (y2 - y1)
            if area <= 0 or (cx2 - cx1) * (cy2 - cy1) < 0.6 * area:
                continue
            lines.append(f"{cls} {((cx1 + cx2) / 2 - tx0) / tw:.6f} "
                         f"{((cy1 + cy2) / 2 - ty0) / th:.6f} {(cx2 - cx1) / tw:.6f} "
                         f"{(cy2 - cy1) / th:.6f}")
        if not lines and rng.random() > keep_empty:
            continue
        stem = f"{name}_{tx0}_{ty0}"
        img_dir, lab_dir = out / "images" / split, out / "labels" / split
        img_dir.mkdir(parents=True, exist_ok=True)
        lab_dir.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(img_dir / f"{stem}.jpg"), image[ty0:ty1, tx0:tx1],
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        (lab_dir / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
        written += 1
    return written


def write_crops(out: Path, split: str, name: str, image: np.ndarray,
                cards: list[dict[str, Any]]) -> int:
    n = 0
    for i, c in enumerate(cards):
        for ix in c.get("indices", []):
            folder = out / "crops" / split / c["card"]
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{name}_{i}_{ix['corner']}.png"),
                        crop_square(image, ix["box"]))
            n += 1
    return n


def _still_job(args: tuple[int, int, int, str, tuple[int, int], int, bool, float,
                           tuple[str, ...] | None]) -> int:
    from vision.render.scene import random_table, render_still

    i, n, seed, out, size, tile, crops, keep_empty, deck_pool = args
    split = split_of(i, n)
    s = seed * 1_000_003 + i
    rng = random.Random(s)
    seats = rng.randint(2, 8)
    decks_ = [deck_pool[k % len(deck_pool)] for k in range(seats)] if deck_pool else None
    scene = render_still(random_table(seats, s), s, size=size, decks=decks_,
                         backs=[f"solid:{rng.randrange(1 << 24):06x}" for _ in range(seats)]
                         if deck_pool else None,
                         split="train" if split == "train" else "test")
    light = Lighting.random(rng, video=False)
    image = Photometry(light, size, s).apply(scene.image, rng.uniform(0, 10))
    name = f"still{s}"
    count = write_sample(Path(out), split, name, image, yolo_boxes(scene.cards), tile,
                         keep_empty, rng)
    if crops:
        write_crops(Path(out), split, name, image, scene.cards)
    return count


def video_frames(log: Path, out: Path, every: int, seed: int, size: tuple[int, int],
                 tile: int, crops: bool, split: str, keep_empty: float,
                 max_seconds: float | None = None, decks: tuple[str, ...] | None = None
                 ) -> int:
    """Samples from every ``every``-th frame of a rendered round."""
    from vision.render.video import RoundRenderer, VideoSettings

    settings = VideoSettings(size=size, seed=seed, split="train" if split == "train" else "test",
                             labels_every=every, max_seconds=max_seconds, decks=decks)
    renderer = RoundRenderer(log, settings)
    rng = random.Random(seed)
    count = 0
    for frame, t, image, labels in renderer.frames():
        if labels is None or frame % every:
            continue
        name = f"{log.stem}_s{seed}_f{frame}"
        count += write_sample(out, split, name, image, yolo_boxes(labels["cards"]), tile,
                              keep_empty, rng)
        if crops:
            write_crops(out, split, name, image, labels["cards"])
        del t
    return count


def write_yaml(out: Path) -> Path:
    path = out / "data.yaml"
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val",
             "test: images/test", "names:"]
    lines += [f"  {i}: {name}" for i, name in enumerate(CLASSES)]
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("datasets/cards"))
    parser.add_argument("--stills", type=int, default=0, help="number of still scenes")
    parser.add_argument("--videos", type=Path, nargs="*", default=[],
                        help="event logs to render; frames go to --video-split")
    parser.add_argument("--video-split", default="train", choices=tuple(SPLITS))
    parser.add_argument("--every", type=int, default=15, help="every Nth video frame")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--tile", type=int, default=320, help="tile side (0: whole images)")
    parser.add_argument("--keep-empty", type=float, default=0.1,
                        help="share of tiles without objects that are kept")
    parser.add_argument("--crops", action="store_true", help="also write index crops")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--decks", default=None,
                        help="comma-separated decks to use instead of the split's pool "
                             "(quick checks)")
    args = parser.parse_args(argv)
    if not decks.artwork_available():
        print("make_dataset: card artwork is not installed: run scripts/setup_assets.sh",
              file=sys.stderr)
        return 2
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"make_dataset: --size must be WIDTHxHEIGHT, not {args.size!r}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    pool = tuple(d.strip() for d in args.decks.split(",")) if args.decks else None
    jobs = [(i, args.stills, args.seed, str(args.out), (w, h), args.tile, args.crops,
             args.keep_empty, pool) for i in range(args.stills)]
    if jobs:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for k, n in enumerate(pool.map(_still_job, jobs, chunksize=4), start=1):
                total += n
                if k % 50 == 0 or k == len(jobs):
                    print(f"stills {k}/{len(jobs)}: {total} images", flush=True)
    for log in args.videos:
        total += video_frames(log, args.out, args.every, args.seed, (w, h), args.tile,
                              args.crops, args.video_split, args.keep_empty, decks=pool)
        print(f"video {log}: {total} images", flush=True)
    meta = {"classes": list(CLASSES), "stills": args.stills, "videos": [str(v) for v in
                                                                        args.videos],
            "tile": args.tile, "size": [w, h], "seed": args.seed, "images": total}
    (args.out / "dataset.json").write_text(json.dumps(meta, indent=1))
    print(f"{total} images; {write_yaml(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
