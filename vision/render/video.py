"""Render a simulated round (its event log) as the video an overhead webcam would record,
with exact per-frame labels.

Every card keeps its place between frames: a card's small misalignment on its pile is drawn
from its identity and place, and each foundation keeps its spot and turn in the lake. Each
action of the log is animated: the player's arm reaches in from their side of the table,
picks the card up, carries it (motion-blurred) and lands it at the event's ``t_ms``, then
withdraws; several players move at once. The still layer (table and resting cards) is
redrawn only when a card leaves or lands; each frame adds arms, hands, shadows and moving
cards, the lens distortion, light and sensor noise.

Labels (``*.labels.jsonl``): a header line (video size, fps, camera, homography, table,
seats' decks and back designs), then per frame every visible card (code or ``back``, card,
owner, place — ``null`` while in a hand —, corners, box, visible fraction, visible corner
index boxes, face up) and every hand. Coordinates are distorted image pixels.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.cards import Card
from rules.log import replay
from rules.moves import Draw, Move, Recycle, Retract, Rotate, action_from_event
from rules.table import Table

from . import backs as backs_mod
from . import decks as decks_mod
from .camera import Camera, CameraError, Lighting, Photometry
from .scene import (
    CARD_H_MM,
    CARD_W_MM,
    SEAT_DEPTH_MM,
    TEXTURES,
    LayoutStyle,
    Placed,
    SceneError,
    TableShape,
    _art,
    _back,
    _card_to_table,
    _frac_box_to_mm,
    _index_boxes,
    _index_extent,
    _tier,
    _z,
    project,
    table_shape,
    table_texture,
)

SKIN_TONES = [(60, 90, 140), (90, 130, 190), (120, 160, 215), (40, 60, 95), (150, 180, 225),
              (75, 110, 165)]
SLEEVES = [(40, 40, 40), (140, 60, 30), (30, 30, 140), (200, 200, 200), (40, 110, 40),
           (90, 60, 110), (20, 90, 160), (120, 120, 120)]
REACH_MS = 260
RETURN_MS = 280
SPEED_MM_PER_MS = 1.1


class RenderError(ValueError):
    """A log, deck or camera setting the renderer refuses, before any frame is drawn."""


@dataclass(frozen=True)
class VideoSettings:
    """What to render: size, frame rate, seed, camera, light, decks and backs."""

    fps: float = 30.0
    size: tuple[int, int] = (1280, 720)
    seed: int = 0
    camera: Camera | None = None  # None: a random plausible webcam fitted to the table
    lighting: Lighting | None = None  # None: random light from the seed
    split: str = "train"  # which deck pool to draw faces from
    decks: tuple[str, ...] | None = None
    backs: tuple[str, ...] | None = None
    shape: str | None = None
    texture: str | None = None
    round_no: int = 1
    start_s: float = 0.0
    max_seconds: float | None = None
    labels_every: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.fps <= 120:
            raise RenderError(f"fps {self.fps} is out of range [1, 120]")
        w, h = self.size
        if not (160 <= w <= 7680 and 120 <= h <= 4320):
            raise RenderError(f"size {w}x{h} is out of range (160x120 to 7680x4320)")
        if self.split not in ("train", "test"):
            raise RenderError(f"split must be train or test, not {self.split!r}")
        if self.shape is not None and self.shape not in ("rect", "round"):
            raise RenderError(f"table shape must be rect or round, not {self.shape!r}")
        if self.texture is not None and self.texture not in TEXTURES:
            raise RenderError(f"texture must be one of {', '.join(TEXTURES)}")
        if self.labels_every < 1:
            raise RenderError("labels_every must be at least 1")
        for deck in self.decks or ():
            try:
                info = decks_mod.deck_info(deck)
            except decks_mod.DeckError as exc:
                raise RenderError(str(exc)) from None
            if info.split == "excluded":
                raise RenderError(f"deck {deck!r} is excluded: {info.reason}")
        for back in self.backs or ():
            try:
                backs_mod.parse_back(back)
            except ValueError as exc:
                raise RenderError(str(exc)) from None


# --- stable layout -------------------------------------------------------------------------

def _stable_rng(*key: Any) -> random.Random:
    return random.Random(":".join(map(str, key)))


@dataclass
class StableLayout:
    """Where every card lies for any state of one round, the same from frame to frame."""

    geo: TableShape
    styles: list[LayoutStyle]
    lake_slots: list[tuple[float, float, float]]  # per foundation: x, y, turn
    seed: int

    def jitter(self, owner: int, code: str, place: str, depth: int,
               amount: float) -> tuple[float, float, float]:
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
            dx, dy, da = self.jitter(k, card.code, place, depth, style.jitter_mm)
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
                dx, dy, da = self.jitter(owner, pl.card.code, f"lake:{f.index}", d, 2.0)
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


def build_layout(table: Table, lake_piles: int, decks: list[str], rng: random.Random,
                 shape: str | None, seed: int) -> StableLayout:
    geo = table_shape(table.seats, shape or rng.choice(("rect", "round")),
                      max(4, lake_piles), rng)
    styles = []
    for k in range(table.seats):
        x2, y2 = _index_extent(decks[k], [c.code for c in table.layouts[k].cards()])
        styles.append(LayoutStyle(
            gap=rng.uniform(6, 16), fan_dy=max(16.0, y2 * CARD_H_MM + rng.uniform(2.5, 6)),
            fan_dx=max(11.0, x2 * CARD_W_MM + rng.uniform(2.5, 5)), jitter_mm=1.2,
            jitter_deg=1.5, turn_deg=rng.uniform(-4, 4),
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
    return StableLayout(geo, styles, slots, seed)


# --- the timeline --------------------------------------------------------------------------

@dataclass
class Motion:
    """One animated action: cards leave ``src`` poses at ``lift`` and land at ``land``."""

    seat: int
    action: Any
    event: dict[str, Any]
    lift: float
    land: float
    reach_from: float
    cards: list[tuple[Placed, Placed]]  # (pose at the source, pose at the target)
    keys: set[tuple[int, str]] = field(default_factory=set)  # (owner, code) in flight
    flip: bool = False  # face down while moving (stock to waste), face up on landing


def _ease(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def _lerp_pose(a: Placed, b: Placed, u: float, lifted: bool) -> Placed:
    e = _ease(u)
    da = (b.angle_deg - a.angle_deg + 180) % 360 - 180
    return replace(a, center=(a.center[0] + (b.center[0] - a.center[0]) * e,
                              a.center[1] + (b.center[1] - a.center[1]) * e),
                   angle_deg=a.angle_deg + da * e, place="", depth=10_000 if lifted else a.depth)


def build_motions(events: list[dict[str, Any]], table: Table, layout: StableLayout
                  ) -> list[Motion]:
    """Pair every action of the log with the poses its cards move between."""
    motions: list[Motion] = []
    busy_until = [0.0] * table.seats
    for event in events:
        if event["type"] not in ("move", "retract", "draw", "recycle", "rotate"):
            if event["type"] in ("call", "set_aside", "pass"):
                table.push(action_from_event(event), event["t_ms"])
            continue
        action = action_from_event(event)
        t = float(event["t_ms"])
        seat = action.seat
        def poses(t: Table = table, k: int = seat) -> list[Placed]:
            return layout.seat(t, k) + layout.lake(t)

        before = {(p.owner, p.card, p.place): p for p in poses()}
        moved: list[tuple[int, str]] = []
        flip = False
        if isinstance(action, Move | Retract):
            src = action.src
            pile = table.pile(src)
            n = action.n if isinstance(action, Move) else 1
            owner_cards = pile[-n:] if src.startswith("seat") else [
                next(c for c in reversed(pile) if c.code == action.card)]
            moved = [(c.owner, c.code) for c in owner_cards]
        elif isinstance(action, Draw):
            stock = table.layouts[seat].stock
            moved = [(c.owner, c.code) for c in stock[:table.rules.draw]]
            flip = True
        elif isinstance(action, Recycle):
            moved = [(c.owner, c.code) for c in table.layouts[seat].waste[-4:]]
        elif isinstance(action, Rotate):
            moved = [(c.owner, c.code) for c in table.layouts[seat].stock[:1]]
        table.push(action, int(t))
        after = {(p.owner, p.card): p for p in poses()}
        pairs = []
        for owner, code in moved:
            src_pose = next((p for (o, c, _pl), p in before.items() if o == owner and c == code),
                            None)
            dst_pose = after.get((owner, code))
            if src_pose is None or dst_pose is None:
                continue
            pairs.append((src_pose, dst_pose))
        if not pairs:
            continue
        dist = max(math.dist(a.center, b.center) for a, b in pairs)
        travel = min(800.0, max(220.0, dist / SPEED_MM_PER_MS))
        lift = max(t - travel, busy_until[seat] + 40.0)
        lift = min(lift, t - 80.0)
        reach_from = max(lift - REACH_MS, busy_until[seat])
        busy_until[seat] = t + 60.0
        motions.append(Motion(seat, action, event, lift, t, reach_from, pairs,
                              {(a.owner, a.card) for a, _b in pairs}, flip))
    return motions


# --- drawing -------------------------------------------------------------------------------

class Painter:
    """Draws cards, arms and shadows through the camera's homography (table mm, y down)."""

    def __init__(self, hom: np.ndarray, size: tuple[int, int], decks: list[str],
                 backs: list[str]) -> None:
        self.hom = hom
        self.width, self.height = size
        self.decks, self.backs = decks, backs

    def card(self, image: np.ndarray, ids: np.ndarray | None, p: Placed, idx: int,
             alpha: float = 1.0) -> tuple[int, int, int, int] | None:
        corners = project(self.hom, p.corners_mm())
        px_h = max(np.linalg.norm(corners[3] - corners[0]),
                   np.linalg.norm(corners[2] - corners[1]))
        tier = _tier(px_h)
        if p.face_up:
            art = _art(self.decks[p.owner], p.card, tier)
        else:
            art = _back(self.backs[p.owner], self.decks[p.owner], tier)
        ah, aw = art.shape[:2]
        x0 = max(0, int(math.floor(corners[:, 0].min())) - 1)
        y0 = max(0, int(math.floor(corners[:, 1].min())) - 1)
        x1 = min(self.width, int(math.ceil(corners[:, 0].max())) + 2)
        y1 = min(self.height, int(math.ceil(corners[:, 1].max())) + 2)
        if x1 <= x0 or y1 <= y0:
            return None
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        m = shift @ self.hom @ _card_to_table(aw, ah, p)
        warped = cv2.warpPerspective(art, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        a = warped[..., 3:4].astype(np.float32) * (alpha / 255)
        roi = image[y0:y1, x0:x1]
        roi[:] = (warped[..., :3] * a + roi * (1 - a) + 0.5).astype(np.uint8)
        if ids is not None:
            ids[y0:y1, x0:x1][warped[..., 3] >= 128] = idx
        return x0, y0, x1, y1

    def poly(self, pts_mm: np.ndarray) -> np.ndarray:
        return np.round(project(self.hom, pts_mm) * 16).astype(np.int32)


def _arm_polygons(shoulder: np.ndarray, hand: np.ndarray, width_mm: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The sleeve (a tapered band from shoulder to wrist) and the hand (an oval with fingers)
    in table mm."""
    d = hand - shoulder
    length = float(np.linalg.norm(d)) or 1.0
    u = d / length
    v = np.array([-u[1], u[0]])
    wrist = hand - u * 70
    sleeve = np.array([shoulder + v * width_mm / 2, wrist + v * width_mm * 0.32,
                       wrist - v * width_mm * 0.32, shoulder - v * width_mm / 2])
    a = np.linspace(0, 2 * math.pi, 20, endpoint=False)
    palm = np.stack([np.cos(a) * 58, np.sin(a) * 45], axis=1)
    fingers = np.array([[55, 40], [95, 22], [100, 0], [95, -22], [55, -40]], np.float64)
    shape = np.concatenate([palm[(palm[:, 0] < 20)], fingers])
    ang = np.arctan2(shape[:, 1], shape[:, 0])
    shape = shape[np.argsort(ang)]
    centre = hand - u * 25
    hand_poly = centre + shape[:, :1] * u + shape[:, 1:] * v
    return sleeve, hand_poly


# --- the renderer --------------------------------------------------------------------------

class RoundRenderer:
    """Renders one round of an event log frame by frame."""

    def __init__(self, log_path: str | Path, settings: VideoSettings) -> None:
        self.settings = settings
        try:
            result = replay(log_path)
        except ValueError as exc:
            raise RenderError(f"{log_path}: the log fails `nertz check`: {exc}") from None
        if not result.consistent:
            problem = next(p for r in result.rounds for p in r.problems)
            raise RenderError(f"{log_path}: the log fails `nertz check`: {problem}")
        rounds = [r for r in result.rounds if r.round_no == settings.round_no]
        if not rounds:
            raise RenderError(f"{log_path} has no round {settings.round_no}")
        events = [e for _n, e in _round_events(log_path, settings.round_no)]
        self.events = events
        start = events[0]
        deals = [e for e in events if e["type"] == "deal"]
        self.end_ms = float(events[-1]["t_ms"])
        seats = start["seats"]
        table = Table.from_deals(deals, rounds[0].table.rules, settings.round_no)
        if any(c.is_joker for c in table.all_cards()):
            raise RenderError("jokers have no card artwork yet; render a log without jokers")
        rng = random.Random(settings.seed)
        pool = decks_mod.deck_names(settings.split)
        if not pool:
            raise RenderError("no card artwork installed: run scripts/setup_assets.sh")
        if settings.backs is None:
            back_pool = backs_mod.all_backs(include_decks=False) + backs_mod.deck_backs(
                settings.split)
            self.backs = backs_mod.assign_backs(seats, rng.randrange(1 << 30), pool=back_pool)
        else:
            self.backs = list(settings.backs)
        if settings.decks is None:
            self.decks = []
            for b in self.backs:
                kind, params = backs_mod.parse_back(b)
                self.decks.append(params[0] if kind == "deck" else rng.choice(pool))
        else:
            self.decks = list(settings.decks)
        for name, values in (("decks", self.decks), ("backs", self.backs)):
            if len(values) != seats:
                raise RenderError(f"{len(values)} {name} for {seats} seats")
        piles = max((int(e["to"].split(":")[1]) + 1 for e in events
                     if e["type"] == "move" and e["to"].startswith("lake")), default=4)
        self.layout = build_layout(table, piles, self.decks, rng, settings.shape, settings.seed)
        self.table = Table.from_deals(deals, rounds[0].table.rules, settings.round_no)
        self.motions = build_motions(events, Table.from_deals(
            deals, rounds[0].table.rules, settings.round_no), self.layout)
        geo = self.layout.geo
        w, h = settings.size
        if settings.camera is None:
            cam = Camera.random(rng, (geo.width_mm, geo.depth_mm), (w, h))
        else:
            cam = settings.camera
            if (cam.width, cam.height) != (w, h):
                cam = replace(cam, width=w, height=h)
        self.camera = cam
        self.lighting = settings.lighting or Lighting.random(rng, video=True)
        self.hom = cam.homography() @ np.diag([1.0, -1.0, 1.0])
        self.hom /= self.hom[2, 2]
        self.painter = Painter(self.hom, (w, h), self.decks, self.backs)
        self.photometry = Photometry(self.lighting, (w, h), settings.seed)
        self.maps = None
        if cam.k1 or cam.k2:
            k = cam.K
            self.maps = cv2.initUndistortRectifyMap(
                k, np.array([cam.k1, cam.k2, 0, 0], np.float64), None, k, (w, h),
                cv2.CV_16SC2)
        self.texture = settings.texture or rng.choice(TEXTURES)
        self.background = self._background(rng)
        self.skins = [rng.choice(SKIN_TONES) for _ in range(seats)]
        self.sleeves = [rng.choice(SLEEVES) for _ in range(seats)]
        self.handed = [rng.choice((-1.0, 1.0, 1.0)) for _ in range(seats)]
        self.static: np.ndarray | None = None
        self.static_ids: np.ndarray | None = None
        self.static_cards: list[Placed] = []
        self.static_labels: list[dict[str, Any]] = []

    # --- still layer -------------------------------------------------------------------
    def _background(self, rng: random.Random) -> np.ndarray:
        w, h = self.settings.size
        nrng = np.random.default_rng(self.settings.seed)
        floor = np.array(rng.choice([[40, 45, 50], [70, 80, 90], [30, 30, 30], [90, 100, 80]]),
                         np.float32)
        image = np.clip(floor + nrng.normal(0, 5, (h, w, 1)), 0, 255).astype(np.uint8)
        geo = self.layout.geo
        jac = float(np.linalg.norm(project(self.hom, np.array([[0, 0], [10, 0]]))[1]
                                   - project(self.hom, np.array([[0, 0]]))[0]) / 10)
        res = float(min(max(jac, 0.5), 4.0))
        th, tw = int(geo.depth_mm * res) + 2, int(geo.width_mm * res) + 2
        tex = table_texture(self.texture, th, tw, res, nrng)
        tex_to_table = np.array([[1 / res, 0, -geo.width_mm / 2],
                                 [0, 1 / res, -geo.depth_mm / 2], [0, 0, 1]])
        top = cv2.warpPerspective(tex, self.hom @ tex_to_table, (w, h), flags=cv2.INTER_LINEAR)
        mask = np.zeros((h, w), np.uint8)
        outline = project(self.hom, geo.outline(128)).astype(np.float32)
        cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 255, cv2.LINE_AA,
                     shift=4)
        a = (mask.astype(np.float32) / 255)[..., None]
        return (top * a + image * (1 - a)).astype(np.uint8)

    def _redraw_static(self, flying: set[tuple[int, str]]) -> None:
        placed = [p for p in self.layout.all(self.table) if (p.owner, p.card) not in flying]
        placed.sort(key=_z)
        image = self.background.copy()
        ids = np.full(image.shape[:2], -1, np.int32)
        rois = []
        for i, p in enumerate(placed):
            rois.append(self.painter.card(image, ids, p, i))
        self.static, self.static_ids, self.static_cards = image, ids, placed
        self.static_rois = rois
        self.static_totals = self._totals(placed)
        self.static_labels = self._labels(ids, placed, rois)

    def _labels(self, ids: np.ndarray, placed: list[Placed],
                rois: list[tuple[int, int, int, int] | None]) -> list[dict[str, Any]]:
        out = []
        self.static_by_index: dict[int, dict[str, Any]] = {}
        totals = self.static_totals
        for i, (p, roi) in enumerate(zip(placed, rois, strict=True)):
            if roi is None:
                continue
            x0, y0, x1, y1 = roi
            vis = int((ids[y0:y1, x0:x1] == i).sum())
            if vis == 0:
                continue
            label = self._card_label(p, i, ids, vis / max(1, totals[i]))
            self.static_by_index[i] = label
            out.append(label)
        return out

    def _totals(self, placed: list[Placed]) -> list[float]:
        """Each card's full area in image pixels."""
        return [abs(cv2.contourArea(project(self.hom, p.corners_mm()).astype(np.float32)))
                for p in placed]

    def _card_label(self, p: Placed, i: int, ids: np.ndarray, visible: float
                    ) -> dict[str, Any]:
        cam = self.camera
        corners = cam._distort_px(project(self.hom, p.corners_mm()))
        indices = []
        if p.face_up:
            for corner, box in zip(("tl", "br"), _index_boxes(self.decks[p.owner], p.card),
                                   strict=False):
                quad_und = project(self.hom, _frac_box_to_mm(box, p))
                frac = _quad_visible(ids, quad_und, i)
                if frac >= 0.6:
                    quad = cam._distort_px(quad_und)
                    indices.append({"corner": corner, "box": _box(quad, self.settings.size),
                                    "visible": round(frac, 3)})
        return {"code": p.card if p.face_up else "back", "card": p.card, "owner": p.owner,
                "place": p.place or None, "face_up": p.face_up,
                "corners": np.round(corners, 1).tolist(),
                "box": _box(corners, self.settings.size),
                "visible": round(min(1.0, visible), 3), "indices": indices}

    # --- frames ------------------------------------------------------------------------
    def camera_side(self, image: np.ndarray, t_ms: float) -> np.ndarray:
        """Lens distortion, light and sensor noise of the webcam."""
        if self.maps is not None:
            image = cv2.remap(image, self.maps[0], self.maps[1], cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT)
        return self.photometry.apply(image, t_ms / 1000.0)

    def frames(self, camera_side: bool = True
               ) -> Iterator[tuple[int, float, np.ndarray, dict[str, Any] | None]]:
        """(frame number, t_ms, BGR image, labels or None) for every frame; with
        ``camera_side`` False the images are the undistorted, unlit scene."""
        s = self.settings
        end = self.end_ms + 1000.0
        if s.max_seconds is not None:
            end = min(end, (s.start_s + s.max_seconds) * 1000.0)
        pending = sorted(self.motions, key=lambda m: m.land)
        landed = 0
        frame = int(math.floor(s.start_s * s.fps))
        state_key = None
        while True:
            t = frame / s.fps * 1000.0
            if t > end:
                return
            while landed < len(pending) and pending[landed].land <= t:
                m = pending[landed]
                self.table.push(m.action, int(m.land))
                landed += 1
            active = [m for m in pending[landed:] if m.reach_from <= t]
            flying = set()
            for m in active:
                if m.lift <= t:
                    flying |= m.keys
            key = (landed, frozenset(flying))
            if key != state_key:
                self._redraw_static(flying)
                state_key = key
            recent = [m for m in pending[max(0, landed - 12):landed]
                      if m.land <= t < m.land + RETURN_MS]
            image, labels = self._compose(t, active, recent,
                                          want_labels=frame % s.labels_every == 0)
            if camera_side:
                image = self.camera_side(image, t)
            yield frame, t, image, labels
            frame += 1

    def _compose(self, t: float, active: list[Motion], recent: list[Motion],
                 want_labels: bool) -> tuple[np.ndarray, dict[str, Any] | None]:
        assert self.static is not None and self.static_ids is not None
        if not active and not recent:
            labels = {"cards": self.static_labels, "hands": []} if want_labels else None
            return self.static.copy(), labels
        image = self.static.copy()
        occluder = np.zeros(image.shape[:2], np.uint8)
        moving: list[tuple[Placed, int]] = []
        hands_mm: list[tuple[int, np.ndarray]] = []
        for m in active:
            if t < m.lift:  # reaching for the card
                u = (t - m.reach_from) / max(1.0, m.lift - m.reach_from)
                start = self.layout.rest_point(m.seat)
                target = np.array(m.cards[0][0].center)
                hands_mm.append((m.seat, start + (target - start) * _ease(u)))
                continue
            u = (t - m.lift) / max(1.0, m.land - m.lift)
            for src, dst in m.cards:
                pose = _lerp_pose(src, dst, u, lifted=True)
                if m.flip:
                    pose = replace(pose, face_up=u > 0.85)
                moving.append((pose, len(moving)))
            hands_mm.append((m.seat, np.array(_lerp_pose(m.cards[0][0], m.cards[0][1], u,
                                                          True).center)))
        for m in recent:
            u = (t - m.land) / RETURN_MS
            start = np.array(m.cards[0][1].center)
            rest = self.layout.rest_point(m.seat)
            hands_mm.append((m.seat, start + (rest - start) * _ease(u)))
        # shadows first (light from the top-left of the table), then cards, then arms
        shadow = np.zeros(image.shape[:2], np.uint8)
        offset = np.array([14.0, 22.0])
        arms = []
        for seat, hand in hands_mm:
            sleeve, palm = _arm_polygons(self.layout.shoulder(seat, self.handed[seat]), hand,
                                         110.0)
            arms.append((seat, sleeve, palm))
            cv2.fillPoly(shadow, [self.painter.poly(sleeve + offset),
                                  self.painter.poly(palm + offset)], 255, cv2.LINE_8, shift=4)
        for pose, _i in moving:
            cv2.fillPoly(shadow, [self.painter.poly(pose.corners_mm() + offset * 0.6)], 255,
                         cv2.LINE_8, shift=4)
        pts = cv2.findNonZero(shadow)
        if pts is not None:
            x, y, w, h = cv2.boundingRect(pts)
            x0, y0 = max(0, x - 8), max(0, y - 8)
            x1, y1 = min(shadow.shape[1], x + w + 8), min(shadow.shape[0], y + h + 8)
            soft = cv2.blur(shadow[y0:y1, x0:x1], (15, 15))
            keep = cv2.merge([255 - (soft * 0.38).astype(np.uint8)] * 3)
            image[y0:y1, x0:x1] = cv2.multiply(image[y0:y1, x0:x1], keep, scale=1 / 255)
        for pose, _i in moving:  # a motion-blurred card: faint copies along its path
            self.painter.card(image, None, pose, -1)
            cv2.fillPoly(occluder, [self.painter.poly(pose.corners_mm())], 255, cv2.LINE_8,
                         shift=4)
        hand_labels = []
        for seat, sleeve, palm in arms:
            sp, pp = self.painter.poly(sleeve), self.painter.poly(palm)
            cv2.fillPoly(image, [sp], self.sleeves[seat], cv2.LINE_AA, shift=4)
            cv2.fillPoly(image, [pp], self.skins[seat], cv2.LINE_AA, shift=4)
            cv2.fillPoly(occluder, [sp, pp], 255, cv2.LINE_8, shift=4)
            quad = self.camera._distort_px(project(self.hom, palm))
            hand_labels.append({"seat": seat, "box": _box(quad, self.settings.size)})
        if not want_labels:
            return image, None
        return image, {"cards": self._occluded_labels(occluder, moving),
                       "hands": hand_labels}

    def _occluded_labels(self, occluder: np.ndarray, moving: list[tuple[Placed, int]]
                         ) -> list[dict[str, Any]]:
        """Static labels with the parts under hands and moving cards taken away."""
        ids = self.static_ids
        totals = self.static_totals
        out = []
        for i, p in enumerate(self.static_cards):
            roi = self.static_rois[i]
            if roi is None:
                continue
            x0, y0, x1, y1 = roi
            cover = occluder[y0:y1, x0:x1]
            if not cover.any():
                if i in self.static_by_index:
                    out.append(self.static_by_index[i])
                continue
            ids = self.static_ids.copy() if ids is self.static_ids else ids
            ids[y0:y1, x0:x1][cover > 0] = -1
            vis = int((ids[y0:y1, x0:x1] == i).sum())
            if vis == 0:
                continue
            out.append(self._card_label(p, i, ids, vis / max(1, totals[i])))
        for pose, _i in moving:
            out.append({**self._card_label(pose, -2, np.full((1, 1), -3, np.int32), 1.0),
                        "place": None, "indices": []})
        return out


def _round_events(path: str | Path, round_no: int) -> list[tuple[int, dict[str, Any]]]:
    from rules.log import read_events

    out, current = [], None
    for n, e in read_events(path):
        if e["type"] == "round_start":
            current = e.get("round", 1)
        if current == round_no and e["type"] != "match_end":
            out.append((n, e))
    return out


def _box(quad: np.ndarray, size: tuple[int, int]) -> list[float]:
    w, h = size
    x1, y1 = quad.min(axis=0)
    x2, y2 = quad.max(axis=0)
    return [round(float(max(0, x1)), 1), round(float(max(0, y1)), 1),
            round(float(min(w, x2)), 1), round(float(min(h, y2)), 1)]


def _quad_visible(ids: np.ndarray, quad: np.ndarray, idx: int) -> float:
    h, w = ids.shape
    x0 = max(0, int(math.floor(quad[:, 0].min())))
    y0 = max(0, int(math.floor(quad[:, 1].min())))
    x1 = min(w, int(math.ceil(quad[:, 0].max())) + 1)
    y1 = min(h, int(math.ceil(quad[:, 1].max())) + 1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [np.round((quad - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8,
                 shift=4)
    inside = m.astype(bool)
    area = abs(cv2.contourArea(quad.astype(np.float32)))
    return float((ids[y0:y1, x0:x1][inside] == idx).sum() / max(inside.sum(), area, 1))


def render_video(log_path: str | Path, out_path: str | Path, settings: VideoSettings,
                 progress: Callable[[int, int], None] | None = None,
                 renderer: RoundRenderer | None = None) -> dict[str, Any]:
    """Write the video and ``<out>.labels.jsonl``; returns a summary."""
    out_path = Path(out_path)
    renderer = renderer or RoundRenderer(log_path, settings)
    w, h = settings.size
    writer = cv2.VideoWriter(str(out_path), cv2.VideoWriter_fourcc(*"mp4v"), settings.fps,
                             (w, h))
    if not writer.isOpened():
        raise RenderError(f"cannot write a video to {out_path}")
    labels_path = out_path.with_suffix(".labels.jsonl")
    cam = renderer.camera
    header = {"type": "header", "width": w, "height": h, "fps": settings.fps,
              "seed": settings.seed, "log": str(log_path), "round": settings.round_no,
              "camera": {k: getattr(cam, k) for k in cam.__dataclass_fields__},
              "lighting": {k: getattr(renderer.lighting, k)
                           for k in renderer.lighting.__dataclass_fields__},
              "homography": np.round(renderer.hom, 9).tolist(),
              "homography_frame": "table mm, x right, y down, origin at the table centre; "
                                  "lens distortion k1, k2 applied after it",
              "table": {"shape": renderer.layout.geo.shape,
                        "width_mm": renderer.layout.geo.width_mm,
                        "depth_mm": renderer.layout.geo.depth_mm,
                        "seats": [{"seat": s.index, "origin_mm": list(s.origin_mm),
                                   "angle_deg": s.angle_deg}
                                  for s in renderer.layout.geo.seats]},
              "decks": renderer.decks, "backs": renderer.backs, "texture": renderer.texture}
    seconds = (renderer.end_ms + 1000) / 1000 - settings.start_s
    if settings.max_seconds is not None:
        seconds = min(seconds, settings.max_seconds)
    total = int(math.ceil(seconds * settings.fps))
    frames = 0
    # the camera side (distortion, light, noise) and encoding run in a second thread: OpenCV
    # releases the GIL, so both cores work
    pool = ThreadPoolExecutor(max_workers=1)
    waiting: Future | None = None

    def finish(image: np.ndarray, t: float) -> None:
        writer.write(renderer.camera_side(image, t))

    try:
        with open(labels_path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(header) + "\n")
            for frame, t, image, labels in renderer.frames(camera_side=False):
                if waiting is not None:
                    waiting.result()
                waiting = pool.submit(finish, image, t)
                if labels is not None:
                    fh.write(json.dumps({"frame": frame, "t_ms": round(t, 1), **labels},
                                        separators=(",", ":")) + "\n")
                frames += 1
                if progress is not None:
                    progress(frames, total)
            if waiting is not None:
                waiting.result()
    finally:
        pool.shutdown(wait=True)
        writer.release()
    return {"frames": frames, "video": str(out_path), "labels": str(labels_path),
            "seconds": frames / settings.fps}


__all__ = ["CameraError", "RenderError", "RoundRenderer", "SceneError", "VideoSettings",
           "render_video"]
