"""The classifier's view of a card index: a square crop around an index box, the same at
training time (from renders) and at run time (from detector boxes)."""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 64
CONTEXT = 1.35  # crop side = CONTEXT × the longer side of the index box


def crop_square(image: np.ndarray, box: tuple[float, float, float, float],
                size: int = CROP_SIZE, context: float = CONTEXT) -> np.ndarray:
    """A ``size``×``size`` BGR crop centred on ``box`` (x1, y1, x2, y2 in pixels) with side
    ``context`` × its longer side; parts outside the image are filled by edge replication."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    side = max(x2 - x1, y2 - y1, 2.0) * context
    scale = size / side
    m = np.array([[scale, 0, size / 2 - cx * scale], [0, scale, size / 2 - cy * scale]],
                 np.float32)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (size, size), flags=interp,
                          borderMode=cv2.BORDER_REPLICATE)
