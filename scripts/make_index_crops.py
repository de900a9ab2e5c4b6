"""Make the index-classifier dataset: square crops of card corner indices rendered from the
SVG decks, in Ultralytics' classification layout (``OUT/{train,val}/<class>/*.png``).

Classes: the 52 card codes and ``none`` (crops that hold no index: card pictures, backs,
table, card edges). ``train`` uses the training decks, ``val`` the held-out test decks, so
the validation accuracy is the accuracy on deck designs never trained on.

Every crop: the card at a random size (index 14–90 px tall, i.e. a rank glyph of about
7–40 px), any rotation, a little perspective, on a random table texture, often half covered
by the next card of a fanned column or by a hand; the box is jittered as a detector's box
would be; then blur, noise, JPEG and colour casts.

    python -m scripts.make_index_crops --out datasets/index_crops --per-card 24 --seed 0

``--generic-per-card N`` adds N crops per code to ``train`` from generic cards
(:mod:`scripts.generic_cards`: the index drawn in many fonts, squeezed, bold or thin), through
the same scene and degradation steps, as ``train/<code>/generic-<code>-<k>.png``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.cards import ALL_CODES
from scripts.generic_cards import generic_card
from vision.crops import CROP_SIZE, crop_square
from vision.render import decks

NONE = "none"


def table_texture(rng: random.Random, h: int, w: int) -> np.ndarray:
    """A plain, wooden, felt or cloth-like table top."""
    base = np.array([rng.randint(20, 230) for _ in range(3)], np.float32)
    kind = rng.random()
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind < 0.35:  # wood grain
        ys = np.arange(h, dtype=np.float32)[:, None]
        xs = np.arange(w, dtype=np.float32)[None, :]
        freq, phase = rng.uniform(0.05, 0.3), rng.uniform(0, 6)
        grain = np.sin(ys * freq + 3 * np.sin(xs * 0.01 + phase)) * rng.uniform(8, 30)
        img += grain[..., None]
    elif kind < 0.55:  # checked cloth
        step = rng.randint(6, 30)
        ys, xs = np.mgrid[0:h, 0:w]
        chk = ((ys // step + xs // step) % 2).astype(np.float32) * rng.uniform(10, 60)
        img += chk[..., None] * np.array([rng.random() for _ in range(3)], np.float32)
    nrs = np.random.default_rng(rng.randrange(2**32))
    img += nrs.normal(0, rng.uniform(2, 12), (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def paste(canvas: np.ndarray, card: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Warp a BGRA card with the 3×3 matrix ``m`` onto the canvas; returns the alpha mask."""
    h, w = canvas.shape[:2]
    warped = cv2.warpPerspective(card, m, (w, h), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255
    canvas[:] = (canvas * (1 - a) + warped[..., :3] * a).astype(np.uint8)
    return a[..., 0]


def card_matrix(rng: random.Random, card_hw: tuple[int, int], scale: float, angle: float,
                centre: tuple[float, float], persp: float) -> np.ndarray:
    h, w = card_hw
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    c, s = math.cos(angle), math.sin(angle)
    pts = []
    for x, y in src:
        x, y = (x - w / 2) * scale, (y - h / 2) * scale
        x *= 1 + rng.uniform(-persp, persp)
        y *= 1 + rng.uniform(-persp, persp)
        pts.append([centre[0] + c * x - s * y, centre[1] + s * x + c * y])
    return cv2.getPerspectiveTransform(src, np.float32(pts))


def project(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ m.T
    return p[:, :2] / p[:, 2:3]


def hand(canvas: np.ndarray, rng: random.Random) -> None:
    """A skin-toned blob with a soft shadow (a finger or the edge of a hand)."""
    h, w = canvas.shape[:2]
    tone = rng.choice([(60, 90, 140), (90, 130, 190), (120, 160, 215), (40, 60, 95),
                       (150, 180, 225)])
    centre = (rng.randint(0, w), rng.randint(0, h))
    axes = (rng.randint(w // 10, w // 3), rng.randint(h // 12, h // 4))
    angle = rng.uniform(0, 180)
    shadow = canvas.copy()
    cv2.ellipse(shadow, (centre[0] + 6, centre[1] + 8), axes, angle, 0, 360, (0, 0, 0), -1)
    cv2.addWeighted(shadow, 0.3, canvas, 0.7, 0, canvas)
    cv2.ellipse(canvas, centre, axes, angle, 0, 360, tone, -1)


def degrade(img: np.ndarray, rng: random.Random) -> np.ndarray:
    out = img.astype(np.float32)
    out *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)  # cast
    out = out * rng.uniform(0.55, 1.3) + rng.uniform(-25, 25)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        k = rng.choice([3, 5])
        out = cv2.GaussianBlur(out, (k, k), rng.uniform(0.3, 1.5))
    if rng.random() < 0.3:  # motion blur
        k = rng.randint(3, 7)
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        out = cv2.filter2D(out, -1, cv2.warpAffine(kern, rot, (k, k)))
    noise = np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(0, 8), out.shape)
    out = np.clip(out + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 95)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def index_scene(card: np.ndarray, bx: Sequence[float], rng: random.Random,
                cover: Callable[[], np.ndarray], from_bottom: bool = False,
                window: tuple[float, int] = (3.5, 24), max_angle: float = 180.0
                ) -> tuple[np.ndarray, tuple[float, float, float, float], np.ndarray]:
    """A card on a table texture at a random size (index 14–90 px tall) and angle, often
    half covered by the next card of a fanned column (``cover()`` gives it; it comes from
    the other end for a bottom-right index) or by a hand. Returns the canvas (a window of
    ``window[0]`` × the index height + ``window[1]`` px around the index), the index box
    jittered as a detector's box would be, and the exact box. ``max_angle`` (degrees) below
    180 keeps the index upright within that angle (a bottom-right index is turned too)."""
    ch, cw = card.shape[:2]
    target = rng.uniform(14, 90)
    scale = target / ((bx[3] - bx[1]) * ch)
    size = int(window[0] * target) + window[1]
    canvas = table_texture(rng, size, size)
    if max_angle >= 180:
        angle = rng.uniform(-math.pi, math.pi)
    else:
        angle = math.radians(rng.uniform(-max_angle, max_angle)) + (math.pi if from_bottom else 0)
    corners = np.array([[bx[0] * cw, bx[1] * ch], [bx[2] * cw, bx[1] * ch],
                        [bx[2] * cw, bx[3] * ch], [bx[0] * cw, bx[3] * ch]])
    m = card_matrix(rng, (ch, cw), scale, angle, (0, 0), rng.uniform(0, 0.08))
    centre = project(m, corners).mean(axis=0)
    m = np.array([[1, 0, size / 2 - centre[0]], [0, 1, size / 2 - centre[1]], [0, 0, 1]]) @ m
    paste(canvas, card, m)
    if rng.random() < 0.55:  # the next card of a fanned column covers the rest
        other = cover()
        if from_bottom:
            down = -(1 - bx[1] + rng.uniform(0.02, 0.12)) * ch
        else:
            down = (bx[3] + rng.uniform(0.02, 0.12)) * ch
        paste(canvas, other, m @ np.array([[1, 0, 0], [0, 1, down], [0, 0, 1]], np.float64))
    if rng.random() < 0.15:
        hand(canvas, rng)
    pts = project(m, corners)
    (x1, y1), (x2, y2) = pts.min(axis=0), pts.max(axis=0)
    bw, bh = x2 - x1, y2 - y1
    jit = [rng.uniform(-0.12, 0.12) * bw, rng.uniform(-0.12, 0.12) * bh,
           rng.uniform(-0.12, 0.12) * bw, rng.uniform(-0.12, 0.12) * bh]
    box = (x1 + jit[0], y1 + jit[1], x2 + jit[2], y2 + jit[3])
    return canvas, box, np.array([x1, y1, x2, y2])


def scene_crops(deck: str, code: str, rng: random.Random, deck_cards: dict[str, np.ndarray],
                n: int, max_angle: float = 180.0) -> list[tuple[str, np.ndarray]]:
    """``n`` index crops of one card plus about n/8 ``none`` crops from the same scenes."""
    card = deck_cards[code]
    ch = card.shape[0]
    boxes = decks.index_boxes(deck, code, height=ch)
    out: list[tuple[str, np.ndarray]] = []
    for i in range(n):
        if not boxes:
            break
        bx = boxes[i % len(boxes)]
        if (bx[3] - bx[1]) < 0.06:  # not a real index measurement
            continue
        canvas, box, (x1, y1, x2, y2) = index_scene(
            card, bx, rng, lambda: deck_cards[rng.choice(list(deck_cards))],
            from_bottom=i % len(boxes) != 0, max_angle=max_angle)
        crop = crop_square(degrade(canvas, rng), box, CROP_SIZE,
                           context=rng.uniform(1.15, 1.6))
        out.append((code, crop))
        if i % 8 == 0:  # a crop of the same scene away from any index
            size = canvas.shape[0]
            bw, bh = x2 - x1, y2 - y1
            side = rng.uniform(0.6, 1.4) * max(bw, bh)
            cx, cy = rng.uniform(side, size - side), rng.uniform(side, size - side)
            if abs(cx - (x1 + x2) / 2) > bw or abs(cy - (y1 + y2) / 2) > bh:
                crop = crop_square(degrade(canvas, rng), (cx - side / 2, cy - side / 2,
                                                          cx + side / 2, cy + side / 2))
                out.append((NONE, crop))
    return out


def generic_scene_crops(code: str, rng: random.Random, n: int, height: int = 256,
                        max_angle: float = 180.0) -> list[np.ndarray]:
    """``n`` index crops of generic cards for ``code`` (a new card for each crop), in
    scenes made as in :func:`scene_crops`."""
    out: list[np.ndarray] = []
    for _ in range(n):
        card, bx = generic_card(code, rng, height)
        canvas, box, _exact = index_scene(
            card, bx, rng, lambda: generic_card(rng.choice(ALL_CODES), rng, height)[0],
            window=(2.5, 16), max_angle=max_angle)  # no `none` crops here: only the crop's window
        size = canvas.shape[0]
        context = rng.uniform(1.15, 1.6)
        # degrade only the crop's window (and a margin for the blur kernels)
        half = max(box[2] - box[0], box[3] - box[1]) * context / 2 + 8
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        wx1, wy1 = max(0, int(cx - half)), max(0, int(cy - half))
        wx2, wy2 = min(size, int(cx + half) + 1), min(size, int(cy + half) + 1)
        window = degrade(canvas[wy1:wy2, wx1:wx2], rng)
        box = (box[0] - wx1, box[1] - wy1, box[2] - wx1, box[3] - wy1)
        out.append(crop_square(window, box, CROP_SIZE, context=context))
    return out


def _work_generic(args: tuple[str, int, int, str, float]) -> int:
    code, n, seed, out, max_angle = args
    rng = random.Random(f"{seed}:generic:{code}")
    folder = Path(out) / "train" / code
    folder.mkdir(parents=True, exist_ok=True)
    crops = generic_scene_crops(code, rng, n, max_angle=max_angle)
    for k, crop in enumerate(crops):
        cv2.imwrite(str(folder / f"generic-{code}-{k}.png"), crop)
    return len(crops)


def _work(args: tuple[str, str, int, int, str, float]) -> int:
    deck, split, per_card, seed, out, max_angle = args
    rng = random.Random(f"{seed}:{deck}")
    cards = decks.render_deck(deck, height=256, jobs=1)
    back = cards.pop(decks.BACK, None)
    count = 0
    for code in ALL_CODES:
        for label, crop in scene_crops(deck, code, rng, cards, per_card, max_angle):
            folder = Path(out) / split / label
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{deck}-{code}-{count}.png"), crop)
            count += 1
    if back is not None:  # backs are never an index
        for k in range(per_card * 2):
            img = table_texture(rng, 200, 200)
            m = card_matrix(rng, back.shape[:2], rng.uniform(0.2, 0.6), rng.uniform(-3, 3),
                            (100, 100), 0.05)
            paste(img, back, m)
            s = rng.uniform(15, 60)
            cx, cy = rng.uniform(60, 140), rng.uniform(60, 140)
            crop = crop_square(degrade(img, rng), (cx - s, cy - s, cx + s, cy + s))
            folder = Path(out) / split / NONE
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{deck}-back-{k}.png"), crop)
            count += 1
    return count


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("datasets/index_crops"))
    parser.add_argument("--per-card", type=int, default=24)
    parser.add_argument("--val-per-card", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--decks", type=int, default=0, help="use only the first N decks")
    parser.add_argument("--generic-per-card", type=int, default=0,
                        help="add N crops per code from generic cards (many index fonts) "
                             "to train")
    parser.add_argument("--max-angle", type=float, default=180.0,
                        help="turn indices at most this many degrees from upright (180: any)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if not decks.artwork_available():
        sys.exit("card artwork is not installed: run scripts/setup_assets.sh")
    train, val = decks.deck_names("train"), decks.deck_names("test")
    if args.decks:
        train, val = train[:args.decks], val[:max(1, args.decks // 2)]
    run_jobs(args, train, val, _work, _work_generic, args.max_angle)


def run_jobs(args: argparse.Namespace, train: list[str], val: list[str], work: Callable,
             work_generic: Callable, extra: Any) -> int:
    """Write the crops of each training and held-out deck (``work``) and of the generic
    cards (``work_generic``) in ``args.jobs`` processes, printing counts; the total.
    ``extra`` is passed on to each job (this script's angle, the face reader's size)."""
    jobs = [(d, "train", args.per_card, args.seed, str(args.out), extra) for d in train]
    jobs += [(d, "val", args.val_per_card, args.seed, str(args.out), extra) for d in val]
    total = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for (deck, split, *_), n in zip(jobs, pool.map(work, jobs), strict=True):
            total += n
            print(f"{split:5s} {deck:32s} {n} crops", flush=True)
        if args.generic_per_card > 0:
            gjobs = [(code, args.generic_per_card, args.seed, str(args.out), extra)
                     for code in ALL_CODES]
            n = sum(pool.map(work_generic, gjobs))
            total += n
            print(f"train {'generic cards':32s} {n} crops", flush=True)
    print(f"{total} crops in {args.out}")
    return total


if __name__ == "__main__":
    main()
