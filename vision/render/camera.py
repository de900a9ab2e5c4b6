"""A simulated overhead webcam: pinhole geometry with tilt, rotation and lens distortion
(table millimetres → image pixels), and the photometric side (auto-exposure drift, uneven
light, colour cast, sensor noise, lossy encoding)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields, replace
from typing import Any

import cv2
import numpy as np

RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "4k": (3840, 2160),
               "480p": (640, 480)}


class CameraError(ValueError):
    """A camera or light setting out of range; the message names it."""


_RANGES: dict[str, tuple[float, float]] = {
    "width": (160, 7680), "height": (120, 4320), "height_mm": (300, 4000),
    "tilt_deg": (0, 40), "yaw_deg": (-360, 360), "roll_deg": (-45, 45),
    "hfov_deg": (30, 120), "k1": (-0.5, 0.5), "k2": (-0.3, 0.3),
    "target_x_mm": (-1500, 1500), "target_y_mm": (-1500, 1500),
}


@dataclass(frozen=True)
class Camera:
    """A pinhole camera ``height_mm`` above the table, tilted ``tilt_deg`` from straight
    down, looking at (``target_x_mm``, ``target_y_mm``) on the table, turned ``yaw_deg``
    about the vertical and ``roll_deg`` about its axis, with radial distortion k1, k2."""

    width: int = 1280
    height: int = 720
    height_mm: float = 1100.0
    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    roll_deg: float = 0.0
    hfov_deg: float = 78.0
    k1: float = 0.0
    k2: float = 0.0
    target_x_mm: float = 0.0
    target_y_mm: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            lo, hi = _RANGES[f.name]
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    lo <= value <= hi) or not math.isfinite(value):
                raise CameraError(f"camera {f.name}={value!r} is out of range [{lo}, {hi}]")

    @classmethod
    def parse(cls, text: str, **base: Any) -> Camera:
        """``"height_mm=1200,tilt_deg=10"`` or a resolution name (``720p`` …) plus options."""
        values: dict[str, Any] = dict(base)
        for part in filter(None, (p.strip() for p in text.split(","))):
            if part.lower() in RESOLUTIONS:
                values["width"], values["height"] = RESOLUTIONS[part.lower()]
                continue
            if "=" not in part:
                raise CameraError(f"camera setting {part!r} is not NAME=VALUE")
            name, value = (s.strip() for s in part.split("=", 1))
            if name not in _RANGES:
                raise CameraError(f"unknown camera setting {name!r}; known: "
                                  f"{', '.join(_RANGES)}")
            try:
                values[name] = int(value) if name in ("width", "height") else float(value)
            except ValueError:
                raise CameraError(f"camera {name}={value!r} is not a number") from None
        return cls(**values)

    @classmethod
    def random(cls, rng: random.Random, table_mm: tuple[float, float],
               size: tuple[int, int] = (1280, 720), wild: bool = True) -> Camera:
        """A plausible webcam over a table of ``table_mm`` (width, depth) that sees all of it."""
        tilt = rng.uniform(0, 22) if wild else 0.0
        cam = cls(width=size[0], height=size[1], tilt_deg=tilt,
                  yaw_deg=rng.uniform(-8, 8) + (rng.choice([0, 90, 180, 270]) if wild else 0),
                  roll_deg=rng.uniform(-3, 3) if wild else 0.0,
                  hfov_deg=rng.uniform(62, 90) if wild else 78.0,
                  k1=rng.uniform(-0.18, 0.05) if wild else 0.0,
                  k2=rng.uniform(-0.02, 0.04) if wild else 0.0,
                  target_x_mm=rng.uniform(-40, 40) if wild else 0.0,
                  target_y_mm=rng.uniform(-40, 40) if wild else 0.0)
        return cam.fit(table_mm, margin=rng.uniform(1.02, 1.15) if wild else 1.05)

    def fit(self, table_mm: tuple[float, float], margin: float = 1.05) -> Camera:
        """The lowest camera height at which the whole table (times ``margin``) is in view."""
        w, d = table_mm[0] / 2 * margin, table_mm[1] / 2 * margin
        corners = np.array([[-w, -d], [w, -d], [w, d], [-w, d]], np.float64)
        lo, hi = 300.0, 4000.0
        for _ in range(40):
            mid = (lo + hi) / 2
            pts = replace(self, height_mm=mid).project(corners)
            inside = (np.all(pts[:, 0] >= 0) and np.all(pts[:, 0] < self.width)
                      and np.all(pts[:, 1] >= 0) and np.all(pts[:, 1] < self.height))
            lo, hi = (lo, mid) if inside else (mid, hi)
        return replace(self, height_mm=round(hi, 1))

    # --- geometry ---------------------------------------------------------------------
    @property
    def K(self) -> np.ndarray:  # noqa: N802 - the usual name
        f = self.width / 2 / math.tan(math.radians(self.hfov_deg) / 2)
        return np.array([[f, 0, self.width / 2], [0, f, self.height / 2], [0, 0, 1]])

    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Rotation (world→camera) and camera centre in table mm (z up, table at z=0)."""
        tilt, yaw = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        target = np.array([self.target_x_mm, self.target_y_mm, 0.0])
        # the camera leans back along -y (towards seat 0's side), then turns by yaw
        back = np.array([-math.sin(yaw), -math.cos(yaw), 0.0])
        centre = target + back * self.height_mm * math.tan(tilt) + [0, 0, self.height_mm]
        forward = target - centre
        forward /= np.linalg.norm(forward)
        up_hint = np.array([math.sin(yaw), math.cos(yaw), 0.0])  # image "up" on the table
        right = np.cross(forward, up_hint)
        if np.linalg.norm(right) < 1e-9:
            right = np.array([1.0, 0, 0])
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        roll = math.radians(self.roll_deg)
        r_x = math.cos(roll) * right + math.sin(roll) * down
        r_y = -math.sin(roll) * right + math.cos(roll) * down
        # image y grows downwards: the table's +y (up_hint) appears at the top
        rot = np.stack([r_x, r_y, forward])
        return rot, centre

    def homography(self) -> np.ndarray:
        """3×3 map from table mm (x, y, 1) to undistorted image pixels."""
        rot, centre = self.pose()
        t = -rot @ centre
        m = np.column_stack([rot[:, 0], rot[:, 1], t])
        h = self.K @ m
        return h / h[2, 2]

    def _distort_px(self, pts: np.ndarray) -> np.ndarray:
        if not (self.k1 or self.k2):
            return pts
        k = self.K
        xn = (pts - k[:2, 2]) / [k[0, 0], k[1, 1]]
        r2 = np.sum(xn * xn, axis=1, keepdims=True)
        xd = xn * (1 + self.k1 * r2 + self.k2 * r2 * r2)
        return xd * [k[0, 0], k[1, 1]] + k[:2, 2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) → distorted image pixels (N, 2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        h = self.homography()
        p = np.column_stack([pts, np.ones(len(pts))]) @ h.T
        return self._distort_px(p[:, :2] / p[:, 2:3])

    def table_maps(self, px_per_mm: float, origin_mm: tuple[float, float]
                   ) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps that turn a top-down table canvas (``px_per_mm``, canvas pixel
        (0, 0) at table ``origin_mm`` = top-left, +y up on the table) into this camera's
        frame, lens distortion included."""
        k = self.K
        ys, xs = np.mgrid[0:self.height, 0:self.width].astype(np.float64)
        pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
        if self.k1 or self.k2:
            und = cv2.undistortPoints(pts.reshape(-1, 1, 2), k,
                                      np.array([self.k1, self.k2, 0, 0], np.float64), P=k)
            pts = und.reshape(-1, 2)
        hinv = np.linalg.inv(self.homography())
        p = np.column_stack([pts, np.ones(len(pts))]) @ hinv.T
        table = p[:, :2] / p[:, 2:3]
        map_x = (table[:, 0] - origin_mm[0]) * px_per_mm
        map_y = (origin_mm[1] - table[:, 1]) * px_per_mm
        return (map_x.reshape(self.height, self.width).astype(np.float32),
                map_y.reshape(self.height, self.width).astype(np.float32))

    def mm_per_px_at_centre(self) -> float:
        """Table millimetres per image pixel near the image centre."""
        a = self.project(np.array([[self.target_x_mm, self.target_y_mm],
                                   [self.target_x_mm + 10, self.target_y_mm]]))
        return 10 / float(np.linalg.norm(a[1] - a[0]))


@dataclass(frozen=True)
class Lighting:
    """Room light and sensor: global exposure with a slow auto-exposure drift, a light
    gradient and vignetting, a colour cast, Gaussian sensor noise, JPEG-like compression."""

    exposure: float = 1.0
    drift: float = 0.0  # amplitude of the auto-exposure swing (fraction)
    drift_period_s: float = 6.0
    gradient: float = 0.0  # brightness difference across the frame (fraction)
    gradient_angle_deg: float = 0.0
    vignette: float = 0.0
    cast_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    noise: float = 0.0  # sigma in 8-bit steps
    jpeg_quality: int | None = None

    def __post_init__(self) -> None:
        checks = {"exposure": (0.3, 2.5), "drift": (0, 0.5), "drift_period_s": (0.5, 120),
                  "gradient": (0, 0.8), "vignette": (0, 0.8), "noise": (0, 30)}
        for name, (lo, hi) in checks.items():
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise CameraError(f"light {name}={value!r} is out of range [{lo}, {hi}]")
        if self.jpeg_quality is not None and not 5 <= self.jpeg_quality <= 100:
            raise CameraError(f"light jpeg_quality={self.jpeg_quality} is out of range [5, 100]")

    @classmethod
    def random(cls, rng: random.Random, video: bool = True) -> Lighting:
        warm = rng.uniform(-0.12, 0.15)
        return cls(exposure=rng.uniform(0.7, 1.25), drift=rng.uniform(0, 0.12),
                   drift_period_s=rng.uniform(3, 15), gradient=rng.uniform(0, 0.45),
                   gradient_angle_deg=rng.uniform(0, 360), vignette=rng.uniform(0, 0.45),
                   cast_bgr=(1 - warm, 1.0, 1 + warm), noise=rng.uniform(1, 7),
                   jpeg_quality=None if video else rng.randint(35, 95))


class Photometry:
    """Applies a :class:`Lighting` to frames; the per-pixel gain field and a bank of noise
    frames are computed once, so each frame costs a multiply and an add."""

    def __init__(self, lighting: Lighting, size: tuple[int, int], seed: int = 0) -> None:
        self.lighting = lighting
        w, h = size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        nx, ny = (xs - w / 2) / (w / 2), (ys - h / 2) / (h / 2)
        a = math.radians(lighting.gradient_angle_deg)
        grad = 1 + lighting.gradient * 0.5 * (nx * math.cos(a) + ny * math.sin(a))
        vig = 1 - lighting.vignette * 0.5 * (nx * nx + ny * ny) / 2
        field = (grad * vig)[..., None] * np.array(lighting.cast_bgr, np.float32)
        # the gain field in 1/128 steps, so a frame is lit by one saturating uint8 multiply
        self.field = np.clip(field * 128, 0, 255).astype(np.uint8)
        self.rng = np.random.default_rng(seed)
        self.phase = float(self.rng.uniform(0, 2 * math.pi))
        self.noise_bank: list[tuple[np.ndarray, np.ndarray]] = []
        if lighting.noise > 0:
            for _ in range(4):
                n = self.rng.normal(0, lighting.noise, (h + 64, w + 64, 3))
                self.noise_bank.append((np.clip(n, 0, 255).astype(np.uint8),
                                        np.clip(-n, 0, 255).astype(np.uint8)))

    def gain(self, t_s: float) -> float:
        lt = self.lighting
        swing = math.sin(2 * math.pi * t_s / lt.drift_period_s + self.phase)
        return lt.exposure * (1 + lt.drift * swing)

    def apply(self, frame: np.ndarray, t_s: float = 0.0) -> np.ndarray:
        """The frame as the sensor would record it at time ``t_s``."""
        out = cv2.multiply(frame, self.field, scale=self.gain(t_s) / 128)
        if self.noise_bank:
            h, w = frame.shape[:2]
            k = int(self.rng.integers(len(self.noise_bank)))
            dy, dx = (int(v) for v in self.rng.integers(0, 64, 2))
            pos, neg = self.noise_bank[k]
            out = cv2.subtract(cv2.add(out, pos[dy:dy + h, dx:dx + w]), neg[dy:dy + h, dx:dx + w])
        q = self.lighting.jpeg_quality
        if q is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
            if ok:
                out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out
