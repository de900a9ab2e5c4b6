"""Benchmark the renderer: video frames per second (1280×720 by default) for simulated
rounds, still scenes per second, and, as a floor, encoding the same number of plain frames.

    python -m scripts.bench_render [--seconds 20] [--seats 4] [--size 1280x720]
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.render.scene import random_table, render_still
from vision.render.video import RoundRenderer, VideoSettings, render_video


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seats", type=int, nargs="*", default=[4, 8])
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--stills", type=int, default=10)
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    print(f"python {platform.python_version()}, OpenCV {cv2.__version__}, "
          f"{os.cpu_count()} CPUs, {w}x{h}")
    with tempfile.TemporaryDirectory() as tmp:
        for seats in args.seats:
            log = Path(tmp) / f"round{seats}.jsonl"
            write_log(simulate_round(seats, HouseRules(), seed=seats), log)
            settings = VideoSettings(size=(w, h), seed=seats, max_seconds=args.seconds)
            t0 = time.perf_counter()
            renderer = RoundRenderer(log, settings)
            render_video(log, Path(tmp) / "warm.mp4",
                         VideoSettings(size=(w, h), seed=seats, max_seconds=0.5))  # warm caches
            t1 = time.perf_counter()
            summary = render_video(log, Path(tmp) / "v.mp4", settings, renderer=renderer)
            t2 = time.perf_counter()
            n = summary["frames"]
            print(f"video, {seats} seats: {n / (t2 - t1):.1f} frames/s "
                  f"({n} frames = {summary['seconds']:.0f} s of play in {t2 - t1:.1f} s, "
                  f"{(t2 - t1) / summary['seconds']:.2f}x real time at {settings.fps:.0f} fps; "
                  f"set-up {t1 - t0:.1f} s)")
            frame = np.full((h, w, 3), 90, np.uint8)
            writer = cv2.VideoWriter(str(Path(tmp) / "plain.mp4"),
                                     cv2.VideoWriter_fourcc(*"mp4v"), 30, (w, h))
            t3 = time.perf_counter()
            for i in range(n):
                frame[i % h, :, :] = i % 255
                writer.write(frame)
            writer.release()
            t4 = time.perf_counter()
            print(f"  baseline, encoding {n} plain frames: {n / (t4 - t3):.1f} frames/s")
        t5 = time.perf_counter()
        for i in range(args.stills):
            render_still(random_table(4, i), i, size=(w, h))
        t6 = time.perf_counter()
        print(f"stills, 4 seats: {args.stills / (t6 - t5):.2f} scenes/s")


if __name__ == "__main__":
    main()
