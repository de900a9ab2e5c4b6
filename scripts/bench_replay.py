"""Replay speed of the real path on a 1280×720, 30 fps render, as multiples of real time:
``nertz replay`` as it runs by default (10 observed frames a second, the change-gated
detector of :mod:`vision.incremental` → table model → tracker, reports written) beside the
card detector on every frame, in the same run.

    python -m scripts.bench_replay                        # 60 s of a 2-seat round
    python -m scripts.bench_replay --seconds 30 --baseline-seconds 3
    python -m scripts.bench_replay --no-baseline --profile 40   # where the time goes
    python -m scripts.bench_replay --no-baseline --no-focus     # region reads read every card

The video is round 0 of ``scripts.eval_replay`` (2 seats, nertz preset, the same camera and
seed) rendered at 30 fps with markers, kept in ``--cache`` and reused. Rows:

- ``incremental`` — :func:`referee.replay.replay_video` with :func:`pipeline_observer`'s
  defaults on the whole clip (decoding, skipped frames only grabbed, the gate, the region
  and full-frame detections, table model, tracker, report; ``--background``: the region
  reads on the gate's worker thread); ``table_model_looks``: frames the markers' patches
  found the camera still, camera-watch checks, marker looks;
- ``every frame, 10 fps`` — the same loop with the detector on every observed frame
  (``every_frame=True``) over the first ``--baseline-seconds``;
- ``every frame, 30 fps`` — the detector on every video frame (the old ``nertz replay``)
  over the first ``--baseline-seconds``.

Each row gives wall-clock seconds and process CPU seconds (all threads) per second of
video and the multiple of real time (video seconds / wall seconds). On this shared 2-core
machine other jobs slow the wall clock: compare rows of one run.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

import cv2

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round


def render(cache: Path, seconds: float, seed: int = 1) -> tuple[Path, Path, HouseRules, int]:
    """Round 0 of eval_replay rendered at 1280×720, 30 fps (cached); the video, a table
    profile for it, the rules and the seat count."""
    from scripts.eval_replay import CAMERAS, PRESETS
    from vision.profile import TableProfile
    from vision.render.camera import Camera
    from vision.render.video import VideoSettings, render_video

    rng = random.Random(f"eval-replay:{seed}:0")  # as eval_replay's round 0
    seats, preset = 2, PRESETS[0]
    rules = HouseRules.preset(preset)
    events = simulate_round(seats, rules, seed=seed * 1000, mistakes=0.0)
    cache.mkdir(parents=True, exist_ok=True)
    tag = f"r0-s{seed}-1280x720-30fps-{seconds:g}s"
    log, video = cache / f"{tag}.jsonl", cache / f"{tag}.mp4"
    labels = video.with_suffix(".labels.jsonl")
    if not (video.exists() and labels.exists()):
        write_log(events, log)
        camera = Camera.parse(CAMERAS[0], width=1280, height=720)
        render_video(log, video, VideoSettings(fps=30, size=(1280, 720),
                                               seed=rng.randrange(10**6), camera=camera,
                                               split="test", markers=True,
                                               max_seconds=seconds))
    with open(labels) as fh:
        geo = json.loads(fh.readline())["table"]
    profile = TableProfile.propose(seats, geo["shape"], geo["width_mm"], geo["depth_mm"],
                                   markers=True)
    profile.preset = rules.preset_name
    path = cache / f"{tag}.toml"
    profile.save(path)
    return video, path, rules, seats


def loop(video: Path, observer: Any, rules: HouseRules, seats: int, stride: int,
         seconds: float) -> dict[str, float]:
    """The replay loop (as :func:`referee.replay.replay_video` reads: skipped frames only
    grabbed) over the first ``seconds`` of ``video``; its timings."""
    from vision.tracker import Tracker

    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    tracker = Tracker(rules, seats)
    frame = observed = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while frame < seconds * fps:
        if frame % stride:
            if not cap.grab():
                break
            frame += 1
            continue
        ok, image = cap.read()
        if not ok:
            break
        tracker.update(observer(image, frame, frame * 1000.0 / fps))
        frame += 1
        observed += 1
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return _row(frame / fps, wall, cpu, frame, observed)


def _row(video_s: float, wall: float, cpu: float, frames: int, observed: int
         ) -> dict[str, float]:
    return {"video_s": round(video_s, 2), "frames": frames, "observed": observed,
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "wall_per_video_s": round(wall / max(video_s, 1e-9), 3),
            "cpu_per_video_s": round(cpu / max(video_s, 1e-9), 3),
            "x_realtime": round(video_s / max(wall, 1e-9), 3)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=60.0, help="video length rendered")
    p.add_argument("--baseline-seconds", type=float, default=4.0,
                   help="how much of it the every-frame rows run on")
    p.add_argument("--observe-fps", type=float, default=10.0)
    p.add_argument("--full-every", type=float, default=10.0,
                   help="seconds between the gate's safety-net full-frame detections")
    p.add_argument("--cache", type=Path, default=Path("cache/bench_replay"))
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="cProfile the incremental row; print its N costliest functions")
    p.add_argument("--no-baseline", action="store_true",
                   help="only the incremental row (no every-frame rows)")
    p.add_argument("--background", action="store_true",
                   help="the gate's region reads on its worker thread (background=True)")
    p.add_argument("--no-focus", action="store_true",
                   help="region reads read every card of the grown region (focus=False), "
                        "as before the gate's focus")
    p.add_argument("--settle-ms", type=float, default=None,
                   help="the gate's settle_ms (default: the observer's)")
    args = p.parse_args(argv)

    from referee.replay import pipeline_observer, replay_video

    t0 = time.perf_counter()
    video, profile, rules, seats = render(args.cache, args.seconds)
    print(f"video {video} ({time.perf_counter() - t0:.0f} s to render or find)", flush=True)
    rows: dict[str, Any] = {}

    gate: dict[str, Any] = {"background": True} if args.background else {}
    if args.settle_ms is not None:
        gate["settle_ms"] = args.settle_ms
    if args.no_focus:
        gate["focus"] = False
    obs = pipeline_observer(profile, full_every_ms=1000.0 * args.full_every,
                            observe_fps=args.observe_fps, **gate)
    prof = cProfile.Profile() if args.profile else None
    w0, c0 = time.perf_counter(), time.process_time()
    if prof is not None:
        prof.enable()
    report = replay_video(video, args.cache / "replay-out", obs, rules, seats)
    if prof is not None:
        prof.disable()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    if prof is not None:
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.profile)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile)
    rows["incremental"] = _row(report["frames"] / report["fps"], wall, cpu, report["frames"],
                               report["frames_observed"])
    rows["incremental"]["detector"] = report.get("detector")
    rows["incremental"]["timing"] = report.get("timing")
    rows["incremental"]["moves"] = report.get("moves")
    looks = getattr(getattr(obs, "model", None), "looks", None)
    if looks is not None:
        rows["incremental"]["table_model_looks"] = dict(looks)
    print("incremental", json.dumps(rows["incremental"]), flush=True)
    if args.no_baseline:
        print(json.dumps({"video": str(video), "rows": rows}, indent=1))
        return {"video": str(video), "rows": rows}

    stride = max(1, round(30.0 / args.observe_fps))
    every = pipeline_observer(profile, every_frame=True)
    rows["every frame, 10 fps"] = loop(video, every, rules, seats, stride,
                                       args.baseline_seconds)
    print("every frame, 10 fps", json.dumps(rows["every frame, 10 fps"]), flush=True)
    every = pipeline_observer(profile, every_frame=True)
    rows["every frame, 30 fps"] = loop(video, every, rules, seats, 1, args.baseline_seconds)
    print("every frame, 30 fps", json.dumps(rows["every frame, 30 fps"]), flush=True)
    summary = {"video": str(video), "size": "1280x720", "fps": 30,
               "observe_fps": args.observe_fps, "rows": rows,
               "speedup_vs_every_frame_30fps": round(
                   rows["every frame, 30 fps"]["wall_per_video_s"]
                   / max(rows["incremental"]["wall_per_video_s"], 1e-9), 1)}
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    sys.exit(main() and 0)
