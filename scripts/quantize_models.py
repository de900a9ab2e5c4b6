"""Quantize the detector's ONNX models to int8 (static, QDQ, per-channel weights) for the CPU.

Calibration data are the inputs the models really get: the fp32 ``CardDetector`` is run on
rendered stills of the *training* decks (seeded; the evaluations use the held-out decks)
and every batch handed to each onnxruntime session is recorded — the localiser's frames
(cut into tiles, so that calibration fits in memory), the index reader's crops (quarter-turn
candidates and ``none`` crops included) and the face reader's upright cards. No network.

    python -m scripts.quantize_models                        # models/ → models/*.int8.onnx
    python -m scripts.quantize_models --out /tmp/q --which index,face --frames 8

``CardDetector.load`` (``vision.identify.model_file``) takes ``NAME.int8.onnx`` over
``NAME.onnx`` when both are in the models folder.
"""

from __future__ import annotations

import argparse
import contextlib
import pickle
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: model file stem → the detector attribute holding its sessions
MODELS = {"localiser": "card_detector", "index": "index_classifier", "face": "face_reader"}
#: the localiser's calibration tile for the histogram methods (its training tile is 320 px;
#: they keep every tensor of every input, too much for whole frames)
TILE = 320
#: real photographs (``../shared/data/real``): the cluttered photos' train split
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "cluttered-rank-boxes"


class Recorder:
    """Stands in for an onnxruntime session: runs it and keeps each input batch."""

    def __init__(self, session: Any, store: list[np.ndarray]) -> None:
        self.session, self.store = session, store

    def run(self, outputs: Any, feed: dict[str, np.ndarray], *args: Any) -> Any:
        (batch,) = feed.values()
        self.store.append(np.array(batch, copy=True))
        return self.session.run(outputs, feed, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


def real_photos(folder: Path | None, count: int, seed: int) -> list[Path]:
    """``count`` photos drawn (seeded) from the *train* split of the real cluttered photos
    (``folder/images/train``; the evaluations use its test split), or none."""
    if folder is None or count <= 0 or not (folder / "images" / "train").is_dir():
        return []
    files = sorted(p for p in (folder / "images" / "train").iterdir()
                   if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    return random.Random(seed).sample(files, min(count, len(files)))


def record_inputs(models: Path, frames: int, seed: int, sizes: Sequence[tuple[int, int]],
                  photos: Sequence[Path] = ()) -> dict[str, list[np.ndarray]]:
    """Each model's input batches while the fp32 detector reads ``frames`` rendered stills
    of the training decks (2–8 seats, sizes drawn from ``sizes``) and then ``photos`` (at
    the scale it finds for each, as on real photos)."""
    import cv2

    from vision import identify
    from vision.detector import CardDetector
    from vision.render.scene import random_table, render_still

    default, identify.PRECISION = identify.PRECISION, "fp32"  # the float models
    try:
        detector = CardDetector.load(models, threads=1)
    finally:
        identify.PRECISION = default
    store: dict[str, list[np.ndarray]] = {k: [] for k in MODELS}
    for key, obj in (("localiser", detector.localiser), ("index", detector.classifier),
                     ("face", detector.face_reader)):
        if obj is None:
            continue
        obj.session = Recorder(obj.session, store[key])
        obj.small_session = Recorder(obj.small_session, store[key])
    rng = random.Random(seed)
    for i in range(frames):
        table = random_table(rng.randint(2, 8), seed=rng.randrange(1 << 30))
        size = sizes[i % len(sizes)]
        scene = render_still(table, seed=rng.randrange(1 << 30), size=size, split="train")
        detector.scale = None if i % 4 == 3 else 1.0  # now and then a scale search too
        detector(scene.image)
    detector.scale = None
    for path in photos:
        image = cv2.imread(str(path))
        if image is not None:
            detector(image)
    return store


def localiser_tiles(batches: list[np.ndarray], count: int, rng: np.random.Generator
                    ) -> list[np.ndarray]:
    """``count`` random TILE×TILE windows of the recorded localiser inputs (each 1×3×T×T;
    smaller inputs are padded with the detector's grey)."""
    frames = [b[j] for b in batches for j in range(len(b))]
    out = []
    for _ in range(count):
        f = frames[rng.integers(len(frames))]
        _, h, w = f.shape
        tile = np.full((3, TILE, TILE), 114 / 255.0, np.float32)
        y0 = int(rng.integers(max(1, h - TILE + 1)))
        x0 = int(rng.integers(max(1, w - TILE + 1)))
        part = f[:, y0:y0 + TILE, x0:x0 + TILE]
        tile[:, :part.shape[1], :part.shape[2]] = part
        out.append(tile[None])
    return out


def sample_rows(batches: list[np.ndarray], count: int, batch: int,
                rng: np.random.Generator, turned: bool = False) -> list[np.ndarray]:
    """``count`` recorded rows (crops, N×C×H×W) drawn without replacement, in batches of
    ``batch``; with ``turned``, each batch followed by the same crops turned 180°."""
    rows = np.concatenate(batches) if batches else np.zeros((0,))
    pick = rng.permutation(len(rows))[:count]
    out = []
    for i in range(0, len(pick), batch):
        part = rows[pick[i:i + batch]]
        out.append(part)
        if turned:
            out.append(np.ascontiguousarray(part[:, :, ::-1, ::-1]))
    return out


class Reader:
    """An ``onnxruntime.quantization.CalibrationDataReader`` over a list of batches."""

    def __init__(self, name: str, batches: list[np.ndarray]) -> None:
        self.name, self.batches = name, batches
        self._it: Iterator[np.ndarray] = iter(batches)

    def get_next(self) -> dict[str, np.ndarray] | None:
        batch = next(self._it, None)
        return None if batch is None else {self.name: batch}

    def rewind(self) -> None:
        self._it = iter(self.batches)

    def __len__(self) -> int:
        return len(self.batches)


def head_nodes(model: Any) -> list[str]:
    """A YOLO detect head's decoding (DFL, anchors, the class sigmoid, the output concat of
    pixel boxes and 0–1 scores: one uint8 scale for both would wipe out the scores) and, with
    it, its last convolutions (box and class logits): kept in float. A model cut at its head
    (``scripts.yolo_train.trim_head``, as committed) has only those convolutions left."""
    out = []
    for node in model.graph.node:
        name = node.name
        if name.startswith("/model.23/") and (
                "/dfl/" in name or name.count("/") == 2
                or (node.op_type == "Conv" and name.endswith(".2/Conv"))):
            out.append(name)
    return out


def _closure(model: Any, start: list[Any]) -> list[str]:
    """Names of ``start``'s nodes and of every node downstream of them."""
    consumers: dict[str, list[Any]] = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    out: list[str] = []
    todo = list(start)
    seen: set[str] = set()
    while todo:
        node = todo.pop()
        if node.name in seen:
            continue
        seen.add(node.name)
        out.append(node.name)
        for name in node.output:
            todo.extend(consumers.get(name, []))
    return out


def reader_float_nodes(model: Any) -> list[str]:
    """A reader's nodes kept in float: its input normalisation (everything upstream of the
    convolutions: per-image means and contrast, whose squares and roots 8 bits round
    badly) and everything from its softmax on (the probabilities and their products, so
    that the confidences the detector thresholds and multiplies are not rounded to
    1/255)."""
    nodes = [n for n in model.graph.node if n.op_type != "Constant"]
    after_conv = set(_closure(model, [n for n in nodes if n.op_type == "Conv"]))
    stem = [n.name for n in nodes if n.name not in after_conv]
    tail = _closure(model, [n for n in nodes if n.op_type == "Softmax"])
    return stem + [n for n in tail if n not in stem]


def quantize(src: Path, dst: Path, batches: list[np.ndarray], *, method: str = "minmax",
             exclude: Callable[[Any], list[str]] | None = None,
             op_types: Sequence[str] | None = None, per_channel: bool = True) -> int:
    """``src`` → ``dst``: static int8 QDQ quantization (activations uint8 asymmetric,
    weights int8 symmetric, per output channel), calibrated on ``batches``; the model's
    metadata (class names, input size) is carried over. ``exclude`` names the nodes (of the
    pre-processed graph) to keep in float; returns how many."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quant_pre_process,
        quantize_static,
    )

    methods = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile,
               "entropy": CalibrationMethod.Entropy}
    original = onnx.load(str(src))
    src, dst = Path(src).resolve(), Path(dst).resolve()
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):  # its temp files
        pre = Path(tmp) / "pre.onnx"
        try:
            quant_pre_process(str(src), str(pre))
        except Exception:  # noqa: BLE001 — the localiser's dynamic size defeats the
            # symbolic shape inference; ONNX's own shape inference is enough for it
            quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        prepared = onnx.load(str(pre))
        input_name = prepared.graph.input[0].name
        floats = exclude(prepared) if exclude else []
        extra: dict[str, Any] = {}
        if method == "percentile":
            extra["CalibPercentile"] = 99.999
        quantize_static(str(pre), str(dst), Reader(input_name, batches),
                        quant_format=QuantFormat.QDQ, per_channel=per_channel,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        calibrate_method=methods[method], nodes_to_exclude=floats,
                        op_types_to_quantize=list(op_types) if op_types else None,
                        extra_options=extra)
    model = onnx.load(str(dst))
    del model.metadata_props[:]
    for prop in original.metadata_props:
        model.metadata_props.add(key=prop.key, value=prop.value)
    model.metadata_props.add(key="quantization", value=(
        f"int8 static QDQ per-channel, {method} calibration on {len(batches)} batches "
        f"(scripts/quantize_models.py), {len(floats)} output nodes float"))
    onnx.save(model, str(dst))
    return len(floats)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=None, help="fp32 models (default: "
                        "models/)")
    parser.add_argument("--out", type=Path, default=None, help="default: --models")
    parser.add_argument("--which", default="face",
                        help="comma list of " + ", ".join(MODELS) + " (default: face, the "
                        "one whose int8 version keeps the detector's accuracy; see the model "
                        "cards)")
    parser.add_argument("--frames", type=int, default=24, help="rendered calibration stills")
    parser.add_argument("--sizes", default="1280x720,960x540,1920x1080")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tiles", type=int, default=0,
                        help="calibrate the localiser on this many random tiles of TILE px "
                        "instead of the recorded frames (histogram methods: 64 by default)")
    parser.add_argument("--crops", type=int, default=2048, help="reader calibration crops")
    parser.add_argument("--real", type=Path, default=REAL,
                        help="real cluttered photos (their train split calibrates too)")
    parser.add_argument("--real-images", type=int, default=16,
                        help="train-split photos of --real to calibrate on (0: renders only)")
    parser.add_argument("--method", choices=("minmax", "percentile", "entropy"),
                        default="minmax")
    parser.add_argument("--int8-head-convs", action="store_true",
                        help="quantize the localiser's last head convolutions too (its "
                        "decoding stays float either way)")
    parser.add_argument("--float-nodes", default="",
                        help="comma list of node-name prefixes to keep float (e.g. /model.10/: "
                        "the localiser's attention block)")
    parser.add_argument("--record-cache", type=Path, default=None,
                        help="pickle of the recorded inputs: written once, then read")
    parser.add_argument("--copy-fp32", action="store_true",
                        help="also copy the fp32 models into --out (a folder to evaluate)")
    args = parser.parse_args(argv)
    from vision.identify import MODELS as DEFAULT

    src = args.models or DEFAULT
    out = args.out or src
    out.mkdir(parents=True, exist_ok=True)
    which = [w.strip() for w in args.which.split(",") if w.strip()]
    unknown = set(which) - set(MODELS)
    if unknown:
        parser.error(f"unknown model(s): {sorted(unknown)}")
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    if args.copy_fp32 and out.resolve() != src.resolve():
        for stem in MODELS.values():
            if (src / f"{stem}.onnx").is_file():
                shutil.copy2(src / f"{stem}.onnx", out / f"{stem}.onnx")
    t0 = time.perf_counter()
    photos = real_photos(args.real, args.real_images, args.seed)
    if args.record_cache and args.record_cache.is_file():
        with open(args.record_cache, "rb") as f:
            store = pickle.load(f)
    else:
        store = record_inputs(src, args.frames, args.seed, sizes, photos)
        if args.record_cache:
            with open(args.record_cache, "wb") as f:
                pickle.dump(store, f)
    print(f"{args.frames} renders and {len(photos)} real photos recorded in "
          f"{time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {sum(len(b) for b in v)}" for k, v in store.items()), flush=True)
    rng = np.random.default_rng(args.seed)
    for key in which:
        stem = MODELS[key]
        if not store[key]:
            print(f"{stem}: no inputs recorded (no model?), skipped")
            continue
        if key == "localiser" and (args.tiles or args.method != "minmax"):
            batches = localiser_tiles(store[key], args.tiles or 64, rng)
        elif key == "localiser":  # min/max calibration keeps only each tensor's range
            batches = [b[j:j + 1] for b in store[key] for j in range(len(b))]
        else:
            # the face reader's graph averages a card and the card turned 180°: calibrated
            # on crops in both turns, its two branches get the same int8 scales and stay
            # the same function, so the reader stays blind to which end is up
            batches = sample_rows(store[key], args.crops, 64, rng, turned=key == "face")
        prefixes = tuple(p for p in args.float_nodes.split(",") if p)

        def exclude(graph: Any, key: str = key, prefixes: tuple[str, ...] = prefixes
                    ) -> list[str]:
            if key != "localiser":
                out = reader_float_nodes(graph)
            else:
                out = head_nodes(graph)
                if args.int8_head_convs:
                    out = [n for n in out if not n.endswith(".2/Conv")]
            return out + [n.name for n in graph.graph.node
                          if prefixes and n.name.startswith(prefixes) and n.name not in out]
        t0 = time.perf_counter()
        dst = out / f"{stem}.int8.onnx"
        floats = quantize(src / f"{stem}.onnx", dst, batches, method=args.method,
                          exclude=exclude)
        print(f"{dst}: {dst.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t0:.0f} s "
              f"({sum(len(b) for b in batches)} calibration inputs, {args.method}"
              + f", {floats} output nodes float)", flush=True)


if __name__ == "__main__":
    main()
