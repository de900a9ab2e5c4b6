"""Still overhead scenes of a Nertz table, with exact labels.

Geometry lives on the table plane in millimetres: origin at the table's centre, x to the
right and y down as seen from above. Each seat's layout is built in its own frame (the
player sits at +y and reads the cards upright), then turned to face its player at the table
edge. A :class:`Camera` maps the table plane to image pixels with a homography, so the same
labels work for any tilt, rotation and scale (lens distortion, light and noise come later,
as image-space steps after :func:`render_still`).

Cards are warped one at a time, in z-order, straight from the card artwork into the image;
an id map records which card shows at each pixel, so each card's visible fraction and the
visibility of each of its corner indices are exact.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rules.cards import Card
from rules.table import Table

from . import backs as backs_mod
from . import decks as decks_mod

CARD_W_MM, CARD_H_MM = backs_mod.CARD_MM
#: Heights at which card artwork is rendered (and cached); smaller sizes are resized from
#: the next larger master.
MASTER_HEIGHTS = (256, 512, 1024)
INDEX_MEASURE_HEIGHT = 256
SHAPES = ("rect", "round")


class SceneError(ValueError):
    """A table or setting the renderer cannot draw (one line, before any drawing)."""


# --- camera ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Camera:
    """A pinhole camera above the table, aimed at ``aim_mm`` on the table plane.

    ``tilt_deg`` leans the optical axis away from straight down, towards the table
    direction ``tilt_dir_deg`` (0 = +x); ``roll_deg`` turns the image about the optical axis;
    ``distance_mm`` is the distance from the aim point along the axis (None: fit the table in
    the frame, see :meth:`fit`). ``fov_deg`` is the horizontal field of view.
    """

    size: tuple[int, int] = (1280, 720)
    fov_deg: float = 60.0
    tilt_deg: float = 0.0
    tilt_dir_deg: float = 90.0
    roll_deg: float = 0.0
    distance_mm: float | None = None
    aim_mm: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        w, h = self.size
        if not (16 <= w <= 8192 and 16 <= h <= 8192):
            raise SceneError(f"image size {w}x{h} is out of range 16..8192")
        if not 10 <= self.fov_deg <= 150:
            raise SceneError(f"fov_deg {self.fov_deg} is out of range 10..150")
        if not 0 <= self.tilt_deg <= 60:
            raise SceneError(f"tilt_deg {self.tilt_deg} is out of range 0..60")
        if self.distance_mm is not None and self.distance_mm <= 0:
            raise SceneError(f"distance_mm must be positive, not {self.distance_mm}")

    @property
    def focal_px(self) -> float:
        return (self.size[0] / 2) / math.tan(math.radians(self.fov_deg) / 2)

    def rotation(self) -> np.ndarray:
        """World (table x, y, z up) to camera axes (x right, y down, z forward)."""
        down = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, -1.0]])  # looking straight down
        t, d, r = (math.radians(a) for a in (self.tilt_deg, self.tilt_dir_deg, self.roll_deg))
        # lean the axis towards direction d: rotate about the horizontal axis normal to d
        axis = np.array([-math.sin(d), math.cos(d), 0.0])
        lean, _ = cv2.Rodrigues(axis * t)
        rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0],
                       [0, 0, 1.0]])
        return rz @ down @ lean.T

    def homography(self, distance_mm: float | None = None) -> np.ndarray:
        """3×3 matrix from table millimetres (x, y, 1) to image pixels."""
        dist = distance_mm if distance_mm is not None else self.distance_mm
        if dist is None:
            raise SceneError("camera distance unknown: call Camera.fit first")
        rot = self.rotation()
        axis = rot.T @ np.array([0, 0, 1.0])  # optical axis in world coordinates
        aim = np.array([self.aim_mm[0], self.aim_mm[1], 0.0])
        centre = aim - dist * axis
        t = -rot @ centre
        f = self.focal_px
        k = np.array([[f, 0, self.size[0] / 2], [0, f, self.size[1] / 2], [0, 0, 1.0]])
        hom = k @ np.column_stack([rot[:, 0], rot[:, 1], t])
        return hom / hom[2, 2]

    def fit(self, outline_mm: np.ndarray, margin: float = 0.04) -> Camera:
        """The same camera at the distance where ``outline_mm`` (N×2 table points) just fits
        inside the frame with ``margin`` (fraction of each side) to spare."""
        w, h = self.size
        lo_x, hi_x, lo_y, hi_y = margin * w, (1 - margin) * w, margin * h, (1 - margin) * h

        def fits(dist: float) -> bool:
            p = project(self.homography(dist), outline_mm)
            if not np.all(np.isfinite(p)):
                return False
            return bool(p[:, 0].min() >= lo_x and p[:, 0].max() <= hi_x
                        and p[:, 1].min() >= lo_y and p[:, 1].max() <= hi_y)

        lo, hi = 50.0, 50_000.0
        if not fits(hi):
            raise SceneError("the table does not fit the frame at any camera distance")
        for _ in range(40):
            mid = math.sqrt(lo * hi)
            if fits(mid):
                hi = mid
            else:
                lo = mid
        return Camera(self.size, self.fov_deg, self.tilt_deg, self.tilt_dir_deg,
                      self.roll_deg, hi, self.aim_mm)


def project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to N×2 points."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ hom.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return q[:, :2] / q[:, 2:3]


# --- table geometry ----------------------------------------------------------------------

@dataclass(frozen=True)
class Seat:
    """Where a seat's layout sits: its frame's origin on the table and its turn (degrees,
    0 = the player at the bottom of the image, at +y)."""

    index: int
    origin_mm: tuple[float, float]
    angle_deg: float

    def to_table(self, pts: np.ndarray) -> np.ndarray:
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(pts, np.float64) @ rot.T + np.array(self.origin_mm)


@dataclass(frozen=True)
class TableShape:
    """The table top: ``rect`` (width × depth mm) or ``round`` (width = diameter)."""

    shape: str
    width_mm: float
    depth_mm: float
    seats: tuple[Seat, ...]

    def outline(self, n: int = 64) -> np.ndarray:
        if self.shape == "round":
            a = np.linspace(0, 2 * math.pi, n, endpoint=False)
            return np.column_stack([np.cos(a), np.sin(a)]) * (self.width_mm / 2)
        w, d = self.width_mm / 2, self.depth_mm / 2
        return np.array([[-w, -d], [w, -d], [w, d], [-w, d]], np.float64)


#: The footprint of one seat's layout in its own frame (mm): width along the table edge and
#: the depth it reaches in from the edge.
SEAT_WIDTH_MM = 560.0
SEAT_DEPTH_MM = 260.0
EDGE_GAP_MM = 40.0  # from the table edge to the nearest card of a layout


def table_shape(seats: int, shape: str = "rect", lake_cells: int = 16,
                rng: random.Random | None = None) -> TableShape:
    """Seats around a ``rect`` or ``round`` table for 2–8 players, clockwise from the
    bottom, each facing the table centre; the middle leaves room for ``lake_cells``
    foundations."""
    if shape not in SHAPES:
        raise SceneError(f"table shape must be one of {', '.join(SHAPES)}, not {shape!r}")
    if not 2 <= seats <= 8:
        raise SceneError(f"a table has 2 to 8 seats, not {seats}")
    rng = rng or random.Random(0)
    lake_w = math.sqrt(max(lake_cells, 4) * 1.6) * 85.0
    lake_d = max(lake_cells, 4) * 85.0 * 110.0 / lake_w
    reach = SEAT_DEPTH_MM + EDGE_GAP_MM
    out: list[Seat] = []
    if shape == "round":
        radius = max(seats * (SEAT_WIDTH_MM + 40) / (2 * math.pi) + reach * 0.3,
                     reach + 0.5 * math.hypot(lake_w, lake_d) + 30)
        radius *= rng.uniform(1.0, 1.08)
        for k in range(seats):
            ang = 90.0 + 360.0 * k / seats  # k = 0 at the bottom, then clockwise
            a = math.radians(ang)
            r = radius - EDGE_GAP_MM - SEAT_DEPTH_MM / 2
            out.append(Seat(k, (r * math.cos(a), r * math.sin(a)), ang - 90.0))
        return TableShape("round", 2 * radius, 2 * radius, tuple(out))
    ends = 0 if seats <= 4 else (1 if seats == 5 else 2)
    south = (seats - ends + 1) // 2
    north = seats - ends - south
    long_n = max(south, north)
    width = long_n * SEAT_WIDTH_MM + (2 * reach if ends else 80)
    depth = max(2 * reach + lake_d + 60, SEAT_WIDTH_MM + 2 * 40 if ends else 0)
    width = max(width, lake_w + (2 * reach if ends else 0) + 60)
    width *= rng.uniform(1.0, 1.08)
    depth *= rng.uniform(1.0, 1.08)
    w2, d2 = width / 2, depth / 2
    inset = EDGE_GAP_MM + SEAT_DEPTH_MM / 2

    def along(n: int) -> list[float]:
        span = width - (2 * reach if ends else 0)
        return [(-span / 2 + span * (i + 0.5) / n) for i in range(n)]

    # clockwise seen from above with y down: bottom side right to left, left end, top side
    # left to right, right end
    for x in reversed(along(south)):
        out.append(Seat(len(out), (x, d2 - inset), 0.0))
    if ends == 2:
        out.append(Seat(len(out), (-w2 + inset, 0.0), 90.0))
    for x in along(north):
        out.append(Seat(len(out), (x, -d2 + inset), 180.0))
    if ends >= 1:
        out.append(Seat(len(out), (w2 - inset, 0.0), 270.0))
    return TableShape("rect", width, depth, tuple(out))


# --- textures ----------------------------------------------------------------------------

def _noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about ``cell`` pixels wide."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


TEXTURES = ("wood", "felt", "cloth", "laminate")


def table_texture(kind: str, h: int, w: int, px_per_mm: float,
                  rng: np.random.Generator) -> np.ndarray:
    """A table-top texture (BGR uint8, h × w pixels at ``px_per_mm``)."""
    if kind == "wood":
        base = np.array(rng.choice([[40, 80, 130], [30, 60, 100], [70, 120, 170],
                                    [25, 45, 75], [90, 140, 185]]), np.float32)
        base = base * rng.uniform(0.85, 1.15)
        ys = np.arange(h, dtype=np.float32)[:, None] / px_per_mm
        warp = _noise(rng, h, w, 120 * px_per_mm) * 6
        period = rng.uniform(3, 8)
        grain = np.sin(2 * np.pi * (ys + warp) / period)
        streak = cv2.resize(rng.normal(0, 1, (h, max(2, w // 40))).astype(np.float32), (w, h))
        plank = rng.uniform(90, 200) * px_per_mm
        seams = (np.abs((ys * px_per_mm + 0.5 * plank) % plank - 0.5 * plank) < 0.8)
        shade = 1 + 0.08 * grain + 0.05 * streak + 0.06 * _noise(rng, h, w, 300 * px_per_mm)
        img = base[None, None, :] * shade[..., None]
        img[np.broadcast_to(seams, (h, w))] *= 0.55
    elif kind == "felt":
        base = np.array(rng.choice([[50, 110, 30], [40, 90, 20], [120, 60, 20], [40, 40, 130],
                                    [60, 60, 60], [90, 40, 30]]), np.float32)
        base = base * rng.uniform(0.8, 1.2)
        shade = 1 + 0.05 * _noise(rng, h, w, 200 * px_per_mm)
        img = base[None, None, :] * shade[..., None] + rng.normal(0, 6, (h, w, 1))
    elif kind == "cloth":
        c1 = np.array(rng.choice([[235, 235, 235], [210, 225, 240], [200, 215, 200]]),
                      np.float32)
        c2 = np.array(rng.choice([[60, 60, 200], [160, 90, 40], [60, 130, 60], [70, 70, 70]]),
                      np.float32)
        cell = rng.uniform(8, 20) * px_per_mm
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        a = ((xs // cell) % 2).astype(np.float32)
        b = ((ys // cell) % 2).astype(np.float32)
        mix = 0.5 * (a + b) * rng.uniform(0.5, 0.9)
        img = c1 * (1 - mix[..., None]) + c2 * mix[..., None]
        weave = np.sin(xs * 2.2) * np.sin(ys * 2.2)
        img = img * (1 + 0.04 * weave[..., None]) + rng.normal(0, 4, (h, w, 1))
    elif kind == "laminate":
        base = np.array(rng.choice([[225, 225, 225], [180, 180, 175], [120, 125, 130],
                                    [200, 215, 225]]), np.float32)
        shade = 1 + 0.03 * _noise(rng, h, w, 150 * px_per_mm)
        img = base[None, None, :] * shade[..., None] + rng.normal(0, 3, (h, w, 1))
    else:
        raise SceneError(f"texture must be one of {', '.join(TEXTURES)}, not {kind!r}")
    return np.clip(img, 0, 255).astype(np.uint8)


# --- card artwork at the right size ------------------------------------------------------

@functools.lru_cache(maxsize=2048)
def _face(deck: str, code: str, height: int) -> np.ndarray:
    master = next((m for m in MASTER_HEIGHTS if m >= height), MASTER_HEIGHTS[-1])
    img = decks_mod.render_card(deck, code, master)
    if height < master:
        width = max(1, round(img.shape[1] * height / master))
        img = cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
    img.setflags(write=False)
    return img


@functools.lru_cache(maxsize=64)
def _shape(deck: str, height: int) -> np.ndarray:
    """The card outline (alpha) every card of a seat using ``deck`` shares, so cards that
    lie exactly on each other cover each other exactly."""
    return _face(deck, "AS", height)[..., 3]


def _with_shape(img: np.ndarray, shape: np.ndarray) -> np.ndarray:
    h, w = shape.shape
    if img.shape[:2] != (h, w):
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    else:
        img = img.copy()
    img[..., 3] = shape
    img.setflags(write=False)
    return img


@functools.lru_cache(maxsize=2048)
def _art(deck: str, code: str, height: int) -> np.ndarray:
    """A face of ``deck`` in the seat's common card outline."""
    return _with_shape(_face(deck, code, height), _shape(deck, height))


@functools.lru_cache(maxsize=256)
def _back(back_id: str, deck: str, height: int) -> np.ndarray:
    """A back design cut to the card outline of the seat's ``deck``."""
    kind, params = backs_mod.parse_back(back_id)
    if kind == "deck":
        img = _face(params[0], decks_mod.BACK, height)
    else:
        img = backs_mod.back_image(back_id, height, _shape(deck, height).shape[1])
    return _with_shape(img, _shape(deck, height))


@functools.lru_cache(maxsize=4096)
def _index_boxes(deck: str, code: str) -> tuple[tuple[float, float, float, float], ...]:
    return tuple(decks_mod.index_boxes(deck, code, INDEX_MEASURE_HEIGHT))


def _tier(px: float) -> int:
    """The artwork height to warp from for a card about ``px`` pixels high."""
    for t in (48, 64, 96, 128, 192, 256, 384, 512, 768, 1024):
        if t >= 1.3 * px:
            return t
    return 1024


# --- placements --------------------------------------------------------------------------

@dataclass
class Placed:
    """One physical card to draw: what, whose, where (table mm) and how it lies."""

    card: str  # the card's code
    owner: int
    place: str
    depth: int  # position in its pile, 0 = bottom
    face_up: bool
    center: tuple[float, float]  # table mm
    angle_deg: float  # turn of the card's top edge from the table's -y direction
    pile_size: int = 1

    def corners_mm(self) -> np.ndarray:
        """Table-mm corners in artwork order: top-left, top-right, bottom-right,
        bottom-left of the printed card."""
        w, h = CARD_W_MM / 2, CARD_H_MM / 2
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ rot.T + np.array(self.center)


@dataclass
class LayoutStyle:
    """How one seat lays its cards out (all mm); drawn at random per seat."""

    gap: float = 10.0
    fan_dy: float = 26.0  # river: offset of each card towards the player
    fan_dx: float = 17.0  # waste: offset of each of the top three cards
    jitter_mm: float = 1.2
    jitter_deg: float = 1.5
    turn_deg: float = 0.0  # the whole layout, relative to facing the player squarely
    shift: tuple[float, float] = (0.0, 0.0)
    compact: bool = False  # stock and waste in a second row nearer the player


def _index_extent(deck: str, codes: Sequence[str]) -> tuple[float, float]:
    """The largest right and bottom edge (fractions) of these cards' top-left indices."""
    x2, y2 = 0.22, 0.28
    for code in codes:
        boxes = _index_boxes(deck, code)
        if boxes:
            x2, y2 = max(x2, boxes[0][2]), max(y2, boxes[0][3])
    return x2, y2


def seat_placements(table: Table, seat: Seat, style: LayoutStyle,
                    rng: random.Random) -> list[Placed]:
    """Every card of one seat's layout, laid out in table millimetres."""
    k = seat.index
    layout = table.layouts[k]
    pitch = CARD_W_MM + style.gap
    placed: list[tuple[Any, ...]] = []  # (card, place, depth, face_up, x, y, angle, size)

    def jit() -> tuple[float, float, float]:
        j = style.jitter_mm
        return rng.uniform(-j, j), rng.uniform(-j, j), rng.uniform(-1, 1) * style.jitter_deg

    def pile(cards: list[Card], place: str, x: float, y: float, top_up: bool,
             show: int = 4, all_up: bool = False) -> None:
        n = len(cards)
        for d in range(max(0, n - show), n):
            dx, dy, da = jit()
            up = all_up or (top_up and d == n - 1)
            placed.append((cards[d].code, place, d, up, x + dx, y + dy, da, n))

    ncols = len(layout.river)
    row_w = (ncols + 1) * pitch + (0 if style.compact else 2 * pitch + 2 * style.fan_dx)
    x0 = -row_w / 2 + CARD_W_MM / 2
    y0 = -SEAT_DEPTH_MM / 2 + CARD_H_MM / 2
    pile(layout.nertz, f"seat{k}:nertz", x0, y0, top_up=True)
    for i, col in enumerate(layout.river):
        x = x0 + (i + 1) * pitch
        for d, card in enumerate(col):
            dx, dy, da = jit()
            placed.append((card.code, f"seat{k}:river{i}", d, True, x + dx,
                           y0 + d * style.fan_dy + dy * 0.3, da, len(col)))
    if style.compact:
        sx, sy = x0, y0 + CARD_H_MM + 2 * style.gap + 40
    else:
        sx, sy = x0 + (ncols + 1) * pitch, y0
    pile(layout.stock[::-1], f"seat{k}:stock", sx, sy, top_up=False, show=4)
    wx = sx + pitch
    waste = layout.waste
    n = len(waste)
    fan_start = max(0, n - 3)
    for d in range(max(0, n - 5), n):
        dx, dy, da = jit()
        off = (d - fan_start) * style.fan_dx if d >= fan_start else 0.0
        placed.append((waste[d].code, f"seat{k}:waste", d, True, wx + off + dx, sy + dy, da, n))

    out = []
    turn = math.radians(style.turn_deg)
    rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    for code, place, depth, up, x, y, da, size in placed:
        local = rot @ np.array([x, y]) + np.array(style.shift)
        cx, cy = seat.to_table(local[None, :])[0]
        out.append(Placed(code, k, place, depth, up, (float(cx), float(cy)),
                          seat.angle_deg + style.turn_deg + da, size))
    return out


def lake_placements(table: Table, rng: random.Random,
                    centre: tuple[float, float] = (0.0, 0.0),
                    jitter: float = 1.0) -> list[Placed]:
    """The foundations in the middle: a loose grid, each pile at a slightly random place and
    turn; cards of a pile slightly misaligned, as they slide on."""
    found = table.lake
    n = len(found)
    if n == 0:
        return []
    cols = max(1, math.ceil(math.sqrt(n * 1.6)))
    rows = math.ceil(n / cols)
    cell_w, cell_h = CARD_W_MM + 24, CARD_H_MM + 22
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    rng.shuffle(cells)
    out: list[Placed] = []
    for f, (r, c) in zip(found, cells, strict=False):
        cx = centre[0] + (c - (cols - 1) / 2) * cell_w + rng.uniform(-8, 8)
        cy = centre[1] + (r - (rows - 1) / 2) * cell_h + rng.uniform(-8, 8)
        turn = rng.uniform(-180, 180) if rng.random() < 0.5 else rng.uniform(-15, 15)
        cards = f.placements
        m = len(cards)
        for d in range(max(0, m - 4), m):
            pl = cards[d]
            top = d == m - 1
            dx = 0.0 if top else rng.uniform(-2, 2) * jitter
            dy = 0.0 if top else rng.uniform(-2, 2) * jitter
            da = 0.0 if top else rng.uniform(-4, 4) * jitter
            owner = pl.card.owner if pl.card.owner is not None else pl.seat
            out.append(Placed(pl.card.code, owner, f"lake:{f.index}", d, True,
                              (cx + dx, cy + dy), turn + da, m))
    return out


# --- the scene ---------------------------------------------------------------------------

@dataclass
class Scene:
    """A rendered still: the image (BGR uint8) and its exact labels."""

    image: np.ndarray
    cards: list[dict[str, Any]]
    homography: np.ndarray  # table mm -> image px
    camera: Any  # Camera here, or a vision.render.camera.Camera
    table: TableShape
    seat_decks: list[str]
    seat_backs: list[str]
    texture: str
    seed: int
    id_map: np.ndarray = field(repr=False)  # per pixel: index into ``drawn`` or -1
    drawn: list[Placed] = field(repr=False, default_factory=list)

    def labels(self) -> dict[str, Any]:
        """JSON-ready labels of the frame."""
        h, w = self.image.shape[:2]
        return {
            "width": w, "height": h, "seed": self.seed,
            "homography": [[float(v) for v in row] for row in self.homography],
            "camera": _camera_dict(self.camera),
            "table": {"shape": self.table.shape, "width_mm": self.table.width_mm,
                      "depth_mm": self.table.depth_mm, "texture": self.texture,
                      "seats": [{"seat": s.index, "origin_mm": list(s.origin_mm),
                                 "angle_deg": s.angle_deg} for s in self.table.seats]},
            "decks": self.seat_decks, "backs": self.seat_backs,
            "cards": self.cards,
        }


def _card_to_table(width_px: int, height_px: int, placed: Placed) -> np.ndarray:
    """3×3: artwork pixel coordinates -> table mm."""
    sx, sy = CARD_W_MM / width_px, CARD_H_MM / height_px
    a = math.radians(placed.angle_deg)
    c, s = math.cos(a), math.sin(a)
    to_local = np.array([[sx, 0, -CARD_W_MM / 2], [0, sy, -CARD_H_MM / 2], [0, 0, 1]])
    rot = np.array([[c, -s, placed.center[0]], [s, c, placed.center[1]], [0, 0, 1]])
    return rot @ to_local


def _random_camera(rng: random.Random, size: tuple[int, int]) -> Camera:
    tilt = rng.choice([0.0, 0.0, rng.uniform(0, 12), rng.uniform(5, 25)])
    return Camera(size=size, fov_deg=rng.uniform(50, 75), tilt_deg=tilt,
                  tilt_dir_deg=rng.uniform(0, 360), roll_deg=rng.uniform(-8, 8))


def render_still(table: Table, seed: int = 0, *, size: tuple[int, int] = (1280, 720),
                 decks: Sequence[str] | None = None, backs: Sequence[str] | None = None,
                 split: str | None = "train", shape: str | None = None,
                 texture: str | None = None, camera: Camera | None = None,
                 min_index_visible: float = 0.6, jitter: float = 1.0) -> Scene:
    """Render a still overhead image of a table state, with exact labels.

    ``decks`` gives each seat's face design (default: from ``split``; a seat with a deck's
    own back uses that deck's faces), ``backs`` each seat's back id (default:
    :func:`backs.assign_backs`). ``camera`` without a distance is fitted to the table.
    ``jitter`` scales how untidily cards lie on their piles (0: exactly aligned). An index
    counts as visible when at least ``min_index_visible`` of its box shows.
    Everything random follows ``seed``: the same table, seed and settings give the same
    image.
    """
    n = table.seats
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    if any(c.is_joker for c in table.all_cards()):
        raise SceneError("jokers have no card artwork yet; render a table without jokers")
    pool = decks_mod.deck_names(split)
    if not pool:
        raise SceneError("no card artwork installed: run scripts/setup_assets.sh")
    # --- who plays with what ---
    if backs is None:
        back_pool = [b for b in backs_mod.all_backs(include_decks=False)
                     if b not in {x for p in backs_mod.HARD_PAIRS for x in p}]
        back_pool += backs_mod.deck_backs(split)
        back_pool += [backs_mod.random_back(rng) for _ in range(6)]
        seat_backs = backs_mod.assign_backs(n, rng.randrange(1 << 30), pool=back_pool)
    else:
        seat_backs = list(backs)
        if len(seat_backs) != n:
            raise SceneError(f"{len(seat_backs)} backs for {n} seats")
        for b in seat_backs:
            backs_mod.parse_back(b)
    if decks is None:
        seat_decks = []
        for b in seat_backs:
            kind, params = backs_mod.parse_back(b)
            seat_decks.append(params[0] if kind == "deck" else rng.choice(pool))
    else:
        seat_decks = list(decks)
        if len(seat_decks) != n:
            raise SceneError(f"{len(seat_decks)} decks for {n} seats")
        for d in seat_decks:
            info = decks_mod.deck_info(d)
            if info.split == "excluded":
                raise SceneError(f"deck {d!r} is excluded: {info.reason}")
    # --- geometry ---
    shape = shape or rng.choice(SHAPES)
    geo = table_shape(n, shape, max(4, len(table.lake)), rng)
    placed: list[Placed] = []
    for seat in geo.seats:
        layout = table.layouts[seat.index]
        deck = seat_decks[seat.index]
        river_codes = [c.code for col in layout.river for c in col[:-1]]
        x2, y2 = _index_extent(deck, river_codes + [c.code for c in layout.waste[-3:-1]])
        style = LayoutStyle(
            gap=rng.uniform(6, 16),
            fan_dy=max(16.0, y2 * CARD_H_MM + rng.uniform(2.5, 6)),
            fan_dx=max(11.0, x2 * CARD_W_MM + rng.uniform(2.5, 5)),
            jitter_mm=1.2 * jitter,
            jitter_deg=1.5 * jitter,
            turn_deg=rng.uniform(-4, 4),
            shift=(rng.uniform(-20, 20), rng.uniform(-15, 15)),
            compact=rng.random() < 0.3,
        )
        placed += seat_placements(table, seat, style, rng)
    placed += lake_placements(table, rng, (rng.uniform(-30, 30), rng.uniform(-30, 30)),
                              jitter)
    # --- camera ---
    cam = camera or _random_camera(rng, size)
    if isinstance(cam, Camera):
        if cam.distance_mm is None:
            cam = cam.fit(geo.outline(), margin=rng.uniform(0.0, 0.05))
        hom = cam.homography()
        width, height = cam.size
    else:
        hom, width, height = _foreign_camera(cam)
    # --- background: floor, then the table top through the homography ---
    floor = np.array(rng.choice([[40, 45, 50], [70, 80, 90], [30, 30, 30], [90, 100, 80]]),
                     np.float32)
    image = np.clip(floor + nrng.normal(0, 5, (height, width, 1)), 0, 255).astype(np.uint8)
    tex_kind = texture or rng.choice(TEXTURES)
    jac = _px_per_mm(hom, (0.0, 0.0))
    tex_res = float(min(max(jac, 0.5), 4.0))
    th, tw = int(geo.depth_mm * tex_res) + 2, int(geo.width_mm * tex_res) + 2
    tex = table_texture(tex_kind, th, tw, tex_res, nrng)
    tex_to_table = np.array([[1 / tex_res, 0, -geo.width_mm / 2],
                             [0, 1 / tex_res, -geo.depth_mm / 2], [0, 0, 1]])
    m = hom @ tex_to_table
    top = cv2.warpPerspective(tex, m, (width, height), flags=cv2.INTER_LINEAR)
    mask = np.zeros((height, width), np.uint8)
    outline = project(hom, geo.outline(128)).astype(np.float32)
    cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    a = (mask.astype(np.float32) / 255)[..., None]
    image = (top * a + image * (1 - a)).astype(np.uint8)
    # --- cards, in z-order ---
    order = sorted(range(len(placed)), key=lambda i: (_z(placed[i]), i))
    drawn = [placed[i] for i in order]
    id_map = np.full((height, width), -1, np.int32)
    totals = np.zeros(len(drawn), np.int64)
    rois = [(0, 0, 0, 0)] * len(drawn)
    for idx, p in enumerate(drawn):
        corners = project(hom, p.corners_mm())
        px_h = max(np.linalg.norm(corners[3] - corners[0]), np.linalg.norm(corners[2] - corners[1]))
        tier = _tier(px_h)
        if p.face_up:
            art = _art(seat_decks[p.owner], p.card, tier)
        else:
            art = _back(seat_backs[p.owner], seat_decks[p.owner], tier)
        ah, aw = art.shape[:2]
        ch = hom @ _card_to_table(aw, ah, p)
        x0 = max(0, int(math.floor(corners[:, 0].min())) - 1)
        y0 = max(0, int(math.floor(corners[:, 1].min())) - 1)
        x1 = min(width, int(math.ceil(corners[:, 0].max())) + 2)
        y1 = min(height, int(math.ceil(corners[:, 1].max())) + 2)
        if x1 <= x0 or y1 <= y0:
            continue
        rois[idx] = (x0, y0, x1, y1)
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        warped = cv2.warpPerspective(art, shift @ ch, (x1 - x0, y1 - y0),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3:4].astype(np.float32) / 255
        roi = image[y0:y1, x0:x1]
        roi[:] = (warped[..., :3] * alpha + roi * (1 - alpha) + 0.5).astype(np.uint8)
        solid = warped[..., 3] >= 128
        id_map[y0:y1, x0:x1][solid] = idx
        totals[idx] = int(solid.sum())
    # --- labels ---
    counts = np.bincount(id_map[id_map >= 0].ravel(), minlength=len(drawn))
    labels: list[dict[str, Any]] = []
    for idx, p in enumerate(drawn):
        if counts[idx] == 0 or totals[idx] == 0:
            continue
        corners = project(hom, p.corners_mm())
        vis = float(counts[idx] / totals[idx])
        indices = []
        if p.face_up:
            for corner, box in zip(("tl", "br"), _index_boxes(seat_decks[p.owner], p.card),
                                   strict=False):
                quad_mm = _frac_box_to_mm(box, p)
                quad = project(hom, quad_mm)
                frac = _region_fraction(id_map, quad, idx)
                if frac >= min_index_visible:
                    indices.append({
                        "corner": corner,
                        "box": _bbox(quad, width, height),
                        "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in quad],
                        "visible": round(frac, 4)})
        rx0, ry0, rx1, ry1 = rois[idx]
        ys, xs = np.nonzero(id_map[ry0:ry1, rx0:rx1] == idx)
        xs, ys = xs + rx0, ys + ry0
        labels.append({
            "code": p.card if p.face_up else "back",
            "card": p.card,
            "owner": p.owner,
            "place": p.place,
            "depth": p.depth,
            "pile_size": p.pile_size,
            "face_up": p.face_up,
            "deck": seat_decks[p.owner],
            "design": seat_backs[p.owner],
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
            "box": _bbox(corners, width, height),
            "visible_box": [int(xs.min()), int(ys.min()), int(xs.max()) + 1,
                            int(ys.max()) + 1],
            "visible": round(vis, 4),
            "indices": indices,
            "z": idx,
        })
    return Scene(image, labels, hom, cam, geo, seat_decks, seat_backs, tex_kind, seed,
                 id_map, drawn)


def _foreign_camera(cam: Any) -> tuple[np.ndarray, int, int]:
    """Homography and size of a :class:`vision.render.camera.Camera` (or any object with
    ``homography()``, ``width`` and ``height`` whose table frame has +y pointing *up*): its
    y axis is flipped to this module's y-down table frame."""
    if not all(hasattr(cam, a) for a in ("homography", "width", "height")):
        raise SceneError(f"not a camera: {cam!r}")
    if getattr(cam, "k1", 0.0) or getattr(cam, "k2", 0.0):
        raise SceneError("render_still draws through a homography; apply lens distortion "
                         "(k1, k2) to the finished scene instead")
    flip = np.diag([1.0, -1.0, 1.0])
    hom = np.asarray(cam.homography(), np.float64) @ flip
    return hom / hom[2, 2], int(cam.width), int(cam.height)


def _camera_dict(cam: Any) -> dict[str, Any]:
    import dataclasses

    if dataclasses.is_dataclass(cam):
        out = dataclasses.asdict(cam)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in out.items()}
    return {"repr": repr(cam)}


_PLACE_Z = {"nertz": 0, "river": 1, "stock": 2, "waste": 3}


def _z(p: Placed) -> tuple[int, int, int]:
    kind = p.place.split(":")[1].rstrip("0123456789") if p.place.startswith("seat") else "lake"
    return (0 if kind != "lake" else 1, _PLACE_Z.get(kind, 4), p.depth)


def _px_per_mm(hom: np.ndarray, at: tuple[float, float]) -> float:
    p = project(hom, np.array([at, (at[0] + 10, at[1]), (at[0], at[1] + 10)]))
    return float(0.5 * (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 10)


def _frac_box_to_mm(box: Sequence[float], p: Placed) -> np.ndarray:
    x1, y1, x2, y2 = box
    pts = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) * np.array([CARD_W_MM, CARD_H_MM])
    a = math.radians(p.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return (pts - np.array([CARD_W_MM / 2, CARD_H_MM / 2])) @ rot.T + np.array(p.center)


def _bbox(quad: np.ndarray, width: int, height: int) -> list[float]:
    x1, y1 = quad.min(axis=0)
    x2, y2 = quad.max(axis=0)
    return [round(float(max(0, x1)), 2), round(float(max(0, y1)), 2),
            round(float(min(width, x2)), 2), round(float(min(height, y2)), 2)]


def _region_fraction(id_map: np.ndarray, quad: np.ndarray, idx: int) -> float:
    """Share of the pixels inside ``quad`` where card ``idx`` shows."""
    h, w = id_map.shape
    x0 = max(0, int(math.floor(quad[:, 0].min())))
    y0 = max(0, int(math.floor(quad[:, 1].min())))
    x1 = min(w, int(math.ceil(quad[:, 0].max())) + 1)
    y1 = min(h, int(math.ceil(quad[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = np.round((quad - [x0, y0]) * 16).astype(np.int32)
    cv2.fillPoly(m, [pts], 1, cv2.LINE_8, shift=4)
    inside = m.astype(bool)
    total = int(inside.sum())
    if total == 0:
        return 0.0
    # pixels of the quad outside the image count as not visible
    full = _quad_area(quad)
    return float((id_map[y0:y1, x0:x1][inside] == idx).sum() / max(total, full))


def _quad_area(q: np.ndarray) -> float:
    x, y = q[:, 0], q[:, 1]
    return float(0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


def random_table(seats: int, seed: int = 0, steps: int | None = None,
                 rules: Any = None) -> Table:
    """A mid-game table state for still scenes: a deal, then ``steps`` random legal actions
    (moves to the lake preferred), so that foundations, fanned river columns and a waste
    exist. Deterministic in ``seed``."""
    from rules.moves import Move

    rng = random.Random(seed)
    table = Table.deal(seats=seats, rules=rules, seed=rng.randrange(1 << 30))
    steps = rng.randrange(20, 40 * seats) if steps is None else steps
    t = 0
    for _ in range(steps):
        seat = rng.randrange(seats)
        options = list(table.legal_moves(seat))
        if not options:
            continue
        lake = [a for a in options if isinstance(a, Move) and a.dst.startswith("lake")]
        river = [a for a in options if isinstance(a, Move) and not a.dst.startswith("lake")]
        if lake and rng.random() < 0.8:
            action = rng.choice(lake)
        elif river and rng.random() < 0.6:
            action = rng.choice(river)
        else:
            action = rng.choice(options)
        if type(action).__name__ == "Call":
            continue
        t += rng.randrange(200, 900)
        table.push(action, t)
    return table
