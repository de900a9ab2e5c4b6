"""A supervision-style detections container (parallel numpy arrays), YOLO ONNX decoding,
greedy NMS, frame tiling and a box annotator.

Everything here is model-independent: numpy and OpenCV only.

>>> dets = Detections.from_yolo(raw, conf=0.25, class_names=["index", "back"], scale=s,
...                             pad=(px, py))
>>> dets = dets.with_nms(0.5)
>>> Detections.merge([d.offset(x0, y0) for d, (x0, y0, _, _) in zip(per_tile, rects)])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

__all__ = ["BoxAnnotator", "Detections", "box_iou", "in_boxes", "merge_tiles", "nms_indices",
           "tiles"]


def _obj(values: Iterable[Any], n: int) -> np.ndarray:
    out = np.empty(n, dtype=object)
    items = list(values)
    if len(items) != n:
        raise ValueError(f"expected {n} entries, got {len(items)}")
    for i, v in enumerate(items):  # one by one: numpy would unpack nested tuples
        out[i] = v
    return out


@dataclass
class Detections:
    """N detections as parallel arrays.

    ``xyxy`` (N, 4) float32 pixels; ``confidence`` (N,) float32; ``class_id`` (N,) int64;
    ``code`` (N,) object — a card code such as ``"QH"``, ``"back"``, or None when not
    identified yet; ``design`` (N,) object — a back design id or None; ``corners``
    (N, 4, 2) float32 card corners or None; ``alternatives`` (N,) object — the reader's
    next most likely codes of each card as ``((code, probability), ...)``, best first
    (empty when there are none); ``look`` (N,) object — each face card's look
    (:func:`vision.crops.card_look`: which deck it is) or None.
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    code: np.ndarray
    design: np.ndarray
    corners: np.ndarray | None = None
    alternatives: np.ndarray | None = None
    look: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, np.float32).reshape(-1, 4)
        n = len(self.xyxy)
        self.confidence = np.asarray(self.confidence, np.float32).reshape(n)
        self.class_id = np.asarray(self.class_id, np.int64).reshape(n)
        if not (isinstance(self.code, np.ndarray) and self.code.dtype == object):
            self.code = _obj(self.code, n)
        if not (isinstance(self.design, np.ndarray) and self.design.dtype == object):
            self.design = _obj(self.design, n)
        if self.alternatives is None:
            self.alternatives = _obj([()] * n, n)
        elif not (isinstance(self.alternatives, np.ndarray)
                  and self.alternatives.dtype == object):
            self.alternatives = _obj([tuple(a) for a in self.alternatives], n)
        if self.look is None:
            self.look = _obj([None] * n, n)
        elif not (isinstance(self.look, np.ndarray) and self.look.dtype == object
                  and self.look.ndim == 1):
            self.look = _obj(list(self.look), n)
        if len(self.code) != n or len(self.design) != n or len(self.alternatives) != n \
                or len(self.look) != n:
            raise ValueError("code, design, alternatives and look must have one entry per box")
        if self.corners is not None:
            self.corners = np.asarray(self.corners, np.float32).reshape(n, 4, 2)

    # --- construction --------------------------------------------------------------------
    @classmethod
    def empty(cls, with_corners: bool = False) -> Detections:
        """No detections."""
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32),
                   np.zeros(0, np.int64), _obj([], 0), _obj([], 0),
                   np.zeros((0, 4, 2), np.float32) if with_corners else None)

    @classmethod
    def create(cls, xyxy: Any, confidence: Any = None, class_id: Any = None,
               code: Sequence[Any] | None = None, design: Sequence[Any] | None = None,
               corners: Any = None, alternatives: Sequence[Any] | None = None,
               look: Sequence[Any] | None = None) -> Detections:
        """Detections with defaults: confidence 1, class 0, code and design None, no
        alternatives, no looks."""
        xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
        n = len(xyxy)
        return cls(xyxy,
                   np.ones(n, np.float32) if confidence is None else confidence,
                   np.zeros(n, np.int64) if class_id is None else class_id,
                   _obj([None] * n if code is None else code, n),
                   _obj([None] * n if design is None else design, n), corners,
                   None if alternatives is None else _obj([tuple(a) for a in alternatives], n),
                   None if look is None else _obj(list(look), n))

    @classmethod
    def merge(cls, parts: Sequence[Detections]) -> Detections:
        """All detections of ``parts`` in one container (corners kept only if all have them)."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        corners = (np.concatenate([p.corners for p in parts])
                   if all(p.corners is not None for p in parts) else None)
        return cls(np.concatenate([p.xyxy for p in parts]),
                   np.concatenate([p.confidence for p in parts]),
                   np.concatenate([p.class_id for p in parts]),
                   np.concatenate([p.code for p in parts]),
                   np.concatenate([p.design for p in parts]), corners,
                   np.concatenate([p.alternatives for p in parts]),
                   np.concatenate([p.look for p in parts]))

    @classmethod
    def from_yolo(cls, raw: np.ndarray, conf: float = 0.25,
                  class_names: Sequence[str] | None = None, scale: float | tuple[float, float]
                  = 1.0, pad: tuple[float, float] = (0.0, 0.0),
                  image_size: tuple[int, int] | None = None, max_det: int = 3000
                  ) -> Detections:
        """Decode an Ultralytics YOLO detect output ``(1, 4 + nc, A)`` (or ``(4 + nc, A)``):
        rows cx, cy, w, h in network-input pixels, then one score per class (no objectness),
        as ``yolo export format=onnx`` emits it.

        Boxes with a best class score ≥ ``conf`` are kept and mapped back to image pixels:
        ``x_img = (x_net - pad_x) / scale_x`` (a letterbox: ``scale`` = resize factor, ``pad``
        = left/top padding; a plain resize passes ``scale=(sx, sy)``). ``image_size`` (w, h)
        clips the boxes. ``class_names`` fills ``code`` (e.g. ``"back"``); NMS is not applied.
        """
        out = np.asarray(raw, np.float32)
        if out.ndim == 3:
            if out.shape[0] != 1:
                raise ValueError(f"expected a batch of one, got shape {out.shape}")
            out = out[0]
        if out.ndim != 2 or out.shape[0] < 5:
            raise ValueError(f"expected (1, 4 + nc, anchors), got shape {np.shape(raw)}")
        scores = out[4:]
        cls_id = scores.argmax(axis=0)
        best = scores[cls_id, np.arange(scores.shape[1])]
        keep = np.nonzero(best >= conf)[0]
        if len(keep) > max_det:
            keep = keep[np.argsort(-best[keep], kind="stable")[:max_det]]
        cx, cy, w, h = out[:4, keep]
        xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
        sx, sy = (scale, scale) if np.isscalar(scale) else scale
        xyxy = (xyxy - np.array([pad[0], pad[1], pad[0], pad[1]], np.float32)) \
            / np.array([sx, sy, sx, sy], np.float32)
        if image_size is not None:
            xyxy = clip_boxes(xyxy, image_size)
        ids = cls_id[keep]
        codes = [class_names[i] if class_names is not None and i < len(class_names) else None
                 for i in ids]
        return cls.create(xyxy, best[keep], ids, codes)

    @classmethod
    def from_yolo_levels(cls, levels: Sequence[tuple[np.ndarray, np.ndarray]],
                         conf: float = 0.25, class_names: Sequence[str] | None = None,
                         input_size: tuple[int, int] | None = None,
                         image_size: tuple[int, int] | None = None, max_det: int = 3000
                         ) -> Detections:
        """Decode a YOLO detect head cut at its last convolutions (``trim_head`` in
        ``scripts/yolo_train.py``): per scale, a box-distribution map ``(4·R, h, w)`` (R bins
        per side, the DFL) and a class-logit map ``(nc, h, w)`` of one image.

        Only anchors whose best class score (the logit's sigmoid) is ≥ ``conf`` are decoded:
        the softmax over each side's bins, its expected distance, the box about the anchor
        (cell centre) times the scale's stride. ``input_size`` (w, h) is the network input's
        size: each scale's stride is its width over the map's (default: the first map at
        stride 8). ``image_size`` clips the boxes; NMS is not applied. Gives what
        :meth:`from_yolo` gives on the full model's output."""
        if not levels:
            raise ValueError("expected at least one scale of (box, class) maps")
        conf = float(np.clip(conf, 1e-6, 1 - 1e-6))
        threshold = float(np.log(conf / (1 - conf)))  # the logit of ``conf``
        if input_size is None:
            input_size = (8 * levels[0][1].shape[-1], 8 * levels[0][1].shape[-2])
        boxes, scores, ids = [], [], []
        for box, logit in levels:
            box, logit = np.asarray(box, np.float32), np.asarray(logit, np.float32)
            if box.ndim == 4:
                box, logit = box[0], logit[0]
            nc, h, w = logit.shape
            if box.shape[1:] != (h, w) or box.shape[0] % 4:
                raise ValueError(f"box map {box.shape} does not fit class map {logit.shape}")
            flat = logit.reshape(nc, -1)
            best_id = flat.argmax(axis=0)
            best = flat[best_id, np.arange(flat.shape[1])]
            keep = np.nonzero(best >= threshold)[0]
            if not len(keep):
                continue
            bins = box.shape[0] // 4
            dist = box.reshape(4, bins, -1)[:, :, keep]  # (4, R, K)
            dist = np.exp(dist - dist.max(axis=1, keepdims=True))
            side = (dist * np.arange(bins, dtype=np.float32)[None, :, None]).sum(axis=1) \
                / dist.sum(axis=1)  # (4, K): left, top, right, bottom in cells
            ax, ay = keep % w + 0.5, keep // w + 0.5
            stride = input_size[0] / w
            boxes.append(np.stack([ax - side[0], ay - side[1], ax + side[2], ay + side[3]],
                                  axis=1) * stride)
            scores.append(1.0 / (1.0 + np.exp(-best[keep])))
            ids.append(best_id[keep])
        if not boxes:
            return cls.empty()
        xyxy = np.concatenate(boxes).astype(np.float32)
        score = np.concatenate(scores).astype(np.float32)
        cls_id = np.concatenate(ids)
        if len(score) > max_det:
            top = np.argsort(-score, kind="stable")[:max_det]
            xyxy, score, cls_id = xyxy[top], score[top], cls_id[top]
        if image_size is not None:
            xyxy = clip_boxes(xyxy, image_size)
        codes = [class_names[i] if class_names is not None and i < len(class_names) else None
                 for i in cls_id]
        return cls.create(xyxy, score, cls_id, codes)

    # --- container protocol --------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Any) -> Detections:
        """Slice, integer array or boolean mask → Detections (an int gives one detection)."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index],
                          self.code[index], self.design[index],
                          None if self.corners is None else self.corners[index],
                          self.alternatives[index], self.look[index])

    def __iter__(self) -> Iterator[Detections]:
        for i in range(len(self)):
            yield self[i]

    @property
    def area(self) -> np.ndarray:
        """Box areas (N,)."""
        return (np.clip(self.xyxy[:, 2] - self.xyxy[:, 0], 0, None)
                * np.clip(self.xyxy[:, 3] - self.xyxy[:, 1], 0, None))

    # --- transforms ----------------------------------------------------------------------
    def offset(self, dx: float, dy: float) -> Detections:
        """These detections shifted by (dx, dy) pixels (tile → frame coordinates)."""
        shift = np.array([dx, dy, dx, dy], np.float32)
        corners = None if self.corners is None else self.corners + np.array([dx, dy],
                                                                             np.float32)
        return Detections(self.xyxy + shift, self.confidence.copy(), self.class_id.copy(),
                          self.code.copy(), self.design.copy(), corners,
                          self.alternatives.copy(), self.look.copy())

    def with_nms(self, iou: float = 0.5, class_agnostic: bool = False) -> Detections:
        """Greedy non-maximum suppression: the most confident of overlapping boxes (IoU >
        ``iou``) survives; boxes of different classes never suppress each other unless
        ``class_agnostic``. Order: by confidence, descending."""
        keep = nms_indices(self.xyxy, self.confidence, iou,
                           None if class_agnostic else self.class_id)
        return self[keep]

    # --- output --------------------------------------------------------------------------
    def to_dict(self, path: str, width: int, height: int, digits: int = 1) -> dict[str, Any]:
        """The ``nertz detect --json`` object of DESIGN.md for one image."""
        cards = []
        for i in range(len(self)):
            code = self.code[i]
            design = self.design[i]
            cards.append({
                "code": "back" if code is None and design is not None else code,
                "box": [round(float(v), digits) for v in self.xyxy[i]],
                "conf": round(float(np.clip(self.confidence[i], 0.0, 1.0)), 4),
                "design": None if design is None else str(design),
            })
        return {"path": str(path), "width": int(width), "height": int(height), "cards": cards}

    def to_json(self, path: str, width: int, height: int) -> str:
        """One line of ``nertz detect --json`` output (no trailing newline)."""
        return json.dumps(self.to_dict(path, width, height))


# --- boxes, NMS --------------------------------------------------------------------------

def clip_boxes(xyxy: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """Boxes clipped to a (width, height) image."""
    w, h = image_size
    out = np.asarray(xyxy, np.float32).copy()
    out[:, [0, 2]] = np.clip(out[:, [0, 2]], 0, w)
    out[:, [1, 3]] = np.clip(out[:, [1, 3]], 0, h)
    return out


def in_boxes(xyxy: np.ndarray, boxes: Sequence[Sequence[float]], slack: float = 0.0,
             share: float = 0.25) -> np.ndarray:
    """Whether each box of ``xyxy`` (N×4) belongs to one of ``boxes``: its centre lies in
    that box grown by ``slack`` each way, or ``share`` of its own area lies inside it (a
    card across a region's edge)."""
    d = np.asarray(xyxy, np.float64).reshape(-1, 4)
    out = np.zeros(len(d), bool)
    if not len(d):
        return out
    c = (d[:, :2] + d[:, 2:]) / 2
    area = np.maximum((d[:, 2] - d[:, 0]) * (d[:, 3] - d[:, 1]), 1e-6)
    for x0, y0, x1, y1 in boxes:
        out |= ((c[:, 0] >= x0 - slack) & (c[:, 0] < x1 + slack)
                & (c[:, 1] >= y0 - slack) & (c[:, 1] < y1 + slack))
        w = np.clip(np.minimum(d[:, 2], x1) - np.maximum(d[:, 0], x0), 0, None)
        h = np.clip(np.minimum(d[:, 3], y1) - np.maximum(d[:, 1], y0), 0, None)
        out |= w * h >= share * area
    return out


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of (N, 4) and (M, 4) xyxy boxes → (N, M), float32."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    # one coordinate at a time ((N, M) temporaries, not (N, M, 2)); the same float32
    # operations in the same order as the textbook form, so the same numbers
    ax1, ay1, ax2, ay2 = (a[:, i:i + 1] for i in range(4))
    bx1, by1, bx2, by2 = b.T
    inter = np.minimum(ax2, bx2)
    inter -= np.maximum(ax1, bx1)
    np.maximum(inter, 0, out=inter)
    ih = np.minimum(ay2, by2)
    ih -= np.maximum(ay1, by1)
    np.maximum(ih, 0, out=ih)
    inter *= ih
    area_a = np.maximum(ax2 - ax1, 0) * np.maximum(ay2 - ay1, 0)
    area_b = np.maximum(bx2 - bx1, 0) * np.maximum(by2 - by1, 0)
    union = area_a + area_b  # (N, M): the intersection taken off below
    union -= inter
    positive = union > 0
    np.maximum(union, np.float32(1e-9), out=union)
    np.divide(inter, union, out=inter)
    inter[~positive] = 0.0
    return inter


def nms_indices(xyxy: np.ndarray, scores: np.ndarray, iou: float = 0.5,
                class_id: np.ndarray | None = None) -> np.ndarray:
    """Indices kept by greedy NMS, by descending score. With ``class_id``, boxes of
    different classes are moved apart (the batched-NMS offset trick) so they never
    overlap; each class is then suppressed on its own (the same result, a fraction of the
    pairs)."""
    boxes = np.asarray(xyxy, np.float32).reshape(-1, 4)
    n = len(boxes)
    if n == 0:
        return np.zeros(0, np.int64)
    order = np.argsort(-np.asarray(scores, np.float32), kind="stable")
    if class_id is None:
        return order[_greedy(boxes[order], iou)]
    classes = np.asarray(class_id)
    span = float(np.abs(boxes).max()) + 1.0
    boxes = boxes + (classes.astype(np.float32) * 2 * span)[:, None]
    ranked = classes[order]
    keep = []
    for c in np.unique(ranked):
        members = np.flatnonzero(ranked == c)  # positions in ``order``, by score
        keep.append(members[_greedy(boxes[order[members]], iou)])
    return order[np.sort(np.concatenate(keep))]


def _greedy(boxes: np.ndarray, iou: float) -> np.ndarray:
    """Positions kept by greedy suppression of boxes sorted by descending score."""
    n = len(boxes)
    over = box_iou(boxes, boxes) > iou
    suppressed = np.zeros(n, bool)
    keep = []
    for i in range(n):
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed[i + 1:] |= over[i, i + 1:]
    return np.array(keep, np.int64)


# --- tiles -------------------------------------------------------------------------------

def tiles(width: int, height: int, tile: int = 640, overlap: int = 64
          ) -> Iterator[tuple[int, int, int, int]]:
    """Tile rectangles (x1, y1, x2, y2) covering a ``width`` × ``height`` frame, each
    ``tile`` pixels square (smaller only where the frame is), neighbours overlapping by at
    least ``overlap`` pixels; edge tiles are moved inwards instead of padded."""
    if tile <= 0 or not 0 <= overlap < tile:
        raise ValueError(f"need tile > overlap >= 0, got tile={tile}, overlap={overlap}")

    def starts(size: int) -> list[int]:
        if size <= tile:
            return [0]
        n = int(np.ceil((size - overlap) / (tile - overlap)))
        return [round(i * (size - tile) / (n - 1)) for i in range(n)]

    for y in starts(height):
        for x in starts(width):
            yield x, y, min(x + tile, width), min(y + tile, height)


def merge_tiles(per_tile: Sequence[tuple[tuple[int, int, int, int], Detections]] |
                Sequence[Detections], rects: Sequence[tuple[int, int, int, int]] | None = None,
                iou: float = 0.5, class_agnostic: bool = False) -> Detections:
    """Detections of each tile, shifted to frame pixels, merged and NMSed. Give either
    ``(rect, detections)`` pairs or a list of detections plus ``rects``."""
    if rects is not None:
        pairs = list(zip(rects, per_tile, strict=True))
    else:
        pairs = list(per_tile)  # type: ignore[arg-type]
    merged = Detections.merge([d.offset(r[0], r[1]) for r, d in pairs])
    return merged.with_nms(iou, class_agnostic)


# --- drawing -----------------------------------------------------------------------------

def _palette_colour(i: int) -> tuple[int, int, int]:
    hue = (i * 47) % 180
    hsv = np.uint8([[[hue, 200, 230]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


class BoxAnnotator:
    """Draws boxes (and card corners when known) with a label per detection.

    Configure once, apply to many frames: ``BoxAnnotator(thickness=2).annotate(frame,
    dets)`` returns an annotated copy (OpenCV's Hershey font; nothing to download).
    """

    def __init__(self, thickness: int = 2, font_scale: float = 0.45, labels: bool = True,
                 show_conf: bool = True, colour: tuple[int, int, int] | None = None) -> None:
        self.thickness = thickness
        self.font_scale = font_scale
        self.labels = labels
        self.show_conf = show_conf
        self.colour = colour

    def label(self, dets: Detections, i: int) -> str:
        """The text drawn for detection ``i``: code (or class), design, confidence."""
        code = dets.code[i]
        text = str(code) if code is not None else f"class {int(dets.class_id[i])}"
        if dets.design[i] is not None:
            text += f" [{dets.design[i]}]"
        if self.show_conf:
            text += f" {float(dets.confidence[i]):.2f}"
        return text

    def annotate(self, frame: np.ndarray, detections: Detections) -> np.ndarray:
        """A copy of ``frame`` (BGR) with the detections drawn."""
        out = frame.copy()
        font = cv2.FONT_HERSHEY_SIMPLEX
        for i in range(len(detections)):
            colour = self.colour or _palette_colour(int(detections.class_id[i]))
            x1, y1, x2, y2 = (int(round(float(v))) for v in detections.xyxy[i])
            if detections.corners is not None:
                pts = np.round(detections.corners[i]).astype(np.int32)
                cv2.polylines(out, [pts], True, colour, self.thickness, cv2.LINE_AA)
            else:
                cv2.rectangle(out, (x1, y1), (x2, y2), colour, self.thickness)
            if not self.labels:
                continue
            text = self.label(detections, i)
            (tw, th), base = cv2.getTextSize(text, font, self.font_scale, 1)
            ty = y1 - 2 if y1 - th - base - 2 >= 0 else y2 + th + 2
            cv2.rectangle(out, (x1, ty - th - base), (x1 + tw + 2, ty + base), colour, -1)
            cv2.putText(out, text, (x1 + 1, ty - 1), font, self.font_scale, (255, 255, 255),
                        1, cv2.LINE_AA)
        return out
