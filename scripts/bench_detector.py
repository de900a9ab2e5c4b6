"""Speed of the card detector on this CPU: milliseconds per 1280×720 frame, full frame and
one pile region, through ``vision.CardDetector`` (onnxruntime), beside Ultralytics' own
``.pt`` predict on the same frames in the same run (when the train extra is installed).

    python -m scripts.bench_detector                       # 5 held-out stills, 2 threads
    python -m scripts.bench_detector --pt models/checkpoints/card_detector_partial.pt
    python -m scripts.bench_detector --compare-precision --pt /nonexistent  # int8 vs fp32

Rows: ``full frame`` (the localiser on the whole frame in one pass — or on tiles for a
model of fixed input size —, every index read and grouped), ``full frame, localiser
only``, ``one pile region`` (a 160×200 px box around one card, the tracker's
region-of-interest mode; and the same with only that card read, ``focus=``, as the change
gate asks for a changed pile: the region's other cards are located, not read), and
Ultralytics predicting the same frames whole (imgsz 1280; and as the same tiles for a tiled
model). The first line names the model files loaded (an
``NAME.int8.onnx`` where there is one and this CPU's int8 arithmetic pays:
``vision.identify.int8_pays``); ``--compare-precision`` adds full-frame and pile-region rows
for the int8 files (where there are) and for all-fp32 files, timed frame by frame
alternating.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.detector import CardDetector


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    fn()  # warm up
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(1000 * (time.perf_counter() - t0))
    return out


def frames(count: int, seed: int) -> tuple[list[np.ndarray], list[tuple[int, int, int, int]],
                                          list[list[float]]]:
    """Held-out 1280×720 stills and, for each, a pile region around one face-up card and
    that card's box."""
    import random

    from vision.render.scene import random_table, render_still

    rng = random.Random(seed)
    images, regions, cards = [], [], []
    for _ in range(count):
        table = random_table(4, seed=rng.randrange(1 << 30))
        scene = render_still(table, seed=rng.randrange(1 << 30), size=(1280, 720),
                             split="test")
        images.append(scene.image)
        faces = [c for c in scene.cards if c["code"] != "back" and c.get("visible", 0) > 0.9]
        x1, y1, x2, y2 = faces[0]["box"] if faces else (600, 300, 680, 400)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        regions.append((int(cx - 80), int(cy - 100), int(cx + 80), int(cy + 100)))
        cards.append([float(v) for v in (x1, y1, x2, y2)])
    return images, regions, cards


def model_files(detector: CardDetector) -> list[str]:
    """The files the detector's sessions were loaded from (an int8 file where there is)."""
    parts = [detector.localiser, detector.classifier, detector.face_reader]
    return [Path(p.session._model_path).name for p in parts if p is not None]


def _torch_threads() -> str:
    try:
        import torch
    except ImportError:
        return "not installed"
    return str(torch.get_num_threads())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=None, help="default: models/")
    parser.add_argument("--pt", type=Path, default=Path("models/checkpoints/"
                                                         "card_detector_partial.pt"))
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare-precision", "--compare-fp32", action="store_true",
                        help="also time the models with their NAME.int8.onnx files and all "
                        "in float, frame by frame alternating")
    parser.add_argument("--compare-index-conf", type=float, default=None,
                        help="also time full frames with this localiser threshold for index "
                        "boxes (the first model cards: 0.3)")
    args = parser.parse_args(argv)
    detector = CardDetector.load(args.models, threads=args.threads)
    detector.scale = 1.0  # a table camera's frame: no scale search
    images, regions, cards = frames(args.frames, args.seed)
    rows: list[tuple[str, list[float]]] = []

    def each(fn: Callable[[int], object]) -> list[float]:
        return [t for i in range(len(images)) for t in timed(lambda i=i: fn(i), args.repeat)]

    print("models: " + ", ".join(model_files(detector)))
    if args.compare_precision:
        from vision import identify

        print(f"int8 pays on this CPU (the default's choice): {identify.int8_pays()}")
        loaded: dict[str, CardDetector] = {}
        default = identify.PRECISION
        try:
            for precision in ("int8", "fp32"):
                identify.PRECISION = precision
                loaded[precision] = CardDetector.load(args.models, threads=args.threads)
                loaded[precision].scale = 1.0
        finally:
            identify.PRECISION = default
        print("int8 models: " + ", ".join(model_files(loaded["int8"])))
        both: dict[str, list[float]] = {name: [] for name in loaded}
        region_times: dict[str, list[float]] = {name: [] for name in loaded}
        for i in range(len(images)):  # alternating, so that both see the same load
            for name, det in loaded.items():
                both[name] += timed(lambda det=det, i=i: det(images[i]), args.repeat)
                region_times[name] += timed(
                    lambda det=det, i=i: det(images[i], regions=[regions[i]]), args.repeat)
        for name in loaded:
            rows.append((f"full frame, {name} models (alternating)", both[name]))
        for name in loaded:
            rows.append((f"one pile region, {name} models (alternating)", region_times[name]))
    rows.append(("full frame (CardDetector)", each(lambda i: detector(images[i]))))
    if args.compare_index_conf is not None:
        default = detector.index_conf
        detector.index_conf = args.compare_index_conf
        rows.append((f"full frame, index boxes from score {args.compare_index_conf:g}",
                     each(lambda i: detector(images[i]))))
        detector.index_conf = default
    rows.append(("full frame, localiser only", each(lambda i: detector.raw(images[i]))))
    rows.append(("one pile region 160x200 (CardDetector)",
                 each(lambda i: detector(images[i], regions=[regions[i]]))))
    rows.append(("one pile region 160x200, its card read only (focus, as the gate asks)",
                 each(lambda i: detector(images[i], regions=[regions[i]], focus=[cards[i]],
                                         focus_slack=0.25 * max(cards[i][2] - cards[i][0],
                                                                cards[i][3] - cards[i][1])))))
    n_tiles = len(detector.rects(1280, 720))
    if args.pt.is_file():
        try:
            os.environ.setdefault("YOLO_CONFIG_DIR", tempfile.mkdtemp())
            os.environ.setdefault("YOLO_OFFLINE", "1")
            from ultralytics import YOLO
        except ImportError:
            print("ultralytics not installed (train extra): no .pt baseline")
        else:
            model = YOLO(str(args.pt))
            rows.append(("ultralytics .pt predict, whole frame imgsz 1280",
                         each(lambda i: model.predict(images[i], imgsz=1280, verbose=False,
                                                      device="cpu"))))
            rects = detector.rects(1280, 720)
            if n_tiles > 1:
                rows.append((f"ultralytics .pt predict, the same {n_tiles} tiles",
                             each(lambda i: model.predict(
                                 [images[i][y0:y1, x0:x1] for x0, y0, x1, y1 in rects],
                                 imgsz=detector.localiser.tile, verbose=False,
                                 device="cpu"))))
    passes = (f"{n_tiles} pass(es) of up to {detector.pass_size} px"
              if detector.localiser.dynamic_size else
              f"{n_tiles} tiles of {detector.localiser.tile} px")
    print(f"{len(images)} held-out 1280x720 stills x {args.repeat} runs, {args.threads} "
          f"onnxruntime threads (torch: {_torch_threads()}), {passes} per full frame")
    print(f"{'':52s} {'median ms':>10s} {'p90 ms':>8s}")
    for name, times in rows:
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        print(f"{name:52s} {statistics.median(times):10.1f} {p90:8.1f}")


if __name__ == "__main__":
    main()
