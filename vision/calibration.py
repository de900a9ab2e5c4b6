"""From image pixels to the table plane: ArUco markers (or four given table corners) give a
homography, with a one-parameter radial lens model fitted from the markers' 16 corners;
a cheap global-shift check tells when the camera has moved since the last calibration.

>>> plane = fit_markers(detect_markers(image), MarkerLayout.for_table("rect", 1400, 900))
>>> plane.to_mm([[640, 360]])          # image pixels → table mm (x right, y down)
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["CalibrationError", "CameraWatch", "MarkerLayout", "MarkerPatches", "PlaneMap",
           "detect_markers", "fit_markers", "from_corners", "marker_page", "marker_sheet",
           "recover_markers", "write_marker_pdf"]

MARKER_DICT = cv2.aruco.DICT_4X4_50
#: Side of a marker's black code in mm (the printed square with its white margin is 70 mm).
MARKER_CODE_MM = 52.5
MARKER_PAPER_MM = 70.0


class CalibrationError(ValueError):
    """The table plane cannot be found from what was given (one line)."""


@dataclass(frozen=True)
class PlaneMap:
    """Table mm ↔ image pixels: ``hom`` maps table mm to undistorted pixels; ``kappa``
    (1/px²) undistorts a pixel radially about ``centre``: ``u = c + (p - c)(1 + κ r²)``."""

    hom: np.ndarray
    centre: tuple[float, float] = (0.0, 0.0)
    kappa: float = 0.0
    residual_px: float = 0.0

    def undistort(self, px: np.ndarray) -> np.ndarray:
        p = np.asarray(px, np.float64).reshape(-1, 2)
        if not self.kappa:
            return p
        d = p - self.centre
        return self.centre + d * (1 + self.kappa * (d * d).sum(1, keepdims=True))

    def distort(self, px: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`undistort` (a few fixed-point steps)."""
        u = np.asarray(px, np.float64).reshape(-1, 2)
        if not self.kappa:
            return u
        du = u - self.centre
        d = du.copy()
        for _ in range(8):
            d = du / (1 + self.kappa * (d * d).sum(1, keepdims=True))
        return self.centre + d

    def to_mm(self, px: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) → table mm (N, 2)."""
        u = self.undistort(px)
        p = np.column_stack([u, np.ones(len(u))]) @ np.linalg.inv(self.hom).T
        return p[:, :2] / p[:, 2:3]

    def to_px(self, mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) → image pixels (N, 2)."""
        m = np.asarray(mm, np.float64).reshape(-1, 2)
        p = np.column_stack([m, np.ones(len(m))]) @ self.hom.T
        return self.distort(p[:, :2] / p[:, 2:3])

    def moved_mm(self, other: PlaneMap, points_mm: np.ndarray) -> float:
        """The largest distance (mm) between where the two maps put the same pixels."""
        px = self.to_px(points_mm)
        return float(np.linalg.norm(other.to_mm(px) - points_mm, axis=1).max())


@dataclass(frozen=True)
class MarkerLayout:
    """Which ArUco ids lie where on the table: each marker's code centre (mm) and the
    code's side; a marker lies square to the table edges, printed top towards -y."""

    ids: tuple[int, ...] = (0, 1, 2, 3)
    centres_mm: tuple[tuple[float, float], ...] = ()
    code_mm: float = MARKER_CODE_MM

    @classmethod
    def for_table(cls, shape: str, width_mm: float, depth_mm: float) -> MarkerLayout:
        """The default spots: the four corners, 52.5 mm in from each edge (on a round table
        at the rim on the diagonals), ids 0–3 clockwise from the top left."""
        inset = MARKER_PAPER_MM * 0.75
        if shape == "round":
            r = width_mm / 2 / math.sqrt(2) - inset
            w = d = r
        else:
            w, d = width_mm / 2 - inset, depth_mm / 2 - inset
        return cls((0, 1, 2, 3), ((-w, -d), (w, -d), (w, d), (-w, d)))

    def corners_mm(self, marker_id: int) -> np.ndarray:
        """The code's corners (top-left, top-right, bottom-right, bottom-left) in mm."""
        cx, cy = self.centres_mm[self.ids.index(marker_id)]
        h = self.code_mm / 2
        return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h],
                         [cx - h, cy + h]])


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    """cv2.aruco tuned for small printed markers (a code of 12–30 px at 960×540): finer
    adaptive-threshold windows, small perimeters accepted, sub-pixel corners, a little
    more tolerance for bits blurred by the lens and video compression."""
    global _DETECTOR
    if _DETECTOR is None:
        params = cv2.aruco.DetectorParameters()
        params.adaptiveThreshWinSizeMin = 3
        params.adaptiveThreshWinSizeMax = 23
        params.adaptiveThreshWinSizeStep = 5
        params.minMarkerPerimeterRate = 0.015
        params.polygonalApproxAccuracyRate = 0.05
        params.perspectiveRemovePixelPerCell = 8
        params.perspectiveRemoveIgnoredMarginPerCell = 0.2
        params.maxErroneousBitsInBorderRate = 0.5
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        params.cornerRefinementWinSize = 3
        _DETECTOR = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICT),
                                            params)
    return _DETECTOR


def _find(grey: np.ndarray, scale: float = 1.0, origin: tuple[int, int] = (0, 0)
          ) -> dict[int, np.ndarray]:
    if scale != 1.0:
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    corners, ids, _rej = _detector().detectMarkers(grey)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) / scale + origin
            for i, c in zip(ids.ravel(), corners, strict=True)}


def detect_markers(image: np.ndarray, want: Sequence[int] = (),
                   expected: dict[int, np.ndarray] | None = None,
                   upscale: float = 2.0) -> dict[int, np.ndarray]:
    """ArUco markers in a BGR or grey frame: id → 4×2 corner pixels (cv2.aruco order).

    With ``expected`` corners (from the last calibration) for all the ``want`` ids, each
    is looked for first in a small crop about where it was (the same corners as a look at
    the whole frame, which follows only when one is not there). When some of the ``want``
    ids are missing then, each one's ``expected`` corners are searched again in a crop
    enlarged 3×, and then the whole frame enlarged ``upscale``× (small markers) — with
    expectations only while fewer than three are found (three fit the plane)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found: dict[int, np.ndarray] = {}
    if want and expected and all(i in expected for i in want):
        # first where each marker was: a crop's corners are the full frame's (the same
        # local thresholds and refinement) at a tenth of the cost
        for i in want:
            box = _crop_box(expected[i], grey.shape)
            if box is not None:
                x0, y0, x1, y1 = box
                got = _find(grey[y0:y1, x0:x1], 1.0, (x0, y0))
                if i in got:
                    found[i] = got[i]
    if not want or any(i not in found for i in want):
        for i, q in _find(grey).items():
            found.setdefault(i, q)
    missing = [i for i in want if i not in found]
    for i in missing:
        quad = None if expected is None else expected.get(i)
        box = None if quad is None else _crop_box(quad, grey.shape)
        if box is not None:
            x0, y0, x1, y1 = box
            got = _find(grey[y0:y1, x0:x1], 3.0, (x0, y0))
            if i in got:
                found[i] = got[i]
    if upscale > 1.0 and (len([i for i in want if i in found]) < 3 if expected else
                          any(i not in found for i in want)):
        for i, q in _find(grey, upscale).items():
            found.setdefault(i, q)
    return found


#: Pixels per code cell in the square space where a covered marker is looked for.
_CELL = 8


def _marker_template(marker_id: int) -> np.ndarray:
    """The printed marker (6×6-cell code in a one-cell white margin) at ``_CELL`` px a cell,
    float32 0 (ink) … 1 (paper)."""
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    code = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * _CELL)
    return cv2.copyMakeBorder(code, _CELL, _CELL, _CELL, _CELL, cv2.BORDER_CONSTANT,
                              value=255).astype(np.float32) / 255.0


def _code_cells(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Mean brightness of each of the 6×6 code cells (their inner half) inside ``quad``."""
    side = 6 * 10
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    flat = cv2.warpPerspective(grey, m, (side, side), flags=cv2.INTER_LINEAR)
    cells = flat.reshape(6, 10, 6, 10)[:, 3:7, :, 3:7].astype(np.float32)
    return cells.mean(axis=(1, 3))


def recover_markers(image: np.ndarray, found: dict[int, np.ndarray], layout: MarkerLayout,
                    kappa: float = 0.0, plane: PlaneMap | None = None,
                    min_cells: int = 26) -> dict[int, np.ndarray]:
    """``found`` with the layout's missing markers that a card, a corner of a hand or a
    shadow partly covers, which cv2.aruco cannot outline: each is looked for about where
    the found ones (at least two, or ``plane``) put it, by its printed pattern (template
    match, then sub-pixel alignment), and kept only when at least ``min_cells`` of its 36
    code cells read as printed and at most one shows ink where the print is white (a card
    over the code whitens ink, it does not add any)."""
    missing = [i for i in layout.ids if i not in found]
    if not missing:
        return dict(found)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape[:2]
    if sum(i in found for i in layout.ids) >= 2:
        try:
            plane = fit_markers(found, layout, (w, h), min_markers=2, lens=False, kappa=kappa)
        except CalibrationError:
            pass
    if plane is None:
        return dict(found)
    out = dict(found)
    # nearest to the found ones first: each one recovered pins the map for the next
    for i in sorted(missing, key=lambda i: min(
            (float(np.linalg.norm(np.subtract(layout.centres_mm[layout.ids.index(i)],
                                              layout.centres_mm[layout.ids.index(j)])))
             for j in out if j in layout.ids), default=0.0)):
        quad = _look_for_marker(grey, plane.to_px(layout.corners_mm(i)), i, min_cells)
        if quad is not None:
            out[i] = quad
            try:
                plane = fit_markers(out, layout, (w, h), min_markers=2, lens=False,
                                    kappa=kappa)
            except CalibrationError:
                pass
    return out


def _look_for_marker(grey: np.ndarray, quad: np.ndarray, marker_id: int,
                     min_cells: int) -> np.ndarray | None:
    """Corners (4×2, cv2.aruco order) of marker ``marker_id`` near the predicted ``quad``,
    or None. The frame about the prediction is warped square (a code cell ``_CELL`` px),
    the printed marker matched over ±2 marker sides at a few scales, then aligned by ECC."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    h, w = grey.shape[:2]
    if not np.all(np.isfinite(q)):
        return None
    side_px = float(np.linalg.norm(q[0] - q[2])) / math.sqrt(2)
    if side_px < 8 or not (0 <= q[:, 0].mean() < w and 0 <= q[:, 1].mean() < h):
        return None
    pad = 14 * _CELL  # the window: the code ± 14 cells (over two marker sides)
    size = 6 * _CELL + 2 * pad
    canon = np.array([[pad, pad], [pad + 6 * _CELL, pad], [pad + 6 * _CELL, pad + 6 * _CELL],
                      [pad, pad + 6 * _CELL]], np.float32)
    to_img = cv2.getPerspectiveTransform(canon, q.astype(np.float32))
    window = cv2.warpPerspective(grey, to_img, (size, size),
                                 flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                 borderMode=cv2.BORDER_REPLICATE).astype(np.float32) / 255.0
    template = _marker_template(marker_id)
    best = (-1.0, 1.0, (0, 0))
    for scale in (0.8, 0.9, 1.0, 1.12, 1.25):
        t = cv2.resize(template, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if t.shape[0] >= size:
            continue
        r = cv2.matchTemplate(window, t, cv2.TM_CCOEFF_NORMED)
        _, score, _, loc = cv2.minMaxLoc(r)
        if score > best[0]:
            best = (float(score), scale, loc)
    score, scale, (x, y) = best
    if score < 0.4:
        return None
    warp = np.array([[scale, 0, x], [0, scale, y], [0, 0, 1]], np.float32)
    try:
        _, warp = cv2.findTransformECC(
            template, window, warp, cv2.MOTION_HOMOGRAPHY,
            (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5), None, 3)
    except cv2.error:
        return None
    code = np.array([[_CELL, _CELL, 1], [7 * _CELL, _CELL, 1], [7 * _CELL, 7 * _CELL, 1],
                     [_CELL, 7 * _CELL, 1]], np.float64)
    in_window = code @ warp.astype(np.float64).T
    in_window = in_window[:, :2] / in_window[:, 2:3]
    found = cv2.perspectiveTransform(in_window[None].astype(np.float64),
                                     to_img.astype(np.float64))[0]
    if not np.all(np.isfinite(found)):
        return None
    if not _reads_as(grey, found, marker_id, min_cells):
        return None
    return found


def _reads_as(grey: np.ndarray, quad: np.ndarray, marker_id: int, min_cells: int) -> bool:
    """Whether the code inside ``quad`` reads as ``marker_id`` (upright) on at least
    ``min_cells`` of its 36 cells with at most one showing ink where the print is white: a
    card or paper over the code whitens ink, it does not add any."""
    cells = _code_cells(grey, quad)
    lo, hi = float(np.percentile(cells, 10)), float(np.percentile(cells, 90))
    if hi - lo < 30:
        return False
    ink = cells < (lo + hi) / 2
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    white = np.zeros((6, 6), bool)
    white[1:5, 1:5] = dictionary.getBitsFromByteList(
        dictionary.bytesList[marker_id:marker_id + 1], 4) == 1
    agree = int((ink != white).sum())
    stray_ink = int((ink & white).sum())
    return agree >= min_cells and stray_ink <= 1


def _crop_box(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """The square about a marker's expected corners where it is looked for again (2.4× its
    diagonal and 12 px wide), clipped to the frame; None when under 8 px a side."""
    c = np.asarray(quad, np.float64).reshape(4, 2)
    r = 1.2 * float(np.linalg.norm(c[0] - c[2])) + 6
    cx, cy = c.mean(axis=0)
    if not (np.isfinite(cx) and np.isfinite(cy) and np.isfinite(r)):
        return None
    x0, y0 = max(0, int(cx - r)), max(0, int(cy - r))
    x1, y1 = min(shape[1], int(cx + r)), min(shape[0], int(cy + r))
    return (x0, y0, x1, y1) if x1 - x0 >= 8 and y1 - y0 >= 8 else None


def _fit(mm: np.ndarray, px: np.ndarray, centre: np.ndarray, kappa: float
         ) -> tuple[np.ndarray, float]:
    d = px - centre
    u = centre + d * (1 + kappa * (d * d).sum(1, keepdims=True))
    hom, _ = cv2.findHomography(mm, u, 0)
    if hom is None:
        raise CalibrationError("the marker corners do not give a homography")
    pr = cv2.perspectiveTransform(mm[None].astype(np.float64), hom)[0]
    return hom / hom[2, 2], float(np.linalg.norm(pr - u, axis=1).mean())


def fit_markers(found: dict[int, np.ndarray], layout: MarkerLayout,
                image_size: tuple[int, int], min_markers: int = 3,
                lens: bool = True, kappa: float = 0.0) -> PlaneMap:
    """The plane map from the markers found (at least ``min_markers`` of the layout's);
    with ``lens`` and all four markers a radial distortion is fitted too when it explains
    the corners clearly better than none; otherwise the given ``kappa`` (the lens term
    known from an earlier calibration: the lens does not change when the camera moves)."""
    known = [i for i in layout.ids if i in found]
    if len(known) < min_markers:
        raise CalibrationError(f"{len(known)} of the table's markers in view, "
                               f"{min_markers} needed")
    mm = np.concatenate([layout.corners_mm(i) for i in known])
    px = np.concatenate([found[i] for i in known])
    centre = np.array(image_size, np.float64) / 2
    if not (lens and len(known) >= 4):
        hom, err = _fit(mm, px, centre, kappa)
        return PlaneMap(hom, (float(centre[0]), float(centre[1])), kappa, err)
    hom, err0 = _fit(mm, px, centre, 0.0)
    best = (err0, 0.0, hom)
    f2 = (image_size[0] / 2) ** 2
    for k in np.linspace(-0.5, 0.5, 101) / f2:
        h, e = _fit(mm, px, centre, float(k))
        if e < best[0]:
            best = (e, float(k), h)
    lo = best[1] - 0.01 / f2
    for k in np.linspace(lo, lo + 0.02 / f2, 41):
        h, e = _fit(mm, px, centre, float(k))
        if e < best[0]:
            best = (e, float(k), h)
    if not (best[0] < 0.8 * err0 and err0 - best[0] > 0.1):
        best = (err0, 0.0, hom)
    return PlaneMap(best[2], (float(centre[0]), float(centre[1])), best[1], best[0])


def from_corners(corners_px: Sequence[Sequence[float]], shape: str, width_mm: float,
                 depth_mm: float) -> PlaneMap:
    """The plane map from the table's four corners clicked in the image (top-left,
    top-right, bottom-right, bottom-left as seen from seat 0; a round table: the four
    points where the rim meets the diagonals of its bounding square are not used, give the
    rim's top, right, bottom and left points instead)."""
    px = np.asarray(corners_px, np.float64)
    if px.shape != (4, 2) or not np.all(np.isfinite(px)):
        raise CalibrationError("corners: four x,y image points are needed")
    w, d = width_mm / 2, depth_mm / 2
    if shape == "round":
        mm = np.array([[0, -d], [w, 0], [0, d], [-w, 0]], np.float64)
    else:
        mm = np.array([[-w, -d], [w, -d], [w, d], [-w, d]], np.float64)
    hom = cv2.getPerspectiveTransform(mm.astype(np.float32), px.astype(np.float32))
    if abs(np.linalg.det(hom)) < 1e-12:
        raise CalibrationError("corners: the four points are degenerate")
    # a proper quadrilateral keeps its winding: all cross products of the same sign
    q = np.roll(px, -1, 0) - px
    cross = q[:, 0] * np.roll(q, -1, 0)[:, 1] - q[:, 1] * np.roll(q, -1, 0)[:, 0]
    if not (np.all(cross > 0) or np.all(cross < 0)):
        raise CalibrationError("corners: the four points do not form a convex quadrilateral")
    return PlaneMap(hom / hom[2, 2])


@dataclass
class CameraWatch:
    """Has the camera moved since the reference frame? ORB features of a small grey copy
    are matched to the reference's and a similarity fitted (RANSAC): a move of more than
    ``max_shift_px`` (full-frame pixels) at the frame's corners, or too few features
    agreeing (the view no longer resembles the reference), counts as a move. Cards and
    hands that move are outvoted by the still table, floor and markers."""

    width: int = 480
    max_shift_px: float = 4.0
    min_inliers: int = 12
    reference: tuple[Any, Any] | None = field(default=None, repr=False)
    scale: float = 1.0
    last_shift_px: float = 0.0

    def _features(self, image: np.ndarray) -> tuple[Any, Any]:
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        self.scale = grey.shape[1] / self.width
        h = max(8, int(round(grey.shape[0] / self.scale)))
        small = cv2.resize(grey, (self.width, h), interpolation=cv2.INTER_AREA)
        self._size = (self.width, h)
        return _ORB().detectAndCompute(small, None)

    def set_reference(self, image: np.ndarray) -> None:
        self.reference = self._features(image)

    def moved(self, image: np.ndarray) -> bool:
        """True when the frame looks shifted or different against the reference."""
        if self.reference is None:
            return False
        kp, des = self._features(image)
        rkp, rdes = self.reference
        if des is None or rdes is None or len(kp) < self.min_inliers:
            return True
        matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(rdes, des)
        if len(matches) < self.min_inliers:
            return True
        src = np.float32([rkp[m.queryIdx].pt for m in matches])
        dst = np.float32([kp[m.trainIdx].pt for m in matches])
        m, inl = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC,
                                             ransacReprojThreshold=2.0)
        if m is None or int(inl.sum()) < self.min_inliers:
            return True
        w, h = self._size
        box = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        moved = box @ m[:, :2].T + m[:, 2] - box
        self.last_shift_px = float(np.linalg.norm(moved, axis=1).max() * self.scale)
        return self.last_shift_px > self.max_shift_px


@dataclass
class MarkerPatches:
    """Are the markers where they were? The patch about each marker found at the last
    calibration is kept (grey, zero mean, unit variance) and compared with the same pixels
    of a later frame by normalised correlation: while every patch agrees to within
    ``max_change`` (1 − correlation; about a quarter-pixel shift of a marker's code, and
    blind to the light getting brighter or dimmer) the table's four corners have not moved
    in the image, so neither has the camera — cheaper than :class:`CameraWatch` by far.
    A hand or a card over a marker, the light changing its pattern, or any move makes a
    patch disagree (then ask the watch)."""

    max_change: float = 0.02
    patches: dict[int, tuple[tuple[int, int, int, int], np.ndarray]] = field(
        default_factory=dict, repr=False)

    def set(self, image: np.ndarray, found: dict[int, np.ndarray]) -> None:
        """Keep the patches of the markers ``found`` (id → corners) in ``image``."""
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        self.patches = {}
        for i, quad in found.items():
            q = np.asarray(quad, np.float64).reshape(4, 2)
            if not np.all(np.isfinite(q)):
                continue
            m = max(4.0, 0.35 * float(np.ptp(q, axis=0).max()))
            x0, y0 = (int(v) for v in np.floor(q.min(axis=0) - m))
            x1, y1 = (int(v) for v in np.ceil(q.max(axis=0) + m))
            x0, y0 = max(0, x0), max(0, y0)
            x1, y1 = min(grey.shape[1], x1), min(grey.shape[0], y1)
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            z = _zscore(grey[y0:y1, x0:x1])
            if z is not None:
                self.patches[int(i)] = ((x0, y0, x1, y1), z)

    def clear(self) -> None:
        self.patches = {}

    def covers(self, ids: Sequence[int]) -> bool:
        """Whether a patch is kept for each of ``ids``."""
        return all(int(i) in self.patches for i in ids)

    def unchanged(self, image: np.ndarray, min_markers: int = 3) -> bool:
        """True when at least ``min_markers`` patches are kept and all look as they did."""
        if len(self.patches) < min_markers:
            return False
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        for (x0, y0, x1, y1), ref in self.patches.values():
            cur = grey[y0:y1, x0:x1]
            z = _zscore(cur) if cur.shape == ref.shape else None
            if z is None or 1.0 - float((z * ref).mean()) > self.max_change:
                return False
        return True


def _zscore(patch: np.ndarray) -> np.ndarray | None:
    p = patch.astype(np.float32)
    p -= p.mean()
    sd = float(np.sqrt((p * p).mean()))
    return p / sd if sd > 2.0 else None  # a flat patch: no marker to compare


_ORB_CACHE: list[Any] = []


def _ORB() -> Any:  # noqa: N802 - OpenCV's name
    if not _ORB_CACHE:
        _ORB_CACHE.append(cv2.ORB_create(nfeatures=600, fastThreshold=12))
    return _ORB_CACHE[0]


# --- printable markers -------------------------------------------------------------------

def marker_sheet(dpi: int = 150, layout: MarkerLayout | None = None) -> np.ndarray:
    """An A4 page (grey image) with the four markers at true size (70 mm squares with a
    52.5 mm code) to cut out, each labelled with its id and where it goes."""
    layout = layout or MarkerLayout((0, 1, 2, 3), ((0, 0),) * 4)
    mm = dpi / 25.4
    page = np.full((int(297 * mm), int(210 * mm)), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICT)
    where = ["top left", "top right", "bottom right", "bottom left"]
    code_px = int(round(layout.code_mm * mm))
    paper_px = int(round(MARKER_PAPER_MM * mm))
    for n, marker_id in enumerate(layout.ids[:4]):
        col, row = n % 2, n // 2
        x0 = int((25 + col * 90) * mm)
        y0 = int((60 + row * 105) * mm)
        cv2.rectangle(page, (x0, y0), (x0 + paper_px, y0 + paper_px), 160, 1)
        code = cv2.aruco.generateImageMarker(dictionary, marker_id, code_px)
        off = (paper_px - code_px) // 2
        page[y0 + off:y0 + off + code_px, x0 + off:x0 + off + code_px] = code
        cv2.putText(page, f"id {marker_id}: {where[n]} corner", (x0, y0 + paper_px + int(8 * mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.018 * dpi / 4, 0, max(1, dpi // 100))
        # an arrow: this edge points to the far side of the table (away from seat 0)
        cv2.arrowedLine(page, (x0 + paper_px // 2, y0 - int(3 * mm)),
                        (x0 + paper_px // 2, y0 - int(12 * mm)), 0, max(1, dpi // 75),
                        tipLength=0.3)
    lines = ["Nertz referee table markers (ArUco DICT_4X4_50). Print at 100 % scale;",
             "the black codes must measure 52.5 mm. Cut along the grey squares.",
             "Tape one marker at each table corner, 52.5 mm in from both edges",
             "(round table: on the rim at the diagonals), arrows pointing away",
             "from seat 0, ids clockwise from the top left as seen from seat 0."]
    for i, text in enumerate(lines):
        cv2.putText(page, text, (int(12 * mm), int((12 + 6 * i) * mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.014 * dpi / 4, 0, max(1, dpi // 150))
    return page


def write_marker_pdf(path: str, page: np.ndarray, dpi: int = 150) -> None:
    """A one-page A4 PDF holding ``page`` (grey, 8-bit) as a Flate-compressed image."""
    h, w = page.shape[:2]
    data = zlib.compress(np.ascontiguousarray(page, np.uint8).tobytes(), 9)
    pw, ph = w * 72.0 / dpi, h * 72.0 / dpi
    content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
         f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n"
         ).encode() + data + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            ).encode()
    with open(path, "wb") as fh:
        fh.write(bytes(out))


def marker_page(path: str | Path, dpi: int = 150) -> None:
    """Write the marker sheet as ``.pdf`` or an image (``.png``, ``.jpg``)."""
    path = Path(path)
    if not 72 <= dpi <= 600:
        raise CalibrationError(f"dpi {dpi} is out of range [72, 600]")
    page = marker_sheet(dpi)
    if path.suffix.lower() == ".pdf":
        write_marker_pdf(str(path), page, dpi)
    elif path.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"):
        if not cv2.imwrite(str(path), page):
            raise CalibrationError(f"cannot write {path}")
    else:
        raise CalibrationError(f"{path.name}: write .pdf or .png")
