"""The table profile (TOML, DESIGN.md): table shape and size, seats (where each sits and
faces, its back design, the places learned from a deal), how the camera is calibrated
(ArUco marker ids and spots, or a fixed homography from four table corners), and the
house-rule preset and options. A :class:`~vision.backs_registry.BackDesigns` registry is
saved beside it (``<profile>.backs.json``).

>>> profile = TableProfile.propose(4, "rect", 1400, 900)
>>> profile.save("table.toml"); TableProfile.load("table.toml")
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules import HouseRules, RulesError

from .calibration import MARKER_CODE_MM, MarkerLayout, PlaneMap

__all__ = ["CARD_H_MM", "CARD_W_MM", "ProfileError", "SeatProfile", "TableProfile",
           "make_profile", "propose_seats"]

#: The house layout conventions (the renderer draws the same): a seat's layout footprint
#: along the table edge and its reach in from the edge, and a card's size.
SEAT_WIDTH_MM = 560.0
SEAT_DEPTH_MM = 260.0
EDGE_GAP_MM = 40.0
CARD_W_MM, CARD_H_MM = 63.0, 88.0
PLACE_NAMES = ("nertz", "stock", "waste")


class ProfileError(ValueError):
    """A table profile that cannot be used; the message names the field."""


@dataclass
class SeatProfile:
    """One seat: the centre of its layout (table mm), its turn (degrees, 0 = the player at
    the bottom, +y), its back design id, and the places learned from a deal (table mm:
    ``nertz``, ``stock``, ``waste``, ``river<i>`` — each pile's or column's first card)."""

    index: int
    origin_mm: tuple[float, float]
    angle_deg: float
    back: str | None = None
    places: dict[str, tuple[float, float]] = field(default_factory=dict)
    pitch_mm: float = CARD_W_MM + 10.0
    fan_mm: float = 17.0

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit vectors along the seat's row (player's right) and towards the player."""
        a = math.radians(self.angle_deg)
        return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])

    def to_local(self, mm: np.ndarray) -> np.ndarray:
        """Table mm (N, 2) → the seat's own frame (u along the row, v towards the player)."""
        u, v = self.axes()
        d = np.asarray(mm, np.float64).reshape(-1, 2) - np.array(self.origin_mm)
        return np.column_stack([d @ u, d @ v])

    def to_table(self, local: np.ndarray) -> np.ndarray:
        u, v = self.axes()
        p = np.asarray(local, np.float64).reshape(-1, 2)
        return np.array(self.origin_mm) + p[:, :1] * u + p[:, 1:2] * v

    def footprint(self) -> np.ndarray:
        """The seat's area (4×2 table mm)."""
        w, d = SEAT_WIDTH_MM / 2, SEAT_DEPTH_MM / 2
        return self.to_table(np.array([[-w, -d], [w, -d], [w, d], [-w, d]]))


def propose_seats(seats: int, shape: str, width_mm: float, depth_mm: float
                  ) -> list[SeatProfile]:
    """Seats around a ``rect`` or ``round`` table, clockwise from seat 0 at the bottom,
    each facing the centre (2–4 seats on the long sides, a fifth at the right end, six to
    eight with both ends)."""
    out: list[SeatProfile] = []
    inset = EDGE_GAP_MM + SEAT_DEPTH_MM / 2
    if shape == "round":
        r = width_mm / 2 - inset
        for k in range(seats):
            a = math.radians(90.0 + 360.0 * k / seats)
            out.append(SeatProfile(k, (r * math.cos(a), r * math.sin(a)), 360.0 * k / seats))
        return out
    reach = SEAT_DEPTH_MM + EDGE_GAP_MM
    ends = 0 if seats <= 4 else (1 if seats == 5 else 2)
    south = (seats - ends + 1) // 2
    north = seats - ends - south
    w2, d2 = width_mm / 2, depth_mm / 2
    span = width_mm - (2 * reach if ends else 0)

    def along(n: int) -> list[float]:
        return [(-span / 2 + span * (i + 0.5) / n) for i in range(n)]

    for x in reversed(along(south)):
        out.append(SeatProfile(len(out), (x, d2 - inset), 0.0))
    if ends == 2:
        out.append(SeatProfile(len(out), (-w2 + inset, 0.0), 90.0))
    for x in along(north):
        out.append(SeatProfile(len(out), (x, -d2 + inset), 180.0))
    if ends >= 1:
        out.append(SeatProfile(len(out), (w2 - inset, 0.0), 270.0))
    return out


@dataclass
class TableProfile:
    """Everything the table model needs to know about one table (see the module doc)."""

    shape: str
    width_mm: float
    depth_mm: float
    seats: list[SeatProfile]
    preset: str = "nertz"
    options: dict[str, Any] = field(default_factory=dict)
    markers: MarkerLayout | None = None
    plane: PlaneMap | None = None  # a fixed calibration (corners or a saved homography)
    image_size: tuple[int, int] | None = None
    backs: Any = None  # a BackDesigns registry, saved beside the profile

    def __post_init__(self) -> None:
        self.validate()

    @classmethod
    def propose(cls, seats: int, shape: str, width_mm: float, depth_mm: float | None = None,
                markers: bool = True, **kw: Any) -> TableProfile:
        """A profile with proposed seats (and default marker spots when ``markers``)."""
        depth = width_mm if depth_mm is None else depth_mm
        if shape not in ("rect", "round"):
            raise ProfileError(f"table.shape: must be rect or round, not {shape!r}")
        if not isinstance(seats, int) or not 2 <= seats <= 8:
            raise ProfileError(f"table.seats: 2 to 8 seats, not {seats!r}")
        return cls(shape, float(width_mm), float(depth), propose_seats(seats, shape, width_mm,
                                                                        depth),
                   markers=MarkerLayout.for_table(shape, width_mm, depth) if markers else None,
                   **kw)

    @property
    def rules(self) -> HouseRules:
        return HouseRules.from_dict({"preset": self.preset, **self.options})

    def validate(self) -> None:
        """Raise :class:`ProfileError` naming the first bad field."""
        if self.shape not in ("rect", "round"):
            raise ProfileError(f"table.shape: must be rect or round, not {self.shape!r}")
        for name in ("width_mm", "depth_mm"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or not 300 <= v <= 6000:
                raise ProfileError(f"table.{name}: {v!r} is not a size in mm (300–6000)")
        if not 2 <= len(self.seats) <= 8:
            raise ProfileError(f"seat: 2 to 8 seats, not {len(self.seats)}")
        if sorted(s.index for s in self.seats) != list(range(len(self.seats))):
            raise ProfileError("seat.index: seats must be numbered 0.. without gaps")
        self.seats.sort(key=lambda s: s.index)
        half = max(self.width_mm, self.depth_mm) / 2 + 200
        for s in self.seats:
            if not all(abs(c) <= half for c in s.origin_mm):
                raise ProfileError(f"seat{s.index}.origin_mm: {s.origin_mm} is off the table")
        polys = [s.footprint().astype(np.float32) for s in self.seats]
        area = SEAT_WIDTH_MM * SEAT_DEPTH_MM
        for i in range(len(polys)):
            for j in range(i + 1, len(polys)):
                inter, _ = cv2.intersectConvexConvex(polys[i], polys[j])
                if inter > 0.05 * area:
                    raise ProfileError(f"seat: seat{i} and seat{j} overlap "
                                       f"({inter / area:.0%} of a seat's area)")
        try:
            HouseRules.from_dict({"preset": self.preset, **self.options})
        except RulesError as exc:
            raise ProfileError(f"rules: {exc}") from None
        if self.markers is None and self.plane is None:
            raise ProfileError("calibration: give [markers] or a homography/corners")

    # --- TOML ------------------------------------------------------------------------
    def to_toml(self) -> str:
        lines = ["# nertz-referee table profile", "[table]", f"shape = {_v(self.shape)}",
                 f"width_mm = {_v(self.width_mm)}", f"depth_mm = {_v(self.depth_mm)}",
                 f"seats = {len(self.seats)}", "", "[rules]", f"preset = {_v(self.preset)}"]
        lines += [f"{k} = {_v(v)}" for k, v in self.options.items() if v is not None]
        lines += ["", "[calibration]"]
        if self.image_size is not None:
            lines.append(f"image_size = {_v(list(self.image_size))}")
        if self.plane is not None:
            lines += [f"homography = {_v(np.round(self.plane.hom, 10).tolist())}",
                      f"lens_kappa = {_v(self.plane.kappa)}",
                      f"lens_centre = {_v(list(self.plane.centre))}"]
        if self.markers is not None:
            m = self.markers
            lines += ["", "[markers]", "dictionary = \"DICT_4X4_50\"", f"ids = {_v(list(m.ids))}",
                      f"centres_mm = {_v([list(c) for c in m.centres_mm])}",
                      f"code_mm = {_v(m.code_mm)}"]
        for s in self.seats:
            lines += ["", "[[seat]]", f"index = {s.index}",
                      f"origin_mm = {_v(list(s.origin_mm))}", f"angle_deg = {_v(s.angle_deg)}",
                      f"pitch_mm = {_v(s.pitch_mm)}", f"fan_mm = {_v(s.fan_mm)}"]
            if s.back is not None:
                lines.append(f"back = {_v(s.back)}")
            if s.places:
                lines.append("[seat.places]")
                lines += [f"{k} = {_v(list(v))}" for k, v in s.places.items()]
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the TOML (and the back-design registry beside it, if any)."""
        path = Path(path)
        path.write_text(self.to_toml(), encoding="utf-8")
        if self.backs is not None and len(self.backs.ids):
            _backs_path(path).write_text(json.dumps(self.backs.to_dict()), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> TableProfile:
        """Read a profile; :class:`ProfileError` names the missing or bad field."""
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ProfileError(f"{path}: cannot read ({exc.strerror})") from None
        except tomllib.TOMLDecodeError as exc:
            raise ProfileError(f"{path}: not valid TOML: {exc}") from None
        profile = cls.from_dict(data)
        bp = _backs_path(path)
        if bp.exists():
            from .backs_registry import BackDesigns
            try:
                profile.backs = BackDesigns.from_dict(json.loads(bp.read_text("utf-8")))
            except (ValueError, KeyError) as exc:
                raise ProfileError(f"backs: {bp.name}: {exc}") from None
        return profile

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableProfile:
        table = _need(data, "table", dict)
        shape = _need(table, "shape", str, "table.")
        width = float(_need(table, "width_mm", int | float, "table."))
        depth = float(table.get("depth_mm", width))
        rules = dict(data.get("rules", {}))
        preset = rules.pop("preset", "nertz")
        if not isinstance(preset, str):
            raise ProfileError(f"rules.preset: {preset!r} is not a preset name")
        seats_raw = data.get("seat")
        n = table.get("seats")
        if seats_raw is None:
            if not isinstance(n, int):
                raise ProfileError("table.seats: missing (or give [[seat]] entries)")
            if not 2 <= n <= 8:
                raise ProfileError(f"table.seats: 2 to 8 seats, not {n}")
            if shape not in ("rect", "round"):
                raise ProfileError(f"table.shape: must be rect or round, not {shape!r}")
            seats = propose_seats(n, shape, width, depth)
        else:
            if not isinstance(seats_raw, list):
                raise ProfileError("seat: must be an array of tables ([[seat]])")
            seats = [_seat(s, i) for i, s in enumerate(seats_raw)]
            if isinstance(n, int) and n != len(seats):
                raise ProfileError(f"table.seats: {n} but {len(seats)} [[seat]] entries")
        cal = data.get("calibration", {})
        plane = None
        if "homography" in cal:
            hom = np.asarray(cal["homography"], np.float64)
            if hom.shape != (3, 3) or not np.all(np.isfinite(hom)):
                raise ProfileError("calibration.homography: must be a 3×3 matrix")
            plane = PlaneMap(hom, tuple(cal.get("lens_centre", (0.0, 0.0))),  # type: ignore
                             float(cal.get("lens_kappa", 0.0)))
        size = cal.get("image_size")
        markers = None
        if "markers" in data:
            m = data["markers"]
            ids = tuple(int(i) for i in _need(m, "ids", list, "markers."))
            centres = _need(m, "centres_mm", list, "markers.")
            if len(centres) != len(ids) or any(len(c) != 2 for c in centres):
                raise ProfileError("markers.centres_mm: one [x, y] per marker id")
            if len(ids) < 3 or len(set(ids)) != len(ids):
                raise ProfileError("markers.ids: at least three different ids")
            markers = MarkerLayout(ids, tuple((float(x), float(y)) for x, y in centres),
                                   float(m.get("code_mm", MARKER_CODE_MM)))
        return cls(shape, width, depth, seats, preset, rules, markers, plane,
                   None if size is None else (int(size[0]), int(size[1])))


def _backs_path(path: Path) -> Path:
    return path.with_suffix(".backs.json")


def _need(data: dict[str, Any], key: str, kind: Any, prefix: str = "") -> Any:
    if key not in data:
        raise ProfileError(f"{prefix}{key}: missing")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ProfileError(f"{prefix}{key}: {value!r} has the wrong type")
    return value


def _seat(raw: Any, i: int) -> SeatProfile:
    if not isinstance(raw, dict):
        raise ProfileError(f"seat[{i}]: must be a table")
    p = f"seat[{i}]."
    origin = _need(raw, "origin_mm", list, p)
    if len(origin) != 2:
        raise ProfileError(f"{p}origin_mm: must be [x, y]")
    places = {k: (float(v[0]), float(v[1])) for k, v in raw.get("places", {}).items()}
    for k in places:
        if k not in PLACE_NAMES and not (k.startswith("river") and k[5:].isdigit()):
            raise ProfileError(f"{p}places.{k}: not a place of a seat")
    return SeatProfile(int(_need(raw, "index", int, p)), (float(origin[0]), float(origin[1])),
                       float(_need(raw, "angle_deg", int | float, p)), raw.get("back"), places,
                       float(raw.get("pitch_mm", CARD_W_MM + 10.0)),
                       float(raw.get("fan_mm", 17.0)))


def _v(value: Any) -> str:
    """A TOML value (strings, numbers, booleans, nested lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return repr(round(float(value), 10))
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_v(x) for x in value) + "]"
    raise ProfileError(f"cannot write {value!r} to TOML")


def make_profile(path: str | Path, seats: int, shape: str, size: str,
                 corners: str | None = None, image: str | Path | None = None,
                 preset: str = "nertz") -> str:
    """Write a profile for ``nertz calibrate``; returns a one-line summary."""
    from .calibration import detect_markers, fit_markers, from_corners, recover_markers

    try:
        dims = [float(v) for v in size.lower().split("x")]
    except ValueError:
        raise ProfileError(f"table size {size!r} is not WIDTHxDEPTH in mm") from None
    width, depth = dims[0], dims[-1] if len(dims) > 1 else dims[0]
    frame = None
    if image is not None:
        frame = cv2.imread(str(image), cv2.IMREAD_COLOR)
        if frame is None:
            raise ProfileError(f"image: {image} is not a readable image")
    plane = None
    if corners is not None:
        try:
            pts = [[float(v) for v in p.split(",")] for p in corners.split(";")]
        except ValueError:
            raise ProfileError("corners: give 'x,y;x,y;x,y;x,y' in image pixels") from None
        plane = from_corners(pts, shape, width, depth)
    profile = TableProfile.propose(seats, shape, width, depth, markers=corners is None,
                                   preset=preset, plane=plane,
                                   image_size=None if frame is None
                                   else (frame.shape[1], frame.shape[0]))
    note = "corners" if corners else "markers"
    if frame is not None and profile.markers is not None:
        found = recover_markers(frame, detect_markers(frame, profile.markers.ids),
                                profile.markers)
        fit_markers(found, profile.markers, (frame.shape[1], frame.shape[0]))
        note += f" ({len([i for i in profile.markers.ids if i in found])} in view)"
    profile.save(path)
    return f"wrote {path}: {seats} seats, {shape} {width:g}x{depth:g} mm, {note}"
