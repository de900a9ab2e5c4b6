"""Time :meth:`vision.table_model.TableModel.observe` on real rendered frames: ms per call.

The frames of a rendered round (``cache/evalnew/r0-s1-1280x720-10fps.mp4`` by default,
1280×720, every frame observed) are decoded first; the detections come from the render's
labels (:func:`scripts.eval_places.label_detections`, deterministic, no detector), and the
table model is built from the labels' header as ``scripts/eval_replay.py`` builds it. Only
the ``observe`` calls are timed. ``--digest`` prints a hash of every observation (places,
their cards and covered shares, loose cards, hands, camera state) to check that a change
gives the same results; ``--profile`` prints a cProfile of the timed calls.

    python -m scripts.bench_table_model --frames 100
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import statistics
import time
from pathlib import Path

import cv2

from rules import HouseRules
from scripts.eval_places import label_detections
from vision.profile import TableProfile
from vision.table_model import TableModel


def _digest(obs) -> str:  # noqa: ANN001
    places = sorted((k, [(c.code, tuple(round(v, 3) for v in c.box)) for c in v.cards],
                     round(v.covered, 6)) for k, v in obs.places.items())
    return repr((obs.frame, obs.table_found, obs.camera, places,
                 [(c.code, c.box) for c in obs.loose],
                 [tuple(round(v, 3) for v in b) for b in obs.hands], obs.alerts,
                 getattr(obs, "hand_seats", None)))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", default="cache/evalnew/r0-s1-1280x720-10fps.mp4")
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--skip", type=int, default=0, help="start this many frames in")
    ap.add_argument("--repeat", type=int, default=3, help="passes over the frames (best)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--digest", action="store_true")
    args = ap.parse_args(argv)
    video = Path(args.video)
    labels = video.with_name(video.stem + ".labels.jsonl")
    lines = [json.loads(s) for s in labels.read_text().splitlines()]
    geo = lines[0]["table"]
    cap = cv2.VideoCapture(str(video))
    frames = []
    for n, lab in enumerate(lines[1:]):
        ok, image = cap.read()
        if not ok or len(frames) >= args.frames:
            break
        if n >= args.skip:
            frames.append((image, label_detections(lab["cards"])[0], lab["frame"],
                           lab["t_ms"]))

    def model() -> TableModel:
        profile = TableProfile.propose(len(geo["seats"]), geo["shape"], geo["width_mm"],
                                       geo["depth_mm"], markers=True)
        profile.preset = HouseRules().preset_name
        return TableModel(profile)

    best: list[list[float]] = []
    cpus: list[float] = []
    h = hashlib.sha256()
    for rep in range(max(1, args.repeat)):
        m = model()
        times, cpu = [], 0.0
        prof = cProfile.Profile() if args.profile and rep == 0 else None
        for image, dets, frame, t_ms in frames:
            t0, c0 = time.perf_counter(), time.process_time()
            if prof is not None:
                prof.enable()
            obs = m.observe(image, dets, frame, t_ms)
            if prof is not None:
                prof.disable()
            times.append(time.perf_counter() - t0)
            cpu += time.process_time() - c0
            if rep == 0 and args.digest:
                h.update(_digest(obs).encode())
        if prof is not None:
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
        best.append(times)
        cpus.append(1000 * cpu / max(1, len(frames)))
    means = [1000 * statistics.fmean(t) for t in best]
    med = [1000 * statistics.median(t) for t in best]
    print(f"{len(frames)} frames of {video.name}: observe {min(means):.1f} ms per frame "
          f"(mean, best of {len(best)} passes; passes {', '.join(f'{v:.1f}' for v in means)};"
          f" median {min(med):.1f}); CPU {min(cpus):.1f} ms per frame (all threads)")
    if args.digest:
        print(f"digest {h.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
