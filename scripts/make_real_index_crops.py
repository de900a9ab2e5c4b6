"""Cut index-reader training crops from real photographs, on declared *train* splits only.

- ``feeder-corners``: one real deck photographed in a card-dealing machine. Its declared
  split (:func:`feeder_split`) puts every other shot of each card, in file-name order, in
  ``test``; those are never written here, and ``scripts.eval_detector`` reports the reader
  on them (and on all shots, for comparison with readers trained before the split). Each
  ``train`` shot gives ``--variants`` crops around its located index (the box jittered as
  the localiser's boxes are), cut as ``vision.crops.crop_square`` cuts at run time; the
  empty-feeder shots (``NONE``) give ``none`` crops.
- ``cluttered-rank-boxes`` (``--cluttered``, its ``train`` folder only): the photos label a
  box around each whole card and its rank, no suit. Index boxes the localiser finds inside
  a labelled card near one of its corners become crops of that rank with an unknown suit
  (folder ``<rank>x``; the suit head is not trained on them), whatever the reader reads.

    python -m scripts.make_real_index_crops --out datasets/index_real --variants 4
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

import cv2
import numpy as np

from vision.crops import crop_square

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
UNKNOWN_SUIT = "x"


def feeder_rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "labels.csv") as f:
        return list(csv.DictReader(f))


def feeder_split(rows: list[dict[str, str]]) -> dict[str, str]:
    """file → ``train`` or ``test``: each card's shots in file-name order, alternately
    train, test, train, … (so each card is in both, about half and half)."""
    by_card: dict[str, list[str]] = {}
    for r in rows:
        by_card.setdefault(r["card"], []).append(r["file"])
    split: dict[str, str] = {}
    for files in by_card.values():
        for k, file in enumerate(sorted(files)):
            split[file] = "train" if k % 2 == 0 else "test"
    return split


def jittered(box: tuple[float, float, float, float], rng: random.Random, amount: float
             ) -> tuple[float, float, float, float]:
    """``box`` with each side moved by up to ``amount`` of its width or height."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    return (x1 + rng.uniform(-amount, amount) * w, y1 + rng.uniform(-amount, amount) * h,
            x2 + rng.uniform(-amount, amount) * w, y2 + rng.uniform(-amount, amount) * h)


def feeder_crops(folder: Path, out: Path, variants: int, seed: int) -> int:
    """Write the train split's crops to ``out/<code or none>/``; returns how many."""
    from scripts.eval_detector import FEEDER_WINDOW, locate_index

    rows = feeder_rows(folder)
    split = feeder_split(rows)
    rng = random.Random(seed)
    written = 0
    for r in rows:
        if split[r["file"]] != "train":
            continue
        image = cv2.imread(str(folder / r["file"]))
        if image is None:
            continue
        code = "none" if r["card"] == "NONE" else r["card"]
        box = locate_index(image) if code != "none" else None
        box = box or FEEDER_WINDOW
        target = out / code
        target.mkdir(parents=True, exist_ok=True)
        stem = Path(r["file"]).stem
        for k in range(variants):
            b = box if k == 0 else jittered(box, rng, 0.12)
            cv2.imwrite(str(target / f"feeder-{stem}-{k}.png"), crop_square(image, b))
            written += 1
    return written


def near_a_corner(box: np.ndarray, card: np.ndarray, reach: float = 0.35) -> bool:
    """Whether ``box``'s centre lies inside ``card`` within ``reach`` of its width and of
    its height from one of its corners (where the indices of an upright or a turned card
    sit in the card's axis-aligned box)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    x1, y1, x2, y2 = card
    if not (x1 <= cx <= x2 and y1 <= cy <= y2):
        return False
    w, h = x2 - x1, y2 - y1
    near_x = min(cx - x1, x2 - cx) <= reach * w
    near_y = min(cy - y1, y2 - cy) <= reach * h
    return near_x and near_y


def cluttered_crops(folder: Path, out: Path, min_conf: float = 0.3, max_none: float = 0.3,
                    min_rank: float = 0.25) -> int:
    """Write rank-only crops (suit unknown) of the localiser's index boxes near a corner
    of a labelled card in the ``train`` split, each turned by the quarter turn that reads
    most like the labelled rank; returns how many. Boxes the current reader calls ``none``
    (above ``max_none``) or gives the rank almost no chance (below ``min_rank``) are left
    out: on these photos they are mostly court pictures and pips, not indices."""
    from scripts.make_real_tiles import INDEX, labelled_cards
    from vision.detector import CardDetector

    detector = CardDetector.load()
    written = 0
    for name, cards in sorted(labelled_cards(folder, "train").items()):
        image = cv2.imread(str(folder / "images" / "train" / name))
        if image is None:
            continue
        raw = detector.raw(image, scale=1.0)
        idx = raw[(raw.class_id == INDEX) & (raw.confidence >= min_conf)]
        for j, box in enumerate(idx.xyxy):
            owners = [rank for rank, card in cards if near_a_corner(box, card)]
            if len(owners) != 1:  # on no labelled card, or where two overlap
                continue
            crop = crop_square(image, box)
            turn, p_rank, p_none = best_turn(detector.classifier, crop, owners[0])
            if p_none > max_none or p_rank < min_rank:
                continue  # a court picture or a pip rather than the index
            target = out / f"{owners[0]}{UNKNOWN_SUIT}"
            target.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(target / f"cluttered-{Path(name).stem}-{j}.png"),
                        np.ascontiguousarray(np.rot90(crop, turn)))
            written += 1
    return written


def best_turn(classifier, crop: np.ndarray, rank: str) -> tuple[int, float, float]:  # noqa: ANN001
    """The quarter turn (0–3) at which the reader gives ``rank`` the most probability (the
    label decides which way is up: a 9 upside down reads as a 6), that probability and the
    probability of ``none`` there."""
    crops = [np.ascontiguousarray(np.rot90(crop, k)) for k in range(4)]
    probs = classifier.probabilities(crops)
    cols = [i for i, name in enumerate(classifier.names) if name[:-1] == rank]
    p_rank = probs[:, cols].sum(axis=1)
    turn = int(np.argmax(p_rank))
    return turn, float(p_rank[turn]), float(probs[turn, classifier.names.index("none")])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=REAL)
    parser.add_argument("--out", type=Path, default=Path("datasets/index_real"))
    parser.add_argument("--variants", type=int, default=4,
                        help="crops per feeder train shot (the first unjittered)")
    parser.add_argument("--cluttered", action="store_true",
                        help="add rank-only crops from cluttered-rank-boxes/images/train")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    train = args.out / "train"
    n = feeder_crops(args.real / "feeder-corners", train, args.variants, args.seed)
    print(f"feeder-corners train split: {n} crops")
    if args.cluttered:
        n = cluttered_crops(args.real / "cluttered-rank-boxes", train)
        print(f"cluttered-rank-boxes train split: {n} rank-only crops")


if __name__ == "__main__":
    main()
