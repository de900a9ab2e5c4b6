"""Still overhead scenes of a Nertz table, with exact labels.

Geometry lives on the table plane in millimetres (see :mod:`.layout`): origin at the table's
centre, x to the right and y down as seen from above. A :class:`~.camera.Camera` maps the
table to image pixels with a homography, then its lens distortion.

Cards are warped one at a time, in z-order, straight from the card artwork into the image;
an id map records which card shows at each pixel, so each card's visible fraction and the
visibility of each of its corner indices are exact. The same drawing and labelling serve the
video renderer (:mod:`.video`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from rules.table import Table

from . import backs as backs_mod
from . import decks as decks_mod
from .camera import Camera
from .layout import (
    CARD_H_MM,
    CARD_W_MM,
    SHAPES,
    Placed,
    SceneError,
    StableLayout,
    TableShape,
    build_layout,
)

#: Heights at which card artwork is rendered (and cached); smaller sizes are resized from
#: the next larger master.
MASTER_HEIGHTS = (256, 512, 1024)
INDEX_MEASURE_HEIGHT = 256

__all__ = ["SHAPES", "Scene", "SceneError", "random_table", "render_still"]


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
def card_art(deck: str, code: str, height: int) -> np.ndarray:
    """A face of ``deck`` in the seat's common card outline."""
    return _with_shape(_face(deck, code, height), _shape(deck, height))


@functools.lru_cache(maxsize=256)
def back_art(back_id: str, deck: str, height: int) -> np.ndarray:
    """A back design cut to the card outline of the seat's ``deck``."""
    kind, params = backs_mod.parse_back(back_id)
    if kind == "deck":
        img = _face(params[0], decks_mod.BACK, height)
    else:
        img = backs_mod.back_image(back_id, height, _shape(deck, height).shape[1])
    return _with_shape(img, _shape(deck, height))


@functools.lru_cache(maxsize=4096)
def index_boxes_of(deck: str, code: str) -> tuple[tuple[float, float, float, float], ...]:
    return tuple(decks_mod.index_boxes(deck, code, INDEX_MEASURE_HEIGHT))


def artwork_tier(px: float) -> int:
    """The artwork height to warp from for a card about ``px`` pixels high."""
    for t in (48, 64, 96, 128, 192, 256, 384, 512, 768, 1024):
        if t >= 1.3 * px:
            return t
    return 1024


def index_extent(deck: str, codes: Sequence[str]) -> tuple[float, float]:
    """The largest right and bottom edge (fractions) of these cards' top-left indices."""
    x2, y2 = 0.22, 0.28
    for code in codes:
        boxes = index_boxes_of(deck, code)
        if boxes:
            x2, y2 = max(x2, boxes[0][2]), max(y2, boxes[0][3])
    return x2, y2


# --- geometry helpers --------------------------------------------------------------------

def project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to N×2 points."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ hom.T
    return q[:, :2] / q[:, 2:3]


def card_to_table(width_px: int, height_px: int, placed: Placed) -> np.ndarray:
    """3×3: artwork pixel coordinates -> table mm."""
    sx, sy = CARD_W_MM / width_px, CARD_H_MM / height_px
    a = math.radians(placed.angle_deg)
    c, s = math.cos(a), math.sin(a)
    to_local = np.array([[sx, 0, -CARD_W_MM / 2], [0, sy, -CARD_H_MM / 2], [0, 0, 1]])
    rot = np.array([[c, -s, placed.center[0]], [s, c, placed.center[1]], [0, 0, 1]])
    return rot @ to_local


def frac_box_to_mm(box: Sequence[float], p: Placed) -> np.ndarray:
    """A box given as fractions of the card (x1, y1, x2, y2) as a table-mm quad."""
    x1, y1, x2, y2 = box
    pts = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) * np.array([CARD_W_MM, CARD_H_MM])
    a = math.radians(p.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return (pts - np.array([CARD_W_MM / 2, CARD_H_MM / 2])) @ rot.T + np.array(p.center)


_PLACE_Z = {"nertz": 0, "river": 1, "stock": 2, "waste": 3}


def z_order(p: Placed) -> tuple[int, int, int]:
    """Drawing order: seats' piles, then the lake; within a pile bottom to top."""
    kind = p.place.split(":")[1].rstrip("0123456789") if p.place.startswith("seat") else "lake"
    return (0 if kind != "lake" else 1, _PLACE_Z.get(kind, 4), p.depth)


def _bbox(quad: np.ndarray, width: int, height: int) -> list[float]:
    x1, y1 = quad.min(axis=0)
    x2, y2 = quad.max(axis=0)
    return [round(float(max(0, x1)), 2), round(float(max(0, y1)), 2),
            round(float(min(width, x2)), 2), round(float(min(height, y2)), 2)]


def region_fraction(id_map: np.ndarray, quad: np.ndarray, idx: int) -> float:
    """Share of the pixels inside ``quad`` where card ``idx`` shows (parts of the quad
    outside the image count as hidden)."""
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
    full = abs(cv2.contourArea(quad.astype(np.float32)))
    return float((id_map[y0:y1, x0:x1][inside] == idx).sum() / max(total, full))


# --- who plays with what -----------------------------------------------------------------

def choose_designs(seats: int, rng: random.Random, split: str | None,
                   decks: Sequence[str] | None, backs: Sequence[str] | None
                   ) -> tuple[list[str], list[str]]:
    """Each seat's face deck and back design: given, or drawn from ``split``'s decks and
    visibly different backs (:func:`backs.assign_backs`)."""
    pool = decks_mod.deck_names(split)
    if not pool:
        raise SceneError("no card artwork installed: run scripts/setup_assets.sh")
    if backs is None:
        hard = {x for p in backs_mod.HARD_PAIRS for x in p}
        back_pool = [b for b in backs_mod.all_backs(include_decks=False) if b not in hard]
        back_pool += backs_mod.deck_backs(split)
        back_pool += [backs_mod.random_back(rng) for _ in range(6)]
        seat_backs = backs_mod.assign_backs(seats, rng.randrange(1 << 30), pool=back_pool)
    else:
        seat_backs = list(backs)
        if len(seat_backs) != seats:
            raise SceneError(f"{len(seat_backs)} backs for {seats} seats")
        for b in seat_backs:
            backs_mod.parse_back(b)
    if decks is None:
        seat_decks = []
        for b in seat_backs:
            kind, params = backs_mod.parse_back(b)
            seat_decks.append(params[0] if kind == "deck" else rng.choice(pool))
    else:
        seat_decks = list(decks)
        if len(seat_decks) != seats:
            raise SceneError(f"{len(seat_decks)} decks for {seats} seats")
        for d in seat_decks:
            info = decks_mod.deck_info(d)
            if info.split == "excluded":
                raise SceneError(f"deck {d!r} is excluded: {info.reason}")
    return seat_decks, seat_backs


def stable_layout(table: Table, lake_piles: int, seat_decks: list[str], rng: random.Random,
                  shape: str | None, seed: int, jitter: float = 1.0) -> StableLayout:
    """A layout whose fan offsets leave each seat's deck's corner indices showing."""
    extent = [index_extent(seat_decks[k], [c.code for c in table.layouts[k].cards()])
              for k in range(table.seats)]
    return build_layout(table, lake_piles, extent, rng, shape, seed, jitter)


MARKER_MM = 70.0  # side of a printed ArUco marker, its white margin included
MARKER_DICT = cv2.aruco.DICT_4X4_50


def marker_places(geo: TableShape) -> list[tuple[int, np.ndarray]]:
    """(id, 4×2 table-mm corners: top-left, top-right, bottom-right, bottom-left of the
    printed code) of the four ArUco markers at the table's corners (ids 0–3 clockwise from
    the top left; on a round table at the rim, on the diagonals)."""
    half = MARKER_MM / 2
    inset = MARKER_MM * 0.75
    if geo.shape == "round":
        r = geo.width_mm / 2 / math.sqrt(2) - inset
        centres = [(-r, -r), (r, -r), (r, r), (-r, r)]
    else:
        w, d = geo.width_mm / 2 - inset, geo.depth_mm / 2 - inset
        centres = [(-w, -d), (w, -d), (w, d), (-w, d)]
    code = half * 0.75  # the black code inside the white margin
    out = []
    for i, (cx, cy) in enumerate(centres):
        out.append((i, np.array([[cx - code, cy - code], [cx + code, cy - code],
                                 [cx + code, cy + code], [cx - code, cy + code]])))
    return out


def draw_markers(image: np.ndarray, hom: np.ndarray, geo: TableShape) -> None:
    """Print the four ArUco markers onto the table (white margin, then the code)."""
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    h, w = image.shape[:2]
    for marker_id, quad in marker_places(geo):
        centre = quad.mean(axis=0)
        paper = (quad - centre) * (MARKER_MM / 2) / (np.abs(quad - centre).max()) + centre
        cv2.fillConvexPoly(image, np.round(project(hom, paper) * 16).astype(np.int32),
                           (245, 245, 245), cv2.LINE_AA, shift=4)
        code = cv2.aruco.generateImageMarker(dictionary, marker_id, 120)
        # 120 px map to the code's quad (the code already has a one-cell black border)
        src = np.float32([[0, 0], [120, 0], [120, 120], [0, 120]])
        m = cv2.getPerspectiveTransform(src, project(hom, quad).astype(np.float32))
        warped = cv2.warpPerspective(cv2.cvtColor(code, cv2.COLOR_GRAY2BGR), m, (w, h),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                     borderValue=(0, 0, 0))
        mask = cv2.warpPerspective(np.full((120, 120), 255, np.uint8), m, (w, h),
                                   flags=cv2.INTER_LINEAR) > 127
        image[mask] = warped[mask]


def table_background(geo: TableShape, hom: np.ndarray, size: tuple[int, int], texture: str,
                     rng: random.Random, nrng: np.random.Generator,
                     markers: bool = False) -> np.ndarray:
    """The floor and the textured table top seen through the camera (undistorted), with
    ArUco markers at the table's corners when ``markers``."""
    width, height = size
    floor = np.array(rng.choice([[40, 45, 50], [70, 80, 90], [30, 30, 30], [90, 100, 80]]),
                     np.float32)
    image = np.clip(floor + nrng.normal(0, 5, (height, width, 1)), 0, 255).astype(np.uint8)
    p = project(hom, np.array([(0.0, 0.0), (10.0, 0.0), (0.0, 10.0)]))
    jac = float(0.5 * (np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 10)
    res = float(min(max(jac, 0.5), 4.0))
    th, tw = int(geo.depth_mm * res) + 2, int(geo.width_mm * res) + 2
    tex = table_texture(texture, th, tw, res, nrng)
    tex_to_table = np.array([[1 / res, 0, -geo.width_mm / 2],
                             [0, 1 / res, -geo.depth_mm / 2], [0, 0, 1]])
    top = cv2.warpPerspective(tex, hom @ tex_to_table, (width, height), flags=cv2.INTER_LINEAR)
    mask = np.zeros((height, width), np.uint8)
    outline = project(hom, geo.outline(128)).astype(np.float32)
    cv2.fillPoly(mask, [np.round(outline * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    a = (mask.astype(np.float32) / 255)[..., None]
    image = (top * a + image * (1 - a)).astype(np.uint8)
    if markers:
        draw_markers(image, hom, geo)
    return image


def marker_labels(geo: TableShape, camera: Camera) -> list[dict[str, Any]]:
    """Each marker's id and its code's corners in image pixels (as ``cv2.aruco`` reports
    them: top-left, top-right, bottom-right, bottom-left)."""
    return [{"id": i, "corners": np.round(camera.project(quad), 2).tolist()}
            for i, quad in marker_places(geo)]


# --- drawing and labelling ---------------------------------------------------------------

class Painter:
    """Draws cards through a homography (table mm → undistorted image pixels) and labels
    them from an id map."""

    def __init__(self, hom: np.ndarray, camera: Camera, decks: list[str], backs: list[str],
                 min_index_visible: float = 0.6) -> None:
        self.hom = hom
        self.camera = camera
        self.width, self.height = camera.width, camera.height
        self.decks, self.backs = decks, backs
        self.min_index_visible = min_index_visible

    def roi(self, p: Placed) -> tuple[int, int, int, int] | None:
        """The pixel box a card is drawn into, or None when it is out of the frame."""
        corners = project(self.hom, p.corners_mm())
        x0 = max(0, int(math.floor(corners[:, 0].min())) - 1)
        y0 = max(0, int(math.floor(corners[:, 1].min())) - 1)
        x1 = min(self.width, int(math.ceil(corners[:, 0].max())) + 2)
        y1 = min(self.height, int(math.ceil(corners[:, 1].max())) + 2)
        return None if x1 <= x0 or y1 <= y0 else (x0, y0, x1, y1)

    def card(self, image: np.ndarray, ids: np.ndarray | None, p: Placed, idx: int,
             origin: tuple[int, int] = (0, 0)) -> tuple[int, int, int, int] | None:
        """Warp one card into ``image`` (and its id into ``ids``); returns its pixel box.
        ``image`` may be a window of the frame whose top-left pixel is ``origin``."""
        corners = project(self.hom, p.corners_mm())
        px_h = max(np.linalg.norm(corners[3] - corners[0]),
                   np.linalg.norm(corners[2] - corners[1]))
        tier = artwork_tier(px_h)
        if p.face_up:
            art = card_art(self.decks[p.owner], p.card, tier)
        else:
            art = back_art(self.backs[p.owner], self.decks[p.owner], tier)
        ah, aw = art.shape[:2]
        box = self.roi(p)
        if box is None:
            return None
        ox, oy = origin
        x0, y0 = max(box[0], ox), max(box[1], oy)
        x1, y1 = min(box[2], ox + image.shape[1]), min(box[3], oy + image.shape[0])
        if x1 <= x0 or y1 <= y0:
            return None
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]])
        warped = cv2.warpPerspective(art, shift @ self.hom @ card_to_table(aw, ah, p),
                                     (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        alpha = warped[..., 3:4].astype(np.float32) / 255
        roi = image[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
        roi[:] = (warped[..., :3] * alpha + roi * (1 - alpha) + 0.5).astype(np.uint8)
        if ids is not None:
            ids[y0 - oy:y1 - oy, x0 - ox:x1 - ox][warped[..., 3] >= 128] = idx
        return x0, y0, x1, y1

    def poly(self, pts_mm: np.ndarray) -> np.ndarray:
        """Table-mm points as ``cv2.fillPoly`` points (4 fractional bits)."""
        return np.round(project(self.hom, pts_mm) * 16).astype(np.int32)

    def area(self, p: Placed) -> float:
        """The card's whole area in (undistorted) image pixels."""
        return abs(cv2.contourArea(project(self.hom, p.corners_mm()).astype(np.float32)))

    def label(self, p: Placed, idx: int, ids: np.ndarray, roi: tuple[int, int, int, int],
              total: float) -> dict[str, Any] | None:
        """The label of card ``idx`` as the id map shows it, or None when it is hidden.
        Points are in the camera's (distorted) image pixels."""
        x0, y0, x1, y1 = roi
        ys, xs = np.nonzero(ids[y0:y1, x0:x1] == idx)
        if len(xs) == 0 or total <= 0:
            return None
        cam, size = self.camera, (self.width, self.height)
        corners = cam.distort(project(self.hom, p.corners_mm()))
        indices = []
        if p.face_up:
            for corner, box in zip(("tl", "br"), index_boxes_of(self.decks[p.owner], p.card),
                                   strict=False):
                quad_und = project(self.hom, frac_box_to_mm(box, p))
                frac = region_fraction(ids, quad_und, idx)
                if frac >= self.min_index_visible:
                    quad = cam.distort(quad_und)
                    indices.append({"corner": corner, "box": _bbox(quad, *size),
                                    "quad": np.round(quad, 2).tolist(),
                                    "visible": round(frac, 4)})
        vis_box = cam.distort(np.array([[xs.min() + x0, ys.min() + y0],
                                        [xs.max() + x0 + 1, ys.max() + y0 + 1]], np.float64))
        return {
            "code": p.card if p.face_up else "back", "card": p.card, "owner": p.owner,
            "place": p.place or None, "depth": p.depth, "pile_size": p.pile_size,
            "face_up": p.face_up, "deck": self.decks[p.owner], "design": self.backs[p.owner],
            "corners": np.round(corners, 2).tolist(), "box": _bbox(corners, *size),
            "visible_box": [int(max(0, vis_box[0, 0])), int(max(0, vis_box[0, 1])),
                            int(min(size[0], math.ceil(vis_box[1, 0]))),
                            int(min(size[1], math.ceil(vis_box[1, 1])))],
            "visible": round(min(1.0, len(xs) / total), 4), "indices": indices, "z": idx}


# --- the scene ---------------------------------------------------------------------------

@dataclass
class Scene:
    """A rendered still: the image (BGR uint8) and its exact labels."""

    image: np.ndarray
    cards: list[dict[str, Any]]
    homography: np.ndarray  # table mm -> undistorted image px
    camera: Camera
    table: TableShape
    seat_decks: list[str]
    seat_backs: list[str]
    texture: str
    seed: int
    id_map: np.ndarray = field(repr=False)  # undistorted: per pixel an index into ``drawn``
    drawn: list[Placed] = field(repr=False, default_factory=list)
    markers: list[dict[str, Any]] = field(default_factory=list)

    def labels(self) -> dict[str, Any]:
        """JSON-ready labels of the frame."""
        h, w = self.image.shape[:2]
        return {
            "width": w, "height": h, "seed": self.seed,
            "homography": [[float(v) for v in row] for row in self.homography],
            "camera": dataclasses.asdict(self.camera),
            "table": {"shape": self.table.shape, "width_mm": self.table.width_mm,
                      "depth_mm": self.table.depth_mm, "texture": self.texture,
                      "seats": [{"seat": s.index, "origin_mm": list(s.origin_mm),
                                 "angle_deg": s.angle_deg} for s in self.table.seats]},
            "decks": self.seat_decks, "backs": self.seat_backs, "markers": self.markers,
            "cards": self.cards,
        }


def render_still(table: Table, seed: int = 0, *, size: tuple[int, int] = (1280, 720),
                 decks: Sequence[str] | None = None, backs: Sequence[str] | None = None,
                 split: str | None = "train", shape: str | None = None,
                 texture: str | None = None, camera: Camera | None = None,
                 min_index_visible: float = 0.6, jitter: float = 1.0,
                 markers: bool = False) -> Scene:
    """Render a still overhead image of a table state, with exact labels.

    ``decks`` gives each seat's face design (default: from ``split``; a seat with a deck's
    own back uses that deck's faces), ``backs`` each seat's back id (default:
    :func:`backs.assign_backs`). A ``camera`` that is not placed (``height_mm`` None) is
    fitted to the table; its lens distortion applies to the image and the labels.
    ``jitter`` scales how untidily cards lie on their piles (0: exactly aligned). An index
    counts as visible when at least ``min_index_visible`` of its box shows. ``markers``
    prints four ArUco markers at the table's corners (labelled in ``Scene.markers``).
    Everything random follows ``seed``: the same table, seed and settings give the same
    image.
    """
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    if any(c.is_joker for c in table.all_cards()):
        raise SceneError("jokers have no card artwork yet; render a table without jokers")
    if shape is not None and shape not in SHAPES:
        raise SceneError(f"table shape must be one of {', '.join(SHAPES)}, not {shape!r}")
    if texture is not None and texture not in TEXTURES:
        raise SceneError(f"texture must be one of {', '.join(TEXTURES)}, not {texture!r}")
    seat_decks, seat_backs = choose_designs(table.seats, rng, split, decks, backs)
    layout = stable_layout(table, len(table.lake), seat_decks, rng, shape, seed, jitter)
    placed = layout.all(table)
    if camera is None:
        cam = Camera.random_fitted(rng, tuple(size), layout.geo.outline())
    else:
        cam = camera
        if (cam.width, cam.height) != tuple(size):
            cam = dataclasses.replace(cam, width=size[0], height=size[1])
        if cam.height_mm is None:
            cam = cam.fit(layout.geo.outline(), margin=rng.uniform(0.0, 0.05))
    hom = cam.homography()
    tex_kind = texture or rng.choice(TEXTURES)
    image = table_background(layout.geo, hom, size, tex_kind, rng, nrng, markers)
    painter = Painter(hom, cam, seat_decks, seat_backs, min_index_visible)
    drawn = sorted(placed, key=z_order)
    id_map = np.full(image.shape[:2], -1, np.int32)
    rois = [painter.card(image, id_map, p, idx) for idx, p in enumerate(drawn)]
    labels = []
    for idx, (p, roi) in enumerate(zip(drawn, rois, strict=True)):
        if roi is not None:
            label = painter.label(p, idx, id_map, roi, painter.area(p))
            if label is not None:
                labels.append(label)
    maps = cam.distortion_maps()
    if maps is not None:
        image = cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    return Scene(image, labels, hom, cam, layout.geo, seat_decks, seat_backs, tex_kind, seed,
                 id_map, drawn, marker_labels(layout.geo, cam) if markers else [])


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
