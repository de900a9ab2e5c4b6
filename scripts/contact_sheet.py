"""A contact sheet of random frames: still scenes and frames of rendered videos (arms and
hands moving), across 2–8 seats, decks, backs, tables, cameras (tilt, turn, lens
distortion) and light (exposure, gradients, colour casts, noise).

    python -m scripts.contact_sheet --out contact.png [--n 16] [--seed 0] [--split train]
        [--size 960x540] [--labels]

``--labels`` draws each visible card's outline (green) and corner-index boxes (red) from
the labels, to check them by eye. Needs the card artwork (scripts/setup_assets.sh).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.render.camera import Lighting, Photometry
from vision.render.scene import random_table, render_still
from vision.render.video import RoundRenderer, VideoSettings


def draw_labels(image: np.ndarray, cards: list[dict]) -> np.ndarray:
    out = image.copy()
    for c in cards:
        pts = np.round(np.array(c["corners"]) * 4).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 255, 0), 1, cv2.LINE_AA, shift=2)
        for ix in c["indices"]:
            x1, y1, x2, y2 = (int(round(v)) for v in ix["box"])
            cv2.rectangle(out, (x1, y1), (x2, y2), (0, 0, 255), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", default="train", choices=("train", "test"))
    ap.add_argument("--size", default="960x540")
    ap.add_argument("--labels", action="store_true")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"contact_sheet: --size must be WxH, not {args.size!r}", file=sys.stderr)
        return 2
    tiles = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.n):
            seed = args.seed * 1000 + i
            seats = 2 + (i % 7)
            rng = random.Random(seed)
            if i % 2:  # a frame of a rendered video, somewhere in the round
                log = Path(tmp) / f"{seed}.jsonl"
                write_log(simulate_round(seats, HouseRules(), seed=seed), log)
                start = rng.uniform(5, 40)
                renderer = RoundRenderer(log, VideoSettings(
                    size=(w, h), seed=seed, split=args.split, start_s=start,
                    max_seconds=1.0))
                frame, _t, img, labels = next(iter(renderer.frames()))
                cards, kind = labels["cards"], f"video {start:.0f} s"
                if args.labels:
                    img = draw_labels(img, cards)
                    for hand in labels["hands"]:
                        x1, y1, x2, y2 = (int(v) for v in hand["box"])
                        cv2.rectangle(img, (x1, y1), (x2, y2), (255, 0, 255), 1)
                shape = renderer.layout.geo.shape
            else:
                scene = render_still(random_table(seats, seed), seed, size=(w, h),
                                     split=args.split)
                light = Photometry(Lighting.random(rng, video=False), (w, h), seed)
                img = light.apply(draw_labels(scene.image, scene.cards) if args.labels
                                  else scene.image, 0.0)
                kind, shape = "still", scene.table.shape
            cv2.putText(img, f"{kind}, {seats} seats, seed {seed}, {shape}", (8, 22),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2, cv2.LINE_AA)
            tiles.append(img)
    elapsed = time.perf_counter() - t0
    cols = math.ceil(math.sqrt(len(tiles)))
    rows = math.ceil(len(tiles) / cols)
    blank = np.zeros_like(tiles[0])
    tiles += [blank] * (rows * cols - len(tiles))
    sheet = np.vstack([np.hstack(tiles[r * cols:(r + 1) * cols]) for r in range(rows)])
    cv2.imwrite(args.out, sheet)
    print(f"contact_sheet: {args.n} scenes at {w}x{h} in {elapsed:.1f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
