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
    """Per pixel, the lowest of the three channels (two element-wise minima: faster than
    numpy's reduce, and than ``cv2.split`` on a window of a frame)."""
    return np.minimum(np.minimum(image[..., 0], image[..., 1]), image[..., 2])


#: the size an upright card is warped to before its corners are read (width, height)
CARD_SIZE = (126, 176)


def _grown(box: tuple[float, float, float, float] | np.ndarray, shape: tuple[int, ...],
           share: float, pad: int = 1) -> tuple[int, int, int, int]:
    """``box`` grown by ``share`` of its size each way (the far sides ``pad`` px more),
    in whole pixels, kept inside a picture of ``shape``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    return (max(0, int(x1 - w * share)), max(0, int(y1 - h * share)),
            min(shape[1], int(x2 + w * share) + pad), min(shape[0], int(y2 + h * share) + pad))


def card_quad(image: np.ndarray, box: tuple[float, float, float, float] | np.ndarray,
              margin: float = 0.1) -> np.ndarray | None:
    """The four corners (4, 2) of the card inside ``box``, found as the largest bright,
    card-shaped region of the box (grown by ``margin``): a rotated rectangle whose sides
    are in a card's ratio (1.2–1.75) and which spans at least 70 % of the box each way. None when
    nothing card-shaped is there (a card on white, a heap of overlapping cards).

    The brightness that counts as paper must leave most of what lies around the box (a ring
    :data:`SURROUND` of its size wide) below it: on a pale cloth or laminate the first
    threshold parts the ink from everything else, and the region found would be the window
    itself. Then the bright pixels are split again (paper from a pale table); if the ring is
    still mostly "paper", None."""
    x1, y1, x2, y2 = (float(v) for v in box)
    # the window looked in (the box grown by ``margin``) and around it the ring looked at
    ox1, oy1, ox2, oy2 = _grown(box, image.shape, max(margin, 0.0) + SURROUND)
    ax1, ay1, ax2, ay2 = _grown(box, image.shape, margin)
    if ay2 - ay1 < 12 or ax2 - ax1 < 12:
        return None
    outer = _darkest_channel(image[oy1:oy2, ox1:ox2])  # paper is bright in every channel
    ring = np.ones(outer.shape, bool)
    ring[ay1 - oy1:ay2 - oy1, ax1 - ox1:ax2 - ox1] = False
    whiteness = outer[ay1 - oy1:ay2 - oy1, ax1 - ox1:ax2 - ox1]
    split = _paper_threshold(whiteness, outer[ring])
    if split is None:
        return None
    _t, mask = cv2.threshold(whiteness, split[0], 255, cv2.THRESH_BINARY)  # above: paper
    k = max(3, int(min(whiteness.shape[:2]) * 0.04) | 1)
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


#: :func:`card_quad`'s ring around the window it looks in (a share of the box's size), and
#: the most of that ring that may be as bright as the paper found (:func:`_paper_threshold`)
SURROUND = 0.1
MAX_PAPER_AROUND = 0.5


def _paper_threshold(whiteness: np.ndarray, around: np.ndarray) -> tuple[float, bool] | None:
    """The brightness (darkest channel) above which ``whiteness`` is paper, and whether it
    took a second split: Otsu's split, unless most of ``around`` (what lies about the card)
    is above it too (a pale cloth or laminate: the split parted the ink from everything
    else); then the bright part is split again (paper from the pale table). None when
    ``around`` stays mostly "paper"."""
    t, _m = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if not around.size or float(np.mean(around > t)) <= MAX_PAPER_AROUND:
        return float(t), False
    bright = whiteness[whiteness > t]
    if bright.size < 16:
        return None
    t, _m = cv2.threshold(bright.reshape(1, -1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return None if float(np.mean(around > t)) > MAX_PAPER_AROUND else (float(t), True)


#: card shapes (long / short side) and angles (every 2.5°, turned either way: 0° to ±90°)
#: that :func:`fitted_card_quad` tries
FIT_RATIOS = (1.3, 1.4, 1.5, 1.56)
_FIT_TURNS = np.radians(np.concatenate(
    [[0.0], *([a, -a] for a in np.arange(2.5, 90.0, 2.5)), [90.0]]))
#: grey levels (darkest channel) by which paper must be brighter than what is around it
PAPER_CONTRAST = 40.0
#: the same where the paper had to be split from a pale table (:func:`_paper_threshold`)
PALE_TABLE_CONTRAST = 15.0
#: and how much less of the card's rectangle must then be paper (the paper's edge shades
#: into the table: the split leaves a ragged rim)
PALE_TABLE_SLACK = 0.15
#: the least step (grey levels of the darkest channel) from paper to what lies about it
#: along each side of a card that :func:`edge_fitted_card_quad` takes
EDGE_MIN_STEP = 8.0
#: where :func:`_side_steps` looks: px inside a side (the brightest counts) and outside it
EDGE_INSIDE = (1.0, 2.0, 3.0)
EDGE_OUTSIDE = 1.5
#: an outline whose every side steps down this much (grey levels) from paper to what lies
#: about it is taken by :func:`card_outline` without an edge fit to weigh it against
CLEAR_OUTLINE_STEP = 20.0


def _card_shapes(box: tuple[float, float, float, float] | np.ndarray,
                 origin: tuple[int, int]) -> np.ndarray:
    """The rectangles in a card's shape (:data:`FIT_RATIOS`, turned every 2.5° either way)
    whose own box is ``box`` (within 6 % in shape), (N, 4, 2) float32 with ``origin`` at 0,
    each's corners in the order of OpenCV's ``boxPoints``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    cos, sin = np.abs(np.cos(_FIT_TURNS)), np.abs(np.sin(_FIT_TURNS))
    sides, ratios, turns = [], [], []
    for ratio in FIT_RATIOS:
        bw, bh = cos + ratio * sin, sin + ratio * cos  # the box of a card 1 × ratio
        fits = np.nonzero(np.abs(np.log(bw / bh * h / w)) <= 0.06)[0]
        sides.append(0.5 * (w / bw[fits] + h / bh[fits]))
        ratios.append(np.full(len(fits), ratio))
        turns.append(_FIT_TURNS[fits])
    side = np.concatenate(sides)
    height = (np.concatenate(ratios) * side).astype(np.float32)
    side = side.astype(np.float32)
    # as boxPoints does it, in single precision
    degrees = np.degrees(np.concatenate(turns)).astype(np.float32).astype(np.float64)
    radians = degrees * np.pi / 180.0
    b = np.cos(radians).astype(np.float32) * np.float32(0.5)
    a = np.sin(radians).astype(np.float32) * np.float32(0.5)
    cx = np.float32((x1 + x2) / 2 - origin[0])
    cy = np.float32((y1 + y2) / 2 - origin[1])
    p0 = np.stack([cx - a * height - b * side, cy + b * height - a * side], axis=-1)
    p1 = np.stack([cx + a * height - b * side, cy - b * height - a * side], axis=-1)
    centre = np.array([cx, cy], np.float32)
    return np.stack([p0, p1, 2 * centre - p0, 2 * centre - p1], axis=1).astype(np.float32)


def fitted_card_quad(image: np.ndarray, box: tuple[float, float, float, float] | np.ndarray,
                     min_paper: float = 0.85, refine: bool = True) -> np.ndarray | None:
    """The four corners (4, 2) of a whole card whose box is ``box`` where :func:`card_quad`
    finds no lone outline (a neighbour touching it: the top card of a fanned column or
    waste, a lake pile beside another): of the rectangles in a card's shape whose own box
    is ``box`` (each angle, :data:`FIT_RATIOS`, both ways turned), the one lying most on
    paper (pips and pictures filled); then each of its edges that runs along the paper's
    edge fitted to it (:func:`_fit_free_edges`: a card seen at a slant is no rectangle).
    None when no such rectangle lies at least ``min_paper`` on paper (a card partly
    hidden, a box on the table)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    if min(w, h) < 10:
        return None
    ax1, ay1, ax2, ay2 = _grown(box, image.shape, 0.1)
    roi = image[ay1:ay2, ax1:ax2]
    if roi.shape[0] < 12 or roi.shape[1] < 12:
        return None
    whiteness = _darkest_channel(roi)
    strip = np.ones(whiteness.shape, bool)  # the window about the box
    strip[max(0, int(y1) - ay1):int(y2) - ay1 + 1, max(0, int(x1) - ax1):int(x2) - ax1 + 1] = False
    split = _paper_threshold(whiteness, whiteness[strip])
    if split is None:
        return None
    _t, paper = cv2.threshold(whiteness, split[0], 1, cv2.THRESH_BINARY)
    rest = paper == 0
    # (after a second split, paper against the pale table about it, not against the ink)
    least = PALE_TABLE_CONTRAST if split[1] else PAPER_CONTRAST
    if rest.mean() < 0.03 or float(whiteness[~rest].mean()) - float(whiteness[rest].mean()) \
            < least:
        return None  # no paper brighter than what lies around it (bare cloth, a white table)
    k = max(3, int(min(w, h) * 0.2) | 1)  # fill the pips
    paper = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    canvas = np.zeros_like(paper)
    shapes = _card_shapes(box, (ax1, ay1))
    corners = np.round(shapes * 4).astype(np.int32)
    shares = np.zeros(len(shapes))
    for i, points in enumerate(corners):
        canvas[:] = 0
        cv2.fillConvexPoly(canvas, points, 1, shift=2)
        area = cv2.countNonZero(canvas)
        if area:  # the paper pixels counted, then their share (as exact as a count)
            shares[i] = round(cv2.mean(paper, mask=canvas)[0] * area) / area
    best = int(np.argmax(shares)) if len(shapes) else -1  # (the first of equals)
    if best < 0 or shares[best] < min_paper - (PALE_TABLE_SLACK if split[1] else 0.0):
        return None
    pts = shapes[best]
    if refine:
        pts = _fit_free_edges(pts, paper, max(2, round(0.08 * min(w, h))))
    return pts.astype(np.float32) + np.array([ax1, ay1], np.float32)


def _sample(grey: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``grey`` (float32) at ``points`` (..., 2), interpolated between pixels (OpenCV's
    bilinear remap), the picture's edge pixels beyond it."""
    pts = np.ascontiguousarray(points, np.float32).reshape(-1, 2)
    count = len(pts)
    width = 1 << 10  # (remap's maps are kept under its 32767 rows)
    rows = -(-count // width)
    if count < width:
        maps = pts.reshape(-1, 1, 2)
    else:
        maps = np.zeros((rows * width, 2), np.float32)
        maps[:count] = pts
        maps = maps.reshape(rows, width, 2)
    out = cv2.remap(grey, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1)[:count].reshape(np.shape(points)[:-1])


#: where along a side :func:`_side_steps` looks (shares of its length), and across it
_SIDE_ALONG = np.linspace(0.15, 0.85, 12)[:, None]
_SIDE_ACROSS = np.array([-k for k in EDGE_INSIDE] + [EDGE_OUTSIDE])
_NEXT_CORNER = [1, 2, 3, 0]


def _side_steps(grey: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Per side of each convex quadrilateral ``pts`` (..., 4, 2), the median step down in
    ``grey`` (float32) from just inside it to just outside (:data:`EDGE_INSIDE`: the
    brightest counts, past a frame printed near the edge; :data:`EDGE_OUTSIDE`), at 12
    points along the side: (..., 4)."""
    pts = np.asarray(pts, np.float64)
    after = pts[..., _NEXT_CORNER, :]
    edge = after - pts
    spots = pts[..., None, :] + _SIDE_ALONG * edge[..., None, :]  # (..., 4, 12, 2)
    normal = np.stack([edge[..., 1], -edge[..., 0]], axis=-1)
    normal /= np.maximum(np.sqrt((normal ** 2).sum(axis=-1, keepdims=True)), 1e-6)
    # outwards: the quadrilateral's turn (its signed area) tells which side is out
    turn = np.sign((pts[..., 0] * after[..., 1] - after[..., 0] * pts[..., 1]).sum(axis=-1))
    normal *= np.where(turn == 0, 1.0, turn)[..., None, None]
    values = _sample(grey, spots + _SIDE_ACROSS.reshape(-1, *[1] * spots.ndim)
                     * normal[..., None, :])
    steps = np.sort(values[:-1].max(axis=0) - values[-1], axis=-1)
    return 0.5 * (steps[..., 5] + steps[..., 6])  # the median of 12


def edge_fitted_card_quad(image: np.ndarray,
                          box: tuple[float, float, float, float] | np.ndarray,
                          min_step: float = EDGE_MIN_STEP) -> np.ndarray | None:
    """The four corners (4, 2) of a whole card whose box is ``box``, from its edges alone:
    of the rectangles in a card's shape whose own box is ``box`` (as in
    :func:`fitted_card_quad`), the one whose sides run where the picture steps down from
    inside to outside the most (paper brighter than what lies about it, however little:
    a white card on a pale laminate or a checked cloth, neighbours touching it). None when
    that step, along its weakest side, is under ``min_step`` grey levels."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    if min(w, h) < 10:
        return None
    ax1, ay1, ax2, ay2 = _grown(box, image.shape, 0.1, pad=2)
    grey = _darkest_channel(image[ay1:ay2, ax1:ax2]).astype(np.float32)
    candidates = _card_shapes(box, (ax1, ay1)).astype(np.float64)
    if not len(candidates):
        return None
    weakest = _side_steps(grey, candidates).min(axis=1)
    best = int(np.argmax(weakest))  # (the first of equals)
    if weakest[best] < min_step:
        return None
    return candidates[best].astype(np.float32) + np.array([ax1, ay1], np.float32)


def card_outline(image: np.ndarray, box: tuple[float, float, float, float] | np.ndarray,
                 fallback_margin: float | None = 0.0, fit: bool = True) -> np.ndarray | None:
    """The four corners (4, 2) of the whole card whose face box is ``box``, or None: the
    lone outline (:func:`card_quad`, in the box grown by 10 %, else by
    ``fallback_margin``), else the card's shape fitted to the box on paper
    (:func:`fitted_card_quad`, with ``fit``); and the card's shape fitted to its edges
    (:func:`edge_fitted_card_quad`) where its sides step down from the paper more, on
    average, than that outline's (a white card on a pale or checked table, where the
    paper is hard to tell from the table)."""
    quad = card_quad(image, box)
    if quad is None and fallback_margin is not None:
        quad = card_quad(image, box, margin=fallback_margin)
    if quad is None and fit:
        quad = fitted_card_quad(image, box)
    if not fit:
        return quad
    ax1, ay1, ax2, ay2 = _grown(box, image.shape, 0.2, pad=2)
    grey = _darkest_channel(image[ay1:ay2, ax1:ax2]).astype(np.float32)
    origin = np.array([ax1, ay1], np.float32)
    steps = _side_steps(grey, quad - origin) if quad is not None else None
    if steps is not None and steps.min() >= CLEAR_OUTLINE_STEP:
        return quad  # paper steps clearly down to the table all round: no need to look on
    edges = edge_fitted_card_quad(image, box)
    if edges is None or steps is None:
        return quad if edges is None else edges
    return edges if _side_steps(grey, edges - origin).mean() > steps.mean() else quad


def _fit_free_edges(pts: np.ndarray, paper: np.ndarray, reach: int) -> np.ndarray:
    """The quadrilateral ``pts`` (4, 2) with each edge that runs along the edge of the
    paper (paper inside it, none outside, within ``reach`` px across) moved onto it: a
    line fitted through where the paper ends, at a dozen points along the edge. An edge
    with paper on both sides (a neighbour card touching it) stays. The corners where the
    lines meet (a card seen at a slant is no rectangle); a corner that would move more
    than twice ``reach`` stays."""
    h, w = paper.shape[:2]
    offsets = np.arange(-reach, reach + 1, dtype=np.float64)
    a = pts.astype(np.float64)
    b = a[_NEXT_CORNER]  # edge i runs from corner i to corner i + 1
    along = (b - a) / np.maximum(np.linalg.norm(b - a, axis=1, keepdims=True), 1e-6)
    normal = np.stack([along[:, 1], -along[:, 0]], axis=1)
    outwards = np.sum(normal * ((a + b) / 2 - a.mean(axis=0)), axis=1) >= 0
    normal[~outwards] *= -1
    spots = a[:, None] + np.linspace(0.15, 0.85, 12)[None, :, None] * (b - a)[:, None]
    probe = spots[:, :, None, :] + offsets[None, None, :, None] * normal[:, None, None, :]
    xi, yi = np.round(probe[..., 0]).astype(int), np.round(probe[..., 1]).astype(int)
    inside = ((xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)).all(axis=2)  # (4, 12)
    vals = paper[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)] > 0  # (4, 12, K)
    # where the paper ends, for each probe that starts on paper and ends off it (one
    # leaving the picture tells nothing)
    good = inside & vals[..., 0] & ~vals[..., -1]
    last = len(offsets) - 1 - np.argmax(vals[..., ::-1], axis=2)  # (4, 12)
    ends = spots + (offsets[last] + 0.5)[..., None] * normal[:, None]
    lines: list[tuple[np.ndarray, np.ndarray]] = []  # (point, unit direction)
    for i in range(4):
        if good[i].sum() >= 5:
            fit = ends[i][good[i]]
            mid = fit.mean(axis=0)
            _u, _s, vt = np.linalg.svd(fit - mid)
            lines.append((mid, vt[0]))
        else:
            lines.append((a[i], along[i]))
    out = pts.astype(np.float64).copy()
    for i in range(4):  # corner i: where edge i - 1 meets edge i
        (p, d), (q, e) = lines[i - 1], lines[i]
        m = np.array([d, -e]).T
        if abs(np.linalg.det(m)) < 1e-6:
            continue
        t = np.linalg.solve(m, q - p)
        corner = p + t[0] * d
        if np.linalg.norm(corner - pts[i]) <= 2 * reach:
            out[i] = corner
    return out.astype(np.float32)


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


#: the size of a card's look (:func:`card_look`): width, height
LOOK_SIZE = (10, 14)


def card_look(card: np.ndarray, size: tuple[int, int] = LOOK_SIZE) -> np.ndarray:
    """A small, blurred picture of an upright card (:func:`upright_card`) that tells decks
    apart (their faces' artwork, ink colours and paper), not codes: the card less a 4 %
    rim (the table a loose outline takes in), shrunk to three times ``size``, blurred,
    shrunk to ``size``, in CIE Lab, float16, each channel less its mean over the card (the
    table's light differs from place to place). ~0.08 ms a card. Compare two with
    :func:`vision.observation.look_distance`."""
    h, w = card.shape[:2]
    dy, dx = int(0.04 * h), int(0.04 * w)
    small = cv2.resize(card[dy:h - dy, dx:w - dx], (3 * size[0], 3 * size[1]),
                       interpolation=cv2.INTER_AREA)
    small = cv2.resize(cv2.GaussianBlur(small, (0, 0), 0.75), size,
                       interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    lab -= lab.reshape(-1, 3).mean(axis=0)
    return lab.astype(np.float16)


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
               border: tuple[int, int, int] | None = (128, 128, 128)
               ) -> tuple[np.ndarray, np.ndarray]:
    """``image`` turned counter-clockwise by ``degrees`` on a canvas that holds all of it
    (``border`` around; None: the image's edge pixels drawn out), and the 2×3 matrix taking
    its pixels there."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    c, s = abs(m[0, 0]), abs(m[0, 1])
    tw, th = int(h * s + w * c), int(h * c + w * s)
    m[0, 2] += tw / 2 - w / 2
    m[1, 2] += th / 2 - h / 2
    edge = {"borderMode": cv2.BORDER_REPLICATE} if border is None else {"borderValue": border}
    return cv2.warpAffine(image, m, (tw, th), flags=cv2.INTER_LINEAR, **edge), m


def dominant_angle(image: np.ndarray, boxes: np.ndarray, side: int = 128,
                   bins: int = 90) -> tuple[float, float]:
    """The angle (degrees, in (−45, 45]) the cards in ``boxes`` lie turned by, in
    :func:`turn_image`'s sense (``turn_image(image, -angle)`` stands them upright), and how
    clear it is (the share of edge strength within 5° of it; an even spread gives 1/9).
    Measured from the direction of the edges inside the boxes: a card's outline, its index
    and pips run along its sides, modulo a quarter turn; each box counts alike."""
    hist = np.zeros(bins, np.float64)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    for x1, y1, x2, y2 in np.asarray(boxes, np.float32).reshape(-1, 4):
        x1, y1 = max(0, int(x1)), max(0, int(y1))
        x2, y2 = min(grey.shape[1], int(np.ceil(x2))), min(grey.shape[0], int(np.ceil(y2)))
        if x2 - x1 < 8 or y2 - y1 < 8:
            continue
        crop = grey[y1:y2, x1:x2]
        r = side / max(crop.shape)
        if r < 1.0:
            crop = cv2.resize(crop, (max(8, round(crop.shape[1] * r)),
                                     max(8, round(crop.shape[0] * r))),
                              interpolation=cv2.INTER_AREA)
        crop = crop.astype(np.float32)
        gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
        mag = np.hypot(gx, gy)
        if float(mag.sum()) <= 0:
            continue
        ang = np.degrees(np.arctan2(gy, gx)) % 90.0
        h = np.bincount(np.minimum((ang * bins / 90.0).astype(int), bins - 1).ravel(),
                        weights=mag.ravel(), minlength=bins)
        hist += h / h.sum()
    total = float(hist.sum())
    if total <= 0:
        return 0.0, 0.0
    width = max(1, round(5 * bins / 90))  # ±5°
    window = np.ones(2 * width + 1)
    smooth = np.convolve(np.concatenate([hist[-width:], hist, hist[:width]]), window, "valid")
    k = int(smooth.argmax())
    angle = (k + 0.5) * 90.0 / bins  # (image rows run down: a counter-clockwise turn
    angle = angle - 90.0 if angle >= 45.0 else angle  # gives edges at minus its angle)
    return float(-angle), float(smooth[k] / total)
