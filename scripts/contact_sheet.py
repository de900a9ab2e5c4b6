"""A contact sheet of random still scenes (2–8 seats, decks, backs, tables, cameras).

    python -m scripts.contact_sheet --out contact.png [--n 16] [--seed 0] [--split train]
        [--size 960x540] [--labels]

``--labels`` draws each visible card's outline (green) and corner-index boxes (red) from
the labels, to check them by eye. Needs the card artwork (scripts/setup_assets.sh).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import cv2
import numpy as np

from vision.render.scene import random_table, render_still


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
    for i in range(args.n):
        seed = args.seed * 1000 + i
        seats = 2 + (i % 7)
        scene = render_still(random_table(seats, seed), seed, size=(w, h), split=args.split)
        img = draw_labels(scene.image, scene.cards) if args.labels else scene.image
        cv2.putText(img, f"{seats} seats, seed {seed}, {scene.table.shape}, {scene.texture}",
                    (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2, cv2.LINE_AA)
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
