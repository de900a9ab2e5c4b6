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
from fractions import Fraction
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.log import read_events, replay
from rules.moves import Draw, Move, Recycle, Retract, Rotate, action_from_event
from rules.table import Table

from . import backs as backs_mod
from . import decks as decks_mod
from .camera import Camera, CameraError, Lighting, Photometry
from .layout import Placed, SceneError, StableLayout
from .scene import (
    TEXTURES,
    Painter,
    choose_designs,
    marker_labels,
    project,
    stable_layout,
    table_background,
    z_order,
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
    markers: bool = False  # four ArUco markers at the table's corners

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
    """One motion per action of the log, in log order, with the poses its cards move
    between (none for a call or a pass: they change the state without moving a card)."""
    motions: list[Motion] = []
    busy_until = [0.0] * table.seats
    for event in events:
        if event["type"] not in ("move", "retract", "draw", "recycle", "rotate", "call",
                                 "set_aside", "pass"):
            continue
        action = action_from_event(event)
        t = float(event["t_ms"])
        seat = getattr(action, "seat", 0)
        if not isinstance(action, Move | Retract | Draw | Recycle | Rotate):
            table.push(action, int(t))
            motions.append(Motion(seat, action, event, t, t, t, []))
            continue

        # the mover's layout and any other seat's the action touches (a card taken from
        # another seat's layout is carried by the mover's arm)
        involved = sorted({seat} | {int(p[4:].split(":")[0]) for p in
                                    (getattr(action, "src", ""), getattr(action, "dst", ""))
                                    if p.startswith("seat")})

        def poses(t: Table = table, ks: list[int] = involved) -> list[Placed]:
            return [p for k in ks for p in layout.seat(t, k)] + layout.lake(t)

        before = {(p.owner, p.card): p for p in poses()}
        moved: list[tuple[int, str]] = []
        flip = False
        if isinstance(action, Move | Retract):
            src = action.src
            pile = table.pile(src)
            n = action.n if isinstance(action, Move) else 1
            codes = [c.code for c in pile]
            if src.startswith("seat"):  # the card and all above it, as the engine moves it
                idx = len(codes) - 1 - codes[::-1].index(action.card) \
                    if action.card in codes else len(pile) - n
                owner_cards = pile[idx:]
            else:
                owner_cards = [next(c for c in reversed(pile) if c.code == action.card)]
            moved = [(c.owner, c.code) for c in owner_cards]
            dst_place = action.dst
        elif isinstance(action, Draw):
            stock = table.layouts[seat].stock
            moved = [(c.owner, c.code) for c in stock[:table.rules.draw]]
            flip, dst_place = True, f"seat{seat}:waste"
        elif isinstance(action, Recycle):
            moved = [(c.owner, c.code) for c in table.layouts[seat].waste[-4:]]
            dst_place = f"seat{seat}:stock"
        else:
            moved = [(c.owner, c.code) for c in table.layouts[seat].stock[:1]]
            dst_place = f"seat{seat}:stock"
        table.push(action, int(t))
        after_list = poses()
        after = {(p.owner, p.card): p for p in after_list}
        pile_top = next((p for p in reversed(after_list) if p.place == dst_place), None)
        pairs = []
        for key in moved:
            src_pose, dst_pose = before.get(key), after.get(key)
            if src_pose is None:
                continue
            if dst_pose is None:  # it ends inside a pile where it is not drawn
                if pile_top is None:
                    continue
                dst_pose = replace(pile_top, card=src_pose.card, owner=src_pose.owner,
                                   face_up=False)
            pairs.append((src_pose, dst_pose))
        if not pairs:
            motions.append(Motion(seat, action, event, t, t, t, []))
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
        nrng = np.random.default_rng(settings.seed)
        try:
            self.decks, self.backs = choose_designs(seats, rng, settings.split,
                                                    settings.decks, settings.backs)
        except (SceneError, ValueError) as exc:
            raise RenderError(str(exc)) from None
        piles = max((int(e["to"].split(":")[1]) + 1 for e in events
                     if e["type"] == "move" and e["to"].startswith("lake")), default=4)
        self.layout = stable_layout(table, piles, self.decks, rng, settings.shape,
                                    settings.seed)
        self.table = Table.from_deals(deals, rounds[0].table.rules, settings.round_no)
        self.motions = build_motions(events, Table.from_deals(
            deals, rounds[0].table.rules, settings.round_no), self.layout)
        w, h = settings.size
        if settings.camera is None:
            cam = Camera.random_fitted(rng, (w, h), self.layout.geo.outline())
        else:
            cam = settings.camera
            if (cam.width, cam.height) != (w, h):
                cam = replace(cam, width=w, height=h)
            if cam.height_mm is None:
                cam = cam.fit(self.layout.geo.outline(), margin=rng.uniform(0.0, 0.05))
        self.camera = cam
        self.lighting = settings.lighting or Lighting.random(rng, video=True)
        self.hom = cam.homography()
        self.painter = Painter(self.hom, cam, self.decks, self.backs)
        self.photometry = Photometry(self.lighting, (w, h), settings.seed)
        self.maps = cam.distortion_maps()
        self.texture = settings.texture or rng.choice(TEXTURES)
        self.background = table_background(self.layout.geo, self.hom, (w, h), self.texture,
                                           rng, nrng, settings.markers)
        self.skins = [rng.choice(SKIN_TONES) for _ in range(seats)]
        self.sleeves = [rng.choice(SLEEVES) for _ in range(seats)]
        self.handed = [rng.choice((-1.0, 1.0, 1.0)) for _ in range(seats)]
        self.static: np.ndarray | None = None
        self.static_ids: np.ndarray | None = None
        self.static_cards: dict[int, Placed] = {}  # drawing id -> pose
        self.static_rois: dict[int, tuple[int, int, int, int]] = {}
        self.static_totals: dict[int, float] = {}
        self.static_by_index: dict[int, dict[str, Any]] = {}
        self.static_labels: list[dict[str, Any]] = []
        self._card_ids: dict[tuple[int, str], int] = {}

    # --- still layer -------------------------------------------------------------------
    def _drawing_id(self, p: Placed) -> int:
        return self._card_ids.setdefault((p.owner, p.card), len(self._card_ids))

    def _redraw_static(self, flying: set[tuple[int, str]]) -> None:
        """Bring the still layer to the table's state, redrawing only where cards changed
        (and every card that overlaps a redrawn one, so stacking stays right)."""
        placed = sorted((p for p in self.layout.all(self.table)
                         if (p.owner, p.card) not in flying), key=z_order)
        new = {self._drawing_id(p): p for p in placed}
        if self.static is None:
            self.static = self.background.copy()
            self.static_ids = np.full(self.static.shape[:2], -1, np.int32)
        old = self.static_cards
        redraw = {i for i, p in new.items() if old.get(i) != p}
        dirty = [self.static_rois[i] for i in old if i not in new or i in redraw
                 if i in self.static_rois]
        rois = {i: self.painter.roi(p) for i, p in new.items()}
        dirty += [rois[i] for i in redraw if rois[i] is not None]
        keys = [i for i, r in rois.items() if r is not None]
        boxes = np.array([rois[i] for i in keys], np.int64).reshape(-1, 4)
        todo = np.array([i not in redraw for i in keys], bool)
        while dirty and todo.any():  # everything touching a dirty rectangle is redrawn too
            d = np.array(dirty, np.int64).reshape(-1, 4)
            hit = ((boxes[:, None, 0] < d[None, :, 2]) & (d[None, :, 0] < boxes[:, None, 2])
                   & (boxes[:, None, 1] < d[None, :, 3]) & (d[None, :, 1] < boxes[:, None, 3]))
            grow = todo & hit.any(axis=1)
            if not grow.any():
                break
            todo &= ~grow
            dirty = [tuple(b) for b in boxes[grow]]
            redraw.update(keys[j] for j in np.nonzero(grow)[0])
        dirty = [self.static_rois[i] for i in old if i not in new or i in redraw
                 if i in self.static_rois] + [rois[i] for i in redraw if rois[i] is not None]
        image, ids = self.static, self.static_ids
        for x0, y0, x1, y1 in dirty:
            image[y0:y1, x0:x1] = self.background[y0:y1, x0:x1]
            ids[y0:y1, x0:x1] = -1
        for i, p in new.items():  # in z-order
            if i in redraw:
                self.painter.card(image, ids, p, i)
        for i in list(self.static_by_index):
            if i not in new or i in redraw:
                del self.static_by_index[i]
        for i in redraw:
            self.static_totals[i] = self.painter.area(new[i])
            if rois[i] is not None:
                label = self.painter.label(new[i], i, ids, rois[i], self.static_totals[i])
                if label is not None:
                    self.static_by_index[i] = label
        self.static_cards = new
        self.static_rois = {i: r for i, r in rois.items() if r is not None}
        self.static_labels = [self.static_by_index[i] for i in new if i in self.static_by_index]

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
            if t >= end:
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
        moving: list[tuple[Placed, np.ndarray]] = []  # pose, mm moved while the shutter is open
        hands_mm: list[tuple[int, np.ndarray]] = []
        for m in active:
            if not m.cards:
                continue
            if t < m.lift:  # reaching for the card
                u = (t - m.reach_from) / max(1.0, m.lift - m.reach_from)
                start = self.layout.rest_point(m.seat)
                target = np.array(m.cards[0][0].center)
                hands_mm.append((m.seat, start + (target - start) * _ease(u)))
                continue
            span = max(1.0, m.land - m.lift)
            u = (t - m.lift) / span
            u_before = u - 1000.0 / self.settings.fps / 2 / span  # a half-frame shutter
            for src, dst in m.cards:
                pose = _lerp_pose(src, dst, u, lifted=True)
                before = _lerp_pose(src, dst, u_before, lifted=True)
                if m.flip:
                    pose = replace(pose, face_up=u > 0.85)
                moving.append((pose, np.subtract(pose.center, before.center)))
            hands_mm.append((m.seat, np.array(_lerp_pose(m.cards[0][0], m.cards[0][1], u,
                                                          True).center)))
        for m in recent:
            if not m.cards:
                continue
            u = (t - m.land) / RETURN_MS
            start = np.array(m.cards[0][1].center)
            rest = self.layout.rest_point(m.seat)
            hands_mm.append((m.seat, start + (rest - start) * _ease(u)))
        # shadows first (light from the top-left of the table), then cards, then arms
        shadow = np.zeros(image.shape[:2], np.uint8)
        offset = np.array([14.0, 22.0])
        arms = []
        shadow_pts: list[np.ndarray] = []
        for seat, hand in hands_mm:
            sleeve, palm = _arm_polygons(self.layout.shoulder(seat, self.handed[seat]), hand,
                                         110.0)
            arms.append((seat, sleeve, palm))
            shadow_pts += [self.painter.poly(sleeve + offset), self.painter.poly(palm + offset)]
        for pose, _i in moving:
            shadow_pts.append(self.painter.poly(pose.corners_mm() + offset * 0.6))
        x0 = y0 = x1 = y1 = 0
        if shadow_pts:
            cv2.fillPoly(shadow, shadow_pts, 255, cv2.LINE_8, shift=4)
            x, y, w, h = cv2.boundingRect(np.concatenate(shadow_pts) // 16)
            x0, y0 = max(0, x - 8), max(0, y - 8)
            x1, y1 = min(shadow.shape[1], x + w + 8), min(shadow.shape[0], y + h + 8)
        if x1 > x0 and y1 > y0:
            soft = cv2.blur(shadow[y0:y1, x0:x1], (15, 15))
            keep = cv2.merge([255 - (soft * 0.38).astype(np.uint8)] * 3)
            image[y0:y1, x0:x1] = cv2.multiply(image[y0:y1, x0:x1], keep, scale=1 / 255)
        for pose, velocity in moving:
            self._blurred_card(image, pose, velocity)
            cv2.fillPoly(occluder, [self.painter.poly(pose.corners_mm())], 255, cv2.LINE_8,
                         shift=4)
        hand_labels = []
        hands_mask = np.zeros_like(occluder)
        for seat, sleeve, palm in arms:
            sp, pp = self.painter.poly(sleeve), self.painter.poly(palm)
            cv2.fillPoly(image, [sp], self.sleeves[seat], cv2.LINE_AA, shift=4)
            cv2.fillPoly(image, [pp], self.skins[seat], cv2.LINE_AA, shift=4)
            cv2.fillPoly(hands_mask, [sp, pp], 255, cv2.LINE_8, shift=4)
            quad = self.camera.distort(project(self.hom, palm))
            w, h = self.settings.size
            x1, y1 = np.maximum(quad.min(axis=0), 0)
            x2, y2 = np.minimum(quad.max(axis=0), (w, h))
            hand_labels.append({"seat": seat, "box": [round(float(v), 1)
                                                      for v in (x1, y1, x2, y2)]})
        occluder |= hands_mask
        if not want_labels:
            return image, None
        return image, {"cards": self._occluded_labels(occluder, hands_mask, moving),
                       "hands": hand_labels}

    def _blurred_card(self, image: np.ndarray, pose: Placed, motion_mm: np.ndarray) -> None:
        """Draw a moving card smeared along its motion during the exposure."""
        roi = self.painter.roi(pose)
        if roi is None:
            return
        x0, y0, x1, y1 = roi
        a, b = project(self.hom, np.array([pose.center, np.add(pose.center, motion_mm)]))
        length = float(np.linalg.norm(b - a))
        if length < 1.5:
            self.painter.card(image, None, pose, -1)
            return
        pad = int(math.ceil(length)) + 1
        bx0, by0 = max(0, x0 - pad), max(0, y0 - pad)
        bx1, by1 = min(image.shape[1], x1 + pad), min(image.shape[0], y1 + pad)
        layer = np.zeros((by1 - by0, bx1 - bx0, 3), np.uint8)
        alpha = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        ids = np.full(alpha.shape, -1, np.int32)
        self.painter.card(layer, ids, pose, 0, origin=(bx0, by0))
        alpha[ids == 0] = 255
        k = int(round(length)) | 1
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), -angle, 1.0)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= max(kernel.sum(), 1e-6)
        layer = cv2.filter2D(layer, -1, kernel)
        soft = cv2.filter2D(alpha, -1, kernel).astype(np.float32)[..., None] / 255
        # the layer was premultiplied by the card's own alpha (black outside)
        region = image[by0:by1, bx0:bx1]
        region[:] = np.clip(layer + region * (1 - soft), 0, 255).astype(np.uint8)

    def _occluded_labels(self, occluder: np.ndarray, hands: np.ndarray,
                         moving: list[tuple[Placed, np.ndarray]]) -> list[dict[str, Any]]:
        """Still-layer labels with the parts under hands and moving cards taken away, plus
        the moving cards (``place`` None)."""
        ids = self.static_ids
        out = []
        for i, label in self.static_by_index.items():
            x0, y0, x1, y1 = self.static_rois[i]
            cover = occluder[y0:y1, x0:x1]
            if not cover.any():
                out.append(label)
                continue
            if ids is self.static_ids:
                ids = self.static_ids.copy()
            ids[y0:y1, x0:x1][cover > 0] = -1
            relabel = self.painter.label(self.static_cards[i], i, ids, (x0, y0, x1, y1),
                                         self.static_totals[i])
            if relabel is not None:
                out.append(relabel)
        if moving:
            w, h = self.settings.size
            layer = np.full((h, w), -1, np.int32)
            rois = [self.painter.card(np.zeros((h, w, 3), np.uint8), layer, pose, -10 - j)
                    for j, (pose, _i) in enumerate(moving)]
            layer[hands > 0] = -1
            for j, ((pose, _i), roi) in enumerate(zip(moving, rois, strict=True)):
                if roi is None:
                    continue
                label = self.painter.label(pose, -10 - j, layer, roi, self.painter.area(pose))
                if label is not None:
                    out.append({**label, "place": None})
        return out


def _round_events(path: str | Path, round_no: int) -> list[tuple[int, dict[str, Any]]]:
    out, current = [], None
    for n, e in read_events(path):
        if e["type"] == "round_start":
            current = e.get("round", 1)
        if current == round_no and e["type"] != "match_end":
            out.append((n, e))
    return out


class H264Writer:
    """An H.264 (libx264) MP4 writer through PyAV, with ``write`` and ``release`` like
    ``cv2.VideoWriter``: several times smaller than OpenCV's MPEG-4 part 2 at the same look
    (OpenCV's wheels carry no H.264 encoder, but decode it). PyAV comes with the ``train``
    extra; ``crf`` is x264's constant quality (lower is better and larger)."""

    def __init__(self, path: Path, fps: float, size: tuple[int, int], crf: int = 23) -> None:
        try:
            import av
        except ImportError:
            raise RenderError("H.264 needs PyAV (pip install av, or the train extra)") from None
        self._av = av
        self.container = av.open(str(path), "w")
        self.stream = self.container.add_stream(
            "libx264", rate=Fraction(fps).limit_denominator(1000))
        self.stream.width, self.stream.height = size
        self.stream.pix_fmt = "yuv420p"
        self.stream.options = {"crf": str(crf), "preset": "slow"}

    def write(self, image: np.ndarray) -> None:
        frame = self._av.VideoFrame.from_ndarray(image, format="bgr24")
        for packet in self.stream.encode(frame):
            self.container.mux(packet)

    def release(self) -> None:
        for packet in self.stream.encode():
            self.container.mux(packet)
        self.container.close()


def render_video(log_path: str | Path, out_path: str | Path, settings: VideoSettings,
                 progress: Callable[[int, int], None] | None = None,
                 renderer: RoundRenderer | None = None, codec: str = "mp4v",
                 crf: int = 23) -> dict[str, Any]:
    """Write the video and ``<out>.labels.jsonl``; returns a summary. ``codec`` ``mp4v``
    (OpenCV) or ``h264`` (:class:`H264Writer`, quality ``crf``)."""
    out_path = Path(out_path)
    if codec not in ("mp4v", "h264"):
        raise RenderError(f"codec must be mp4v or h264, not {codec!r}")
    renderer = renderer or RoundRenderer(log_path, settings)
    w, h = settings.size
    writer: Any
    if codec == "h264":
        writer = H264Writer(out_path, settings.fps, (w, h), crf)
    else:
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
              "decks": renderer.decks, "backs": renderer.backs, "texture": renderer.texture,
              "markers": marker_labels(renderer.layout.geo, cam) if settings.markers else []}
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


__all__ = ["CameraError", "H264Writer", "RenderError", "RoundRenderer", "SceneError",
           "VideoSettings", "render_video"]
