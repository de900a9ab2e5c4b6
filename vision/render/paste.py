"""Rendered cards pasted into real photographs, lit like the photo's own cards.

The real photographs in ``../shared/data/real`` show no card backs, so a back drawn by
:mod:`.backs` is pasted into them: at the size of the photo's labelled cards, turned and
slanted at random, its paper brought to the colour of the real cards' paper (the photo's
light and white balance), softened, grained, shadowed, and the whole photo saved again as
a JPEG. Pasted faces go through the same steps, so that a model shown pasted backs and
pasted faces cannot tell a back by its having been pasted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .backs import PAPER_RGB


@dataclass(frozen=True)
class Pasted:
    """One card pasted: its corners in the photo (4×2, clockwise from the card's top
    left) and the box around them."""

    quad: np.ndarray
    box: np.ndarray


def paper_colour(photo: np.ndarray, boxes: Sequence[Sequence[float]]) -> np.ndarray:
    """The BGR colour of white card paper in this photo: the 90th percentile of each
    channel inside the labelled card ``boxes`` (their faces are mostly paper), or of the
    whole photo when none is given."""
    pixels = []
    h, w = photo.shape[:2]
    for x0, y0, x1, y1 in boxes:
        x0, y0 = max(0, int(x0)), max(0, int(y0))
        x1, y1 = min(w, int(x1)), min(h, int(y1))
        if x1 > x0 and y1 > y0:
            pixels.append(photo[y0:y1, x0:x1].reshape(-1, 3))
    flat = np.concatenate(pixels) if pixels else photo.reshape(-1, 3)
    return np.percentile(flat.astype(np.float32), 90, axis=0)


def _free(box: np.ndarray, taken: Sequence[np.ndarray], cover: float) -> bool:
    """Whether ``box`` covers at most ``cover`` of each taken box (and of itself)."""
    for t in taken:
        ix = max(0.0, min(box[2], t[2]) - max(box[0], t[0]))
        iy = max(0.0, min(box[3], t[3]) - max(box[1], t[1]))
        inter = ix * iy
        area_t = max(1.0, (t[2] - t[0]) * (t[3] - t[1]))
        area_b = max(1.0, (box[2] - box[0]) * (box[3] - box[1]))
        if inter > cover * min(area_t, area_b):
            return False
    return True


def paste_cards(photo: np.ndarray, cards: Sequence[np.ndarray], rng: random.Random,
                card_px: float, avoid: Sequence[Sequence[float]] = (),
                paper: np.ndarray | None = None, cover: float = 0.15,
                jpeg: bool = True) -> tuple[np.ndarray, list[Pasted | None]]:
    """``photo`` (BGR) with the card bitmaps ``cards`` (BGRA, upright) pasted in at a long
    side of about ``card_px``, each covering at most ``cover`` of the ``avoid`` boxes and
    of the cards pasted before it; ``paper``: the photo's paper colour (default
    :func:`paper_colour` of ``avoid``). Returns the new photo and, per card, where it
    went (None where no free place was found)."""
    if photo is None or photo.ndim != 3 or photo.shape[2] != 3:
        raise ValueError("expected a BGR photo (H×W×3)")
    out = photo.astype(np.float32)
    h, w = out.shape[:2]
    paper = paper_colour(photo, avoid) if paper is None else np.asarray(paper, np.float32)
    gain = np.clip(paper / np.array(PAPER_RGB[::-1], np.float32), 0.2, 1.3)
    taken = [np.asarray(b, np.float32) for b in avoid]
    placed: list[Pasted | None] = []
    for card in cards:
        long = card_px * rng.uniform(0.85, 1.15)
        ch, cw = card.shape[:2]
        s = long / max(ch, cw)
        half = np.array([cw * s / 2, ch * s / 2], np.float32)
        corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * half
        corners += np.array([[rng.uniform(-0.05, 0.05) * long for _ in range(2)]
                             for _ in range(4)], np.float32)  # a slanted view
        angle = np.deg2rad(rng.uniform(0, 360))
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]],
                       np.float32)
        corners = corners @ rot.T
        span = corners.max(axis=0) - corners.min(axis=0)
        where = None
        for _ in range(40):
            if span[0] >= w - 2 or span[1] >= h - 2:
                break
            centre = np.array([rng.uniform(span[0] / 2 + 1, w - span[0] / 2 - 1),
                               rng.uniform(span[1] / 2 + 1, h - span[1] / 2 - 1)], np.float32)
            quad = corners + centre
            box = np.concatenate([quad.min(axis=0), quad.max(axis=0)])
            if _free(box, taken, cover):
                where = (quad, box)
                break
        if where is None:
            placed.append(None)
            continue
        quad, box = where
        src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
        m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        warped = cv2.warpPerspective(card, m, (w, h), flags=cv2.INTER_AREA
                                     if s < 1 else cv2.INTER_LINEAR).astype(np.float32)
        alpha = warped[..., 3:] / 255.0
        if rng.random() < 0.6:  # a soft shadow below and beside the card
            shift = np.float32([[1, 0, rng.uniform(-0.04, 0.04) * long],
                                [0, 1, rng.uniform(0.0, 0.05) * long]])
            shadow = cv2.warpAffine(alpha[..., 0], shift, (w, h))
            shadow = cv2.GaussianBlur(shadow, (0, 0), max(0.5, 0.04 * long))[..., None]
            out *= 1.0 - rng.uniform(0.15, 0.4) * shadow
        colour = warped[..., :3] * gain
        # light falling off across the card, and the camera's softness and grain
        ramp = np.linspace(-1, 1, w, dtype=np.float32)[None, :, None] * rng.uniform(-0.08, 0.08)
        colour *= 1.0 + ramp
        sigma = rng.uniform(0.3, 1.0) * max(1.0, long / 80)
        colour = cv2.GaussianBlur(colour, (0, 0), sigma)
        alpha = cv2.GaussianBlur(alpha, (0, 0), 0.6)[..., None]
        colour += np.random.default_rng(rng.randrange(1 << 30)).normal(
            0, rng.uniform(1.5, 5.0), colour.shape).astype(np.float32)
        out = out * (1 - alpha) + colour * alpha
        taken.append(box)
        placed.append(Pasted(quad, box))
    result = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    if jpeg:
        ok, data = cv2.imencode(".jpg", result, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(70, 92)])
        if ok:
            result = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return result, placed


__all__ = ["Pasted", "paper_colour", "paste_cards"]
