"""Back-design registration and matching: which player a face-down card belongs to.

:class:`BackDesigns` is built from a few example crops of each player's back (taken at the
table, with the same camera) and matches any back crop to a registered design with a
confidence, or to ``None`` ("unknown") when no registered design is close enough.

The descriptor is learned-free and made for real cameras:

- **region** — a disk around the card's centre that lies inside the card at any rotation
  (its radius follows the card's size, estimated from the crop box or from given corners),
  resampled to a fixed size, so the description does not depend on the card's angle, the
  camera's resolution or a bit of table in the box's corners;
- **colour** — the crop is divided by a white (per channel): best the paper of the cards
  around it in the frame (:func:`local_white`; :meth:`BackDesigns.match_frame` does this),
  else the crop's own brightest pixels. Lights change slowly across a table, so this
  cancels exposure, colour casts, gradients and vignetting. Then a soft 3-D histogram of
  those reflectances, a 2-D rg-chromaticity histogram and the mean reflectance;
- **texture** — rotation-invariant: the radial power spectrum of the disk (pattern period),
  rotation-invariant uniform local binary patterns and a histogram of gradient magnitudes
  (weighted low: colour separates the hard pairs, texture only helps).

Histograms are compared with the Hellinger distance; the blocks are weighted and summed.
Registration adds perturbed copies of each example (rotation by 90° steps, exposure and
colour cast with sensor clipping, blur, noise, JPEG) so that a design covers what a camera
does to it. Matching is nearest-neighbour over those examples; a hand over part of the card
is handled by also trying each design on only the pixels whose colours that design shows
(with a penalty per hidden share). Each design's "unknown" threshold is calibrated from its
own examples (how far one registered crop is from the design's others), within bounds.

Limits: a rotation-invariant description cannot tell a pattern from the same pattern turned
by 45° (checks vs diamonds of one colour and similar cell size); the card's corners would
be needed to measure the pattern's angle against the card's edges.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

__all__ = ["DESCRIPTOR_VERSION", "BackDesigns", "back_descriptor", "back_disk", "card_angle",
           "card_geometry", "disk_descriptor", "local_white"]

DESCRIPTOR_VERSION = 2
CARD_MM = (63.0, 88.0)
DISK = 48  # side of the resampled disk, pixels
DISK_FRACTION = 0.9  # disk radius as a fraction of half the card's width
REFL_BINS = 6  # bins per channel of the reflectance histogram
ORIENT_BINS = 8  # gradient-direction bins against the card's edges (with corners only)
SUPPORT_MASS = 0.01  # share of a disk's pixels that makes a colour bin part of a design

# block name -> (length, weight)
_BLOCKS: dict[str, tuple[int, float]] = {
    "refl3d": (REFL_BINS ** 3, 1.0),
    "chroma": (8 * 8, 1.0),
    "mean": (3, 9.0),
    "spectrum": (12, 0.2),
    "lbp": (10, 0.1),
    "grad": (8, 0.1),
    "orient": (ORIENT_BINS, 0.5),
}


def _disk_mask(n: int) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - (n - 1) / 2
    return (xx * xx + yy * yy) <= (n / 2) ** 2


_MASK = _disk_mask(DISK)


def card_geometry(shape: tuple[int, int], quad: np.ndarray | None = None
                  ) -> tuple[float, float, float]:
    """(cx, cy, px_per_mm) of the card in a crop of ``shape`` (h, w): from the card's
    corners when given, else from the box, assuming the card fills it at some angle (the
    box's aspect tells the angle, up to a mirror, hence the card's size)."""
    h, w = shape[:2]
    if quad is not None:
        q = np.asarray(quad, np.float64).reshape(4, 2)
        area = abs(float(cv2.contourArea(q.astype(np.float32))))
        cx, cy = q.mean(axis=0)
        return float(cx), float(cy), math.sqrt(max(area, 1.0) / (CARD_MM[0] * CARD_MM[1]))
    cw, ch = CARD_MM
    # bw = s (cw c + ch s'), bh = s (cw s' + ch c) for an angle in [0, 90] (or mirrored)
    t = (max(w, h) - min(w, h)) / max(w + h, 1) * (ch + cw) / (ch - cw)
    t = float(np.clip(t, 0.0, 1.0))
    # with t = (sin - cos) / (sin + cos) over [45, 90] deg, or the mirror
    theta = math.atan2(1 + t, 1 - t)
    s = (w + h) / ((cw + ch) * (math.cos(theta) + math.sin(theta)))
    return (w - 1) / 2, (h - 1) / 2, s


def _resample_disk(img: np.ndarray, cx: float, cy: float, radius: float) -> np.ndarray:
    """The square around (cx, cy) of half-side ``radius``, resampled to DISK × DISK."""
    scale = DISK / (2 * radius)
    m = np.array([[scale, 0, DISK / 2 - (cx + 0.5) * scale],
                  [0, scale, DISK / 2 - (cy + 0.5) * scale]], np.float32)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(img, m, (DISK, DISK), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def _white(img: np.ndarray, percentile: float = 97.0) -> np.ndarray:
    """An image's white (per channel): the mean of its brightest pixels (above the
    ``percentile`` of brightness, after a slight blur against noise)."""
    sm = cv2.GaussianBlur(img, (3, 3), 0) if min(img.shape[:2]) >= 6 else img
    lum = sm.mean(axis=2)
    thr = np.percentile(lum, percentile)
    sel = sm[lum >= thr]
    white = sel.mean(axis=0) if len(sel) else sm.reshape(-1, 3).max(axis=0)
    return np.maximum(white, 8.0).astype(np.float32)


def _soft_hist(values: np.ndarray, lo: float, hi: float, bins: int) -> np.ndarray:
    """A linearly interpolated (soft) histogram of N×D values, flattened."""
    d = values.shape[1]
    pos = (np.clip(values, lo, hi - 1e-6) - lo) / (hi - lo) * bins - 0.5
    pos = np.clip(pos, 0, bins - 1)
    i0 = np.floor(pos).astype(np.int64)
    i1 = np.minimum(i0 + 1, bins - 1)
    f = pos - i0
    hist = np.zeros((bins,) * d, np.float64).ravel()
    strides = np.array([bins ** (d - 1 - k) for k in range(d)], np.int64)
    for corner in range(2 ** d):
        idx = np.zeros(len(values), np.int64)
        wgt = np.ones(len(values), np.float64)
        for k in range(d):
            bit = (corner >> k) & 1
            idx += (i1[:, k] if bit else i0[:, k]) * strides[k]
            wgt *= f[:, k] if bit else 1 - f[:, k]
        np.add.at(hist, idx, wgt)
    return hist


def _norm(h: np.ndarray) -> np.ndarray:
    s = float(h.sum())
    return (h / s) if s > 0 else np.full_like(h, 1.0 / len(h))


_LBP_OFFSETS = [(round(math.sin(2 * math.pi * k / 8), 6), round(math.cos(2 * math.pi * k / 8),
                                                                        6)) for k in range(8)]


def _lbp_riu2(grey: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Rotation-invariant uniform LBP (P=8, R=1.5) histogram (10 bins) inside ``mask``."""
    g = grey.astype(np.float32)
    n = g.shape[0]
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    bits = []
    for dy, dx in _LBP_OFFSETS:
        nb = cv2.remap(g, xs + 1.5 * dx, ys + 1.5 * dy, cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
        bits.append(nb >= g + 0.02)
    b = np.stack(bits, 0).astype(np.int8)
    transitions = np.abs(np.diff(np.concatenate([b, b[:1]], 0), axis=0)).sum(0)
    ones = b.sum(0)
    code = np.where(transitions <= 2, ones, 9)
    return _norm(np.bincount(code[mask].ravel(), minlength=10).astype(np.float64))


_RADIUS = np.hypot(*(np.mgrid[0:DISK, 0:DISK].astype(np.float32) - DISK // 2))
_WINDOW = np.clip(1 - (_RADIUS / (DISK / 2)) ** 2, 0, None) ** 2


def _radial_spectrum(grey: np.ndarray) -> np.ndarray:
    """Power in 12 radial frequency bands (rotation invariant), normalised."""
    g = grey - float((grey * _WINDOW).sum() / _WINDOW.sum())
    p = np.abs(np.fft.fftshift(np.fft.fft2(g * _WINDOW))) ** 2
    bands = np.clip((_RADIUS / (DISK / 2) * 12).astype(np.int64), 0, 12)
    power = np.bincount(bands.ravel(), weights=p.ravel(), minlength=13)[1:13]
    total = power.sum()
    return power / total if total > 1e-9 else np.full(12, 1 / 12)


def local_white(frame: np.ndarray, box: Sequence[float], reach: float = 2.5) -> np.ndarray:
    """The white (BGR float, per channel) near ``box`` (x1, y1, x2, y2) in a frame: the
    brightest 2 % of a window ``reach`` × the box's size around it — on a card table, the
    paper of nearby cards. Lights vary slowly across a table, so this cancels exposure,
    colour cast, gradients and vignetting at the card."""
    h, w = frame.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    half = reach * max(x2 - x1, y2 - y1, 4.0) / 2
    wx1, wy1 = int(max(0, cx - half)), int(max(0, cy - half))
    wx2, wy2 = int(min(w, cx + half + 1)), int(min(h, cy + half + 1))
    win = np.asarray(frame[wy1:wy2, wx1:wx2, :3], np.float32)
    if win.size == 0:
        raise ValueError(f"box {list(box)} lies outside the {w}x{h} frame")
    return _white(win, 98.0)


def card_angle(quad: np.ndarray | None) -> float | None:
    """The direction (radians, image axes) of a card's long edges, from its corners."""
    if quad is None:
        return None
    q = np.asarray(quad, np.float64).reshape(4, 2)
    e = np.roll(q, -1, axis=0) - q  # edges 0-1, 1-2, 2-3, 3-0
    pair = 0 if np.hypot(*e[0]) + np.hypot(*e[2]) >= np.hypot(*e[1]) + np.hypot(*e[3]) else 1
    d = e[pair] - e[pair + 2]  # opposite edges run the other way round
    return float(math.atan2(d[1], d[0]))


def back_disk(crop: np.ndarray, quad: np.ndarray | None = None,
              white: np.ndarray | None = None) -> tuple[np.ndarray, float | None]:
    """The card's central disk as reflectance (DISK × DISK × 3 float32, BGR, 1.0 = the
    white) and the card's angle (:func:`card_angle`, None without corners): ``quad``
    optional card corners in crop pixels; ``white`` the paper white near the card (e.g.
    :func:`local_white`), else the crop's own brightest pixels."""
    img = np.asarray(crop)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    img = np.ascontiguousarray(img[..., :3]).astype(np.float32)
    if min(img.shape[:2]) < 4:
        raise ValueError(f"back crop too small: {img.shape[1]}x{img.shape[0]} px")
    cx, cy, s = card_geometry(img.shape[:2], quad)
    radius = max(2.0, DISK_FRACTION * CARD_MM[0] / 2 * s)
    ref = _white(img) if white is None else np.maximum(np.asarray(white, np.float32), 8.0)
    return _resample_disk(img / ref.reshape(1, 1, 3), cx, cy, radius), card_angle(quad)


def _refl_bins(disk: np.ndarray) -> np.ndarray:
    """Each disk pixel's nearest bin of the 6 × 6 × 6 reflectance histogram (flat index)."""
    pos = np.clip(disk / 1.2 * REFL_BINS - 0.5, 0, REFL_BINS - 1)
    i = np.rint(pos).astype(np.int64)
    return (i[..., 0] * REFL_BINS + i[..., 1]) * REFL_BINS + i[..., 2]


def disk_descriptor(disk: np.ndarray, keep: np.ndarray | None = None,
                    angle: float | None = None) -> np.ndarray:
    """The descriptor of a reflectance disk (:func:`back_disk`), from the pixels in
    ``keep`` (a DISK × DISK bool mask; default all): concatenated, square-rooted
    (Hellinger) blocks, ready for Euclidean distance. With the card's ``angle``, the
    pattern's angle against the card's edges counts too (checks vs diamonds); without
    it, that block is flat."""
    mask = _MASK if keep is None else (_MASK & keep)
    px = disk[mask]  # N×3 reflectance, B G R
    blocks: dict[str, np.ndarray] = {}
    blocks["refl3d"] = _norm(_soft_hist(px, 0.0, 1.2, REFL_BINS))
    tot = px.sum(axis=1, keepdims=True)
    chroma = px[:, [2, 1]] / np.maximum(tot, 1e-3)  # r, g chromaticity
    blocks["chroma"] = _norm(_soft_hist(chroma, 0.0, 1.0, 8))
    blocks["mean"] = np.clip(px.mean(axis=0) / 1.2, 0, 1) if len(px) else np.zeros(3)
    grey = disk.mean(axis=2)
    if keep is not None and len(px):  # hidden pixels: the visible mean (no texture)
        grey = np.where(keep, grey, float(px.mean()))
    blocks["spectrum"] = _radial_spectrum(grey)
    blocks["lbp"] = _lbp_riu2(grey, mask)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)[mask]
    edges = np.array([0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, np.inf])
    blocks["grad"] = _norm(np.histogram(mag, bins=edges)[0].astype(np.float64))
    if angle is None:
        blocks["orient"] = np.full(ORIENT_BINS, 1.0 / ORIENT_BINS)
    else:  # gradient directions against the card's long edge, mod 180 deg
        rel = (np.arctan2(gy[mask], gx[mask]) - angle) % math.pi
        step = math.pi / ORIENT_BINS
        idx = np.floor((rel + step / 2) / step).astype(np.int64) % ORIENT_BINS
        blocks["orient"] = _norm(np.bincount(idx, weights=mag, minlength=ORIENT_BINS))
    parts = []
    for name, (length, weight) in _BLOCKS.items():
        b = blocks[name].astype(np.float64).ravel()
        assert len(b) == length, name
        parts.append(math.sqrt(weight) * (b if name == "mean" else np.sqrt(b)))
    return np.concatenate(parts).astype(np.float32)


def back_descriptor(crop: np.ndarray, quad: np.ndarray | None = None,
                    white: np.ndarray | None = None) -> np.ndarray:
    """The descriptor of a back crop (BGR uint8): :func:`disk_descriptor` of
    :func:`back_disk`."""
    disk, angle = back_disk(crop, quad, white)
    return disk_descriptor(disk, angle=angle)


# --- augmentation ------------------------------------------------------------------------

def _rot90_points(pts: np.ndarray, shape: tuple[int, ...], k: int) -> np.ndarray:
    """Points (x, y) of an image of ``shape`` after ``np.rot90(image, k)``."""
    p = np.asarray(pts, np.float64).reshape(-1, 2).copy()
    h, w = shape[:2]
    for _ in range(k % 4):
        p = np.stack([p[:, 1], w - p[:, 0]], axis=1)
        h, w = w, h
    return p


def _augment(crop: np.ndarray, white: np.ndarray | None, quad: np.ndarray | None,
             rng: np.random.Generator, n: int
             ) -> list[tuple[np.ndarray, np.ndarray | None, np.ndarray | None]]:
    """``n`` perturbed copies of a crop (with its white, which the same light changes, and
    its corners): rotation, exposure and colour cast (clipped like a sensor), blur, noise,
    JPEG."""
    out = []
    img = np.ascontiguousarray(crop[..., :3])
    h, w = img.shape[:2]
    for k in range(n):
        a = img
        q = None if quad is None else _rot90_points(quad, img.shape, k % 4)
        if k % 4:
            a = np.ascontiguousarray(np.rot90(a, k % 4))
        gain = (rng.uniform(0.75, 1.3) * np.array([1 + rng.uniform(-0.12, 0.12), 1.0,
                                                   1 + rng.uniform(-0.12, 0.12)])
                ).astype(np.float32)
        a = np.clip(a.astype(np.float32) * gain, 0, 255)
        wa = None if white is None else np.clip(np.asarray(white, np.float32) * gain, 0, 255)
        if rng.random() < 0.5:
            sigma = rng.uniform(0.4, 1.0) * max(1.0, min(h, w) / 60)
            a = cv2.GaussianBlur(a, (0, 0), sigma)
        a = np.clip(a + rng.normal(0, rng.uniform(1, 5), a.shape), 0, 255).astype(np.uint8)
        if rng.random() < 0.5:
            ok, buf = cv2.imencode(".jpg", a, [cv2.IMWRITE_JPEG_QUALITY,
                                               int(rng.integers(40, 90))])
            if ok:
                a = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        out.append((a, wa, q))
    return out


# --- the registry ------------------------------------------------------------------------

@dataclass
class _Design:
    examples: np.ndarray  # (M, D) descriptors (examples and their perturbed copies)
    source: np.ndarray  # (M,) which registered crop each came from
    threshold: float = math.inf
    spread: float = 0.0
    support: np.ndarray | None = None  # colour bins the design shows (see _support)
    oriented: bool = False  # registered with card corners (the pattern's angle counts)


class BackDesigns:
    """A registry of players' back designs.

    >>> reg = BackDesigns()
    >>> reg.register("seat0", [crop_a, crop_b, crop_c])
    >>> reg.match(crop)            # ("seat0", 0.93) or (None, 0.8) for "unknown"
    """

    def __init__(self, augment: int = 8, seed: int = 0, min_threshold: float = 0.5,
                 max_threshold: float = 0.9, spread_factor: float = 2.0,
                 gap_fraction: float = 100.0, min_visible: float = 0.55,
                 occlusion_penalty: float = 0.6) -> None:
        self.augment = augment
        self.min_visible = min_visible
        self.occlusion_penalty = occlusion_penalty
        self.seed = seed
        self.min_threshold = min_threshold
        self.max_threshold = max_threshold
        self.spread_factor = spread_factor
        self.gap_fraction = gap_fraction
        self.designs: dict[str, _Design] = {}

    def __len__(self) -> int:
        return len(self.designs)

    def __contains__(self, design_id: object) -> bool:
        return design_id in self.designs

    @property
    def ids(self) -> list[str]:
        """The registered design ids, in registration order."""
        return list(self.designs)

    def register(self, design_id: str, crops: Sequence[np.ndarray],
                 quads: Sequence[np.ndarray | None] | None = None,
                 whites: Sequence[np.ndarray | None] | None = None) -> None:
        """Add (or extend) a design from example crops (BGR), with optional card corners
        (crop pixels) and whites (:func:`local_white`) each. Give whites here if
        :meth:`match` will get them, and not otherwise."""
        if not crops:
            raise ValueError(f"no example crops for back design {design_id!r}")
        quads = list(quads) if quads is not None else [None] * len(crops)
        whites = list(whites) if whites is not None else [None] * len(crops)
        oriented = quads[0] is not None
        prev = self.designs.get(design_id)
        if any((q is not None) != oriented for q in quads) or (
                prev is not None and prev.oriented != oriented):
            raise ValueError(f"back design {design_id!r}: give card corners for every "
                             "example crop or for none")
        rng = np.random.default_rng([self.seed, len(self.designs), len(crops)])
        descs, source = [], []
        base = 0 if prev is None else int(prev.source.max()) + 1
        for i, (crop, quad, white) in enumerate(zip(crops, quads, whites, strict=True)):
            descs.append(back_descriptor(crop, quad, white))
            source.append(base + i)
            for aug, aug_white, aug_quad in _augment(crop, white, quad, rng, self.augment):
                descs.append(back_descriptor(aug, aug_quad, aug_white))
                source.append(base + i)
        ex = np.stack(descs)
        src = np.array(source, np.int64)
        if prev is not None:
            ex = np.concatenate([prev.examples, ex])
            src = np.concatenate([prev.source, src])
        self.designs[design_id] = _Design(ex, src, oriented=oriented)
        self.calibrate()

    def calibrate(self) -> None:
        """Set each design's "unknown" threshold from its examples: ``spread_factor`` × the
        largest distance from one registered crop to the nearest descriptor of the design's
        other crops (or, with one crop, of its own perturbed copies), kept within
        [``min_threshold``, ``max_threshold``] and below ``gap_fraction`` × the distance to
        the nearest other design."""
        ids = self.ids
        for did in ids:
            d = self.designs[did]
            srcs = np.unique(d.source)
            spreads = []
            for s in srcs:
                first = int(np.nonzero(d.source == s)[0][0])  # the crop itself
                rest = d.examples[d.source != s] if len(srcs) > 1 else \
                    np.delete(d.examples, first, axis=0)
                if len(rest):
                    spreads.append(float(_dist(d.examples[first:first + 1], rest).min()))
            spread = max(spreads) if spreads else 0.0
            thr = float(np.clip(self.spread_factor * spread, self.min_threshold,
                                self.max_threshold))
            others = [self.designs[o].examples for o in ids if o != did]
            if others:
                gap = float(_dist(d.examples, np.concatenate(others)).min())
                thr = min(thr, max(self.gap_fraction * gap, 0.5 * self.min_threshold))
            d.threshold = thr
            d.spread = spread

    def distances(self, crop: np.ndarray, quad: np.ndarray | None = None,
                  white: np.ndarray | None = None) -> dict[str, float]:
        """The distance from a crop to each registered design (nearest example)."""
        row = self.distances_many([crop], [quad], [white])[0]
        return dict(zip(self.ids, row.tolist(), strict=True))

    def _support(self, did: str) -> np.ndarray:
        """The reflectance-histogram bins design ``did`` shows (flat bool, 6³): where any
        of its examples has at least ``SUPPORT_MASS`` of its pixels."""
        d = self.designs[did]
        if d.support is None:
            length, weight = _BLOCKS["refl3d"]  # the first block: sqrt(weight × histogram)
            refl = d.examples[:, :length].astype(np.float64) ** 2 / weight
            d.support = refl.max(axis=0) >= SUPPORT_MASS
        return d.support

    def _disk_distances(self, disk: np.ndarray, angle: float | None = None) -> np.ndarray:
        """Distances of one reflectance disk to each design. A design is also tried on the
        pixels whose colours it has (the rest taken as a hand or another card over it,
        ``occlusion_penalty`` per hidden share), when at least ``min_visible`` remain."""
        full = disk_descriptor(disk, angle=angle)[None]
        bins = _refl_bins(disk)
        n = float(_MASK.sum())
        out = np.empty(len(self.designs))
        for k, (did, d) in enumerate(self.designs.items()):
            # the pattern's angle counts only when both sides know the card's corners
            cols = slice(None) if d.oriented == (angle is not None) else slice(0, -ORIENT_BINS)
            dist = float(_dist(full[:, cols], d.examples[:, cols]).min())
            keep = self._support(did)[bins]
            frac = float((keep & _MASK).sum()) / n
            if self.min_visible <= frac < 0.98:
                part = disk_descriptor(disk, keep, angle)[None]
                dist = min(dist, float(_dist(part[:, cols], d.examples[:, cols]).min())
                           + self.occlusion_penalty * (1 - frac))
            out[k] = dist
        return out

    def match(self, crop: np.ndarray, quad: np.ndarray | None = None,
              white: np.ndarray | None = None) -> tuple[str | None, float]:
        """(design id, confidence) of the nearest registered design, or (None, confidence
        that it is unknown) when it is beyond that design's threshold."""
        if not self.designs:
            return None, 1.0
        return self._decide(self.distances(crop, quad, white))

    def distances_many(self, crops: Sequence[np.ndarray],
                       quads: Sequence[np.ndarray | None] | None = None,
                       whites: Sequence[np.ndarray | None] | None = None) -> np.ndarray:
        """(N, designs) distances of each crop to each design (columns in :attr:`ids`)."""
        quads = list(quads) if quads is not None else [None] * len(crops)
        whites = list(whites) if whites is not None else [None] * len(crops)
        if not crops or not self.designs:
            return np.zeros((len(crops), len(self.designs)))
        return np.stack([self._disk_distances(*back_disk(c, q, w))
                         for c, q, w in zip(crops, quads, whites, strict=True)])

    def match_many(self, crops: Sequence[np.ndarray],
                   quads: Sequence[np.ndarray | None] | None = None,
                   whites: Sequence[np.ndarray | None] | None = None
                   ) -> list[tuple[str | None, float]]:
        """:meth:`match` for each crop."""
        if not self.designs:
            return [(None, 1.0)] * len(crops)
        dist = self.distances_many(crops, quads, whites)
        ids = self.ids
        return [self._decide(dict(zip(ids, row.tolist(), strict=True))) for row in dist]

    def match_frame(self, frame: np.ndarray, boxes: np.ndarray,
                    corners: np.ndarray | None = None) -> list[tuple[str | None, float]]:
        """Match the backs at ``boxes`` (N×4 xyxy; optional N×4×2 corners) of a frame,
        each against the white near it (:func:`local_white`)."""
        h, w = frame.shape[:2]
        crops, quads, whites = [], [], []
        for i, box in enumerate(np.asarray(boxes, np.float64).reshape(-1, 4)):
            x1, y1 = int(max(0, math.floor(box[0]))), int(max(0, math.floor(box[1])))
            x2, y2 = int(min(w, math.ceil(box[2]))), int(min(h, math.ceil(box[3])))
            crops.append(frame[y1:y2, x1:x2])
            quads.append(None if corners is None else np.asarray(corners[i]) - [x1, y1])
            whites.append(local_white(frame, (x1, y1, x2, y2)))
        return self.match_many(crops, quads, whites)

    def _decide(self, dist: dict[str, float]) -> tuple[str | None, float]:
        if not dist:
            return None, 1.0
        ranked = sorted(dist.items(), key=lambda kv: kv[1])
        best, d1 = ranked[0]
        thr = self.designs[best].threshold
        d2 = ranked[1][1] if len(ranked) > 1 else 2 * max(d1, thr)
        known = 1.0 / (1.0 + math.exp((d1 - thr) / (0.15 * thr)))
        if d1 > thr:
            return None, round(1.0 - known, 4)
        margin = min(1.0, max(0.0, (d2 - d1) / max(d2, 1e-9)))
        return best, round(known * (0.5 + 0.5 * margin), 4)

    # --- persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (for the table profile)."""
        return {
            "version": DESCRIPTOR_VERSION,
            "params": {"augment": self.augment, "seed": self.seed,
                       "min_threshold": self.min_threshold,
                       "max_threshold": self.max_threshold,
                       "spread_factor": self.spread_factor, "gap_fraction": self.gap_fraction,
                       "min_visible": self.min_visible,
                       "occlusion_penalty": self.occlusion_penalty},
            "designs": {did: {"threshold": d.threshold, "oriented": d.oriented,
                              "source": d.source.tolist(),
                              "examples": np.round(d.examples, 5).tolist()}
                        for did, d in self.designs.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BackDesigns:
        """The registry :meth:`to_dict` wrote. Raises ValueError on another version."""
        if data.get("version") != DESCRIPTOR_VERSION:
            raise ValueError(f"back registry version {data.get('version')!r}; this code "
                             f"reads version {DESCRIPTOR_VERSION}: register the backs again")
        reg = cls(**data.get("params", {}))
        for did, d in data["designs"].items():
            reg.designs[did] = _Design(np.asarray(d["examples"], np.float32),
                                       np.asarray(d["source"], np.int64),
                                       float(d["threshold"]),
                                       oriented=bool(d.get("oriented", False)))
        return reg


def _dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise Euclidean distances of descriptor rows (N, D) × (M, D) → (N, M)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T
    return np.sqrt(np.clip(d2, 0, None))
