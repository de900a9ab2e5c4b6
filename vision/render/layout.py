"""Where the cards lie on the table: seats around a rectangular or round table, each seat's
layout (nertz pile, fanned river, stock, waste) facing its player, and the foundations of the
lake — in table millimetres (origin at the centre, x right, y down as seen from above).

Placements are stable: a card's small misalignment on its pile comes from its identity and
place, and each foundation keeps its spot and turn, so a video shows cards staying put while
the state changes; a still scene is one state of the same layout.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from rules.cards import Card
from rules.table import Table

from .backs import CARD_MM

CARD_W_MM, CARD_H_MM = CARD_MM
SHAPES = ("rect", "round")


class SceneError(ValueError):
    """A table or setting the renderer cannot draw (one line, before any drawing)."""


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


def _stable_rng(*key: Any) -> random.Random:
    return random.Random(":".join(map(str, key)))


@dataclass
class StableLayout:
    """Where every card lies for any state of one round, the same from frame to frame."""

    geo: TableShape
    styles: list[LayoutStyle]
    lake_slots: list[tuple[float, float, float]]  # per foundation: x, y, turn
    seed: int
    jitter: float = 1.0  # how untidily cards lie on their piles (0: exactly aligned)

    def misalign(self, owner: int, code: str, place: str, depth: int,
                 amount: float) -> tuple[float, float, float]:
        """A card's small offset (mm, mm, degrees) on its pile, the same in every frame."""
        r = _stable_rng(self.seed, owner, code, place, depth)
        return (r.uniform(-1, 1) * amount, r.uniform(-1, 1) * amount,
                r.uniform(-1, 1) * 1.3 * amount)

    def seat(self, table: Table, k: int) -> list[Placed]:
        seat, style = self.geo.seats[k], self.styles[k]
        layout = table.layouts[k]
        pitch = CARD_W_MM + style.gap
        rows: list[tuple[Card, str, int, bool, float, float, float, int]] = []

        def add(card: Card, place: str, depth: int, up: bool, x: float, y: float,
                size: int, squash: float = 1.0) -> None:
            dx, dy, da = self.misalign(k, card.code, place, depth, style.jitter_mm)
            rows.append((card, place, depth, up, x + dx, y + dy * squash, da, size))

        ncols = len(layout.river)
        row_w = (ncols + 1) * pitch + (0 if style.compact else 2 * pitch + 2 * style.fan_dx)
        x0 = -row_w / 2 + CARD_W_MM / 2
        y0 = -SEAT_DEPTH_MM / 2 + CARD_H_MM / 2
        n = len(layout.nertz)
        for d in range(max(0, n - 4), n):
            add(layout.nertz[d], f"seat{k}:nertz", d, d == n - 1, x0, y0, n)
        for i, col in enumerate(layout.river):
            for d, card in enumerate(col):
                add(card, f"seat{k}:river{i}", d, True, x0 + (i + 1) * pitch,
                    y0 + d * style.fan_dy, len(col), squash=0.3)
        if style.compact:
            sx, sy = x0, y0 + CARD_H_MM + 2 * style.gap + 40
        else:
            sx, sy = x0 + (ncols + 1) * pitch, y0
        stock = layout.stock[::-1]
        for d in range(max(0, len(stock) - 4), len(stock)):
            add(stock[d], f"seat{k}:stock", d, False, sx, sy, len(stock))
        waste = layout.waste
        n = len(waste)
        fan_start = max(0, n - 3)
        for d in range(max(0, n - 5), n):
            off = (d - fan_start) * style.fan_dx if d >= fan_start else 0.0
            add(waste[d], f"seat{k}:waste", d, True, sx + pitch + off, sy, n)
        turn = math.radians(style.turn_deg)
        rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        out = []
        for card, place, depth, up, x, y, da, size in rows:
            local = rot @ np.array([x, y]) + np.array(style.shift)
            cx, cy = seat.to_table(local[None, :])[0]
            out.append(Placed(card.code, k, place, depth, up, (float(cx), float(cy)),
                              seat.angle_deg + style.turn_deg + da, size))
        return out

    def lake(self, table: Table) -> list[Placed]:
        out = []
        for f in table.lake:
            if f.set_aside:
                continue
            x, y, turn = self.lake_slots[f.index % len(self.lake_slots)]
            m = len(f.placements)
            for d in range(max(0, m - 4), m):
                pl = f.placements[d]
                owner = pl.card.owner if pl.card.owner is not None else pl.seat
                dx, dy, da = self.misalign(owner, pl.card.code, f"lake:{f.index}", d,
                                           2.0 * self.jitter)
                if d == m - 1 and pl.counts:
                    dx, dy, da = dx * 0.3, dy * 0.3, da * 0.3
                out.append(Placed(pl.card.code, owner, f"lake:{f.index}", d, True,
                                  (x + dx, y + dy), turn + da, m))
        return out

    def all(self, table: Table) -> list[Placed]:
        out = []
        for k in range(table.seats):
            out += self.seat(table, k)
        return out + self.lake(table)

    def rest_point(self, k: int) -> np.ndarray:
        """Where a player's hand rests: just off the table edge in front of them."""
        seat = self.geo.seats[k]
        return seat.to_table(np.array([[0.0, SEAT_DEPTH_MM / 2 + 180.0]]))[0]

    def shoulder(self, k: int, side: float) -> np.ndarray:
        seat = self.geo.seats[k]
        return seat.to_table(np.array([[side * 180.0, SEAT_DEPTH_MM / 2 + 420.0]]))[0]


def build_layout(table: Table, lake_piles: int, index_extent: list[tuple[float, float]],
                 rng: random.Random, shape: str | None, seed: int, jitter: float = 1.0
                 ) -> StableLayout:
    """A random layout for ``table``: the table shape and size, each seat's style (fan
    offsets from ``index_extent``, the largest right and bottom edge of each seat's corner
    indices as fractions of the card), ``lake_piles`` foundation spots."""
    geo = table_shape(table.seats, shape or rng.choice(("rect", "round")),
                      max(4, lake_piles), rng)
    styles = []
    for k in range(table.seats):
        x2, y2 = index_extent[k]
        styles.append(LayoutStyle(
            gap=rng.uniform(6, 16), fan_dy=max(16.0, y2 * CARD_H_MM + rng.uniform(2.5, 6)),
            fan_dx=max(11.0, x2 * CARD_W_MM + rng.uniform(2.5, 5)), jitter_mm=1.2 * jitter,
            jitter_deg=1.5 * jitter, turn_deg=rng.uniform(-4, 4),
            shift=(rng.uniform(-20, 20), rng.uniform(-15, 15)), compact=rng.random() < 0.3))
    n = max(4, lake_piles)
    cols = max(1, math.ceil(math.sqrt(n * 1.6)))
    rows = math.ceil(n / cols)
    cell_w, cell_h = CARD_W_MM + 24, CARD_H_MM + 22
    centre = (rng.uniform(-30, 30), rng.uniform(-30, 30))
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    # the first piles go near the middle, later ones further out
    cells.sort(key=lambda rc: (rc[0] - (rows - 1) / 2) ** 2 + (rc[1] - (cols - 1) / 2) ** 2
               + rng.uniform(0, 1.5))
    slots = []
    for r, c in cells:
        turn = rng.uniform(-180, 180) if rng.random() < 0.5 else rng.uniform(-15, 15)
        slots.append((centre[0] + (c - (cols - 1) / 2) * cell_w + rng.uniform(-8, 8),
                      centre[1] + (r - (rows - 1) / 2) * cell_h + rng.uniform(-8, 8), turn))
    return StableLayout(geo, styles, slots, seed, jitter)


