"""Frames (or any photo) to cards: the localiser finds corner indices, face-up cards and
backs on tiles of the frame at the camera's own resolution; the classifier reads each index;
indices and faces are grouped so that each physical card is reported once; backs get their
design from a :class:`~vision.backs_registry.BackDesigns` registry when one is given.

ONNX models run with onnxruntime (no torch); NMS and grouping are numpy.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .back_check import BackCheck
from .backs_registry import BackDesigns
from .crops import (
    CARD_SIZE,
    CONTEXT,
    card_look,
    card_quad,
    crop_square,
    crop_turned,
    dominant_angle,
    paper_cards,
    turn_image,
    upright_card,
)
from .detections import Detections, box_iou, in_boxes, tiles
from .face_reader import FaceReader, fuse
from .identify import MODELS, IndexClassifier, ModelError, candidate_turns, onnx_model

INDEX, FACE, BACK = 0, 1, 2
Region = tuple[int, int, int, int]


def resized_regions(image: np.ndarray, regions: Sequence[Region], scale: float,
                    size: tuple[int, int]) -> np.ndarray:
    """``image`` resized by ``scale`` to ``size`` (width, height), as ``cv2.resize`` would
    (INTER_AREA shrinking, INTER_LINEAR enlarging), but only inside ``regions`` (pixels
    of the resized image); the rest of the canvas is left unset. Enlarged regions take the
    whole resize's own mapping, shrunk ones are resized from a crop a little larger than
    their window whose ends fall on whole pixels as nearly as may be: both within the
    rounding of the interpolation of the whole resize."""
    ww, wh = size
    h, w = image.shape[:2]
    fx, fy = ww / w, wh / h  # (the whole resize's own factors: the size, rounded)
    work = np.empty((wh, ww) + image.shape[2:], image.dtype)
    # (source pixels of margin round a shrunk window: more than one resized pixel; and how
    # much further a crop's end may go to fall nearer a whole resized pixel)
    pad = int(np.ceil(1.0 / scale)) + 1
    reach = pad + 12
    for x0, y0, x1, y1 in regions:
        x0, y0, x1, y1 = max(0, int(x0)), max(0, int(y0)), min(ww, int(x1)), min(wh, int(y1))
        if x1 <= x0 or y1 <= y0:
            continue
        if scale >= 1.0:  # the whole resize's mapping: dst = f·src + (f − 1)/2
            m = np.array([[fx, 0.0, (fx - 1) / 2 - x0], [0.0, fy, (fy - 1) / 2 - y0]],
                         np.float64)
            work[y0:y1, x0:x1] = cv2.warpAffine(image, m, (x1 - x0, y1 - y0),
                                                flags=cv2.INTER_LINEAR,
                                                borderMode=cv2.BORDER_REPLICATE)
            continue
        sx0 = _aligned(max(0, int(x0 / fx) - pad), fx, -reach, 0)
        sy0 = _aligned(max(0, int(y0 / fy) - pad), fy, -reach, 0)
        sx1 = _aligned(min(w, int(np.ceil(x1 / fx)) + pad), fx, reach, w)
        sy1 = _aligned(min(h, int(np.ceil(y1 / fy)) + pad), fy, reach, h)
        piece = cv2.resize(image[sy0:sy1, sx0:sx1],
                           (max(1, round(sx1 * fx) - round(sx0 * fx)),
                            max(1, round(sy1 * fy) - round(sy0 * fy))),
                           interpolation=cv2.INTER_AREA)
        a, b = x0 - round(sx0 * fx), y0 - round(sy0 * fy)
        short_x = a + (x1 - x0) - piece.shape[1]
        short_y = b + (y1 - y0) - piece.shape[0]
        if short_x > 0 or short_y > 0:  # (at the frame's edge, by rounding: a pixel)
            piece = cv2.copyMakeBorder(piece, 0, max(0, short_y), 0, max(0, short_x),
                                       cv2.BORDER_REPLICATE)
        work[y0:y1, x0:x1] = piece[b:b + (y1 - y0), a:a + (x1 - x0)]
    return work


def _aligned(start: int, scale: float, reach: int, bound: int) -> int:
    """Of the source pixels from ``start`` up to ``reach`` further (a negative reach: back
    towards 0; a positive one: on towards ``bound``), the one whose place times ``scale``
    falls nearest a whole pixel (``start`` on a tie)."""
    lo, hi = (max(0, start + reach), start) if reach < 0 else (start, min(bound, start + reach))
    return min(range(lo, hi + 1),
               key=lambda x: (abs(x * scale - round(x * scale)), abs(x - start)))


class Localiser:
    """The YOLO detector of ``index``, ``face`` and ``back`` boxes, run on square tiles."""

    #: inputs of at most this many pixels run on one thread (0: none). Once a second thread
    #: cost more than it gave for a small region (160×200: 14 ms on one, 26 ms on two, with
    #: onnxruntime's threads spinning); session 50 (threads not spinning, 2-core AMD EPYC):
    #: a 288 px region 35.3 ms on one thread, 23.6 on two; 60 s of 720p replay 1.53× →
    #: 1.67× real time (with the face reader's too: 1.71×), and with a busy loop on the
    #: second core 1.15–1.18× against 1.13–1.14×; two tables of the service, each playing
    #: the 720p demo round: 8.5 → 8.1 frames/s flat out, 7.8 → 8.4 held at real time
    SMALL_INPUT = 0
    #: the most input pixels one run takes: larger batches of tiles run in parts
    MAX_BATCH_PIXELS = 2 * 1280 * 1280

    def __init__(self, path: str | Path, threads: int = 2) -> None:
        self.session, self.names, self.tile = onnx_model(path, "localiser", threads)
        self.small_session = (onnx_model(path, "localiser", 1)[0]
                              if threads > 1 and self.SMALL_INPUT > 0 else self.session)
        self.input = self.session.get_inputs()[0].name
        self._buffers = threading.local()
        shape = self.session.get_inputs()[0].shape
        self.dynamic_batch = not isinstance(shape[0], int)
        self.dynamic_size = not isinstance(shape[2], int) and not isinstance(shape[3], int)
        #: a model cut at its head's last convolutions (``trim_head`` in
        #: ``scripts/yolo_train.py``): box and class maps per scale, decoded in numpy only
        #: where a class scores (:meth:`Detections.from_yolo_levels`); else the full
        #: export's one ``(B, 4 + nc, anchors)`` output
        meta = self.session.get_modelmeta().custom_metadata_map
        self.levels = meta.get("outputs") == "levels"
        if self.levels and len(self.session.get_outputs()) % 2:
            raise ModelError(f"{path}: a trimmed localiser needs a box and a class map per "
                             "scale")

    PAD = np.float32(114 / 255.0)

    def _batch(self, shape: tuple[int, int, int, int]) -> np.ndarray:
        """An input buffer of ``shape``, kept per thread and reused while the shape stays: a
        fresh 11 MB array per 1280×720 frame costs its page faults again each time."""
        buffer = getattr(self._buffers, "batch", None)
        if buffer is None or buffer.shape != shape:
            buffer = self._buffers.batch = np.empty(shape, np.float32)
        return buffer

    #: rectangles of different sizes share a batch (padded to its largest) only when that
    #: adds at most this share of input pixels to the rectangle's own padded size; else they
    #: run apart (the gate's regions of a frame differ in size: one batch padded to the
    #: largest took 10 % more pixels over 60 s of 720p replay than each on its own)
    SHARE_PADDING = 0.15

    def __call__(self, image: np.ndarray, rects: Sequence[Region], conf: float = 0.25
                 ) -> Detections:
        """Detections in frame pixels from the given rectangles, run in batches of
        rectangles of about the same size, each padded to its largest (a model of fixed
        input size: each at most one tile, one batch)."""
        rects = list(rects)
        parts: list[Detections | None] = [None] * len(rects)
        for members, (th, tw) in self._batches(rects):  # (in the rectangles' order after)
            for i, dets in zip(members, self._run(image, [rects[i] for i in members], th, tw,
                                                  conf), strict=True):
                parts[i] = dets
        found = [d for d in parts if d is not None]
        return Detections.merge(found) if found else Detections.empty()

    def _batches(self, rects: list[Region]) -> list[tuple[list[int], tuple[int, int]]]:
        """The rectangles (their indices) in batches, and each batch's input size (height,
        width)."""
        if not rects:
            return []
        if not self.dynamic_size:
            return [(list(range(len(rects))), (self.tile, self.tile))]

        def padded(r: Region) -> tuple[int, int]:
            return 32 * -(-(r[3] - r[1]) // 32), 32 * -(-(r[2] - r[0]) // 32)

        sizes = [padded(r) for r in rects]
        if not self.dynamic_batch:
            return [([i], sizes[i]) for i in range(len(rects))]
        batches: list[tuple[list[int], tuple[int, int]]] = []
        for i in sorted(range(len(rects)), key=lambda i: -sizes[i][0] * sizes[i][1]):
            h, w = sizes[i]
            for members, (bh, bw) in batches:  # (the largest first: each fits its first)
                if bh >= h and bw >= w and bh * bw <= (1 + self.SHARE_PADDING) * h * w:
                    members.append(i)
                    break
            else:
                batches.append(([i], (h, w)))
        return batches

    def _run(self, image: np.ndarray, rects: Sequence[Region], th: int, tw: int,
             conf: float) -> list[Detections]:
        """The rectangles' detections, run as batches of ``th`` × ``tw`` inputs."""
        # a batch of at most MAX_BATCH_PIXELS per run, decoded before the next (a 12 MP
        # photo is a dozen 1280 px tiles: in one run they took over 3 GB)
        step = max(1, min(len(rects), self.MAX_BATCH_PIXELS // (th * tw))) \
            if self.dynamic_batch else 1
        session = self.small_session if th * tw * step <= self.SMALL_INPUT else self.session
        scale = np.float32(1 / 255.0)
        parts = []
        for start in range(0, len(rects), step):
            chunk = rects[start:start + step]
            batch = self._batch((len(chunk), 3, th, tw))
            for i, (x0, y0, x1, y1) in enumerate(chunk):
                h, w = y1 - y0, x1 - x0
                # BGR uint8 → RGB float 0–1, channels first, straight into the batch; the
                # padding grey (Ultralytics' letterbox 114)
                for c in range(3):
                    np.multiply(image[y0:y1, x0:x1, 2 - c], scale, out=batch[i, c, :h, :w],
                                casting="unsafe")
                batch[i, :, h:, :] = self.PAD
                batch[i, :, :h, w:] = self.PAD
            out = session.run(None, {self.input: batch})
            for k, (x0, y0, x1, y1) in enumerate(chunk):
                if self.levels:
                    scales = [(out[j][k], out[j + 1][k]) for j in range(0, len(out), 2)]
                    dets = Detections.from_yolo_levels(scales, conf, self.names, (tw, th),
                                                       image_size=(x1 - x0, y1 - y0))
                else:
                    dets = Detections.from_yolo(out[0][k], conf, self.names,
                                                image_size=(x1 - x0, y1 - y0))
                parts.append(dets.offset(x0, y0))
        return parts


class CardDetector:
    """``detector(frame) -> Detections``: one entry per physical card with ``code`` (a card
    code or ``"back"``), box, confidence and back ``design`` (None when unknown)."""

    #: the long side of a card, in pixels, that the localiser was trained on (median of
    #: its training tiles; they range from about 27 to 66)
    CARD_PX = 48.0
    #: the long side :meth:`estimate_scale` brings cards to: the index class is found and
    #: read better on cards a little larger than the median
    SMALL_CARD_PX = 56.0
    #: index boxes and card boxes (faces, backs) read per image at most, the surest first
    #: (8 seats' layouts and a full lake show a few hundred; a 12 MP photo of noise gave
    #: thousands, 70,000 reader crops and 8 GB)
    MAX_INDICES = 1000
    MAX_CARDS = 500
    #: long sides (px) of the shrunk copies :meth:`estimate_scale` looks at
    SCALE_LEVELS = (640, 320, 160)
    #: and a smaller one for a close-up (a card or two filling much of the photo): looked
    #: at when the smallest level's cards span at least CLOSE_UP_ABOVE of its side (or none
    #: is sure), taken only where its cards span at least CLOSE_UP_SPAN of its own.
    #: Held-out close-ups read right and alone 0.17–0.44 without it, 0.83–0.96 with it
    #: (``scripts/eval_detector.py --close-ups``); a real photo of one ace on carpet that
    #: gave 33 false reports gives the ace and a false back (and 5 more from the turned look)
    CLOSE_UP_LEVEL = 80
    #: a level that sees at least this many sure cards shows a table of cards; when the
    #: surest level is a smaller one (not the close-up level) that sees one or two, the
    #: scale is taken from the surest table level (a 1080p table was once shrunk 16× after
    #: one sure box at 160 px, a seat taken for a card: no card was found). The pips and
    #: court figure of a close-up card, seen as a few "cards" at the larger levels, are no
    #: table (a queen filling the photo: four at 640 px)
    SCENE_CARDS = 8
    PREFER_SCENE = True
    #: whether a photo may be a close-up (the close-up level looked at): a table camera's
    #: frames never are (``referee.replay`` sets it off). A pale round table filling a
    #: 1920×1080 frame is one sure "card" (0.89) at 160 and 80 px, and was taken for a
    #: close-up and shrunk 19× (no card found) though 640 px saw 15 sure cards; letting a
    #: table level win over the close-up level instead lost close-ups 700 px tall (read
    #: right and alone 0.875 → 0.681: their pips are a "table" at 640 px)
    close_ups = True
    #: the back check (:attr:`back_check`) also judges the ``back`` boxes of a table
    #: camera's frames and regions (a hand resting over a pile, plain and card-sized,
    #: taken for a back)
    check_frame_backs = True
    CLOSE_UP_ABOVE = 0.56
    CLOSE_UP_SPAN = 0.45

    def __init__(self, localiser: Localiser, classifier: IndexClassifier,
                 backs: BackDesigns | None = None, conf: float = 0.3, iou: float = 0.5,
                 overlap: int = 64, min_code_conf: float = 0.3,
                 scale: float | None = None, pass_size: int = 1280,
                 paper: bool = True, index_conf: float = 0.08,
                 min_lone_conf: float = 0.06, turned_reads: str = "replace",
                 face_reader: FaceReader | None = None, turned_pass: float = 45.0,
                 back_check: BackCheck | None = None) -> None:
        self.localiser, self.classifier, self.backs = localiser, classifier, backs
        self.conf, self.iou, self.overlap = conf, iou, overlap
        #: the localiser's threshold for ``index`` boxes: far below :attr:`conf`, since its
        #: index scores run low (an index strip of a fanned column often scores 0.1–0.3)
        #: and the reader rejects what is no index (``none``)
        self.index_conf = index_conf
        #: an index with no card box of its own is reported when the localiser's score
        #: times the reader's is at least this (weaker ones are mostly pips, picture
        #: details or the bare corner of a fanned card's strip)
        self.min_lone_conf = min_lone_conf
        self.min_code_conf = min_code_conf
        #: image scale for the localiser: None finds it per image (:meth:`estimate_scale`)
        #: when the whole image is searched; 1.0 for a calibrated table camera
        self.scale = scale
        #: the largest rectangle the localiser sees in one pass (a 1280×720 frame: one
        #: pass; a fully convolutional model sees the same scale as on its training tiles)
        self.pass_size = pass_size
        #: look for lone cards the localiser missed as card-shaped paper (whole images only)
        self.paper = paper
        #: how indices of cards lying turned are read again upright ("off", "replace",
        #: "surest", "joint": see :meth:`_read_turned`)
        self.turned_reads = turned_reads
        #: reads whole faces (:mod:`vision.face_reader`): a card whose outline is found has
        #: its face's rank multiplied into its index reads; None: indices alone
        self.face_reader = face_reader
        #: rules out a photo's ``back`` boxes that hold no card back
        #: (:mod:`vision.back_check`: carpet, wood, a book taken for one); None: all kept.
        #: On a table camera's frames (:attr:`photos` off) only where
        #: :attr:`check_frame_backs`
        self.back_check = back_check
        #: the localiser's threshold for a photo's ``back`` boxes where the back check
        #: judges them (:attr:`conf` elsewhere): real test photos with 2 held-out backs
        #: pasted into each, backs found 0.851 at 0.3, 0.896 at 0.15 and at 0.08; the
        #: photos' own false backs 5, 7, 6 (``scripts/eval_detector.py --pasted-backs 2``)
        self.photo_back_conf = 0.15
        #: a whole photo (no regions, no fixed scale: not a calibrated table camera's
        #: frame) is looked at once more turned by this many degrees, and each card keeps
        #: the surer of its two reads (cards lying near 45° read badly upright); 0: off
        self.turned_pass = turned_pass
        #: whether a whole image with no fixed scale is a photo of any cards at any angle
        #: (read at a rival scale too, :meth:`scale_candidates`; a card box's indices that
        #: rule each other out parted, :attr:`SPLIT_CONF`); False for a table camera's
        #: frames (``referee.replay`` sets it), read as they are at the scale found
        self.photos = True
        #: weights (exponents) of the face's rank and suit against the index reads
        self.face_weight = FaceReader.WEIGHT
        self.face_suit_weight = FaceReader.SUIT_WEIGHT

    @classmethod
    def load(cls, models: str | Path | None = None, backs: BackDesigns | None = None,
             threads: int = 2) -> CardDetector:
        """The models committed in ``models/`` (``card_detector.onnx``,
        ``index_classifier.onnx``, and ``face_reader.onnx`` and ``back_check.onnx`` where
        they are)."""
        root = Path(models) if models else MODELS
        return cls(Localiser(root / "card_detector.onnx", threads),
                   IndexClassifier(root / "index_classifier.onnx", threads), backs,
                   face_reader=FaceReader.load(root / "face_reader.onnx", threads),
                   back_check=BackCheck.load(root / "back_check.onnx"))

    def rects(self, width: int, height: int, regions: Sequence[Region] | None = None,
              pass_size: int | None = None) -> list[Region]:
        """The rectangles to look at, from the whole frame or only the given regions: cut
        into tiles of ``pass_size`` (default :attr:`pass_size`; a model that takes any
        input size) or of the model's own fixed tile."""
        t = (pass_size or self.pass_size) if self.localiser.dynamic_size \
            else self.localiser.tile
        if regions is None:
            return list(tiles(width, height, t, min(self.overlap, t - 1)))
        out: list[Region] = []
        for rx0, ry0, rx1, ry1 in regions:
            rx0, ry0 = max(0, int(rx0)), max(0, int(ry0))
            rx1, ry1 = min(width, int(np.ceil(rx1))), min(height, int(np.ceil(ry1)))
            if rx1 <= rx0 or ry1 <= ry0:
                continue
            for x0, y0, x1, y1 in tiles(rx1 - rx0, ry1 - ry0, t, min(self.overlap, t - 1)):
                out.append((x0 + rx0, y0 + ry0, x1 + rx0, y1 + ry0))
        return out

    def estimate_scale(self, image: np.ndarray) -> float:
        """The resize that brings this photo's cards to the size the localiser knows
        (the first of :meth:`scale_candidates`)."""
        return self.scale_candidates(image)[0]

    def scale_for(self, card_px: float) -> float:
        """The resize for a photo whose cards' boxes have this median long side (pixels):
        to a little past :attr:`SMALL_CARD_PX` (the index class is found and read better
        there), at most 1.5×; 1.0 when the cards already fit (a scale of 0.8–1.1)."""
        scale = float(np.clip(self.SMALL_CARD_PX / max(card_px, 1e-6), 0.05, 1.5))
        return 1.0 if 0.8 <= scale <= 1.1 else scale

    #: a level nearly as sure (its three surest cards at most this much less sure on
    #: average) whose cards give a scale at least :attr:`RIVAL_RATIO` apart is a rival:
    #: a photo looked at as a whole is read at both scales and keeps the one whose cards
    #: are read surer (a turned photo's cat or carpet taken for one sure card at 160 px)
    RIVAL_SCORE = 0.15
    RIVAL_RATIO = 1.4

    def scale_candidates(self, image: np.ndarray) -> list[float]:
        """The resize that brings this photo's cards to the size the localiser knows: look
        at the image shrunk to each of :data:`SCALE_LEVELS`, take the level whose three surest
        cards or backs are surest (a level that sees a table of cards over a smaller one
        that sees one or two, see :attr:`SCENE_CARDS`), and scale their median long side to
        :data:`SMALL_CARD_PX` (at most 1.5×). 1.0 when nothing is found or the cards already
        fit (a scale of 0.8–1.1). Then the scales of rival levels (:attr:`RIVAL_SCORE`),
        surest first."""
        h, w = image.shape[:2]
        best: tuple[float, float, int] = (0.0, 1.0, 0)  # (score, scale, level)
        best_scene: tuple[float, float, int] = (0.0, 1.0, 0)  # the same, levels of a scene
        seen: dict[int, tuple[float, float]] = {}  # side: (score, median card side)
        counts: dict[int, int] = {}  # side: sure cards seen
        for side in (*self.SCALE_LEVELS, *((self.CLOSE_UP_LEVEL,) if self.close_ups else ())):
            r = side / max(h, w)
            if r >= 1.0:
                continue
            if side == self.CLOSE_UP_LEVEL:
                # a photo of a card or two filling the frame: the next level up sees them
                # far larger than the localiser knows (or sees nothing it is sure of)
                above = seen.get(min(self.SCALE_LEVELS), (0.0, 0.0))
                if above[0] > 0 and above[1] < self.CLOSE_UP_ABOVE * min(self.SCALE_LEVELS):
                    continue
            small = cv2.resize(image, (max(1, round(w * r)), max(1, round(h * r))),
                               interpolation=cv2.INTER_AREA)
            sh, sw = small.shape[:2]
            dets = self.localiser(small, self.rects(sw, sh), self.conf).with_nms(self.iou)
            cards = dets[(dets.class_id != INDEX) & (dets.confidence >= 0.5)]
            if not len(cards):
                continue
            sides = np.maximum(cards.xyxy[:, 2] - cards.xyxy[:, 0],
                               cards.xyxy[:, 3] - cards.xyxy[:, 1])
            median = float(np.median(sides))
            if side == self.CLOSE_UP_LEVEL and median < self.CLOSE_UP_SPAN * side:
                continue  # (not one card filling the view)
            # confident cards of a size the localiser knows; fewer, surer ones beat clutter
            score = float(np.sort(cards.confidence)[-3:].mean())
            seen[side], counts[side] = (score, median), len(cards)
            if score > best[0]:
                best = (score, self.CARD_PX * r / median, side)
            if len(cards) >= self.SCENE_CARDS and score > best_scene[0]:
                best_scene = (score, self.CARD_PX * r / median, side)
        if self.PREFER_SCENE and best_scene[0] > 0 and best[2] < best_scene[2] and \
                best[2] != self.CLOSE_UP_LEVEL and counts[best[2]] < 3:
            # one or two sure boxes at a smaller level than one that sees a table of
            # cards (the close-up level decides close-ups): stretches of the table taken
            # for cards
            best = best_scene

        def final(level_scale: float) -> float:
            # (the level's median card side, in the photo's pixels: CARD_PX * r / scale)
            return self.scale_for(self.CARD_PX / level_scale)

        out = [final(best[1])]
        rivals = [] if best[2] == self.CLOSE_UP_LEVEL else sorted(
            ((score, side) for side, (score, _m) in seen.items()
             if side not in (best[2], self.CLOSE_UP_LEVEL)
             and score >= best[0] - self.RIVAL_SCORE), reverse=True)
        for _score, side in rivals:
            r = side / max(h, w)
            scale = final(self.CARD_PX * r / seen[side][1])
            if all(max(scale, s) / min(scale, s) >= self.RIVAL_RATIO for s in out):
                out.append(scale)
        return out

    #: a region read of a frame looked at resized resizes only its regions
    #: (:func:`resized_regions`: within the rounding of the whole resize's pixels; a 1080p
    #: frame shrunk whole costs ~10 ms a call, its regions ~1–3 ms) rather than the whole
    #: frame. Off: session 51's four 1080p rounds of ``--seed 5`` and ``--seed 6`` each
    #: found fewer moves with it than with the whole resize, the rest of the code the same
    #: (83 / 87, 78 / 79, 152 / 155, 145 / 146; mean score error the same or worse: 0.80 /
    #: 0.80, 4.00 / 3.20, 4.20 / 2.80, 1.80 / 1.80), though offline its region reads score
    #: the same against the labels (``scripts/bench_stages.py --up 1.5``); a switch for a
    #: later check
    REGIONS_RESIZED_ALONE = False
    #: (with it on) regions covering more than this share of the frame are looked at in
    #: the whole resized frame all the same
    RESIZE_WHOLE = 0.5

    def raw(self, image: np.ndarray, regions: Sequence[Region] | None = None,
            scale: float | None = None, pass_size: int | None = None) -> Detections:
        """The localiser's boxes (index, face, back) after NMS, before grouping, in the
        image's pixels; the localiser sees the image resized by ``scale`` (default: the
        detector's, or :meth:`estimate_scale` for a whole photo)."""
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("expected a BGR image (H×W×3)")
        if scale is None:
            scale = self.scale or (self.estimate_scale(image) if regions is None else 1.0)
        h, w = image.shape[:2]
        if abs(scale - 1.0) > 1e-3:
            size = (max(1, round(w * scale)), max(1, round(h * scale)))
            if regions is not None:
                regions = [tuple(int(round(v * scale)) for v in r) for r in regions]
            if regions is None or not self.REGIONS_RESIZED_ALONE or sum(
                    (r[2] - r[0]) * (r[3] - r[1]) for r in regions) \
                    > self.RESIZE_WHOLE * size[0] * size[1]:
                work = cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1
                                  else cv2.INTER_LINEAR)
            else:  # only the regions are resized
                work = resized_regions(image, regions, scale, size)
        else:
            work, scale = image, 1.0
        wh, ww = work.shape[:2]
        dets = self.localiser(work, self.rects(ww, wh, regions, pass_size),
                              min(self.conf, self.index_conf)).with_nms(self.iou)
        back_conf = (self.photo_back_conf if self.photos and self.back_check is not None
                     and regions is None else self.conf)
        dets = dets[np.where(dets.class_id == INDEX, dets.confidence >= self.index_conf,
                             dets.confidence >= np.where(dets.class_id == BACK, back_conf,
                                                         self.conf))]
        weak: list[np.ndarray] = []
        for is_index, most in ((True, self.MAX_INDICES), (False, self.MAX_CARDS)):
            kind = np.nonzero((dets.class_id == INDEX) == is_index)[0]
            if len(kind) > most:  # a photo of noise or carpet: the surest ones
                weak.append(kind[np.argsort(-dets.confidence[kind], kind="stable")[most:]])
        if weak:
            dets = dets[np.setdiff1d(np.arange(len(dets)), np.concatenate(weak))]
        if scale != 1.0:
            dets.xyxy = dets.xyxy / scale
        return dets

    def __call__(self, image: np.ndarray, regions: Sequence[Region] | None = None,
                 scale: float | None = None, focus: Sequence[Sequence[float]] | None = None,
                 focus_slack: float = 0.0) -> Detections:
        """The cards of ``image`` (or of its ``regions``: only those are looked at).
        ``focus``: boxes (image pixels) inside the regions; only the cards that belong to
        one of them (:func:`~vision.detections.in_boxes` with ``focus_slack``) are read and
        reported. The localiser still sees the whole regions (a card's surroundings tell
        how it lies), but the readers skip the cards around the focus: a region grown by a
        card round a changed pile holds several unchanged cards."""
        photo = regions is None and scale is None and self.scale is None
        if photo:
            scales = self.scale_candidates(image)
            scale = scales[0]
            cards = self._detect(image, regions, scale, photo=self.photos)
            for other in scales[1:1 + self.MAX_RIVALS] if self.photos else ():
                rival = self._detect(image, None, other, photo=True)
                if self._sureness(rival) > self._sureness(cards):
                    cards, scale = rival, other
        else:
            cards = self._detect(image, regions, scale, focus=focus, focus_slack=focus_slack)
        if photo and self.turned_pass and max(image.shape[:2]) * scale <= self.MAX_TURNED_SIDE:
            degrees = self._turned_pass_angle(image, cards)
            cards = self._with_turned_pass(image, cards, degrees,
                                           upright=degrees != self.turned_pass)
        if focus is not None:
            cards = cards[in_boxes(cards.xyxy, focus, focus_slack)]
        if self.back_check is not None and (photo and self.photos or self.check_frame_backs):
            cards = self._checked_backs(image, cards)
        return cards

    def _checked_backs(self, image: np.ndarray, cards: Detections) -> Detections:
        """``cards`` less the ``back`` boxes the back check rules out."""
        backs = np.nonzero(cards.class_id == BACK)[0]
        if not len(backs):
            return cards
        keep = np.ones(len(cards), bool)
        keep[backs] = self.back_check(image, cards.xyxy[backs]) >= self.back_check.THRESHOLD
        return cards[keep]

    #: a photo whose cards mostly lie turned by an angle this far from square (and from
    #: 45°), clearly (:func:`~vision.crops.dominant_angle`'s share at least
    #: :attr:`TURN_CLARITY`), gets its turned look at that angle instead of
    #: :attr:`turned_pass` (a phone held askew: its cards read upright in the turned copy)
    TURN_FROM_SQUARE = 10.0
    TURN_CLARITY = 0.2

    def _turned_pass_angle(self, image: np.ndarray, cards: Detections) -> float:
        """The turn of a photo's second look: :attr:`turned_pass`, or for a photo whose
        cards lie turned together, the turn that stands them upright."""
        if not self.photos or not self.TURN_FROM_SQUARE:
            return self.turned_pass
        faces = cards.xyxy[cards.class_id != BACK]
        if not len(faces):
            return self.turned_pass
        angle, clarity = dominant_angle(image, faces)
        if clarity < self.TURN_CLARITY or not (
                self.TURN_FROM_SQUARE <= abs(angle) <= 45.0 - self.TURN_FROM_SQUARE):
            return self.turned_pass
        return -angle

    #: rival scales a photo is also read at (:meth:`scale_candidates`)
    MAX_RIVALS = 1
    #: a read counts towards a scale's :meth:`_sureness` from this confidence on, and one
    #: below WEAK_READ costs WEAK_COST (the cluttered test photos with a rival scale, turned
    #: by 0, 15, 30 and 45°, one look each: the summed sure reads alone took scales that
    #: read pips and carpet, false reports 111 → 206; with the cost 111 → 16, and cards
    #: read right 67 → 84)
    SURE_READ, WEAK_READ, WEAK_COST = 0.5, 0.4, 0.1

    @classmethod
    def _sureness(cls, cards: Detections) -> float:
        """How well a photo was read at one scale: the summed confidence of its sure face
        reads less a cost for each weak one (a scale too large reads pips and texture as
        many weak cards; one too small finds nothing)."""
        conf = cards.confidence[cards.class_id != BACK]
        return float(conf[conf >= cls.SURE_READ].sum()
                     - cls.WEAK_COST * np.count_nonzero(conf < cls.WEAK_READ))

    def _detect(self, image: np.ndarray, regions: Sequence[Region] | None,
                scale: float | None, pass_size: int | None = None, photo: bool = False,
                focus: Sequence[Sequence[float]] | None = None, focus_slack: float = 0.0
                ) -> Detections:
        dets = self.raw(image, regions, scale, pass_size)
        cards = self.group(image, dets, split=photo, focus=focus, focus_slack=focus_slack)
        if regions is None and self.paper:
            cards = self._add_paper_cards(image, cards)
        return cards

    #: how sure a card found only in the turned look must be read to be added
    TURNED_PASS_NEW_CONF = 0.25
    #: a card of the turned look on an upright report that another card of the turned
    #: look (another code) took already is added when the report's box is at least this
    #: many times its own: two cards the upright look boxed as one; 0: off
    TURNED_PASS_PARTS = 1.5
    #: and when its box is at least this many pixels across (index strips of 9–14 px on
    #: rendered 720p tables added so were 4 of 5 misread; those of real photos, 34–55 px,
    #: 10 of 10 right)
    TURNED_PASS_PART_PX = 16.0
    #: a first-look report whose read another look's card beats, and whose box is at least
    #: this many times that card's (turned back, shrunk), takes that card's box too: a
    #: photo looked at a scale far too small boxes its whole self as one card (real
    #: cluttered test photo IMG_2435 turned 45°: its 9C read right on a box 9 times the
    #: card's, the whole photo); 0: off
    TURNED_PASS_BOX = 5.0
    #: the largest single pass the turned copy gets (a larger one is looked at in tiles)
    MAX_PASS = 2048
    #: a photo still larger than this at its scale (no card found to size it: a 12 MP photo
    #: of nothing) is looked at once
    MAX_TURNED_SIDE = 2560

    def _with_turned_pass(self, image: np.ndarray, cards: Detections,
                          degrees: float | None = None, upright: bool = False) -> Detections:
        """A photo looked at once more, turned by ``degrees`` (default :attr:`turned_pass`):
        each card found in both keeps the surer read (a card lying near 45° is read upright
        in one of the two), one found only in the turned copy is added (its box turned
        back). ``upright``: the turn stands the photo's cards upright, so the turned look's
        boxes are the cards' outlines, turned back as they are, and one of them gives its
        box to a first-look report it reads surer that is a box of two cards."""
        degrees = self.turned_pass if degrees is None else degrees
        other = self._turned_look(image, degrees, shrink=not upright)
        return self._merge_looks(cards, other, exact=upright)

    def _turned_look(self, image: np.ndarray, degrees: float, shrink: bool = True
                     ) -> Detections:
        """The face cards (and, for a photo with a back check, the backs) the localiser and
        readers find in ``image`` turned by ``degrees``, their boxes turned back: the box of
        the turned box's corners, shrunk about its centre by the growth such a turn gives a
        square when ``shrink`` (the card's own outline is not known; a look that stands the
        cards upright has their outlines as its boxes)."""
        h, w = image.shape[:2]
        turned, m = turn_image(image, degrees, border=(114, 114, 114))
        # (the scale is found again: turned cards have other boxes, the size it goes by;
        # the turned copy is looked at in one pass, its corners being mostly border)
        scale = self.estimate_scale(turned)
        one_pass = 32 * -(-int(max(turned.shape[:2]) * scale) // 32)
        other = self._detect(turned, None, scale,
                             max(self.pass_size, min(self.MAX_PASS, one_pass)),
                             photo=self.photos)
        if self.back_check is None or not self.photos:
            # its faces: the first look's backs stay (a photo's backs the first look missed,
            # lying near 45°, are added where the back check judges them after)
            other = other[other.class_id != BACK]
        if not len(other):
            return other
        x1, y1, x2, y2 = other.xyxy.T
        corners = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1),
                            np.stack([x2, y2], 1), np.stack([x1, y2], 1)], 1)
        back = cv2.transform(corners.reshape(1, -1, 2).astype(np.float32),
                             cv2.invertAffineTransform(m))[0].reshape(-1, 4, 2)
        centre = back.mean(axis=1)
        grow = (abs(np.cos(np.radians(degrees))) + abs(np.sin(np.radians(degrees)))
                if shrink else 1.0)
        half = (back.max(axis=1) - back.min(axis=1)) / (2 * grow)
        boxes = np.concatenate([centre - half, centre + half], axis=1)
        other = other[np.arange(len(other))]
        other.xyxy = np.clip(boxes, 0, [w, h, w, h]).astype(np.float32)
        return other

    def _merge_looks(self, cards: Detections, other: Detections, exact: bool = False
                     ) -> Detections:
        """``cards`` of a photo's first look with the cards ``other`` of another (its backs:
        :meth:`_with_other_backs`): a card of both keeps the surer read on the first look's
        box (``exact``: on the other one's box where the first is a box of two cards,
        :attr:`TURNED_PASS_PARTS` times its size; in any look where it is
        :attr:`TURNED_PASS_BOX` times its size); one found only in the other is added when
        sure, also a second card of the other look on one box of the first."""
        if not len(other):
            return cards
        cards = self._with_other_backs(cards, other[other.class_id == BACK])
        other = other[other.class_id != BACK]
        if not len(other):
            return cards
        boxes = other.xyxy
        faces = np.nonzero(cards.class_id != BACK)[0]
        same = (self.same_index(boxes, cards.xyxy[faces]) if len(faces)
                else np.zeros((len(boxes), 0), bool))
        cards = cards[np.arange(len(cards))]  # a copy: reads are replaced in it
        areas = [_area(b) for b in cards.xyxy]  # (before a box is replaced)
        # a card only the other look finds is added when its read is sure (half the cards
        # a turned look alone finds on a crowded table are strips and pips read wrong)
        extra = []
        taken: dict[int, str] = {}  # first-look report → the code of the other card on it
        for j in np.argsort(-other.confidence, kind="stable"):
            hits = faces[same[j]] if same.shape[1] else faces[:0]
            if not len(hits):
                if other.confidence[j] >= self.TURNED_PASS_NEW_CONF:
                    extra.append(j)
                continue
            i = int(hits[np.argmax(box_iou(boxes[j:j + 1], cards.xyxy[hits])[0])])
            if self.TURNED_PASS_PARTS and i in taken and taken[i] != other.code[j] and \
                    areas[i] >= self.TURNED_PASS_PARTS * _area(boxes[j]):
                # a second card of the other look on one report of the first: the first
                # look boxed two cards as one (overlapping, turned), the other parted them
                if other.confidence[j] >= self.TURNED_PASS_NEW_CONF and min(
                        boxes[j, 2] - boxes[j, 0], boxes[j, 3] - boxes[j, 1]) \
                        >= self.TURNED_PASS_PART_PX:
                    extra.append(j)
                continue
            taken.setdefault(i, str(other.code[j]))
            if other.confidence[j] > cards.confidence[i]:
                cards.code[i] = other.code[j]
                cards.confidence[i] = other.confidence[j]
                cards.alternatives[i] = other.alternatives[j]
                two_cards = exact and self.TURNED_PASS_PARTS and \
                    areas[i] >= self.TURNED_PASS_PARTS * _area(boxes[j])
                far_too_big = self.TURNED_PASS_BOX and \
                    areas[i] >= self.TURNED_PASS_BOX * _area(boxes[j])
                if two_cards or far_too_big:
                    cards.xyxy[i] = boxes[j]
        if extra:
            extra.sort()
            cards = Detections.merge([cards, other[np.asarray(extra)]])
        return cards

    def _with_other_backs(self, cards: Detections, backs: Detections) -> Detections:
        """``cards`` with the backs of another look that lie on none of them (a back lying
        near 45°, which the upright look misses); the back check judges them after."""
        if not len(backs):
            return cards
        centres = (backs.xyxy[:, :2] + backs.xyxy[:, 2:]) / 2
        inside = ((cards.xyxy[None, :, :2] <= centres[:, None])
                  & (centres[:, None] <= cards.xyxy[None, :, 2:])).all(axis=2).any(axis=1)
        overlap = (box_iou(backs.xyxy, cards.xyxy).max(axis=1) > 0.1 if len(cards)
                   else np.zeros(len(backs), bool))
        new = np.nonzero(~inside & ~overlap)[0]
        return Detections.merge([cards, backs[new]]) if len(new) else cards

    def _add_paper_cards(self, image: np.ndarray, cards: Detections) -> Detections:
        """Lone cards the localiser missed, found as card-shaped paper
        (:func:`~vision.crops.paper_cards`) and read at both ends when upright; reported at
        half the reader's confidence."""
        candidates: list[np.ndarray] = []
        quads: list[np.ndarray] = []
        crops: list[np.ndarray] = []
        for quad in paper_cards(image):
            box = np.concatenate([quad.min(axis=0), quad.max(axis=0)])
            centre = (box[:2] + box[2:]) / 2
            if len(cards):
                # a card already reported here: a box overlapping it, or a box of a card's
                # size around its centre (a small box inside it, such as a pip taken for
                # a back, does not count)
                areas = ((cards.xyxy[:, 2] - cards.xyxy[:, 0])
                         * (cards.xyxy[:, 3] - cards.xyxy[:, 1]))
                around = ((cards.xyxy[:, 0] <= centre[0]) & (centre[0] <= cards.xyxy[:, 2])
                          & (cards.xyxy[:, 1] <= centre[1]) & (centre[1] <= cards.xyxy[:, 3])
                          & (areas >= 0.4 * (box[2] - box[0]) * (box[3] - box[1])))
                if (box_iou(box[None], cards.xyxy)[0] > 0.2).any() or around.any():
                    continue
            candidates.append(box)
            quads.append(quad)
            crops += self._upright_index_crops(image, quad)
        boxes, confs, names = [], [], []
        alts: list[tuple[tuple[str, float], ...]] = []
        looks: list[np.ndarray] = []
        if crops:
            probs = self.classifier.probabilities(crops)
            if "none" in self.classifier.names:
                probs[:, self.classifier.names.index("none")] = 0.0
            uprights = [upright_card(image, q) for q in quads]
            face_probs = (self.face_reader.probabilities(uprights)
                          if self.face_reader is not None else [None] * len(quads))
            for k, box in enumerate(candidates):
                pair = probs[2 * k:2 * k + 2]  # the card read at both ends
                row, col = np.unravel_index(int(pair.argmax()), pair.shape)
                if pair[row, col] < max(self.min_code_conf, 0.5):
                    continue
                code, conf, p = self._with_face(self.classifier.names[col],
                                                float(pair[row, col]), pair[row], True,
                                                face_probs[k])
                boxes.append(box)
                confs.append(0.5 * conf)
                names.append(code)
                alts.append(self._alternatives(p, code))
                looks.append(card_look(uprights[k]))
        if not boxes:
            return cards
        extra = Detections.create(np.asarray(boxes, np.float32), np.asarray(confs, np.float32),
                                  [FACE] * len(boxes), names, [None] * len(boxes),
                                  alternatives=alts, look=looks)
        return Detections.merge([cards, extra])

    @classmethod
    def _one_box_per_index(cls, idx: Detections, iou: float = 0.4) -> Detections:
        """The localiser's surest box of each index: weaker boxes that NMS kept beside a
        surer one on the same index (IoU above ``iou``) are not read."""
        if len(idx) < 2:
            return idx
        order = np.argsort(-idx.confidence, kind="stable")
        overlap = box_iou(idx.xyxy[order], idx.xyxy[order]) > iou
        keep = np.ones(len(order), bool)
        for k in range(len(order)):
            if keep[k]:
                keep[k + 1:] &= ~overlap[k, k + 1:]
        return idx[np.sort(order[keep])]

    @staticmethod
    def same_index(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(A, B) whether boxes of ``a`` and ``b`` are boxes of one index: they overlap by
        a third or the centre of one lies inside the other."""
        a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
        ca, cb = (a[:, :2] + a[:, 2:]) / 2, (b[:, :2] + b[:, 2:]) / 2
        b_in_a = ((a[:, None, :2] <= cb[None]) & (cb[None] <= a[:, None, 2:])).all(axis=2)
        a_in_b = ((b[None, :, :2] <= ca[:, None]) & (ca[:, None] <= b[None, :, 2:])).all(axis=2)
        return (box_iou(a, b) > 0.3) | b_in_a | a_in_b

    #: long side / short side of a card (a poker card: 88 / 63 mm), and the spread allowed
    #: for other decks and for perspective
    CARD_RATIOS = (1.3, 1.4, 1.5)
    _ANGLES = np.radians(np.arange(0, 180, 5))

    @classmethod
    def _index_offset(cls, side: Any, ratio: Any, t: Any) -> np.ndarray:
        """(..., 2) where the centre of the bottom-right index of a card (short side
        ``side`` px, long / short ``ratio``) turned clockwise by ``t`` lies from the card's
        centre (the top-left index: the negative); array arguments give one per pose."""
        a, b, c, d = cls.INDEX_ON_CARD
        u, v = 0.5 - (a + c) / 2, 0.5 - (b + d) / 2  # index centre from the card's centre
        px, py = u * side, v * ratio * side  # the index centre, the card turned by 0
        return np.stack([px * np.cos(t) - py * np.sin(t), px * np.sin(t) + py * np.cos(t)],
                        axis=-1)

    @classmethod
    def own_index_spots(cls, face: np.ndarray) -> np.ndarray:
        """(K, 2) points where the centre of an index of the card in ``face`` (an upright
        box x1, y1, x2, y2) can be: for each angle the card may lie at that gives a box of
        this shape (every 5°, cards of :data:`CARD_RATIOS`), the centres of the index
        corners of :attr:`INDEX_ON_CARD` at both ends. Empty for a box no whole card fits
        (a card partly hidden)."""
        poses = cls.card_poses(face)
        if not poses:
            return np.zeros((0, 2))
        side, ratio, t = (np.array(x) for x in zip(*poses, strict=True))
        spots = cls._index_offset(side, ratio, t)
        centre = (np.asarray(face[:2], np.float64) + np.asarray(face[2:], np.float64)) / 2
        return np.concatenate([spots, -spots]) + centre  # both ends

    @classmethod
    def _index_owner(cls, index_xyxy: np.ndarray, face_xyxy: np.ndarray) -> np.ndarray:
        """For each index, the face box it belongs to (or -1): among the boxes holding the
        index's centre, the one where it lies nearest to a spot of that card's index at
        some angle the box allows (:meth:`own_index_spots`; within 22 % of the card's short
        side) — not the index of a card beside or under it that the box happens to hold;
        for a box no whole card fits, nearest to one of its corners (within 40 % of its
        diagonal)."""
        owner = np.full(len(index_xyxy), -1, np.int64)
        if not len(index_xyxy) or not len(face_xyxy):
            return owner
        c = (index_xyxy[:, :2] + index_xyxy[:, 2:]) / 2  # (I, 2)
        f = face_xyxy  # (F, 4)
        inside = ((c[:, None, 0] >= f[None, :, 0]) & (c[:, None, 0] <= f[None, :, 2])
                  & (c[:, None, 1] >= f[None, :, 1]) & (c[:, None, 1] <= f[None, :, 3]))
        # how far from where its own index would be, 1 = the limit
        dist = np.full(inside.shape, np.inf)
        for k in np.nonzero(inside.any(axis=0))[0]:
            rows = np.nonzero(inside[:, k])[0]
            face = f[k]
            spots = cls.own_index_spots(face)
            if len(spots):
                short = max(1.0, float(min(face[2] - face[0], face[3] - face[1])))
                near = np.linalg.norm(c[rows, None] - spots[None], axis=2).min(axis=1)
                dist[rows, k] = near / (0.22 * short)
            else:
                dx = np.minimum(np.abs(c[rows, 0] - face[0]), np.abs(c[rows, 0] - face[2]))
                dy = np.minimum(np.abs(c[rows, 1] - face[1]), np.abs(c[rows, 1] - face[3]))
                diag = max(1e-6, float(np.hypot(face[2] - face[0], face[3] - face[1])))
                dist[rows, k] = np.hypot(dx, dy) / (0.4 * diag)
        best = dist.argmin(axis=1)
        ok = dist[np.arange(len(c)), best] < 1.0
        owner[ok] = best[ok]
        return owner

    #: an index of no card box of its own (a fanned card's strip, a card peeking from
    #: under another) takes its turn from where it lies against the nearest card box: a
    #: quarter-square card shows upright indices in its top half (or right half, lying
    #: sideways) whichever end is up, and a strip above a column's top card is the top
    #: of a card lying alike (one crop instead of two)
    LONE_TURN_FROM_CARD = True

    @classmethod
    def _index_turns(cls, index_xyxy: np.ndarray, face_xyxy: np.ndarray,
                     owner: np.ndarray | None = None, lone_from_card: bool = False
                     ) -> list[tuple[int, ...] | None]:
        """The quarter turn that makes each index upright, from where it sits on its card:
        a tall index in the top half of its card is upright (0), in the bottom half upside
        down (2); a wide one in the right half needs a counter-clockwise turn (1), in the
        left half a clockwise one (3). An index box near square takes its shape from its
        card's box (tall or wide), or, with no card of its own, from the nearest card box
        around it (a pile's cards lie alike): tall 0 or 2, wide 1 or 3. None (try all
        four) when neither tells. ``owner``: :meth:`_index_owner` when known already."""
        if owner is None:
            owner = cls._index_owner(index_xyxy, face_xyxy)
        out: list[tuple[int, ...] | None] = []
        for box, f in zip(index_xyxy, owner, strict=True):
            turns = candidate_turns(box)
            near = f if f >= 0 else cls._nearest_face(box, face_xyxy)
            if len(turns) != 2 and near >= 0:
                turns = candidate_turns(face_xyxy[near], ratio=1.15)
            if len(turns) != 2:
                out.append(None)
                continue
            if f < 0 and (near < 0 or not lone_from_card):
                out.append(turns)
                continue
            face = face_xyxy[f if f >= 0 else near]
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if turns == (0, 2):
                out.append((0,) if cy < (face[1] + face[3]) / 2 else (2,))
            else:
                out.append((1,) if cx > (face[0] + face[2]) / 2 else (3,))
        return out

    @classmethod
    def card_poses(cls, face: np.ndarray) -> list[tuple[float, float, float]]:
        """(short side px, long / short, angle in radians) of each card lying in ``face``
        (an upright box) that gives a box of its shape: every 5°, cards of
        :data:`CARD_RATIOS`; none for a box no whole card fits (a card partly hidden)."""
        return list(cls._poses(max(float(face[2] - face[0]), 1.0),
                               max(float(face[3] - face[1]), 1.0)))

    @classmethod
    @functools.lru_cache(maxsize=4096)
    def _poses(cls, w: float, h: float) -> tuple[tuple[float, float, float], ...]:
        """:meth:`card_poses` of a box ``w`` × ``h`` (asked several times per card)."""
        cos, sin = np.abs(np.cos(cls._ANGLES)), np.abs(np.sin(cls._ANGLES))
        out = []
        for ratio in cls.CARD_RATIOS:
            bw, bh = cos + ratio * sin, sin + ratio * cos  # the box of a card 1 × ratio
            for k in np.nonzero(np.abs(np.log(bw / bh * h / w)) <= 0.1)[0]:
                out.append((w / float(bw[k]), ratio, float(cls._ANGLES[k])))
        return tuple(out)

    @classmethod
    def _on_a_face(cls, box: np.ndarray, face_xyxy: np.ndarray, margin: float = 0.03
                   ) -> bool:
        """Whether ``box``'s centre lies on the face of a card of ``face_xyxy`` (at least
        ``margin`` of its size inside its edges) for some way the card may lie in its box
        (:meth:`card_poses`): pips, a picture or a bare corner of that card, not an index —
        a card's own index is its face box's, and the index of a card lying on it has a
        face box of its own."""
        c = (box[:2] + box[2:]) / 2
        for face in face_xyxy:
            if not ((face[:2] <= c) & (c <= face[2:])).all():
                continue
            poses = cls.card_poses(face)
            if not poses:
                continue
            d = c - (face[:2] + face[2:]) / 2
            if any(abs(d[0] * np.cos(t) + d[1] * np.sin(t)) <= (0.5 - margin) * side
                   and abs(-d[0] * np.sin(t) + d[1] * np.cos(t))
                   <= (0.5 - margin) * ratio * side for side, ratio, t in poses):
                return True
        return False

    @staticmethod
    def _nearest_face(box: np.ndarray, face_xyxy: np.ndarray, grow: float = 0.5) -> int:
        """The card box nearest to ``box``'s centre among those that, grown by ``grow`` of
        their size each way, hold it; -1 when none does."""
        if not len(face_xyxy):
            return -1
        c = (box[:2] + box[2:]) / 2
        size = face_xyxy[:, 2:] - face_xyxy[:, :2]
        lo, hi = face_xyxy[:, :2] - grow * size, face_xyxy[:, 2:] + grow * size
        holds = ((lo <= c) & (c <= hi)).all(axis=1)
        if not holds.any():
            return -1
        dist = np.linalg.norm((face_xyxy[:, :2] + face_xyxy[:, 2:]) / 2 - c, axis=1)
        return int(np.where(holds, dist, np.inf).argmin())

    #: where the top-left index sits on an upright card, as fractions of its width and
    #: height (x1, y1, x2, y2): generous, since decks differ
    INDEX_ON_CARD = (0.0, 0.01, 0.21, 0.31)

    @classmethod
    def corner_boxes(cls, face: np.ndarray) -> list[tuple[np.ndarray, int]]:
        """Where a card's two corner indices can be in its box, each with the quarter turn
        that makes it upright: top-left (0) and bottom-right (2) of an upright or upside-down
        card; top-right (1) and bottom-left (3) of a card lying sideways; all four for a box
        near square (a card seen at a slant, or turned). Assumes a card lying about square to
        the image: a card turned by 20° or more has its indices off these boxes."""
        x1, y1, x2, y2 = (float(v) for v in face)
        w, h = x2 - x1, y2 - y1
        a, b, c, d = cls.INDEX_ON_CARD
        upright = [(np.array([x1 + a * w, y1 + b * h, x1 + c * w, y1 + d * h], np.float32), 0),
                   (np.array([x2 - c * w, y2 - d * h, x2 - a * w, y2 - b * h], np.float32), 2)]
        sideways = [(np.array([x2 - d * w, y1 + a * h, x2 - b * w, y1 + c * h], np.float32), 1),
                    (np.array([x1 + b * w, y2 - c * h, x1 + d * w, y2 - a * h], np.float32), 3)]
        if h >= 1.15 * w:
            return upright
        if w >= 1.15 * h:
            return sideways
        return upright + sideways  # foreshortened or turned: all four corners

    def _upright_index_crops(self, image: np.ndarray, quad: np.ndarray) -> list[np.ndarray]:
        """The reader's crops of the top-left index of the card outlined by ``quad``, warped
        upright, both ways up (which end is up is not known)."""
        card = upright_card(image, quad)
        a, b, c, d = self.INDEX_ON_CARD
        cw, ch = CARD_SIZE
        corner = (a * cw, b * ch, c * cw, d * ch)
        return [crop_square(np.ascontiguousarray(view), corner, self.classifier.size)
                for view in (card, card[::-1, ::-1])]

    def _read_corners(self, image: np.ndarray, faces: np.ndarray
                      ) -> list[tuple[str | None, float, np.ndarray | None]]:
        """Read cards whose index the localiser missed from where their indices must be:
        the surest of the corner reads with its class probabilities, or (None, 0, None)
        when no corner reads as a card."""
        boxes: list[np.ndarray] = []
        turns: list[tuple[int, ...]] = []
        owner: list[int] = []
        for f, face in enumerate(faces):
            for box, k in self.corner_boxes(face):
                boxes.append(box)
                turns.append((k,))
                owner.append(f)
        out: list[tuple[str | None, float, np.ndarray | None]] = [(None, 0.0, None)] * len(faces)
        if boxes:
            codes, confs, probs = self.classifier.read_boxes_probabilities(
                image, np.stack(boxes), turns)
            for f, code, conf, row in zip(owner, codes, confs, probs, strict=True):
                if code != "none" and conf >= self.min_code_conf and conf > out[f][1]:
                    out[f] = (code, float(conf), row)
        # a card lying turned: its indices are off the box's corners; read crops turned by
        # each angle the box allows, at the index spots of that pose
        crops: list[np.ndarray] = []
        crop_owner: list[int] = []
        for f, face in enumerate(faces):
            if self.turned_reads == "off":
                break
            for side, ratio, t in self.card_poses(face):
                if ratio != self.CARD_RATIOS[1]:
                    continue
                off = abs((t + np.pi / 4) % (np.pi / 2) - np.pi / 4)
                if off < self.TURNED_MIN:
                    continue
                spot = self._index_offset(side, ratio, t)
                centre = (face[:2] + face[2:]) / 2
                for sign, angle in ((1.0, t + np.pi), (-1.0, t)):
                    crops.append(crop_turned(image, tuple(centre + sign * spot),
                                             self.TURNED_CROP * ratio * side, angle,
                                             self.classifier.size))
                    crop_owner.append(f)
        if crops:
            probs = self.classifier.probabilities(crops)
            cards = probs.copy()
            if "none" in self.classifier.names:
                cards[:, self.classifier.names.index("none")] = 0.0
            for f, row, card_row in zip(crop_owner, probs, cards, strict=True):
                k = int(card_row.argmax())
                code, conf = self.classifier.names[k], float(row[k])
                if conf >= self.min_code_conf and conf > out[f][1]:
                    out[f] = (code, conf, row)
        # a card turned at any angle: find its outline, warp it upright, read both ends
        crops: list[np.ndarray] = []
        crop_owner: list[int] = []
        for f, face in enumerate(faces):
            quad = card_quad(image, face)
            if quad is not None:
                crops += self._upright_index_crops(image, quad)
                crop_owner += [f, f]
        if crops:
            probs = self.classifier.probabilities(crops)
            best = probs.argmax(axis=1)
            for f, k, row in zip(crop_owner, best, probs, strict=True):
                code, conf = self.classifier.names[int(k)], float(row[k])
                if code != "none" and conf >= self.min_code_conf and conf > out[f][1]:
                    out[f] = (code, conf, row)
        return out

    #: alternatives kept per card: at most this many, each at least this likely
    MAX_ALTERNATIVES = 4
    MIN_ALTERNATIVE_P = 0.01

    def _alternatives(self, probs: np.ndarray | None, code: str
                      ) -> tuple[tuple[str, float], ...]:
        """The next most likely codes after ``code`` from one card's class probabilities
        (normalised over the card codes), best first."""
        if probs is None:
            return ()
        p = np.asarray(probs, np.float64).copy()
        names = self.classifier.names
        if "none" in names:
            p[names.index("none")] = 0.0
        total = float(p.sum())
        if total <= 0:
            return ()
        p /= total
        out: list[tuple[str, float]] = []
        for k in np.argsort(-p):
            if len(out) >= self.MAX_ALTERNATIVES or p[k] < self.MIN_ALTERNATIVE_P:
                break
            if names[int(k)] != code:
                out.append((names[int(k)], round(float(p[k]), 4)))
        return tuple(out)

    #: how far (radians) from square to the image a card must lie before its indices are
    #: read from crops turned by the card's own angle
    TURNED_MIN = np.radians(12)
    #: the side of a turned corner crop, as a share of the card's long side (an index is
    #: about a quarter of it, and the reader's crops hold 1.35 × the index)
    TURNED_CROP = 0.34

    def index_angles(self, index_xyxy: np.ndarray, face: np.ndarray) -> list[float | None]:
        """For each index box on the card of ``face``: the angle (radians, clockwise) that
        the index is turned by — the card's angle from its box's shape, plus half a turn
        for the index at the far end — or None when the box fits no whole card."""
        poses = self.card_poses(face)
        if not poses:
            return [None] * len(index_xyxy)
        spots = self.own_index_spots(face)  # the card's "-" end spots, then the "+" end
        angles = np.array([t for _s, _r, t in poses] * 2)
        ends = np.array([np.pi] * len(poses) + [0.0] * len(poses))
        out: list[float | None] = []
        for box in index_xyxy:
            c = (box[:2] + box[2:]) / 2
            k = int(np.linalg.norm(spots - c, axis=1).argmin())
            out.append(float((angles[k] + ends[k]) % (2 * np.pi)))
        return out

    def _read_turned(self, image: np.ndarray, index_xyxy: np.ndarray, face_xyxy: np.ndarray,
                     owner: np.ndarray, codes: list[str], conf: np.ndarray, probs: np.ndarray
                     ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Indices of cards lying turned (:attr:`TURNED_MIN` or more from square) read again
        from crops turned by the card's own angle, so that the index is upright: a quarter
        turn leaves a card at 45° with its index at 45°, which the reader reads badly.
        ``owner``: each index's face (:meth:`_index_owner`)."""
        crops: list[np.ndarray] = []
        rows: list[int] = []
        for f in np.unique(owner[owner >= 0]):
            members = np.nonzero(owner == f)[0]
            for i, angle in zip(members, self.index_angles(index_xyxy[members], face_xyxy[f]),
                                strict=True):
                if angle is None:
                    continue
                off = abs((angle + np.pi / 4) % (np.pi / 2) - np.pi / 4)
                if off < self.TURNED_MIN:
                    continue
                b = index_xyxy[i]
                w, h = float(b[2] - b[0]), float(b[3] - b[1])
                # the upright index's height from its turned box (an index ~1:2)
                tall = (w + h) / (1.5 * (abs(np.cos(angle)) + abs(np.sin(angle))))
                crops.append(crop_turned(image, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2),
                                         CONTEXT * tall, angle, self.classifier.size))
                rows.append(int(i))
        if not crops:
            return codes, conf, probs
        turned = self.classifier.probabilities(crops)
        probs = probs.copy()
        names = self.classifier.names
        none = names.index("none") if "none" in names else -1
        for i, row in zip(rows, turned, strict=True):
            if self.turned_reads == "replace":
                new = row
            elif self.turned_reads == "joint":
                j = np.log(row + 1e-4) + np.log(probs[i] + 1e-4)
                new = np.exp(j - j.max())
                new /= new.sum()
            else:  # the surer of the two reads
                a, b = row.copy(), probs[i].copy()
                if none >= 0:
                    a[none] = b[none] = 0.0
                new = row if a.max() >= b.max() else probs[i]
            probs[i] = new
            cards = new.copy()
            if none >= 0 and cards.sum() - cards[none] > 0:
                cards[none] = 0.0
            k = int(cards.argmax())
            codes[i], conf[i] = names[k], float(new[k])
        return codes, conf, probs

    def _read_faces(self, image: np.ndarray, faces: np.ndarray, read: np.ndarray | None = None
                    ) -> tuple[np.ndarray, list[np.ndarray | None] | np.ndarray,
                               list[np.ndarray | None]]:
        """Per face box: whether its card's whole outline was found, the face reader's
        probabilities of it (None without a face reader) and its card's look
        (:func:`~vision.crops.card_look`; None where no outline was found). ``read``: which
        boxes to read (default all; the others are as if no outline was found)."""
        if self.face_reader is None or not len(faces):
            return np.zeros(len(faces), bool), [None] * len(faces), [None] * len(faces)
        if read is None or read.all():
            return self.face_reader.read_boxes_with_looks(image, faces)
        found = np.zeros(len(faces), bool)
        probs = np.zeros((len(faces), len(self.face_reader.names)), np.float32)
        looks: list[np.ndarray | None] = [None] * len(faces)
        some = np.nonzero(read)[0]
        if len(some):
            f, p, lk = self.face_reader.read_boxes_with_looks(image, faces[some])
            found[some], probs[some] = f, p
            for i, look in zip(some, lk, strict=True):
                looks[int(i)] = look
        return found, probs, looks

    @classmethod
    def _focused(cls, index_xyxy: np.ndarray, face_xyxy: np.ndarray, owner: np.ndarray,
                 focus: Sequence[Sequence[float]], slack: float
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Which card boxes and which index boxes :meth:`group` must read for the cards
        that belong to ``focus`` (:func:`~vision.detections.in_boxes`): the card boxes that
        belong and the indices they own; the indices of no card box that belong (a strip
        reported with its own box); and the card boxes such a strip overlaps, whose read
        decides whether the strip is that card again. Each card is read as it would be
        with no focus: its index's turn and owner still come from every box found."""
        read_face = in_boxes(face_xyxy, focus, slack)
        owned = owner >= 0

        def owner_read() -> np.ndarray:
            out = np.zeros(len(owner), bool)
            out[owned] = read_face[owner[owned]]
            return out

        read_idx = np.where(owned, owner_read(), in_boxes(index_xyxy, focus, slack))
        lone = read_idx & ~owned
        if lone.any() and len(face_xyxy):
            read_face |= (box_iou(face_xyxy, index_xyxy[lone]) > 0).any(axis=1)
            read_idx |= owner_read()
        return read_face, read_idx

    def _with_face(self, code: str, conf: float, row: np.ndarray | None, found: bool,
                   face_row: np.ndarray | None) -> tuple[str, float, np.ndarray | None]:
        """A card's index read (code, confidence, class probabilities) with its face's
        read multiplied in (:func:`~vision.face_reader.fuse`): the code likeliest to both
        readers and its share of the card probability. Unchanged without a face read, or
        when the face reader takes it for no card (a back, a hand over it)."""
        if row is None or not found or face_row is None or self.face_reader is None:
            return code, conf, row
        face_names = self.face_reader.names
        if "none" in face_names and face_row[face_names.index("none")] > self.face_reader.MAX_NONE:
            return code, conf, row
        names = self.classifier.names
        fused = fuse(row, face_row, names, face_names, self.face_weight, self.face_suit_weight)
        p = np.asarray(fused, np.float64).copy()
        if "none" in names:
            p[names.index("none")] = 0.0
        total = float(p.sum())
        if total <= 0:
            return code, conf, row
        k = int(p.argmax())
        return names[k], float(p[k] / total), fused

    def _read_indices(self, image: np.ndarray, index_xyxy: np.ndarray,
                      face_xyxy: np.ndarray, owner: np.ndarray
                      ) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Read each index box at the turns :meth:`_index_turns` allows; an index of no
        card box of its own is read first at the one turn its place against the nearest
        card box gives (:attr:`LONE_TURN_FROM_CARD`), and at the other only when that read
        finds no card."""
        if not len(index_xyxy):
            return [], np.zeros(0, np.float32), np.zeros((0, len(self.classifier.names)),
                                                         np.float32)
        turns = self._index_turns(index_xyxy, face_xyxy, owner,
                                  lone_from_card=self.LONE_TURN_FROM_CARD)
        codes, conf, probs = self.classifier.read_boxes_probabilities(image, index_xyxy,
                                                                      turns)
        codes, conf = list(codes), np.asarray(conf, np.float32)
        # (a box of no card of its own given one turn: the other is the half turn)
        again = [i for i, t in enumerate(turns)
                 if owner[i] < 0 and t is not None and len(t) == 1
                 and (codes[i] == "none" or conf[i] < self.min_code_conf)]
        if again:
            rest = [((turns[i][0] + 2) % 4,) for i in again]  # type: ignore[index]
            c2, p2, r2 = self.classifier.read_boxes_probabilities(
                image, index_xyxy[again], rest)
            for j, i in enumerate(again):
                if c2[j] != "none" and (codes[i] == "none" or p2[j] > conf[i]):
                    codes[i], conf[i], probs[i] = c2[j], p2[j], r2[j]
        return codes, conf, probs

    #: in a photo, indices in one card box read surely (each at least this) as cards that
    #: neither reader takes for the other's are two cards: a card partly under another, its
    #: index showing, that the localiser boxed with it (cards turned to the camera); 1.0:
    #: off. Not in a table camera's frames: there it parted a column's cards into phantoms
    #: (12 rendered rounds, moves found 999 → 894, mean score error 0.94 → 3.19)
    SPLIT_CONF = 0.5
    #: how likely the other index's code must be to one index's reader for the two to agree
    SPLIT_AGREE = 0.05

    def _split_members(self, members: np.ndarray, codes: Sequence[str], code_conf: Any,
                       code_probs: np.ndarray) -> tuple[np.ndarray, list[int]]:
        """The indices a card box holds, parted into those of the box's own card (the
        largest group of indices whose reads agree, unsure reads counted with the group
        they agree with; the surer group on a tie) and those of other cards (the other
        groups: each group's indices are reported alone)."""
        names = self.classifier.names
        order = sorted((int(i) for i in members), key=lambda i: -float(code_conf[i]))
        groups: list[list[int]] = []
        unsure: list[int] = []

        def agree(i: int, j: int) -> bool:
            return (codes[i] == codes[j]
                    or float(code_probs[i][names.index(codes[j])]) >= self.SPLIT_AGREE
                    or float(code_probs[j][names.index(codes[i])]) >= self.SPLIT_AGREE)

        def group_of(i: int) -> list[int] | None:
            return next((g for g in groups if agree(g[0], i)), None)

        for i in order:
            if float(code_conf[i]) < self.SPLIT_CONF:
                unsure.append(i)
            elif (g := group_of(i)) is not None:
                g.append(i)
            else:
                groups.append([i])
        if len(groups) < 2:
            return members, []
        for i in unsure:  # an unsure read counts for the first group it agrees with
            (group_of(i) or groups[0]).append(i)
        own = max(groups, key=lambda g: (len(g), float(code_conf[g[0]])))
        others = [i for g in groups if g is not own for i in g]
        return np.array(sorted(own), members.dtype), others

    def group(self, image: np.ndarray, dets: Detections, split: bool = False,
              focus: Sequence[Sequence[float]] | None = None, focus_slack: float = 0.0
              ) -> Detections:
        """Read the indices and report each physical card once (with its face's read
        multiplied in where a face reader is loaded and the card's outline is found);
        ``split``: a card box's indices read as cards that rule each other out are parted
        (:meth:`_split_members`, for a photo); ``focus``: only the cards that may belong
        to one of these boxes are read (:meth:`_focused`; the others are not reported)."""
        idx = self._one_box_per_index(dets[dets.class_id == INDEX])
        faces = dets[dets.class_id == FACE]
        backs = dets[dets.class_id == BACK]
        owner = self._index_owner(idx.xyxy, faces.xyxy)
        read_face = np.ones(len(faces), bool)
        if focus is not None:
            read_face, read_idx = self._focused(idx.xyxy, faces.xyxy, owner, focus,
                                                focus_slack)
            idx, owner = idx[read_idx], owner[read_idx]
            backs = backs[in_boxes(backs.xyxy, focus, focus_slack)]
        face_found, face_probs, face_looks = self._read_faces(image, faces.xyxy, read_face)
        codes, code_conf, code_probs = self._read_indices(image, idx.xyxy, faces.xyxy, owner)
        if len(idx) and len(faces) and self.turned_reads != "off":
            codes, code_conf, code_probs = self._read_turned(
                image, idx.xyxy, faces.xyxy, owner, list(codes),
                np.asarray(code_conf, np.float32), code_probs)
        keep = np.array([c != "none" and p >= self.min_code_conf
                         for c, p in zip(codes, code_conf, strict=True)], bool)
        idx = idx[keep] if len(idx) else idx
        owner = owner[keep] if len(keep) else owner
        code_probs = code_probs[keep] if len(keep) else code_probs
        codes = [c for c, k in zip(codes, keep, strict=True) if k]
        code_conf = np.asarray(code_conf, np.float32)[keep] if len(keep) else code_conf
        boxes, confs, names = [], [], []
        alts: list[tuple[tuple[str, float], ...]] = []
        looks: list[np.ndarray | None] = []
        used = np.zeros(len(idx), bool)
        unread = [f for f in range(len(faces)) if read_face[f] and not np.any(owner == f)]
        corner_reads = self._read_corners(image, faces.xyxy[unread]) if unread else []
        for f, (code, conf, row) in zip(unread, corner_reads, strict=True):
            if code is not None:
                code, conf, row = self._with_face(code, conf, row, face_found[f],
                                                  face_probs[f])
                boxes.append(faces.xyxy[f])
                confs.append(float(faces.confidence[f] * conf))
                names.append(code)
                alts.append(self._alternatives(row, code))
                looks.append(face_looks[f])
        split_off: list[int] = []
        for f in range(len(faces)):
            members = np.nonzero(owner == f)[0]
            if not read_face[f]:
                continue  # (out of focus: none of its indices were read either)
            if split and len(members) > 1 and self.SPLIT_CONF < 1.0:
                members, others = self._split_members(members, codes, code_conf, code_probs)
                split_off.extend(int(i) for i in others)
            if not len(members):
                continue
            # both corner indices of one card: one card, read by its indices together
            # (the code likeliest in all of them)
            used[members] = True
            if len(members) == 1:
                code, conf = codes[members[0]], float(code_conf[members[0]])
                row = code_probs[members[0]]
            else:
                p = code_probs[members].copy()
                if "none" in self.classifier.names:
                    p[:, self.classifier.names.index("none")] = 0.0
                joint = np.log(p + 1e-4).sum(axis=0)
                k = int(joint.argmax())
                code, conf = self.classifier.names[k], float(p[:, k].max())
                row = np.exp(joint - joint.max())
            code, conf, row = self._with_face(code, conf, row, face_found[f], face_probs[f])
            boxes.append(faces.xyxy[f])
            confs.append(float(faces.confidence[f] * conf))
            names.append(code)
            alts.append(self._alternatives(row, code))
            looks.append(face_looks[f])
        # indices without a face box: cards showing only their index strip (fanned rivers);
        # boxes on one index (the localiser's boxes that NMS kept apart) are one card, the
        # surest read
        lone = [int(i) for i in np.nonzero(~used)[0]
                if i in split_off or not self._on_a_face(idx.xyxy[i], faces.xyxy)]
        lone.sort(key=lambda i: -float(idx.confidence[i] * code_conf[i]))
        # a card's long side here: two reads of one code closer than this are one card (the
        # two top corners of a fanned card's strip, in a deck with four indices)
        card = (float(np.median((faces.xyxy[:, 2:] - faces.xyxy[:, :2]).max(axis=1)))
                if len(faces) else 0.0)
        taken: list[int] = []
        for i in lone:
            if idx.confidence[i] * code_conf[i] < self.min_lone_conf:
                break  # sorted: the rest are weaker still
            if any(codes[i] == n and box_iou(idx.xyxy[i:i + 1], np.asarray(b)[None])[0, 0] > 0
                   for n, b in zip(names, boxes, strict=False)):
                continue
            if taken and self.same_index(idx.xyxy[i], idx.xyxy[taken]).any():
                continue
            centre = (idx.xyxy[i, :2] + idx.xyxy[i, 2:]) / 2
            if any(codes[j] == codes[i] and np.linalg.norm(
                    (idx.xyxy[j, :2] + idx.xyxy[j, 2:]) / 2 - centre) < 0.8 * card
                   for j in taken):
                continue
            taken.append(i)
            boxes.append(idx.xyxy[i])
            confs.append(float(idx.confidence[i] * code_conf[i]))
            names.append(codes[i])
            alts.append(self._alternatives(code_probs[i], codes[i]))
            looks.append(None)  # (a strip: too little of the card for its look)
        designs: list[str | None] = [None] * len(names)
        back_designs: list[str | None] = [None] * len(backs)
        if len(backs) and self.backs is not None:
            back_designs = [d for d, _c in self.backs.match_frame(image, backs.xyxy)]
        all_boxes = boxes + list(backs.xyxy)
        return Detections.create(
            np.asarray(all_boxes, np.float32).reshape(-1, 4),
            np.asarray(confs + list(backs.confidence), np.float32),
            [FACE] * len(names) + [BACK] * len(backs),
            names + ["back"] * len(backs), designs + back_designs,
            alternatives=alts + [()] * len(backs), look=looks + [None] * len(backs))


def _area(box: np.ndarray) -> float:
    return float(max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1]))


__all__ = ["CardDetector", "Localiser", "ModelError"]
