"""Evaluate the index classifier (ONNX, via vision.identify): top-1 card, rank and suit
accuracy on index crops of the held-out rendered decks, and on the real photographs of
``../shared/data/real/feeder-corners`` read through fixed crop windows (no localiser yet:
a floor for the whole detector, not its accuracy). Writes a grid of failures.

    python -m scripts.eval_classifier --crops datasets/index_crops/val \\
        --real ../shared/data/real/feeder-corners --failures failures.png
"""

from __future__ import annotations

import argparse
import csv
import random
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision.crops import crop_square
from vision.identify import IndexClassifier

#: Windows around where the index sits in the 224×224 feeder shots (x1, y1, x2, y2).
FEEDER_WINDOWS = {"index": (115, 80, 155, 210), "index+margin": (105, 70, 165, 215)}


def scores(pred: list[str], truth: list[str]) -> dict[str, float]:
    n = max(1, len(truth))
    return {"card": sum(p == t for p, t in zip(pred, truth, strict=True)) / n,
            "rank": sum(p[:-1] == t[:-1] for p, t in zip(pred, truth, strict=True)) / n,
            "suit": sum(p[-1:] == t[-1:] for p, t in zip(pred, truth, strict=True)) / n,
            "n": len(truth)}


def failure_grid(items: list[tuple[np.ndarray, str, str]], path: Path, cols: int = 12) -> None:
    tiles = []
    for img, truth, pred in items[:cols * 6]:
        tile = cv2.resize(img, (96, 96), interpolation=cv2.INTER_NEAREST)
        cv2.putText(tile, f"{truth}>{pred}", (2, 92), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (0, 0, 255), 1, cv2.LINE_AA)
        tiles.append(tile)
    if not tiles:
        return
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % cols)
    rows = [np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
    cv2.imwrite(str(path), np.vstack(rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--crops", type=Path, default=None,
                        help="a folder of <code>/*.png crops of held-out decks")
    parser.add_argument("--real", type=Path, default=None, help="the feeder-corners folder")
    parser.add_argument("--limit", type=int, default=3000)
    parser.add_argument("--failures", type=Path, default=None)
    args = parser.parse_args(argv)
    model = IndexClassifier.load(args.model)
    failures: list[tuple[np.ndarray, str, str]] = []
    if args.crops:
        files = sorted(p for p in args.crops.glob("*/*.png") if p.parent.name != "none")
        random.Random(0).shuffle(files)
        files = files[:args.limit]
        truth = [p.parent.name for p in files]
        imgs = [cv2.imread(str(p)) for p in files]
        pred = []
        for i in range(0, len(imgs), 256):
            pred += model(imgs[i:i + 256])[0]
        s = scores(pred, truth)
        print(f"held-out rendered crops: card {s['card']:.3f}, rank {s['rank']:.3f}, "
              f"suit {s['suit']:.3f} (n={s['n']})")
        confusions = Counter((t, p) for t, p in zip(truth, pred, strict=True) if t != p)
        print("  most confused:", ", ".join(f"{t}>{p} {n}" for (t, p), n in
                                            confusions.most_common(8)))
    if args.real:
        rows = [r for r in csv.DictReader(open(args.real / "labels.csv"))
                if r["card"] != "NONE"]
        images = [cv2.imread(str(args.real / r["file"])) for r in rows]
        truth = [r["card"] for r in rows]
        for name, box in FEEDER_WINDOWS.items():
            pred, _conf = model([crop_square(img, box) for img in images])
            s = scores(pred, truth)
            print(f"feeder-corners, fixed window {name} {box}: card {s['card']:.3f}, "
                  f"rank {s['rank']:.3f}, suit {s['suit']:.3f} (n={s['n']})")
            if name == "index":
                failures += [(crop_square(img, box), t, p)
                             for img, t, p in zip(images, truth, pred, strict=True) if t != p]
    if args.failures:
        failure_grid(failures, args.failures)
        print(f"failures: {args.failures}")


if __name__ == "__main__":
    main()
