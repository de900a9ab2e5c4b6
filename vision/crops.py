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


def crop_turned(image: np.ndarray, centre: tuple[float, float], side: float, angle: float,
                size: int = CROP_SIZE) -> np.ndarray:
    """A ``size``×``size`` BGR crop of side ``side`` px centred on ``centre`` and turned by
    ``angle`` radians: what lies turned clockwise by ``angle`` in the image (y down) comes
    out upright. Parts outside the image are filled by edge replication."""
    cx, cy = float(centre[0]), float(centre[1])
    scale = size / max(float(side), 2.0)
    c, s = np.cos(angle) * scale, np.sin(angle) * scale
    # out = scale · R(-angle) · (p - centre) + size/2
    m = np.array([[c, s, size / 2 - c * cx - s * cy],
                  [-s, c, size / 2 + s * cx - c * cy]], np.float32)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, m, (size, size), flags=interp,
                          borderMode=cv2.BORDER_REPLICATE)


def _darkest_channel(image: np.ndarray) -> np.ndarray:
    """Per pixel, the lowest of the three channels (fast: OpenCV, not numpy's reduce)."""
    b, g, r = cv2.split(image)
    return cv2.min(cv2.min(b, g), r)


#: the size an upright card is warped to before its corners are read (width, height)
CARD_SIZE = (126, 176)


def card_quad(image: np.ndarray, box: tuple[float, float, float, float] | np.ndarray,
              margin: float = 0.1) -> np.ndarray | None:
    """The four corners (4, 2) of the card inside ``box``, found as the largest bright,
    card-shaped region of the box (grown by ``margin``): a rotated rectangle whose sides
    are in a card's ratio (1.2–1.75) and which spans at least 70 % of the box each way. None when
    nothing card-shaped is there (a card on white, a heap of overlapping cards)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    h, w = image.shape[:2]
    ax1, ay1 = max(0, int(x1 - mx)), max(0, int(y1 - my))
    ax2, ay2 = min(w, int(x2 + mx) + 1), min(h, int(y2 + my) + 1)
    roi = image[ay1:ay2, ax1:ax2]
    if roi.shape[0] < 12 or roi.shape[1] < 12:
        return None
    whiteness = _darkest_channel(roi)  # paper is bright in every channel
    _t, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = max(3, int(min(roi.shape[:2]) * 0.04) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    contours, _h = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    contour = max(contours, key=cv2.contourArea)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
    if min(rw, rh) < 8:
        return None
    ratio = max(rw, rh) / min(rw, rh)
    if not 1.2 <= ratio <= 1.75:
        return None
    if cv2.contourArea(contour) < 0.85 * rw * rh:  # not a rectangle: cards overlapping
        return None
    pts = cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float32)
    span = pts.max(axis=0) - pts.min(axis=0)
    if span[0] < 0.7 * (x2 - x1) or span[1] < 0.7 * (y2 - y1):  # something smaller
        return None
    return pts + np.array([ax1, ay1], np.float32)


def upright_card(image: np.ndarray, quad: np.ndarray,
                 size: tuple[int, int] = CARD_SIZE) -> np.ndarray:
    """The card of ``quad`` warped to an upright ``size`` image (long side vertical); which
    end is up is not known: read it both ways."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    # start at a corner whose next edge is a short one (the card's top)
    first = 0 if np.linalg.norm(q[1] - q[0]) <= np.linalg.norm(q[2] - q[1]) else 1
    q = np.roll(q, -first, axis=0)
    # clockwise in image coordinates (y down): the cross product of the first two edges > 0
    e1, e2 = q[1] - q[0], q[2] - q[1]
    if e1[0] * e2[1] - e1[1] * e2[0] < 0:
        q = q[[1, 0, 3, 2]]
    w, h = size
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(q, target)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def paper_cards(image: np.ndarray, min_side: float = 16.0, max_share: float = 0.5
                ) -> list[np.ndarray]:
    """Quads (4, 2) of lone, card-shaped bright regions of ``image``: paper brighter than
    what surrounds it in every channel, a rotated rectangle in a card's ratio (1.2–1.75)
    that its region fills, its short side at least ``min_side`` px and its area at most
    ``max_share`` of the image. A proposal source beside the localiser for photos: cards
    touching each other merge into shapes that are not card-shaped and are left out."""
    whiteness = _darkest_channel(image)
    _t, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = max(3, int(min(image.shape[:2]) * 0.006) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    # bright specks of a carpet or wood grain touching the card's edge: cut them off
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2 * k + 1, 2 * k + 1), np.uint8))
    contours, _h = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out: list[np.ndarray] = []
    limit = max_share * image.shape[0] * image.shape[1]
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_side * min_side * 1.2 or area > limit:
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(contour)
        if min(rw, rh) < min_side or not 1.2 <= max(rw, rh) / min(rw, rh) <= 1.75:
            continue
        if area < 0.85 * rw * rh:
            continue
        out.append(cv2.boxPoints(((cx, cy), (rw, rh), angle)).astype(np.float32))
    return out


def turn_image(image: np.ndarray, degrees: float,
               border: tuple[int, int, int] = (128, 128, 128)) -> tuple[np.ndarray, np.ndarray]:
    """``image`` turned counter-clockwise by ``degrees`` on a canvas that holds all of it
    (``border`` around), and the 2×3 matrix taking its pixels there."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    c, s = abs(m[0, 0]), abs(m[0, 1])
    tw, th = int(h * s + w * c), int(h * c + w * s)
    m[0, 2] += tw / 2 - w / 2
    m[1, 2] += th / 2 - h / 2
    return cv2.warpAffine(image, m, (tw, th), flags=cv2.INTER_LINEAR, borderValue=border), m
