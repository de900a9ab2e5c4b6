"""Add localiser training tiles cut from the real photographs' declared *train* split
(``cluttered-rank-boxes/images/train``; the ``test`` split is never used here).

The photos have a box around each whole card and its rank, nothing else. Each photo is
scaled so its cards are about as long as on the renders the localiser knows (a random
40–64 px long side), and labelled:

- ``face``: every labelled card (the photos show no card backs, so every ``back`` the
  localiser finds on carpet, wood or newspaper is learnt as background);
- ``index``: the corner indices the current detector finds inside a labelled card whose read
  agrees with the card's rank (pseudo-labels: an index it cannot find stays unlabelled).

    python -m scripts.make_real_tiles --out datasets/cards2 --copies 2
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

import cv2
import numpy as np

from scripts.make_dataset import write_sample, write_yaml
from vision.detector import CardDetector

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "cluttered-rank-boxes"
RANKS = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
INDEX, FACE = 0, 1


def labelled_cards(folder: Path, split: str) -> dict[str, list[tuple[str, np.ndarray]]]:
    """file name → [(rank, box)] of one split."""
    out: dict[str, list[tuple[str, np.ndarray]]] = {}
    with open(folder / "images" / f"{split}_labels.csv") as f:
        for r in csv.DictReader(f):
            box = np.array([float(r[k]) for k in ("xmin", "ymin", "xmax", "ymax")], np.float32)
            out.setdefault(r["filename"], []).append((RANKS[r["class"]], box))
    return out


def index_labels(detector: CardDetector, image: np.ndarray,
                 cards: list[tuple[str, np.ndarray]], min_conf: float = 0.5
                 ) -> list[list[float]]:
    """Index boxes the localiser finds inside a labelled card and the reader reads as that
    card's rank."""
    raw = detector.raw(image, scale=1.0)
    idx = raw[raw.class_id == INDEX]
    idx = idx[idx.confidence >= 0.1]
    if not len(idx):
        return []
    codes, confs = detector.classifier.read_boxes(image, idx.xyxy)
    out = []
    for box, code, conf in zip(idx.xyxy, codes, confs, strict=True):
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for rank, card in cards:
            inside = card[0] <= cx <= card[2] and card[1] <= cy <= card[3]
            if inside and code[:-1] == rank and conf >= min_conf:
                out.append([float(v) for v in box])
                break
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("datasets/cards"))
    parser.add_argument("--real", type=Path, default=REAL)
    parser.add_argument("--copies", type=int, default=2, help="scales drawn per photo")
    parser.add_argument("--tile", type=int, default=320)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=0, help="only the first N photos")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    detector = CardDetector.load()
    photos = labelled_cards(args.real, "train")
    if args.limit:
        photos = dict(sorted(photos.items())[:args.limit])
    tiles = faces = indices = 0
    for name, cards in sorted(photos.items()):
        image = cv2.imread(str(args.real / "images" / "train" / name))
        if image is None:
            print(f"skipped unreadable {name}")
            continue
        longest = float(np.median([max(b[2] - b[0], b[3] - b[1]) for _r, b in cards]))
        for copy in range(args.copies):
            scale = rng.uniform(40.0, 64.0) / max(longest, 1.0)
            h, w = image.shape[:2]
            size = (max(1, round(w * scale)), max(1, round(h * scale)))
            small = cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1
                               else cv2.INTER_LINEAR)
            scaled = [(rank, box * scale) for rank, box in cards]
            boxes = [(FACE, [float(v) for v in box]) for _rank, box in scaled]
            found = index_labels(detector, small, scaled)
            boxes += [(INDEX, b) for b in found]
            faces += len(scaled)
            indices += len(found)
            tiles += write_sample(args.out, "train", f"real_{Path(name).stem}_{copy}", small,
                                  boxes, args.tile, 1.0, rng)
    write_yaml(args.out)
    print(f"{len(photos)} photos: {tiles} tiles, {faces} faces, {indices} index pseudo-labels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
