"""The back check: is a box the localiser calls a card back really one?

On ordinary photos the localiser takes card-sized stretches of carpet, wood grain, book
covers and tins for backs (42 ``back`` boxes on the 67 real test photos, which show none;
most lie at the photo's edge). A small classifier (``models/back_check.onnx``,
``scripts/train_back_check.py``) looks at each such box with a little of what lies around
it and says how likely it holds a card back; the detector drops photo backs it rules out.
It was trained on rendered backs pasted into real photos (:mod:`vision.render.paste`),
rendered tables, and the real photos' own carpet, tables, objects and card faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from .identify import MODELS, ModelError, onnx_model

#: the crop's width and height: a card standing upright, with a margin around it
SIZE = (48, 64)
#: each side of a box grows by this share of its size before cropping (the card's edge
#: against what lies around it is part of what tells a back)
MARGIN = 0.1


def back_crop(image: np.ndarray, box: Sequence[float], size: tuple[int, int] = SIZE
              ) -> np.ndarray:
    """The box grown by :data:`MARGIN`, cut at the image's edge, stood upright (a box
    wider than tall turned a quarter) and resized to ``size`` (width, height); BGR uint8."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in box)
    mx, my = MARGIN * (x1 - x0), MARGIN * (y1 - y0)
    x0, y0 = max(0, int(round(x0 - mx))), max(0, int(round(y0 - my)))
    x1, y1 = min(w, int(round(x1 + mx))), min(h, int(round(y1 + my)))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((size[1], size[0], 3), np.uint8)
    crop = image[y0:y1, x0:x1]
    if crop.shape[1] > crop.shape[0]:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    area = crop.shape[0] * crop.shape[1] > size[0] * size[1]
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA if area else cv2.INTER_LINEAR)


class BackCheck:
    """``check(image, boxes) -> P(back)`` per box."""

    #: boxes below this probability are no backs
    THRESHOLD = 0.5

    def __init__(self, path: str | Path, threads: int = 1) -> None:
        self.session, self.names, _size = onnx_model(path, "back check", threads,
                                                     precision="fp32")
        if "back" not in self.names:
            raise ModelError(f"{path}: the back check has no 'back' class")
        self.back = self.names.index("back")
        self.input = self.session.get_inputs()[0].name

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int = 1) -> BackCheck | None:
        """The model at ``path`` (default ``models/back_check.onnx``), or None when there is
        no such file."""
        path = Path(path) if path else MODELS / "back_check.onnx"
        return cls(path, threads) if path.is_file() else None

    def __call__(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return np.zeros(0, np.float32)
        crops = np.stack([back_crop(image, b) for b in boxes])
        batch = np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2),
                                     np.float32) / 255.0
        probs = self.session.run(None, {self.input: batch})[0]
        return np.asarray(probs[:, self.back], np.float32)


__all__ = ["SIZE", "BackCheck", "back_crop"]
