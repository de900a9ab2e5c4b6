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
    """A pinhole webcam above the table, looking at (``target_x_mm``, ``target_y_mm``),
    tilted ``tilt_deg`` from straight down, turned ``yaw_deg`` about the vertical and
    ``roll_deg`` about its axis, with radial lens distortion k1, k2.

    Table coordinates are millimetres with the origin at the table's centre, x to the right
    and y down as seen from above (seat 0 sits at the bottom). ``height_mm`` None means
    "not placed yet": :meth:`fit` finds the lowest height that shows the whole table.
    """

    width: int = 1280
    height: int = 720
    height_mm: float | None = None
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
            if value is None and f.name == "height_mm":
                continue
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
    def random(cls, rng: random.Random, size: tuple[int, int] = (1280, 720),
               wild: bool = True) -> Camera:
        """A plausible webcam (not yet placed: :meth:`fit` it to a table)."""
        if not wild:
            return cls(width=size[0], height=size[1])
        tilt = rng.choice([0.0, rng.uniform(0, 12), rng.uniform(5, 25)])
        return cls(width=size[0], height=size[1], tilt_deg=tilt,
                   yaw_deg=rng.uniform(-8, 8) + rng.choice([0, 0, 90, 180, 270]),
                   roll_deg=rng.uniform(-4, 4), hfov_deg=rng.uniform(58, 90),
                   k1=rng.choice([0.0, rng.uniform(-0.18, 0.05)]),
                   k2=rng.uniform(-0.02, 0.03), target_x_mm=rng.uniform(-40, 40),
                   target_y_mm=rng.uniform(-40, 40))

    @classmethod
    def random_fitted(cls, rng: random.Random, size: tuple[int, int],
                      outline_mm: np.ndarray | tuple[float, float], tries: int = 20) -> Camera:
        """A random camera (:meth:`random`) fitted to ``outline_mm`` with a random margin;
        a draw whose view cannot hold the table at any height is drawn again."""
        for attempt in range(tries):
            cam = cls.random(rng, size)
            try:
                return cam.fit(outline_mm, margin=rng.uniform(0.0, 0.05))
            except CameraError:
                if attempt == tries - 1:
                    raise
        raise CameraError("no random camera fits the table")

    def fit(self, outline_mm: np.ndarray | tuple[float, float], margin: float = 0.03
            ) -> Camera:
        """This camera at the lowest height at which ``outline_mm`` (N×2 table points, or a
        (width, depth) rectangle around the centre) fits in the frame with ``margin`` (a
        fraction of each side) to spare."""
        pts = np.asarray(outline_mm, np.float64)
        if pts.shape == (2,):
            w, d = pts / 2
            pts = np.array([[-w, -d], [w, -d], [w, d], [-w, d]])
        lo_x, hi_x = margin * self.width, (1 - margin) * self.width
        lo_y, hi_y = margin * self.height, (1 - margin) * self.height

        def fits(height: float) -> bool:
            p = replace(self, height_mm=height).project(pts)
            return bool(np.all(np.isfinite(p)) and p[:, 0].min() >= lo_x
                        and p[:, 0].max() <= hi_x and p[:, 1].min() >= lo_y
                        and p[:, 1].max() <= hi_y)

        lo, hi = _RANGES["height_mm"]
        if not fits(hi):
            raise CameraError(f"the table does not fit the frame below {hi:.0f} mm")
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if fits(mid) else (mid, hi)
        return replace(self, height_mm=round(hi, 1))

    # --- geometry ---------------------------------------------------------------------
    @property
    def K(self) -> np.ndarray:  # noqa: N802 - the usual name
        f = self.width / 2 / math.tan(math.radians(self.hfov_deg) / 2)
        return np.array([[f, 0, self.width / 2], [0, f, self.height / 2], [0, 0, 1]])

    def _pose_y_up(self) -> tuple[np.ndarray, np.ndarray]:
        """Rotation (world→camera) and centre in a y-up world (z up, table at z=0)."""
        if self.height_mm is None:
            raise CameraError("the camera is not placed: fit it to the table first")
        tilt, yaw = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        target = np.array([self.target_x_mm, -self.target_y_mm, 0.0])
        # the camera leans back towards seat 0's side, then turns by yaw
        back = np.array([-math.sin(yaw), -math.cos(yaw), 0.0])
        centre = target + back * self.height_mm * math.tan(tilt) + [0, 0, self.height_mm]
        forward = target - centre
        forward /= np.linalg.norm(forward)
        up_hint = np.array([math.sin(yaw), math.cos(yaw), 0.0])
        right = np.cross(forward, up_hint)
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        roll = math.radians(self.roll_deg)
        r_x = math.cos(roll) * right + math.sin(roll) * down
        r_y = -math.sin(roll) * right + math.cos(roll) * down
        return np.stack([r_x, r_y, forward]), centre

    def homography(self) -> np.ndarray:
        """3×3 map from table mm (x, y down, 1) to undistorted image pixels."""
        rot, centre = self._pose_y_up()
        m = np.column_stack([rot[:, 0], -rot[:, 1], -rot @ centre])
        h = self.K @ m
        return h / h[2, 2]

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Undistorted image pixels (N, 2) → where the lens puts them."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        if not (self.k1 or self.k2):
            return pts
        k = self.K
        xn = (pts - k[:2, 2]) / [k[0, 0], k[1, 1]]
        r2 = np.sum(xn * xn, axis=1, keepdims=True)
        xd = xn * (1 + self.k1 * r2 + self.k2 * r2 * r2)
        return xd * [k[0, 0], k[1, 1]] + k[:2, 2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) → image pixels (N, 2), lens distortion included."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
        p = np.column_stack([pts, np.ones(len(pts))]) @ self.homography().T
        return self.distort(p[:, :2] / p[:, 2:3])

    def distortion_maps(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``cv2.remap`` maps that turn an undistorted frame into this lens's view, or None
        for a lens without distortion."""
        if not (self.k1 or self.k2):
            return None
        k = self.K
        ys, xs = np.mgrid[0:self.height, 0:self.width].astype(np.float32)
        pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
        # each output (distorted) pixel looks up where it is in the undistorted frame
        src = cv2.undistortPoints(pts, k, np.array([self.k1, self.k2, 0, 0], np.float64),
                                  P=k).reshape(self.height, self.width, 2)
        return cv2.convertMaps(src[..., 0], src[..., 1], cv2.CV_16SC2)

    def mm_per_px_at_centre(self) -> float:
        """Table millimetres per image pixel at the point the camera looks at."""
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
