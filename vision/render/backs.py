"""Card back designs: the decks' own backs and generated patterns, each with a stable id.

A back id says everything needed to draw it again:

- ``deck:<deck name>`` — the deck's own ``back`` artwork (see :mod:`vision.render.decks`);
- ``solid:<rgb>[:<frame rgb>]`` — one colour inside a white margin, optionally a thin frame;
- ``stripes:<rgb>:<rgb>:<angle deg>:<period 0.1 mm>`` — diagonal or straight stripes;
- ``checks:<rgb>:<rgb>:<cell 0.1 mm>`` — a chequerboard;
- ``diamonds:<rgb>:<rgb>:<cell 0.1 mm>`` — a lattice of diamonds;
- ``dots:<rgb>:<rgb>:<pitch 0.1 mm>`` — polka dots;
- ``ring:<rgb>:<rgb>`` — a plain field with a ring-and-star logo in the middle.

Colours are written ``rrggbb`` (hex, RGB order as people write them). Images come back as
BGRA uint8, card-shaped (rounded corners transparent), like :func:`decks.render_card`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import cv2
import numpy as np

from . import decks

CARD_MM = (63.0, 88.0)  # width, height of a poker-size card
CORNER_MM = 3.2  # radius of the rounded corners
MARGIN_MM = 3.0  # the white border around a printed back pattern
PAPER_RGB = (246, 245, 240)

#: Hard pairs on purpose: visibly different, yet easy to confuse (back matching must tell
#: them apart). Two blues, red vs dark red, two greens.
HARD_PAIRS: tuple[tuple[str, str], ...] = (
    ("stripes:1f4e9a:f4f4f4:45:40", "stripes:3b7dd8:f4f4f4:45:40"),  # two blues
    ("diamonds:c8102e:f4f4f4:60", "diamonds:7a0019:f4f4f4:60"),  # red vs dark red
    ("solid:1f4e9a", "solid:2f6fc8"),  # two blues, plain
    ("checks:b01020:f0f0f0:50", "checks:6a0812:f0f0f0:50"),  # red vs dark red, checks
    ("ring:1e6b3a:f4f4f4", "ring:2f8f4f:f4f4f4"),  # two greens
)

#: A catalog of generated designs (besides the hard pairs and the decks' own backs).
CATALOG: tuple[str, ...] = (
    "solid:14213d:d4af37",
    "solid:0b6e4f",
    "solid:5b2a86",
    "solid:222222:c0c0c0",
    "stripes:111111:e0e0e0:0:30",
    "stripes:d35400:fdf2e9:135:50",
    "stripes:0b6e4f:f4f4f4:90:35",
    "checks:1f4e9a:f4f4f4:40",
    "checks:222222:d4af37:60",
    "diamonds:5b2a86:f4f4f4:70",
    "diamonds:0b6e4f:e8f5e9:50",
    "dots:c8102e:f4f4f4:60",
    "dots:14213d:87ceeb:50",
    "ring:c8102e:f4f4f4",
    "ring:14213d:d4af37",
    "ring:5b2a86:f4f4f4",
)

KINDS = ("solid", "stripes", "checks", "diamonds", "dots", "ring")

# colours people print card backs in (RGB hex)
_PALETTE = ("1f4e9a", "3b7dd8", "14213d", "c8102e", "7a0019", "b03a2e", "0b6e4f", "2f8f4f",
            "5b2a86", "8e44ad", "222222", "d35400", "b7950b", "1abc9c", "e91e63", "795548")
_LIGHTS = ("f4f4f4", "f0f0f0", "fdf2e9", "e8f5e9", "d4af37", "87ceeb", "e0e0e0", "fff8dc")


class BackError(ValueError):
    """A back id that cannot be parsed or drawn."""


def _rgb(text: str) -> tuple[int, int, int]:
    if len(text) != 6:
        raise BackError(f"colour must be rrggbb hex, not {text!r}")
    try:
        return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)
    except ValueError:
        raise BackError(f"colour must be rrggbb hex, not {text!r}") from None


def _num(text: str, lo: int, hi: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise BackError(f"{what} must be an integer, not {text!r}") from None
    if not lo <= value <= hi:
        raise BackError(f"{what} {value} out of range {lo}..{hi}")
    return value


def parse_back(back_id: str) -> tuple[str, list]:
    """Split and check a back id: (kind, parameters). Raises :class:`BackError`."""
    parts = back_id.split(":")
    kind, args = parts[0], parts[1:]
    if kind == "deck":
        if len(args) != 1:
            raise BackError(f"deck back id is deck:<name>, not {back_id!r}")
        decks.deck_info(args[0])
        return kind, args
    spec = {"solid": (1, 2), "stripes": (4, 4), "checks": (3, 3), "diamonds": (3, 3),
            "dots": (3, 3), "ring": (2, 2)}
    if kind not in spec:
        raise BackError(f"unknown back kind {kind!r} in {back_id!r}; kinds: deck, "
                        + ", ".join(spec))
    lo, hi = spec[kind]
    if not lo <= len(args) <= hi:
        raise BackError(f"wrong number of fields in back id {back_id!r}")
    colours = [_rgb(a) for a in args[:2]]
    params: list = list(colours)
    if kind == "stripes":
        params += [_num(args[2], 0, 179, "stripe angle"), _num(args[3], 10, 300, "period")]
    elif kind in ("checks", "diamonds", "dots"):
        params.append(_num(args[2], 10, 300, "cell size"))
    return kind, params


def random_back(rng: random.Random) -> str:
    """A random generated design's id."""
    kind = rng.choice(KINDS)
    dark = rng.choice(_PALETTE)
    light = rng.choice(_LIGHTS)
    if kind == "solid":
        return f"solid:{dark}" + (f":{light}" if rng.random() < 0.5 else "")
    if kind == "stripes":
        return f"stripes:{dark}:{light}:{rng.choice((0, 30, 45, 60, 90, 135))}:" \
               f"{rng.randrange(20, 80, 5)}"
    if kind == "ring":
        return f"ring:{dark}:{light}"
    return f"{kind}:{dark}:{light}:{rng.randrange(30, 90, 5)}"


def deck_backs(split: str | None = None) -> list[str]:
    """``deck:<name>`` ids of the installed usable decks."""
    return [f"deck:{name}" for name in decks.deck_names(split)]


def all_backs(include_decks: bool = True) -> list[str]:
    """Every named design: the hard pairs, the catalog and (if installed) the deck backs."""
    ids = [b for pair in HARD_PAIRS for b in pair] + list(CATALOG)
    if include_decks:
        ids += deck_backs()
    return ids


# --- drawing -----------------------------------------------------------------------------

def card_mask(height: int, width: int, radius_px: float | None = None) -> np.ndarray:
    """A card-shaped alpha mask (uint8 0/255, anti-aliased) with rounded corners."""
    r = radius_px if radius_px is not None else CORNER_MM * height / CARD_MM[1]
    ss = 4
    big = np.zeros((height * ss, width * ss), np.uint8)
    rr = max(1, round(r * ss))
    hh, ww = height * ss, width * ss
    cv2.rectangle(big, (rr, 0), (ww - 1 - rr, hh - 1), 255, -1)
    cv2.rectangle(big, (0, rr), (ww - 1, hh - 1 - rr), 255, -1)
    for cx, cy in ((rr, rr), (ww - 1 - rr, rr), (rr, hh - 1 - rr), (ww - 1 - rr, hh - 1 - rr)):
        cv2.circle(big, (cx, cy), rr, 255, -1)
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)


def _bgr(rgb: Sequence[int]) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], np.float32)


def _pattern(kind: str, params: list, height: int, width: int) -> np.ndarray:
    """The printed field (BGR float32), in card millimetres scaled to pixels."""
    px = height / CARD_MM[1]  # pixels per mm
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    xm, ym = (xs + 0.5) / px, (ys + 0.5) / px  # mm
    c1 = _bgr(params[0])
    c2 = _bgr(params[1]) if len(params) > 1 else c1
    if kind == "solid":
        t = np.zeros_like(xm)
        if len(params) > 1:  # a thin frame 2 mm inside the margin
            inner = MARGIN_MM + 2.0
            d = np.minimum.reduce([xm - inner, ym - inner, CARD_MM[0] - inner - xm,
                                   CARD_MM[1] - inner - ym])
            t = ((d > -0.5) & (d < 0.5)).astype(np.float32)
    elif kind == "stripes":
        angle, period = np.deg2rad(params[2]), params[3] / 10.0
        u = xm * np.cos(angle) + ym * np.sin(angle)
        t = ((u / period) % 1.0 < 0.5).astype(np.float32)
    elif kind == "checks":
        cell = params[2] / 10.0
        t = (((xm // cell) + (ym // cell)) % 2).astype(np.float32)
    elif kind == "diamonds":
        cell = params[2] / 10.0
        u, v = (xm + ym) / np.sqrt(2), (xm - ym) / np.sqrt(2)
        t = (((u // cell) + (v // cell)) % 2).astype(np.float32)
    elif kind == "dots":
        pitch = params[2] / 10.0
        gx = (xm % pitch) - pitch / 2
        gy = (ym % pitch) - pitch / 2
        t = (gx * gx + gy * gy < (pitch * 0.3) ** 2).astype(np.float32)
    elif kind == "ring":
        cx, cy = CARD_MM[0] / 2, CARD_MM[1] / 2
        r = np.hypot(xm - cx, ym - cy)
        ring = (r > 14.0) & (r < 18.0)
        ang = np.arctan2(ym - cy, xm - cx)
        star_r = 6.0 + 4.0 * np.cos(5 * ang) ** 2  # a simple five-lobed star inside
        t = (ring | (r < star_r)).astype(np.float32)
    else:  # pragma: no cover - parse_back rejects unknown kinds
        raise BackError(kind)
    return c1[None, None, :] * (1 - t[..., None]) + c2[None, None, :] * t[..., None]


@functools.lru_cache(maxsize=256)
def _generated(back_id: str, height: int, width: int) -> np.ndarray:
    kind, params = parse_back(back_id)
    ss = 2
    hh, ww = height * ss, width * ss
    field = _pattern(kind, params, hh, ww)
    px = hh / CARD_MM[1]
    img = np.empty((hh, ww, 3), np.float32)
    img[:] = _bgr(PAPER_RGB)
    m = round(MARGIN_MM * px)
    img[m:hh - m, m:ww - m] = field[m:hh - m, m:ww - m]
    small = cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
    out = np.empty((height, width, 4), np.uint8)
    out[..., :3] = np.clip(small + 0.5, 0, 255).astype(np.uint8)
    out[..., 3] = card_mask(height, width)
    out.setflags(write=False)
    return out


def back_image(back_id: str, height: int = 256, width: int | None = None) -> np.ndarray:
    """The back design as a card bitmap (BGRA uint8), ``height`` pixels high; ``width``
    defaults to the 63:88 card shape (deck backs keep their own shape unless given)."""
    if not 16 <= height <= 4096:
        raise BackError(f"card height {height} px is out of range 16..4096")
    kind, params = parse_back(back_id)
    if kind == "deck":
        img = decks.render_card(params[0], decks.BACK, height)
        if width is not None and img.shape[1] != width:
            img = cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
        return img
    if width is None:
        width = max(1, round(height * CARD_MM[0] / CARD_MM[1]))
    return _generated(back_id, height, width).copy()


# --- telling backs apart -----------------------------------------------------------------

_DESC_H = 64


@functools.lru_cache(maxsize=512)
def _descriptor(back_id: str) -> np.ndarray:
    img = back_image(back_id, _DESC_H, round(_DESC_H * CARD_MM[0] / CARD_MM[1]))
    bgr = np.ascontiguousarray(img[..., :3])
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 100 / 255
    lab[..., 1:] -= 128
    inner = lab[6:-6, 5:-5]
    return inner


def back_distance(a: str, b: str) -> float:
    """How different two backs look (about CIE ΔE units): the larger of the difference of
    their mean colours and half the mean per-pixel difference of the two images (64 px
    high), so that a change of colour or of pattern both count."""
    da, db = _descriptor(a), _descriptor(b)
    mean = float(np.linalg.norm(da.reshape(-1, 3).mean(0) - db.reshape(-1, 3).mean(0)))
    pix = float(np.linalg.norm(da - db, axis=2).mean())
    return max(mean, 0.5 * pix)


#: Two backs at least this far apart count as visibly different.
MIN_DISTANCE = 9.5


def assign_backs(seats: int, seed: int | None = None, hard_pair: bool | None = None,
                 pool: Sequence[str] | None = None) -> list[str]:
    """One back id per seat, all visibly different (pairwise :func:`back_distance` at least
    :data:`MIN_DISTANCE`). ``hard_pair`` True puts one of :data:`HARD_PAIRS` on the table
    (two seats, random places), False never, None (default) in about half of the tables.
    ``pool`` defaults to the catalog, the deck backs and a few random designs.
    """
    if not 1 <= seats <= 8:
        raise ValueError(f"seats must be 1..8, not {seats}")
    rng = random.Random(seed)
    if hard_pair is None:
        hard_pair = seats >= 2 and rng.random() < 0.5
    hard_ids = {b for pair in HARD_PAIRS for b in pair}
    if pool is None:
        pool = [b for b in all_backs() if b not in hard_ids]
        pool += [random_back(rng) for _ in range(8)]
    chosen: list[str] = []
    if hard_pair and seats >= 2:
        chosen.extend(rng.choice(HARD_PAIRS))
    candidates = list(dict.fromkeys(pool))
    rng.shuffle(candidates)
    for cand in candidates:
        if len(chosen) >= seats:
            break
        if cand in chosen:
            continue
        try:
            if all(back_distance(cand, c) >= MIN_DISTANCE for c in chosen):
                chosen.append(cand)
        except decks.DeckError:
            continue  # a deck back whose artwork is missing
    while len(chosen) < seats:  # the pool ran dry: invent designs until they differ
        cand = random_back(rng)
        if cand not in chosen and all(back_distance(cand, c) >= MIN_DISTANCE for c in chosen):
            chosen.append(cand)
    chosen = chosen[:seats]
    rng.shuffle(chosen)
    return chosen
