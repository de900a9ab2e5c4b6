"""Card identification: an ONNX classifier that reads a corner-index crop as one of the 52
card codes (or ``none``), run with onnxruntime (no torch)."""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .crops import CROP_SIZE, crop_square

MODELS = Path(__file__).resolve().parents[1] / "models"


class ModelError(ValueError):
    """A model file that is missing or not what the runtime expects."""


#: which file of a model ``onnx_model`` loads: "int8" takes ``NAME.int8.onnx`` (made by
#: ``scripts/quantize_models.py``) over ``NAME.onnx`` where it lies beside it; "fp32" the
#: file named; "auto" (the default) "int8" on a CPU whose int8 arithmetic pays
#: (:func:`int8_pays`), else "fp32". The environment variable ``NERTZ_MODEL_PRECISION``
#: sets the default.
PRECISION = os.environ.get("NERTZ_MODEL_PRECISION", "auto")
PRECISIONS = ("auto", "int8", "fp32")
#: x86 CPU flags (``/proc/cpuinfo``) of int8 arithmetic that onnxruntime's quantized kernels
#: run faster than its float ones: dot-product instructions (VNNI, AMX) or AVX-512's byte
#: and word instructions; AVX2's alone are not
INT8_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8", "avx512bw"})
#: let onnxruntime's worker threads spin between runs (its default). Off: on a CPU shared
#: with other work (the camera, the service, other jobs) spinning threads take turns from
#: the ones with work (a 1280×720 frame through the localiser, another job on the second
#: core: 229 ms median without spinning, 382 ms with; load average 4). ``NERTZ_ORT_SPIN=1``
#: turns it on.
SPIN = os.environ.get("NERTZ_ORT_SPIN", "0") == "1"


def int8_pays(cpuinfo: str | None = None) -> bool:
    """Whether int8 models run faster than float ones on this CPU (``cpuinfo``: the text of
    ``/proc/cpuinfo``, read when None): an x86 CPU only with the int8 instructions of
    :data:`INT8_FLAGS`. A 2-core AMD EPYC with AVX2 and FMA, no AVX-512, ran the int8 face
    reader slower than the float one (16 cards, 2 threads: 26.8 against 22.2 ms; a 1280×720
    frame 512.7 against 504.5 ms and 579.2 against 570.1 ms, session 49), where the machine
    it was made on ran it 1.8× faster (``models/face_reader.md``). A CPU whose flags cannot
    be read (another system, an ARM CPU) keeps int8."""
    if cpuinfo is None:
        return _int8_pays_here()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return not INT8_FLAGS.isdisjoint(value.split())
    return True


@functools.cache
def _int8_pays_here() -> bool:
    try:
        return int8_pays(Path("/proc/cpuinfo").read_text(errors="replace"))
    except OSError:
        return True


def model_file(path: str | Path, precision: str | None = None) -> Path:
    """The file to load for the model at ``path``: its int8 sibling ``NAME.int8.onnx`` where
    ``precision`` (default :data:`PRECISION`) is "int8", or "auto" on a CPU where int8
    pays (:func:`int8_pays`), and the sibling exists, else ``path``."""
    precision = precision or PRECISION
    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {PRECISIONS}")
    if precision == "auto":
        precision = "int8" if int8_pays() else "fp32"
    path = Path(path)
    if precision == "int8" and path.suffix == ".onnx" and not path.stem.endswith(".int8"):
        int8 = path.with_name(path.stem + ".int8.onnx")
        if int8.is_file():
            return int8
    return path


def onnx_model(path: str | Path, what: str, threads: int = 2, precision: str | None = None
               ) -> tuple[Any, list[str], int]:
    """An onnxruntime session of an exported model (``model_file(path, precision)``: the
    int8 version where there is one and it pays), its class names and input size (from the
    model's metadata); :class:`ModelError` names what is wrong."""
    import onnxruntime as ort

    path = model_file(path, precision)
    if not path.is_file():
        raise ModelError(f"no {what} model at {path}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if not SPIN:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"{path}: not a loadable ONNX model ({exc})") from None
    meta = session.get_modelmeta().custom_metadata_map
    try:
        names = ast.literal_eval(meta["names"])
        size = int(ast.literal_eval(meta.get("imgsz", f"[{CROP_SIZE}]"))[0])
    except (KeyError, ValueError, SyntaxError):
        raise ModelError(f"{path}: the model carries no class names") from None
    return session, [names[i] for i in range(len(names))], size


class IndexClassifier:
    """Reads index crops (``vision.crops.crop_square``) as card codes."""

    #: batches of at most this many crops run on one thread (0: none). Session 8 measured a
    #: second thread costing more than it gave for a few crops (17 crops: 16–17 ms on one
    #: thread, 21–22 ms on two, with another job on the second core); with onnxruntime's
    #: threads not spinning (since), session 25 measured a 160×200 pile region at 17.8–18.0
    #: ms on two threads against 20.3 ms on one, nothing else running, and 19.9–20.3 against
    #: 20.1–20.2 ms with a busy loop on the second core; replay of 60 s of round 0 3.36× →
    #: 3.54–3.61× real time
    SMALL_BATCH = 0
    #: crops per run at most (a photo of noise or carpet can hand it thousands: in one run
    #: their activations took gigabytes)
    MAX_BATCH = 512

    def __init__(self, path: str | Path, threads: int = 2) -> None:
        self.session, self.names, self.size = onnx_model(path, "classifier", threads)
        self.small_session = (onnx_model(path, "classifier", 1)[0]
                              if threads > 1 and self.SMALL_BATCH > 0 else self.session)
        self.input = self.session.get_inputs()[0].name

    @classmethod
    def load(cls, path: str | Path | None = None) -> IndexClassifier:
        return cls(path or MODELS / "index_classifier.onnx")

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """(N, classes) probabilities for BGR crops."""
        if not len(crops):
            return np.zeros((0, len(self.names)), np.float32)
        side = (self.size, self.size)
        batch = np.stack([c if c.shape[:2] == side else
                          cv2.resize(c, side, interpolation=cv2.INTER_AREA) for c in crops])
        # BGR → RGB, channels first, 0–1: one copy of the whole batch
        batch = np.ascontiguousarray(batch[..., ::-1].transpose(0, 3, 1, 2), np.float32)
        batch /= 255.0
        session = self.small_session if len(crops) <= self.SMALL_BATCH else self.session
        return np.concatenate([session.run(None, {self.input: batch[i:i + self.MAX_BATCH]})[0]
                               for i in range(0, len(batch), self.MAX_BATCH)])

    def __call__(self, crops: Sequence[np.ndarray]) -> tuple[list[str], np.ndarray]:
        """The most likely code of each crop and its probability."""
        probs = self.probabilities(crops)
        best = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
        return [self.names[i] for i in best], probs[np.arange(len(best)), best]

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray,
                   turns: Sequence[Sequence[int] | None] | None = None
                   ) -> tuple[list[str], np.ndarray]:
        """Read the index inside each box (x1, y1, x2, y2) of a frame.

        The model reads upright indices; a card may lie at any angle. ``turns[i]`` lists
        the quarter turns (``np.rot90``'s ``k``, counter-clockwise) to try on box i; the
        surest read wins. Without it: a tall box tries 0 and 2 (upright or upside down),
        a wide box 1 and 3, a box near square all four.
        """
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        return self._read([image] * len(boxes), boxes, turns)

    def read_boxes_each(self, images: Sequence[np.ndarray], boxes: Sequence[Sequence[float]],
                        turns: Sequence[Sequence[int] | None] | None = None
                        ) -> tuple[list[str], np.ndarray]:
        """Like :meth:`read_boxes`, one box in each of several images."""
        return self._read(images, np.asarray(boxes, np.float32).reshape(-1, 4), turns)

    def read_boxes_probabilities(self, image: np.ndarray, boxes: np.ndarray,
                                 turns: Sequence[Sequence[int] | None] | None = None
                                 ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Like :meth:`read_boxes`, and the (N, classes) probabilities of each box's read
        (at its surest turn)."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        return self._read([image] * len(boxes), boxes, turns, with_probabilities=True)

    def _read(self, images: Sequence[np.ndarray], boxes: np.ndarray,
              turns: Sequence[Sequence[int] | None] | None, with_probabilities: bool = False
              ) -> Any:
        if turns is None:
            turns = [None] * len(boxes)
        crops: list[np.ndarray] = []
        owner: list[int] = []
        for i, (image, b, tried) in enumerate(zip(images, boxes, turns, strict=True)):
            crop = crop_square(image, b, self.size)
            for k in tried if tried is not None else candidate_turns(b):
                crops.append(np.ascontiguousarray(np.rot90(crop, k)) if k % 4 else crop)
                owner.append(i)
        probs = self.probabilities(crops)
        codes: list[str] = []
        confs = np.zeros(len(boxes), np.float32)
        none = self.names.index("none") if "none" in self.names else -1
        owner_arr = np.asarray(owner)
        chosen = np.zeros((len(boxes), len(self.names)), np.float32)
        for i in range(len(boxes)):
            rows = probs[owner_arr == i]
            cards = rows.copy()
            if none >= 0:
                cards[:, none] = 0.0
            best_row = int(cards.max(axis=1).argmax())
            best = int(rows[best_row].argmax())
            codes.append(self.names[best])
            confs[i] = rows[best_row, best]
            chosen[i] = rows[best_row]
        return (codes, confs, chosen) if with_probabilities else (codes, confs)


def candidate_turns(box: Sequence[float], ratio: float = 1.3) -> tuple[int, ...]:
    """Quarter turns that may make the index in ``box`` upright, from its shape: an index
    is taller than wide when upright."""
    w, h = float(box[2] - box[0]), float(box[3] - box[1])
    if h >= ratio * w:
        return (0, 2)
    if w >= ratio * h:
        return (1, 3)
    return (0, 1, 2, 3)
