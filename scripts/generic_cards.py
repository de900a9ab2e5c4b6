"""Generic playing cards for the index classifier: a plain card whose corner index (rank above
suit pip) is drawn with many fonts and styles, so the classifier learns rank glyph shapes
beyond the SVG decks' few index fonts (a real condensed "10" must not read as Q or K).

:func:`generic_card` returns a BGRA card (poker proportions 63×88, rounded corners, off-white
paper, sometimes a thin border, big pips or a court picture's frame to the right of the
index, sometimes the second index turned 180° at the bottom right) and the exact top-left
index box. Ranks come from the DejaVu TrueType fonts on this machine (through Pillow) and
OpenCV's Hershey fonts, squeezed, thickened or thinned, moved and coloured at random; pips
from the DejaVu suit glyphs or drawn shapes. Fonts are only read from the local disk; without
Pillow or the font files, only Hershey fonts are used. Glyph bitmaps are cached per process,
so a card takes about a millisecond.
"""

from __future__ import annotations

import math
import random
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np

CARD_ASPECT = 63 / 88  # width / height
REF = 96  # glyph bitmaps are cached at about this height (pixels)


def _matplotlib_fonts() -> tuple[Path, ...]:
    """matplotlib's bundled fonts (STIX, Computer Modern): installed with the train extra."""
    try:
        import matplotlib
    except ImportError:
        return ()
    return (Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf",)


FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"),
             Path("/usr/share/fonts/TTF"), Path("/usr/local/share/fonts"),
             *_matplotlib_fonts())
# (file, weight 0 light … 2 bold, italic): the styles a rank may be drawn in
TTF_FONTS = (
    ("DejaVuSans.ttf", 1, False), ("DejaVuSans-Bold.ttf", 2, False),
    ("DejaVuSans-ExtraLight.ttf", 0, False), ("DejaVuSansCondensed.ttf", 1, False),
    ("DejaVuSansCondensed-Bold.ttf", 2, False), ("DejaVuSerif.ttf", 1, False),
    ("DejaVuSerif-Bold.ttf", 2, False), ("DejaVuSerifCondensed.ttf", 1, False),
    ("DejaVuSerifCondensed-Bold.ttf", 2, False), ("DejaVuSansMono.ttf", 1, False),
    ("DejaVuSansMono-Bold.ttf", 2, False), ("DejaVuSans-Oblique.ttf", 1, True),
    ("DejaVuSerif-Italic.ttf", 1, True), ("DejaVuSansCondensed-Oblique.ttf", 1, True),
    # Times-like and Computer Modern faces (from matplotlib, when installed): real decks'
    # indices are mostly serif faces like these
    ("STIXGeneral.ttf", 1, False), ("STIXGeneralBol.ttf", 2, False),
    ("STIXGeneralItalic.ttf", 1, True), ("cmr10.ttf", 1, False), ("cmb10.ttf", 2, False),
    ("cmss10.ttf", 1, False), ("cmtt10.ttf", 1, False),
)
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
           cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN)
SUIT_CHARS = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
RED_SUITS = ("H", "D")


# ---------------------------------------------------------------- glyph bitmaps (cached)

def _tight(mask: np.ndarray) -> np.ndarray:
    """The mask cropped to its ink (an empty mask becomes 1×1)."""
    ys, xs = np.nonzero(mask > 40)
    if len(xs) == 0:
        return np.zeros((1, 1), np.uint8)
    return np.ascontiguousarray(mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


@cache
def _font_path(name: str) -> str | None:
    for d in FONT_DIRS:
        p = d / name
        if p.is_file():
            return str(p)
    return None


@cache
def _ttf(name: str):
    """A Pillow font at the reference size, or None (no Pillow, no file, unreadable)."""
    path = _font_path(name)
    if path is None:
        return None
    try:
        from PIL import ImageFont
        return ImageFont.truetype(path, int(REF * 1.35))
    except (ImportError, OSError):
        return None


def available_ttf() -> list[tuple[str, int, bool]]:
    """The rank fonts of :data:`TTF_FONTS` that can be loaded here."""
    return [f for f in TTF_FONTS if _ttf(f[0]) is not None]


@cache
def _ttf_glyph(name: str, ch: str) -> np.ndarray | None:
    """A character's ink (uint8, tight) in a TrueType font; None if the font lacks it."""
    font = _ttf(name)
    if font is None:
        return None
    from PIL import Image, ImageDraw
    x1, y1, x2, y2 = font.getbbox(ch)
    img = Image.new("L", (x2 - x1 + 8, y2 - y1 + 8), 0)
    ImageDraw.Draw(img).text((4 - x1, 4 - y1), ch, font=font, fill=255)
    mask = _tight(np.asarray(img))
    if ch in SUIT_CHARS.values():  # a missing glyph is drawn as the .notdef box
        nx1, ny1, nx2, ny2 = font.getbbox("\uffff")
        ref = Image.new("L", (nx2 - nx1 + 8, ny2 - ny1 + 8), 0)
        ImageDraw.Draw(ref).text((4 - nx1, 4 - ny1), "\uffff", font=font, fill=255)
        notdef = _tight(np.asarray(ref))
        if notdef.shape == mask.shape and np.array_equal(notdef, mask):
            return None
    return mask


@cache
def _hershey_glyph(face: int, thick: int, italic: bool, ch: str) -> np.ndarray:
    """A character's ink (uint8, tight) in a Hershey font, about REF px tall."""
    font = face | (cv2.FONT_ITALIC if italic else 0)
    (_, h0), _ = cv2.getTextSize("8", font, 1.0, 1)
    scale = REF / max(h0, 1)
    (w, h), base = cv2.getTextSize(ch, font, scale, thick)
    pad = thick + 8
    img = np.zeros((h + base + 2 * pad, w + 2 * pad), np.uint8)
    cv2.putText(img, ch, (pad, pad + h), font, scale, 255, thick, cv2.LINE_AA)
    return _tight(img)


@cache
def _weighted(key: tuple, radius: int) -> np.ndarray:
    """A cached glyph made bolder (radius > 0) or thinner (radius < 0)."""
    base = _glyph_by_key(key)
    if radius == 0:
        return base
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(radius) + 1,) * 2)
    if radius > 0:
        padded = cv2.copyMakeBorder(base, radius, radius, radius, radius, cv2.BORDER_CONSTANT)
        return _tight(cv2.dilate(padded, k))
    thin = cv2.erode(base, k)
    return _tight(thin) if thin.max() > 128 else base


def _glyph_by_key(key: tuple) -> np.ndarray:
    if key[0] == "ttf":
        g = _ttf_glyph(key[1], key[2])
        assert g is not None
        return g
    return _hershey_glyph(key[1], key[2], key[3], key[4])


# ---------------------------------------------------------------- drawing helpers

def _put(layer: np.ndarray, mask: np.ndarray, x: int, y: int) -> None:
    """Max-combine a 0–1 float ``mask`` into ``layer`` with its top-left at (x, y)."""
    h, w = mask.shape
    lh, lw = layer.shape
    x1, y1, x2, y2 = max(x, 0), max(y, 0), min(x + w, lw), min(y + h, lh)
    if x2 <= x1 or y2 <= y1:
        return
    sub = mask[y1 - y:y2 - y, x1 - x:x2 - x]
    np.maximum(layer[y1:y2, x1:x2], sub, out=layer[y1:y2, x1:x2])


def _ink(img: np.ndarray, layer: np.ndarray, colour: np.ndarray) -> None:
    """Print ``colour`` onto the BGRA ``img`` (uint8) where the 0–1 ``layer`` says."""
    x, y, w, h = cv2.boundingRect((layer > 0.002).view(np.uint8))
    if w == 0 or h == 0:
        return
    sub = np.ascontiguousarray(img[y:y + h, x:x + w])
    ink = sub.copy()
    ink[..., :3] = colour
    a = np.ascontiguousarray(layer[y:y + h, x:x + w])
    img[y:y + h, x:x + w] = cv2.blendLinear(sub, ink, 1 - a, a)


def _resize(mask: np.ndarray, w: float, h: float) -> np.ndarray:
    """A uint8 glyph mask scaled to about w×h pixels, as 0–1 float."""
    w, h = max(1, round(w)), max(1, round(h))
    interp = cv2.INTER_AREA if h < mask.shape[0] else cv2.INTER_LINEAR
    return cv2.resize(mask, (w, h), interpolation=interp).astype(np.float32) / 255


def _shape_pip(suit: str, rng: random.Random) -> np.ndarray:
    """A suit pip drawn from circles and polygons (uint8, tight, about REF px tall)."""
    img = np.zeros((REF + 8, REF + 8), np.uint8)

    def pt(x: float, y: float) -> tuple[int, int]:  # 4 fractional bits: smooth edges
        return round((x * REF + 4) * 16), round((y * REF + 4) * 16)

    def circle(x: float, y: float, r: float) -> None:
        cv2.circle(img, pt(x, y), round(r * REF * 16), 255, -1, cv2.LINE_AA, 4)

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [np.array([pt(x, y) for x, y in points], np.int32)], 255,
                     cv2.LINE_AA, 4)

    if suit == "D":
        w = rng.uniform(0.28, 0.42)
        bulge = rng.uniform(0.0, 0.06)
        pts = []
        for t in np.linspace(0, 2 * math.pi, 33)[:-1]:
            cx, cy = math.sin(t), -math.cos(t)
            n = abs(cx) + abs(cy)  # on the unit diamond |x| + |y| = 1
            k = 1 - bulge * abs(math.sin(2 * t))  # sides slightly curved in
            pts.append((0.5 + w * cx / n * k, 0.5 + 0.5 * cy / n * k))
        poly(pts)
    elif suit == "H":
        r = rng.uniform(0.22, 0.27)
        top = r + rng.uniform(0.0, 0.04)
        circle(0.5 - r * 0.95, top, r)
        circle(0.5 + r * 0.95, top, r)
        poly([(0.5 - 1.93 * r, top + 0.25 * r), (0.5 + 1.93 * r, top + 0.25 * r), (0.5, 1.0)])
    elif suit == "S":
        r = rng.uniform(0.2, 0.24)
        bot = 0.78 - r
        circle(0.5 - r * 0.95, bot, r)
        circle(0.5 + r * 0.95, bot, r)
        poly([(0.5 - 1.93 * r, bot - 0.25 * r), (0.5 + 1.93 * r, bot - 0.25 * r), (0.5, 0.0)])
        sw = rng.uniform(0.04, 0.12)
        poly([(0.5 - 0.02, bot), (0.5 + 0.02, bot), (0.5 + sw, 1.0), (0.5 - sw, 1.0)])
    else:  # clubs
        r = rng.uniform(0.17, 0.2)
        circle(0.5, r + 0.01, r)
        circle(0.5 - r * 1.15, 0.25 + r * 1.05, r)
        circle(0.5 + r * 1.15, 0.25 + r * 1.05, r)
        circle(0.5, 0.25 + r * 0.9, r * 0.6)
        sw = rng.uniform(0.04, 0.12)
        poly([(0.5 - 0.03, 0.4), (0.5 + 0.03, 0.4), (0.5 + sw, 1.0), (0.5 - sw, 1.0)])
    return _tight(img)


def _ink_colour(red: bool, rng: random.Random) -> np.ndarray:
    if red:
        bgr = [rng.uniform(10, 70), rng.uniform(10, 60), rng.uniform(150, 230)]
    else:
        v = rng.uniform(5, 45)
        bgr = [v + rng.uniform(-6, 12), v + rng.uniform(-6, 6), v + rng.uniform(-6, 6)]
    return np.clip(np.round(bgr), 0, 255).astype(np.uint8)


@lru_cache(maxsize=64)
def _round_alpha(h: int, w: int, r: int) -> np.ndarray:
    a = np.zeros((h * 4, w * 4), np.uint8)
    rr = r * 4
    cv2.rectangle(a, (rr, 0), (w * 4 - 1 - rr, h * 4 - 1), 255, -1)
    cv2.rectangle(a, (0, rr), (w * 4 - 1, h * 4 - 1 - rr), 255, -1)
    for cx, cy in ((rr, rr), (w * 4 - 1 - rr, rr), (rr, h * 4 - 1 - rr),
                   (w * 4 - 1 - rr, h * 4 - 1 - rr)):
        cv2.circle(a, (cx, cy), rr, 255, -1, cv2.LINE_AA)
    return cv2.resize(a, (w, h), interpolation=cv2.INTER_AREA)


# ---------------------------------------------------------------- the rank glyphs

def _rank_glyphs(rank: str, rng: random.Random) -> list[np.ndarray]:
    """The rank's characters (uint8 masks, tight) in one randomly chosen font and weight."""
    chars = ["1", "0"] if rank == "10" else [rank]
    fonts = available_ttf()
    if fonts and rng.random() < 0.55:
        name, weight, italic = rng.choice(fonts)
        if italic and rng.random() < 0.6:  # italics are rare on cards
            name, weight, italic = rng.choice([f for f in fonts if not f[2]] or fonts)
        if rank == "10" and "Mono" in name:  # its dotted zero is not a card's
            name, weight, italic = rng.choice([f for f in fonts if "Mono" not in f[0]]
                                              or fonts)
        radius = rng.choice([-2, -1, 0, 0, 0, 2, 3, 5]) if weight < 2 else rng.choice(
            [-3, -2, 0, 0, 2])
        keys = [("ttf", name, c) for c in chars]
    else:
        face = rng.choice(HERSHEY)
        thick = rng.choice([3, 5, 7, 9, 11, 13, 16])
        italic = rng.random() < 0.08
        radius = 0
        keys = [("hershey", face, thick, italic, c) for c in chars]
    glyphs = [_weighted(k, radius) for k in keys]
    if rank == "10" and rng.random() < 0.25:  # a "1" that is a plain bar, maybe a flag
        g0 = glyphs[1]
        h = g0.shape[0]
        bw = max(3, round(h * rng.uniform(0.09, 0.2)))
        bar = np.zeros((h, bw + round(0.2 * h)), np.uint8)
        cv2.rectangle(bar, (bar.shape[1] - bw, 0), (bar.shape[1] - 1, h - 1), 255, -1)
        if rng.random() < 0.5:
            fl = round(rng.uniform(0.1, 0.22) * h)
            cv2.fillPoly(bar, [np.array([[bar.shape[1] - bw, 0], [0, fl],
                                         [0, fl + bw // 2], [bar.shape[1] - bw, bw]],
                                        np.int32)], 255, cv2.LINE_AA)
        glyphs[0] = _tight(bar)
    return glyphs


def _draw_rank(layer: np.ndarray, rank: str, rng: random.Random, x: float, y: float,
               rh: float) -> tuple[int, int, int, int]:
    """Draw the rank with its top-left at (x, y), rh px tall; returns its pixel box."""
    glyphs = _rank_glyphs(rank, rng)
    if rank == "10":
        squeeze = rng.uniform(0.45, 0.95)
        gap = rh * rng.choice([rng.uniform(-0.04, 0.02), rng.uniform(0.0, 0.12)])
    else:
        squeeze = rng.uniform(0.6, 1.2)
        gap = 0.0
    cx = x
    x2 = x
    h0 = max(g.shape[0] for g in glyphs)
    for g in glyphs:
        s = rh / h0
        gh = g.shape[0] * s
        gw = g.shape[1] * s * squeeze
        if g.shape[1] < 0.3 * g.shape[0]:  # a narrow "1" or "I" keeps some width
            gw = max(gw, 0.12 * rh)
        m = _resize(g, gw, gh)
        yy = y + (rh - gh)  # characters share a baseline
        _put(layer, m, round(cx), round(yy))
        x2 = max(x2, round(cx) + m.shape[1])
        cx = round(cx) + m.shape[1] + gap
    return round(x), round(y), x2, round(y + rh)


def _pip_mask(suit: str, rng: random.Random) -> np.ndarray:
    """A pip bitmap: a DejaVu suit glyph or a drawn shape."""
    if rng.random() < 0.5:
        fonts = [f for f in available_ttf() if "Sans" in f[0] or "Serif" in f[0]]
        rng.shuffle(fonts)
        for name, _, italic in fonts:
            if italic:
                continue
            g = _ttf_glyph(name, SUIT_CHARS[suit])
            if g is not None:
                return g
    return _shape_pip(suit, rng)


# ---------------------------------------------------------------- card furniture

PIP_ROWS = {  # number cards: pips as (column, row) in a 3×7 grid (0–2, 0–6)
    2: [(1, 0), (1, 6)], 3: [(1, 0), (1, 3), (1, 6)],
    4: [(0, 0), (2, 0), (0, 6), (2, 6)], 5: [(0, 0), (2, 0), (1, 3), (0, 6), (2, 6)],
    6: [(0, 0), (2, 0), (0, 3), (2, 3), (0, 6), (2, 6)],
    7: [(0, 0), (2, 0), (1, 1.5), (0, 3), (2, 3), (0, 6), (2, 6)],
    8: [(0, 0), (2, 0), (1, 1.5), (0, 3), (2, 3), (1, 4.5), (0, 6), (2, 6)],
    9: [(0, 0), (2, 0), (0, 2), (2, 2), (1, 3), (0, 4), (2, 4), (0, 6), (2, 6)],
    10: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2), (0, 4), (2, 4), (1, 5), (0, 6), (2, 6)],
}


def _centre_pips(img: np.ndarray, rank: str, pip: np.ndarray, colour: np.ndarray,
                 index_right: int, rng: random.Random) -> None:
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.float32)
    if rank == "A":
        size = w * rng.uniform(0.3, 0.55)
        m = _resize(pip, size * pip.shape[1] / pip.shape[0], size)
        _put(layer, m, round(w / 2 - m.shape[1] / 2), round(h / 2 - m.shape[0] / 2))
    else:
        n = int(rank)
        size = w * rng.uniform(0.15, 0.22)
        pw = size * pip.shape[1] / pip.shape[0]
        left = max(w * rng.uniform(0.25, 0.32), index_right + w * rng.uniform(0.01, 0.06)
                   + pw / 2)
        xs = (left, w / 2, w - left)
        top = h * rng.uniform(0.1, 0.2) + size / 2
        m = _resize(pip, pw, size)
        flipped = m[::-1, ::-1]
        for col, row in PIP_ROWS[n]:
            cy = top + (h - 2 * top) * row / 6
            g = flipped if row > 3 else m
            _put(layer, g, round(xs[col] - g.shape[1] / 2), round(cy - g.shape[0] / 2))
    _ink(img, layer, colour)


def _court_frame(img: np.ndarray, pip: np.ndarray, colour: np.ndarray, index_right: int,
                 rng: random.Random) -> None:
    """The frame of a court card's picture, a few blobs of colour inside, maybe a big pip."""
    h, w = img.shape[:2]
    fx = min(index_right + w * rng.uniform(0.015, 0.07), w * 0.4)
    fy = h * rng.uniform(0.04, 0.12)
    x1, y1, x2, y2 = round(fx), round(fy), round(w - fx), round(h - fy)
    art = img[y1:y2, x1:x2].copy()
    palette = [(40, 190, 230), (40, 40, 200), (150, 70, 30), (25, 25, 25), (200, 200, 200),
               (60, 140, 60)]
    for _ in range(rng.randint(4, 12)):
        c = rng.choice(palette)
        ah, aw = art.shape[:2]
        if aw < 4 or ah < 4:
            break
        centre = (rng.randint(0, aw), rng.randint(0, ah))
        axes = (rng.randint(2, max(3, aw // 3)), rng.randint(2, max(3, ah // 4)))
        cv2.ellipse(art, centre, axes, rng.uniform(0, 180), 0, 360, (*c, 255), -1,
                    cv2.LINE_AA)
    img[y1:y2, x1:x2] = art
    if rng.random() < 0.6:  # the big pip in the picture's top-left
        size = w * rng.uniform(0.12, 0.2)
        m = _resize(pip, size * pip.shape[1] / pip.shape[0], size)
        layer = np.zeros((h, w), np.float32)
        px, py = x1 + round(w * rng.uniform(0.01, 0.04)), y1 + round(h * rng.uniform(0.01, 0.03))
        _put(layer, m, px, py)
        _put(layer, m[::-1, ::-1], w - px - m.shape[1], h - py - m.shape[0])
        _ink(img, layer, colour)
    line = rng.choice([(120, 60, 20), (30, 30, 30), (40, 160, 200), (40, 40, 180)])
    cv2.rectangle(img, (x1, y1), (x2, y2), (*line, 255), rng.choice([1, 1, 2, 3]),
                  cv2.LINE_AA)


# ---------------------------------------------------------------- the card

def generic_card(code: str, rng: random.Random, height: int = 256,
                 ) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A generic card for ``code`` (e.g. "10H") as BGRA, ``height`` px tall, and its
    top-left index box (rank and pip ink) as fractions (x1, y1, x2, y2) of its width and
    height. Deterministic for the state of ``rng``."""
    rank, suit = code[:-1], code[-1]
    h = height
    w = round(h * CARD_ASPECT)
    img = np.empty((h, w, 4), np.uint8)
    paper = np.array([rng.uniform(215, 252)] * 3, np.float32)
    paper += np.array([rng.uniform(-10, 4), rng.uniform(-5, 4), rng.uniform(-3, 4)])
    img[..., :3] = paper.clip(0, 255).round().astype(np.uint8)
    radius = max(2, round(w * rng.uniform(0.03, 0.09)))
    img[..., 3] = _round_alpha(h, w, radius)

    inset = 0
    if rng.random() < 0.25:  # a thin printed border
        inset = round(w * rng.uniform(0.02, 0.045))
        bc = rng.choice([(120, 120, 120), (150, 80, 30), (40, 40, 170), (60, 60, 60)])
        cv2.rectangle(img, (inset, inset), (w - 1 - inset, h - 1 - inset), (*bc, 255),
                      1, cv2.LINE_AA)

    colour = _ink_colour(suit in RED_SUITS, rng)
    layer = np.zeros((h, w), np.float32)
    rh = h * rng.uniform(0.075, 0.15)
    x0 = max(w * rng.uniform(0.035, 0.1), inset + 3)
    y0 = max(h * rng.uniform(0.025, 0.075), inset + 3)
    rx1, ry1, rx2, ry2 = _draw_rank(layer, rank, rng, x0, y0, rh)
    pip = _pip_mask(suit, rng)
    ph = rh * rng.uniform(0.5, 0.85)
    pw = ph * pip.shape[1] / pip.shape[0] * rng.uniform(0.9, 1.1)
    pcx = (rx1 + rx2) / 2 + (rx2 - rx1) * rng.uniform(-0.12, 0.12)
    if rng.random() < 0.2:  # pip aligned to the rank's left edge
        pcx = rx1 + pw / 2
    py = ry2 + rh * rng.uniform(0.04, 0.3)
    pm = _resize(pip, pw, ph)
    px = max(round(pcx - pm.shape[1] / 2), round(inset + 2))
    _put(layer, pm, px, round(py))

    bx1, by1, bw, bh = cv2.boundingRect((layer > 0.25).view(np.uint8))
    bx2, by2 = bx1 + bw, by1 + bh

    if rank in ("J", "Q", "K"):
        if rng.random() < 0.75:
            _court_frame(img, pip, colour, int(bx2), rng)
    elif rng.random() < 0.7:
        _centre_pips(img, rank, pip, colour, int(bx2), rng)

    if rng.random() < 0.5:  # the second index, turned 180°, at the bottom right
        np.maximum(layer, layer[::-1, ::-1], out=layer)
    _ink(img, layer, colour)
    box = (bx1 / w, by1 / h, bx2 / w, by2 / h)
    return img, tuple(float(v) for v in box)
