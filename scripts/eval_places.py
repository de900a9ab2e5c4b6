"""How well the table model places cards, on rendered rounds with ArUco markers.

For each configuration (seats 2–8, rect and round tables, camera tilts 0–25°, lens
distortion, wide and narrow lenses, i.e. low and high cameras) a simulated round is rendered
with markers; every frame goes through :class:`~vision.table_model.TableModel` with
*ground-truth* detections built from the labels as the detector reports them (a face-up card
at least half visible: its card box; less, but one corner index at least 60 % visible: that
index's box; a back at least 30 % visible: its box; no card corners). The runtime never
reads the labels: the model gets the video's frames and these boxes only, and a profile
with the table's shape, size, seat count and marker spots (no seat positions).

Figures:

- ``placed``: share of detections with a ground-truth place given exactly that place
  (lake piles through the one-to-one map of ground-truth foundation ids to the model's
  pile ids that agrees most often); ``loose``: recall (in-hand detections reported in
  ``Observation.loose``; also for those more than 15 mm from the spot they land on: the
  renderer's hand covers a card for most of its flight, so most visible in-hand cards are
  about to land) and precision (reported loose and truly in a hand);
- ``reproj mm``: mean / max distance on the table between where the model maps a pixel and
  the truth, over a grid covering the table (lens distortion included), from frame 0;
- ``markers``: of the four markers, how many are found in every 8th frame (the table
  model's detector; then with the markers a card or a shadow partly covers recovered by
  their pattern from two or more found, :func:`~vision.calibration.recover_markers`;
  OpenCV's default parameters beside them);
- ``recovery s``: the frames are shifted, turned and scaled (a bump of the camera) from
  the middle of the video on; time until the model's map is again within 5 mm everywhere
  (mean error back within 1.5× + 1 mm of its level just before the bump; ``moved`` frames
  are reported as no table in the meantime).

    python -m scripts.eval_places                 # all configurations (~6-9 min)
    python -m scripts.eval_places --quick         # three configurations
    python -m scripts.eval_places --cache /tmp/places --only 7 9 --verbose
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.calibration import detect_markers, recover_markers
from vision.detections import Detections
from vision.profile import TableProfile
from vision.render.camera import Camera, Lighting
from vision.render.video import VideoSettings, render_video
from vision.table_model import TableModel

#: (seats, shape, camera settings)
CONFIGS: list[tuple[int, str, str]] = [
    (2, "rect", "tilt_deg=0"),
    (3, "round", "tilt_deg=12,k1=-0.1"),
    (4, "rect", "tilt_deg=20,yaw_deg=5,hfov_deg=60"),
    (4, "round", "tilt_deg=5,hfov_deg=90,k1=-0.15"),
    (5, "rect", "tilt_deg=15,roll_deg=3"),
    (6, "rect", "tilt_deg=8,k1=-0.08,hfov_deg=70"),
    (6, "round", "tilt_deg=25"),
    (7, "rect", "tilt_deg=10,hfov_deg=85"),
    (8, "round", "tilt_deg=18,k1=-0.05"),
    (8, "rect", "tilt_deg=3,yaw_deg=-6"),
]


def label_detections(cards: list[dict[str, Any]], warp: np.ndarray | Bump | None = None,
                     sources: list[dict[str, Any]] | None = None
                     ) -> tuple[Detections, list[str | None]]:
    """Detections as the detector reports them, from one frame's labels, and each one's
    true place (``sources``, when given, gets each one's label)."""
    boxes, codes, truth = [], [], []
    for c in cards:
        if c["face_up"]:
            if c["visible"] >= 0.5:
                box = c["box"]
            else:
                ix = [i for i in c.get("indices", []) if i["visible"] >= 0.6]
                if not ix:
                    continue
                box = max(ix, key=lambda i: i["visible"])["box"]
            code = c["card"]
        else:
            if c["visible"] < 0.3:
                continue
            box, code = c["box"], "back"
        if warp is not None:
            x1, y1, x2, y2 = box
            c4 = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
            q = warp(c4) if isinstance(warp, Bump) else cv2.perspectiveTransform(
                c4[None], warp)[0]
            box = [q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()]
        boxes.append(box)
        codes.append(code)
        truth.append(c["place"])
        if sources is not None:
            sources.append(c)
    if not boxes:
        return Detections.empty(), []
    return Detections.create(np.array(boxes, np.float32), code=codes), truth


def _off_landing(card: dict[str, Any], rest: list[dict[tuple[str, Any], np.ndarray]],
                 n: int) -> float:
    """How far (mm, from the card's own size in the image) a card in a hand is from where
    it next lies on a place (0 when it is not seen landing within 3 s)."""
    key = (card["card"], card.get("owner"))
    quad = np.asarray(card["corners"], np.float64)
    diag = max(float(np.linalg.norm(quad[2] - quad[0])), 1.0)
    for later in rest[n + 1:n + 31]:
        if key in later:
            mm = float(np.linalg.norm(later[key] - quad.mean(axis=0))) * math.hypot(63, 88) / diag
            return mm
    return 0.0


def _default_markers(image: np.ndarray, ids: tuple[int, ...]) -> int:
    """How many of ``ids`` cv2.aruco finds with its default parameters (the baseline)."""
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                  cv2.aruco.DetectorParameters())
    _c, found, _r = det.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    return 0 if found is None else len({int(i) for i in found.ravel()} & set(ids))


def _assigned(obs: Any, dets: Detections) -> list[str | None]:
    where: dict[tuple[float, ...], str | None] = {}
    for view in obs.places.values():
        for c in view.cards:
            where[tuple(round(v, 2) for v in c.box)] = view.place
    return [where.get(tuple(round(float(v), 2) for v in b)) for b in dets.xyxy]


class Bump:
    """A knock of the camera: it turns a little (2°), shifts and zooms (3 %) — a homography
    of the undistorted image; the lens stays centred on the sensor, so a distorted frame is
    undistorted, moved and distorted again."""

    def __init__(self, cam: Camera) -> None:
        w, h = cam.width, cam.height
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 2.0, 1.03)
        m[:, 2] += (0.03 * w, -0.02 * h)
        self.cam = cam
        self.hom = np.vstack([m, [0, 0, 1]])
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        src = self._map(np.column_stack([xs.ravel(), ys.ravel()]), np.linalg.inv(self.hom))
        self.maps = cv2.convertMaps(src[:, 0].reshape(h, w).astype(np.float32),
                                    src[:, 1].reshape(h, w).astype(np.float32), cv2.CV_16SC2)

    def _undistort(self, px: np.ndarray) -> np.ndarray:
        c = self.cam
        if not (c.k1 or c.k2):
            return px
        return cv2.undistortPoints(px.reshape(-1, 1, 2), c.K, np.array([c.k1, c.k2, 0, 0],
                                                                        np.float64),
                                   P=c.K).reshape(-1, 2)

    def _map(self, px: np.ndarray, hom: np.ndarray) -> np.ndarray:
        u = cv2.perspectiveTransform(self._undistort(px)[None], hom)[0]
        return self.cam.distort(u)

    def __call__(self, px: np.ndarray) -> np.ndarray:
        """Where the bumped camera sees what the still one saw at ``px`` (N, 2)."""
        return self._map(np.asarray(px, np.float64).reshape(-1, 2), self.hom)

    def image(self, frame: np.ndarray) -> np.ndarray:
        return cv2.remap(frame, self.maps[0], self.maps[1], cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)


def _reproj(model: TableModel, cam: Camera, geo: dict[str, Any],
            warp: Bump | None) -> tuple[float, float]:
    if model.plane is None:
        return math.inf, math.inf
    w, d = geo["width_mm"] / 2, geo["depth_mm"] / 2
    if geo["shape"] == "round":
        w = d = w / math.sqrt(2)
    g = np.stack(np.meshgrid(np.linspace(-w, w, 11), np.linspace(-d, d, 11)), -1).reshape(-1, 2)
    px = cam.project(g)
    if warp is not None:
        px = warp(px)
    err = np.linalg.norm(model.plane.to_mm(px) - g, axis=1)
    return float(err.mean()), float(err.max())


def run_config(seats: int, shape: str, camera: str, seed: int, size: tuple[int, int],
               fps: float, seconds: float, work: Path) -> dict[str, Any]:
    tag = f"r{seats}{shape}_{seed}_{size[0]}x{size[1]}_{fps:g}_{seconds:g}_" + "".join(
        ch for ch in camera if ch.isalnum())
    log = work / f"{tag}.jsonl"
    cam = Camera.parse(camera, width=size[0], height=size[1])
    video = work / f"{tag}.mp4"
    if not video.with_suffix(".labels.jsonl").exists():  # --cache keeps renders
        write_log(simulate_round(seats, HouseRules(), seed=seed), log)
        render_video(log, video, VideoSettings(fps=fps, size=size, seed=seed, camera=cam,
                                               shape=shape, markers=True, max_seconds=seconds,
                                               lighting=Lighting(noise=2.0, vignette=0.2)))
    lines = [json.loads(x) for x in video.with_suffix(".labels.jsonl").read_text().splitlines()]
    header, frames = lines[0], lines[1:]
    geo = header["table"]
    true_cam = Camera(**header["camera"])
    profile = TableProfile.propose(seats, geo["shape"], geo["width_mm"], geo["depth_mm"])
    model = TableModel(profile)
    cap = cv2.VideoCapture(str(video))
    bump_at = len(frames) // 2
    # where each card lies (px) in each frame, to tell how far a card in a hand is from
    # the spot it lands on
    rest = [{(c["card"], c.get("owner")): np.mean(c["corners"], axis=0) for c in lab["cards"]
             if c.get("place")} for lab in frames]
    warp = Bump(true_cam)
    right = total = loose_right = loose_total = loose_said = loose_off = loose_off_right = 0
    missed: Counter[str] = Counter()  # in a hand, but given a place (its kind)
    false_loose: Counter[str] = Counter()  # on a place, but said loose
    lake_pairs: Counter[tuple[str, str]] = Counter()
    lake_seen: list[tuple[str, str | None]] = []
    wrong: Counter[tuple[str, str]] = Counter()
    recovered_ms: float | None = None
    reproj = (math.inf, math.inf)
    before = math.inf
    no_table = 0
    markers = [0, 0, 0, 0]  # found, with OpenCV's default parameters, in view, recovered
    for n, lab in enumerate(frames):
        ok, image = cap.read()
        if not ok:
            break
        bumped = n >= bump_at
        if bumped:
            image = warp.image(image)
        if n % 8 == 0:  # markers found: the table model's detector, OpenCV's defaults
            ids = model.profile.markers.ids if model.profile.markers else (0, 1, 2, 3)
            found = detect_markers(image, ids)
            markers[0] += len([i for i in ids if i in found])
            markers[1] += _default_markers(image, ids)
            markers[2] += len(ids)
            if model.profile.markers:
                found = recover_markers(image, found, model.profile.markers)
            markers[3] += len([i for i in ids if i in found])
        src: list[dict[str, Any]] = []
        dets, truth = label_detections(lab["cards"], warp if bumped else None, src)
        obs = model.observe(image, dets, lab["frame"], lab["t_ms"])
        if n == 0:
            reproj = _reproj(model, true_cam, geo, None)
        if n == bump_at - 1:
            before = _reproj(model, true_cam, geo, None)[0]
        if bumped and recovered_ms is None:
            if obs.table_found and _reproj(model, true_cam, geo, warp)[0] < 1.5 * before + 1:
                recovered_ms = lab["t_ms"] - frames[bump_at]["t_ms"]
        if not obs.table_found:
            no_table += 1
            continue
        if bumped and recovered_ms is None:
            continue
        got = _assigned(obs, dets)
        loose_boxes = {tuple(round(v, 2) for v in c.box) for c in obs.loose}
        for t, g, b, c in zip(truth, got, dets.xyxy, src, strict=True):
            said_loose = tuple(round(float(v), 2) for v in b) in loose_boxes
            loose_said += said_loose
            if t is None:
                loose_total += 1
                loose_right += said_loose
                off = _off_landing(c, rest, n)
                loose_off += off > 15.0
                loose_off_right += said_loose and off > 15.0
                if not said_loose:
                    missed[str(g)[:5]] += 1
                continue
            if said_loose:
                false_loose[t[:5]] += 1
            if t.startswith("lake:"):
                lake_seen.append((t, g))
                if g is not None and g.startswith("lake:"):
                    lake_pairs[(t, g)] += 1
            else:
                total += 1
                right += g == t
                if g != t:
                    wrong[(t, str(g))] += 1
    # the one-to-one map of true foundations to model piles that agrees most often
    mapping: dict[str, str] = {}
    used: set[str] = set()
    for (t, g), _k in lake_pairs.most_common():
        if t not in mapping and g not in used:
            mapping[t] = g
            used.add(g)
    lake_right = sum(mapping.get(t) == g for t, g in lake_seen)
    return {"seats": seats, "shape": shape, "camera": camera, "frames": len(frames),
            "placed": right + lake_right, "with_place": total + len(lake_seen),
            "lake_right": lake_right, "lake": len(lake_seen),
            "loose_right": loose_right, "loose": loose_total, "loose_said": loose_said,
            "loose_off": loose_off, "loose_off_right": loose_off_right,
            "loose_missed": dict(missed), "false_loose": dict(false_loose),
            "reproj_mean_mm": reproj[0], "reproj_max_mm": reproj[1],
            "recovery_s": None if recovered_ms is None else recovered_ms / 1000,
            "no_table_frames": no_table, "markers": markers, "wrong": wrong.most_common(4)}


def _share(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="three configurations")
    ap.add_argument("--only", type=int, nargs="*", help="configuration numbers (0-9)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default="960x540")
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--seconds", type=float, default=16.0)
    ap.add_argument("--cache", type=Path, help="keep and reuse the renders in this folder")
    ap.add_argument("--json", type=Path, help="write the rows here")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    numbered = list(enumerate(CONFIGS))
    if args.only:
        numbered = [numbered[k] for k in args.only]
    elif args.quick:
        numbered = [numbered[k] for k in (1, 4, 8)]
    rows = []
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.cache or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for k, (seats, shape, cam) in numbered:
            r = run_config(seats, shape, cam, args.seed + k, size, args.fps, args.seconds,
                           work)
            rows.append(r)
            rec = "never" if r["recovery_s"] is None else f"{r['recovery_s']:.2f}"
            print(f"{seats} {shape:5s} {cam:36s} placed {r['placed']}/{r['with_place']} "
                  f"({r['placed'] / max(1, r['with_place']):.4f}) lake "
                  f"{r['lake_right']}/{r['lake']} loose recall {r['loose_right']}/{r['loose']}"
                  f" (>15 mm from landing {r['loose_off_right']}/{r['loose_off']}) precision "
                  f"{r['loose_right']}/{r['loose_said']} "
                  f"reproj {r['reproj_mean_mm']:.1f}/{r['reproj_max_mm']:.1f} mm "
                  f"recovery {rec} s markers {r['markers'][0]}/{r['markers'][2]} (with "
                  f"pattern recovery {r['markers'][3]}, OpenCV defaults {r['markers'][1]})",
                  flush=True)
            if args.verbose:
                print("   wrong (truth, given):", r["wrong"])
                print("   in a hand but placed:", r["loose_missed"],
                      " placed but said loose:", r["false_loose"], flush=True)
    placed = sum(r["placed"] for r in rows)
    total = sum(r["with_place"] for r in rows)
    lr, lt, ls, lo, lor = (sum(r[k] for r in rows) for k in (
        "loose_right", "loose", "loose_said", "loose_off", "loose_off_right"))
    rec = [r["recovery_s"] for r in rows]
    mk = [sum(r["markers"][k] for r in rows) for k in range(4)]
    print(f"\nall: placed {placed}/{total} = {placed / max(1, total):.4f}; loose recall "
          f"{lr}/{lt} = {_share(lr, lt)} (>15 mm from landing {lor}/{lo} = {_share(lor, lo)}), "
          f"precision {lr}/{ls} = {_share(lr, ls)}; reproj mean "
          f"{np.mean([r['reproj_mean_mm'] for r in rows]):.2f} mm, max "
          f"{max(r['reproj_max_mm'] for r in rows):.1f} mm; recovery "
          + ("never in some" if None in rec else f"max {max(rec):.2f} s, mean "
             f"{np.mean(rec):.2f} s") + f"; markers found {mk[0]}/{mk[2]} = "
          f"{_share(mk[0], mk[2])} (with pattern recovery {_share(mk[3], mk[2])}, OpenCV "
          f"defaults {_share(mk[1], mk[2])})"
          f"  ({time.time() - start:.0f} s, "
          f"{args.size} at {args.fps:g} fps, {args.seconds:g} s each)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))


if __name__ == "__main__":
    main()
