"""Make the face-reader dataset: whole cards warped upright the way the detector sees them at
run time (``vision.crops.upright_card`` of a card's outline), small, in the layout
``OUT/{train,val}/<class>/*.png`` (classes: the 52 card codes and ``none``).

Every crop: the card at a random size (long side 25–90 px in the frame), any angle, a
little perspective, on a random table texture; sometimes the card under it in a fanned
column peeks out above it, the next card covers its lower part, or a hand covers a side;
then colour cast, exposure, blur, noise, JPEG (``scripts.make_index_crops.degrade``); then
the outline (the card's true corners, jittered by a few per cent as ``card_quad`` finds
them) is warped to ``vision.crops.CARD_SIZE`` and area-resized to ``--size`` (W×H). Which
end is up is random (the card's angle is). ``none``: backs, bare table, hands, and outlines
that straddle two cards. ``train`` holds the training decks and generic cards
(:mod:`scripts.generic_cards`, only those with centre pips or a court frame), ``val`` the
held-out deck families.

    python -m scripts.make_face_crops --out /work/data/face_crops --per-card 40 \\
        --val-per-card 6 --generic-per-card 120 --seed 0
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from pathlib import Path

import cv2
import numpy as np

from rules.cards import ALL_CODES
from scripts.generic_cards import generic_card
from scripts.make_index_crops import (
    card_matrix,
    degrade,
    hand,
    paste,
    project,
    run_jobs,
    table_texture,
)
from vision.crops import upright_card
from vision.render import decks

NONE = "none"
#: the stored crop (width, height); the reader's input
SIZE = (48, 64)
#: the outline's corners are the card's true ones moved by this share of its length
#: (standard deviation): ``card_quad`` finds outlines within about 1.5 %; a card's shape
#: fitted to its box (``fitted_card_quad``, a fanned column's top card) is off by up to
#: 5 % at the corners on the card under it (``--jitter``)
JITTER = 0.015


def card_scene(card: np.ndarray, rng: random.Random, other, long_side: float | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """``card`` (BGRA) on a table at a random size and angle, maybe with a card under it
    peeking out, the next card of a column over its lower part, or a hand; returns the
    degraded canvas and the card's outline (4, 2) as the detector would find it."""
    ch, cw = card.shape[:2]
    target = long_side or rng.uniform(25, 90)
    scale = target / ch
    size = int(target * 2.0) + 16
    canvas = table_texture(rng, size, size)
    angle = rng.uniform(-math.pi, math.pi)
    m = card_matrix(rng, (ch, cw), scale, angle, (size / 2, size / 2), rng.uniform(0, 0.06))
    if rng.random() < 0.3:  # the card under it in a fanned column shows above it
        up = -rng.uniform(0.12, 0.35) * ch
        paste(canvas, other(), m @ np.array([[1, 0, 0], [0, 1, up], [0, 0, 1]], np.float64))
    paste(canvas, card, m)
    r = rng.random()
    if r < 0.2:  # the next card of the column covers its lower part
        down = rng.uniform(0.6, 0.92) * ch
        paste(canvas, other(), m @ np.array([[1, 0, 0], [0, 1, down], [0, 0, 1]], np.float64))
    elif r < 0.32:
        hand(canvas, rng)
    corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64)
    quad = project(m, corners)
    quad += np.array([[rng.gauss(0, JITTER) * target for _ in range(2)] for _ in range(4)])
    return degrade(canvas, rng), quad.astype(np.float32)


def to_input(canvas: np.ndarray, quad: np.ndarray, size: tuple[int, int] = SIZE) -> np.ndarray:
    """What the reader sees: the run-time upright warp, area-resized to ``size``."""
    card = upright_card(canvas, quad)
    return cv2.resize(card, size, interpolation=cv2.INTER_AREA)


def none_crops(rng: random.Random, back: np.ndarray | None, cards: list[np.ndarray], n: int,
               size: tuple[int, int]) -> list[np.ndarray]:
    """Crops of card-shaped outlines that hold no readable face."""
    out = []
    for _ in range(n):
        kind = rng.random()
        target = rng.uniform(25, 90)
        if back is not None and kind < 0.45:
            canvas, quad = card_scene(back, rng, lambda: rng.choice(cards), target)
        elif kind < 0.7:  # bare table, maybe a hand
            s = int(target * 2) + 16
            canvas = table_texture(rng, s, s)
            if rng.random() < 0.5:
                hand(canvas, rng)
            canvas = degrade(canvas, rng)
            w = target / 1.4
            a = rng.uniform(0, math.pi)
            c, si = math.cos(a), math.sin(a)
            pts = [(-w / 2, -target / 2), (w / 2, -target / 2), (w / 2, target / 2),
                   (-w / 2, target / 2)]
            quad = np.float32([[s / 2 + c * x - si * y, s / 2 + si * x + c * y] for x, y in pts])
        else:  # an outline straddling a card and the table or two cards
            card = rng.choice(cards)
            canvas, quad = card_scene(card, rng, lambda: rng.choice(cards), target)
            shift = (quad[2] - quad[1]) * rng.choice([-1, 1]) * rng.uniform(0.55, 0.9)
            if rng.random() < 0.5:
                shift = (quad[1] - quad[0]) * rng.choice([-1, 1]) * rng.uniform(0.6, 0.95)
            quad = quad + shift
        out.append(to_input(canvas, quad, size))
    return out


def has_face(card: np.ndarray) -> bool:
    """Whether a generic card has centre pips or a court frame (ink in its middle band)."""
    h, w = card.shape[:2]
    band = card[int(0.08 * h):int(0.92 * h), int(0.3 * w):int(0.7 * w), :3]
    return bool((band.min(axis=2) < 170).mean() > 0.01)


def _work(args: tuple[str, str, int, int, str, tuple[int, int]]) -> int:
    deck, split, per_card, seed, out, size = args
    rng = random.Random(f"{seed}:face:{deck}")
    cards = decks.render_deck(deck, height=256, jobs=1)
    back = cards.pop(decks.BACK, None)
    pool = list(cards.values())
    count = 0
    for code in ALL_CODES:
        folder = Path(out) / split / code
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(per_card):
            canvas, quad = card_scene(cards[code], rng, lambda: rng.choice(pool))
            cv2.imwrite(str(folder / f"{deck}-{code}-{count}.png"), to_input(canvas, quad, size))
            count += 1
    folder = Path(out) / split / NONE
    folder.mkdir(parents=True, exist_ok=True)
    for crop in none_crops(rng, back, pool, per_card * 4, size):
        cv2.imwrite(str(folder / f"{deck}-none-{count}.png"), crop)
        count += 1
    return count


def _work_generic(args: tuple[str, int, int, str, tuple[int, int]]) -> int:
    code, n, seed, out, size = args
    rng = random.Random(f"{seed}:face-generic:{code}")
    folder = Path(out) / "train" / code
    folder.mkdir(parents=True, exist_ok=True)
    k = tries = 0
    while k < n and tries < 4 * n:
        tries += 1
        card, _box = generic_card(code, rng, 256)
        if not has_face(card):
            continue
        canvas, quad = card_scene(card, rng, lambda: generic_card(
            rng.choice(ALL_CODES), rng, 256)[0])
        cv2.imwrite(str(folder / f"generic-{code}-{k}.png"), to_input(canvas, quad, size))
        k += 1
    return k


def main(argv: list[str] | None = None) -> None:
    global JITTER
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("datasets/face_crops"))
    parser.add_argument("--per-card", type=int, default=40)
    parser.add_argument("--val-per-card", type=int, default=6)
    parser.add_argument("--generic-per-card", type=int, default=0)
    parser.add_argument("--size", default=f"{SIZE[0]}x{SIZE[1]}", help="crop W×H")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--decks", type=int, default=0, help="use only the first N decks")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--jitter", type=float, default=JITTER,
                        help="outline corner jitter, share of the card's length (std)")
    args = parser.parse_args(argv)
    JITTER = args.jitter  # (read by the worker processes, forked after this)
    if not decks.artwork_available():
        sys.exit("card artwork is not installed: run scripts/setup_assets.sh")
    size = tuple(int(v) for v in args.size.lower().split("x"))
    train, val = decks.deck_names("train"), decks.deck_names("test")
    if args.decks:
        train, val = train[:args.decks], val[:max(1, args.decks // 2)]
    run_jobs(args, train, val, _work, _work_generic, size)


if __name__ == "__main__":
    main()
