"""Detect only where something changed: a card detector wrapped so that a frame costs a
full-frame detection only now and then.

:class:`ChangeGatedDetector` keeps the detections of the last full detection and, per
frame, compares a small blurred grey copy of the frame with the *reference* (the picture
its current detections were made from, pixel by pixel). Every place that differed from the
reference since its last detection is *dirty* — a hand passing over a pile leaves it dirty
even when the card put there looks almost like the one under it. A dirty region (a
connected component of the dilated dirty mask) is looked at again once all of it has been
still for ``settle_ms`` with no motion within ``calm_cards`` card lengths (no frame-to-frame
change); a region that stays partly in motion (a hand working beside the pile it just
played on) gives its still part after ``patience_ms``. Then the detector runs on the region
grown by about a card (:meth:`vision.detector.CardDetector.__call__` with ``regions=``;
all regions of a frame in one call), the old detections that belong to the region (centre
in it, or a quarter of their box) are replaced by the new ones that do, and the region is
clean again. A region in motion (hands, cards in flight) keeps its old detections; the
table model sees the motion itself, and :func:`mark_pending` counts the places whose
picture changed and is not read again yet as covered, so the tracker commits nothing from
out-of-date detections.

The detector misses or misreads a card now and then, and a read that is kept until the
next change would keep its mistake: each read is therefore *confirmed* ``confirms`` times,
``confirm_ms`` apart, while the region stays still, and the reads of a still region are
fused (a card found by either read is kept; where both found one, the surer read wins).

A full-frame detection runs on the first frame (confirmed like a region), when the regions
ready at once would cover more than ``full_share`` of the frame (a camera bump, the light
changing), and every ``full_every_ms`` as a safety net (fused with what is known where the
frame is still). Slow drift of the light is followed: where nothing changed, the reference
fades towards the frame.

    detector = ChangeGatedDetector(CardDetector.load())
    for t_ms, image in frames:
        dets = detector(image, t_ms)      # Detections in frame pixels, like CardDetector's
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from .detections import Detections, box_iou, in_boxes

Region = tuple[int, int, int, int]

__all__ = ["ChangeGatedDetector", "GateStats", "mark_pending"]


@dataclass
class GateStats:
    """What the gate did: frames seen, detector calls and their time."""

    frames: int = 0
    full: int = 0  #: full-frame detections
    full_reasons: dict[str, int] = field(default_factory=dict)
    regions: int = 0  #: region detections
    region_px: float = 0.0  #: pixels looked at by region detections
    detect_s: float = 0.0  #: time in the detector (full and regions)
    gate_s: float = 0.0  #: time spent finding the changed regions

    def as_dict(self) -> dict[str, Any]:
        return {"frames": self.frames, "full": self.full, "full_reasons": dict(self.full_reasons),
                "regions": self.regions, "region_px": round(self.region_px),
                "detect_s": round(self.detect_s, 3), "gate_s": round(self.gate_s, 3)}


class ChangeGatedDetector:
    """``gate(image, t_ms) -> Detections``: the wrapped detector's detections of this frame,
    re-detected only where the frame changed and has settled since (see the module doc).

    ``detector`` is a :class:`~vision.detector.CardDetector` (or anything called as
    ``detector(image, regions=None | [(x1, y1, x2, y2)], scale=None | float)``); when it has
    ``estimate_scale`` and no fixed ``scale``, the median of the scales found at the
    full-frame detections (since the last large change) is used for them and for the
    regions (a region alone would be looked at unscaled).

    ``width``: the width of the grey copy compared (320: a 1280-wide frame in 4×4 blocks);
    ``change_threshold``: grey levels (0–255) from the reference that make a pixel dirty;
    ``motion_threshold``: grey levels from the previous frame that count as motion;
    ``settle_ms``: how long a dirty region must be still before it is re-detected;
    ``full_every_ms``: the safety-net full-frame detection (0 or None: never; every 20 s
    instead of 10 found fewer moves and scored worse on the 16 rounds of ``--seed 5`` and
    ``--seed 6``, every 5 s scored about as well for ~2.3 s more per minute of 720p video:
    session 52);
    ``full_share``: the share of the frame ready at once above which a full-frame detection
    runs instead of regions; ``margin``: pixels a region is grown by for the detector (None:
    the median long side of the detected cards, at least 32 px); ``calm_cards``: how far
    (in card lengths) a dirty pixel must be from any motion to be looked at (a card there is
    whole and not under a hand); ``patience_ms``: how long the calm part of a region that
    is partly still in motion waits before it is looked at alone; ``confirms``,
    ``confirm_ms``: how many more reads confirm a read, how far apart (``confirm_regions``
    False: only the first frame's); ``drift``: how fast the
    reference follows the frame where nothing changed (slow light drift).

    ``background``: region reads run on a worker thread while the caller goes on (the table
    model, the tracker, decoding the next frames), and their cards join at the next call,
    before anything else happens there: the same reads of the same pixels in the same
    order as without it, each seen one frame later (until then its region stays changed:
    :meth:`pending`, so a place there counts as covered). :meth:`flush` takes in a read
    still running. Full-frame detections stay in the caller's thread.

    ``focus``: a region read reads only the cards its changed boxes keep (the detector's
    ``focus=``); the cards of the margin it was grown by are located but not read.
    """

    #: the full-frame detections after which the scales found before no longer count:
    #: a large change (the camera moved, or was swapped)
    RESCALE_ON: tuple[str, ...] = ("large change",)
    #: the scale is looked for at this many full-frame detections since then (the first,
    #: its confirmation, the next periodic ones: a frame before the deal may be sized
    #: wrong), and their median kept after (looking costs ~190 ms a time on a 2-core CPU;
    #: the camera's zoom does not change until a large change); 0: at every one
    SCALE_LOOKS = 5
    #: a card found in a region read belongs to a changed box when its centre lies within
    #: this many card lengths of it (a card's centre may shift a little between two reads)
    SLACK = 0.25

    def __init__(self, detector: Callable[..., Detections], width: int = 320,
                 change_threshold: float = 24.0, motion_threshold: float = 12.0,
                 settle_ms: float = 100.0, full_every_ms: float | None = 10000.0,
                 full_share: float = 0.3, margin: float | None = None,
                 calm_cards: float = 0.2, patience_ms: float = 200.0,
                 confirms: int = 1, confirm_ms: float = 400.0, confirm_regions: bool = True,
                 drift: float = 0.05, background: bool = False, focus: bool = True) -> None:
        self.detector = detector
        #: a region read asks the detector to read only the cards that its changed boxes
        #: can keep (``focus=``, where the detector takes it): the region is grown by a card
        #: so that the localiser sees each card whole, but the cards of that margin are not
        #: kept (:meth:`_apply`), so reading them is wasted
        self.focus = bool(focus) and _takes_focus(detector)
        self.background = background
        self._pool: ThreadPoolExecutor | None = None
        self._job: tuple[Future[Detections], tuple[Any, ...]] | None = None
        self.width = width
        self.change_threshold = change_threshold
        self.motion_threshold = motion_threshold
        self.settle_ms = settle_ms
        self.full_every_ms = full_every_ms or 0.0
        self.full_share = full_share
        self.margin = margin
        self.calm_cards = calm_cards
        self.patience_ms = patience_ms
        self.confirms = confirms
        self.confirm_ms = confirm_ms
        self.confirm_regions = confirm_regions
        self.drift = drift
        self.stats = GateStats()
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next frame gets a full-frame detection."""
        job = getattr(self, "_job", None)
        if job is not None:
            self._job = None
            job[0].result()  # let it end; what it found is forgotten
        self.detections = Detections.empty()
        self._ref: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._moved_at: np.ndarray | None = None
        self._dirty: np.ndarray | None = None
        self._calm_since: np.ndarray | None = None
        self._scale: float | None = None
        self._scales: list[float] = []
        self._expected: float | None = None
        self._rescale_due = False
        #: faces found by the last full-frame look at the scale judged from the frame
        self._judged_faces: int | None = None
        self._refuted = False  # a look at the expected scale found no more faces
        self._last_full: float = -np.inf
        #: reads to confirm: (due ms, reads left, frame-pixel boxes; None: the whole frame)
        self._confirm: list[tuple[float, int, list[list[float]] | None]] = []
        self._card_px = 48.0
        self._f = 1.0
        #: the regions (frame pixels) re-detected at the last frame, for diagnostics
        self.last_regions: list[Region] = []

    # --- the grey copy ---------------------------------------------------------------
    def _small(self, image: np.ndarray, grey: np.ndarray | None = None
               ) -> tuple[np.ndarray, float]:
        h, w = image.shape[:2]
        f = min(1.0, self.width / w)
        if grey is None:
            grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(grey, (max(1, round(w * f)), max(1, round(h * f))),
                           interpolation=cv2.INTER_AREA) if f < 1.0 else grey
        small = cv2.GaussianBlur(small, (3, 3), 0).astype(np.float32)
        return small, f

    # --- the frame -------------------------------------------------------------------
    def flush(self) -> Detections:
        """Take in the region read still running in the background (if any): its cards
        join the detections and its regions are clean again. The detections."""
        job = self._job
        if job is not None:
            self._job = None
            self._apply(job[0].result(), *job[1])
        return self.detections

    def __call__(self, image: np.ndarray, t_ms: float, grey: np.ndarray | None = None
                 ) -> Detections:
        """The detections of this frame (``grey``: the frame in grey, where the caller has
        it already)."""
        self.flush()  # the last frame's read, if it ran in the background
        t0 = time.perf_counter()
        self.stats.frames += 1
        self.last_regions = []
        small, f = self._small(image, grey)
        self._f = f
        if self._ref is None or self._ref.shape != small.shape:
            self._prev = small
            self._moved_at = np.full(small.shape, -np.inf, np.float32)
            self.stats.gate_s += time.perf_counter() - t0
            self._full(image, small, t_ms, "first")
            if self.confirms > 0:
                self._confirm.append((t_ms + self.confirm_ms, self.confirms - 1, None))
            return self.detections
        assert self._prev is not None and self._moved_at is not None
        assert self._dirty is not None
        moving = np.abs(small - self._prev) > self.motion_threshold
        self._moved_at[moving] = t_ms
        self._prev = small
        diff = np.abs(small - self._ref)
        changed = (diff > self.change_threshold).astype(np.uint8)
        # single specks are noise: a card's change is many pixels wide
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0
        self._dirty |= changed
        calm = ~self._dirty
        if self.drift > 0:  # follow slow light drift where nothing happened
            self._ref[calm] += self.drift * (small[calm] - self._ref[calm])
        due = [c for c in self._confirm if c[0] <= t_ms]
        self._confirm = [c for c in self._confirm if c[0] > t_ms]
        whole = [c for c in due if c[2] is None]
        if self._rescale_due:
            self._rescale_due = False
            self.stats.gate_s += time.perf_counter() - t0
            self._full(image, small, t_ms, "rescaled")
            return self.detections
        if whole or (self.full_every_ms and t_ms - self._last_full >= self.full_every_ms):
            self.stats.gate_s += time.perf_counter() - t0
            self._full(image, small, t_ms, "confirm" if whole else "periodic")
            left = max([c[1] for c in whole] + [0])
            if left > 0:
                self._confirm.append((t_ms + self.confirm_ms, left - 1, None))
            self._confirm = [c for c in self._confirm if c[2] is None]
            return self.detections
        ready = self._ready_components(t_ms)
        area = sum((x1 - x0) * (y1 - y0) for (x0, y0, x1, y1), _m in ready)
        self.stats.gate_s += time.perf_counter() - t0
        if area > self.full_share * small.size:
            self._full(image, small, t_ms, "large change")
            self._confirm = []
            return self.detections
        # confirmations of regions that stayed still since their last read
        confirm = [c for c in due if c[2] is not None and not self._dirty_in(c[2], f)]
        if ready or confirm:
            self._redetect(image, small, f, t_ms, ready, confirm)
        return self.detections

    #: a scale found from the frame (:meth:`_full`) that differs from the expected one
    #: (:meth:`expect_scale`) by more than this factor is taken for a misjudged frame
    EXPECTED_RATIO = 1.5

    def expect_scale(self, scale: float | None) -> None:
        """The detector's resize that the cards' size in the frame calls for, known from
        elsewhere (the table's calibration: :meth:`vision.table_model.TableModel.card_px`):
        a scale judged from the frame that is further off than :attr:`EXPECTED_RATIO` gives
        way to it. A frame's own judgement can fail: a 720p camera over a gingham cloth, the
        cards 47 px long, was shrunk 12× after the cloth's squares were taken for card backs
        and no card was found all round (``--seed 12`` rounds 1 and 7). When the scale in use
        is that far off, the next frame is looked at whole again at the expected scale;
        should that look find no more faces than the last look at the judged scale, the
        expected size is wrong (markers printed at another size than the profile says) and
        is no longer heeded, until the view changes."""
        if self._refuted:
            scale = None
        self._expected = scale
        if scale is not None and self._scale is not None and not self._agrees(self._scale):
            self._rescale_due = True

    def _agrees(self, scale: float) -> bool:
        assert self._expected is not None
        return max(scale, self._expected) / min(scale, self._expected) <= self.EXPECTED_RATIO

    def pending(self, box: Sequence[float]) -> float:
        """The share (0–1) of ``box`` (frame pixels) that changed since it was last read and
        is not read again yet: what the detections say there may be out of date, so a
        place there counts as covered (see :func:`mark_pending`)."""
        if self._dirty is None:
            return 0.0
        cells = _cells(box, self._f, self._dirty.shape)
        if cells is None:
            return 0.0
        a, b, c, d = cells
        return float(self._dirty[b:d, a:c].mean())

    def pending_reader(self) -> Callable[[Sequence[float]], float]:
        """:meth:`pending` for many boxes of this frame: the changed pixels counted once
        (an integral image), each box then in constant time. Valid until the next frame."""
        if self._dirty is None or not self._dirty.any():
            return lambda box: 0.0
        f, shape = self._f, self._dirty.shape
        counts = cv2.integral(self._dirty.view(np.uint8))  # (hh + 1, ww + 1)

        def share(box: Sequence[float]) -> float:
            cells = _cells(box, f, shape)
            if cells is None:
                return 0.0
            a, b, c, d = cells
            n = int(counts[d, c] - counts[b, c] - counts[d, a] + counts[b, a])
            return n / ((d - b) * (c - a))

        return share

    def _dirty_in(self, boxes: Sequence[Sequence[float]], f: float) -> bool:
        assert self._dirty is not None
        for box in boxes:
            cells = _cells(box, f, self._dirty.shape)
            if cells is not None:
                a, b, c, d = cells
                if self._dirty[b:d, a:c].any():
                    return True
        return False

    def _ready_components(self, t_ms: float) -> list[tuple[Region, np.ndarray]]:
        """The dirty regions ready to be looked at again (grey-copy boxes and the pixels of
        each that it cleans). A pixel is *calm* when it and everything within
        ``calm_cards`` card lengths of it has been still for ``settle_ms`` (a card there is
        whole and no hand is over it). A dirty region (a connected component of the dilated
        dirty mask) is ready when all of it is calm; one that stays partly in motion (a
        hand working beside a pile it just played on) gives its calm part after
        ``patience_ms``."""
        assert self._dirty is not None and self._moved_at is not None
        assert self._calm_since is not None
        if not self._dirty.any():
            self._calm_since.fill(np.inf)
            return []
        settled = ((t_ms - self._moved_at) >= self.settle_ms).astype(np.uint8)
        r = max(1, int(round(self.calm_cards * self._card_px * self._f)))
        calm = cv2.erode(settled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                            (2 * r + 1, 2 * r + 1)),
                         borderType=cv2.BORDER_CONSTANT, borderValue=1).astype(bool)
        ready = self._dirty & calm
        self._calm_since[~ready] = np.inf
        np.minimum(self._calm_since, np.where(ready, t_ms, np.inf), out=self._calm_since)
        if not ready.any():
            return []
        kernel = np.ones((5, 5), np.uint8)
        n, lab, stats, _c = cv2.connectedComponentsWithStats(
            cv2.dilate(self._dirty.astype(np.uint8), kernel), connectivity=8)
        out: list[tuple[Region, np.ndarray]] = []
        for i in range(1, n):
            x, y, w, h, _a = stats[i]
            win = (slice(y, y + h), slice(x, x + w))
            comp = lab[win] == i
            part = comp & ready[win]
            if not part.any():
                continue
            if not (comp & self._dirty[win] & ~ready[win]).any():
                out.append(((int(x), int(y), int(x + w), int(y + h)), part))
                continue
            if self._calm_since[win][part].min() > t_ms - self.patience_ms:
                continue
            # the calm part alone, piece by piece
            m, sub, sstats, _c = cv2.connectedComponentsWithStats(
                cv2.dilate(part.astype(np.uint8), kernel), connectivity=8)
            for j in range(1, m):
                sx, sy, sw, sh, _a = sstats[j]
                piece = (sub[sy:sy + sh, sx:sx + sw] == j) & part[sy:sy + sh, sx:sx + sw]
                out.append(((int(x + sx), int(y + sy), int(x + sx + sw), int(y + sy + sh)),
                            piece))
        return out

    def _clean(self, box: Region, comp: np.ndarray, small: np.ndarray) -> None:
        assert self._dirty is not None and self._ref is not None
        x0, y0, x1, y1 = box
        self._dirty[y0:y1, x0:x1][comp] = False
        self._ref[y0:y1, x0:x1][comp] = small[y0:y1, x0:x1][comp]

    def _full(self, image: np.ndarray, small: np.ndarray, t_ms: float, why: str) -> None:
        """A full-frame detection: it replaces what was known where the frame changed
        (dirty) and is fused with it where the frame stayed still (after the first)."""
        det = self.detector
        t0 = time.perf_counter()
        fixed = getattr(det, "scale", None)
        scale = fixed
        judged: float | None = None  # the scale judged from the frame, where it is judged
        if fixed is None and hasattr(det, "estimate_scale"):
            if why in self.RESCALE_ON:
                self._scales = []  # another view: its scale is looked for afresh
                self._refuted, self._judged_faces = False, None
            # the camera's zoom does not change from frame to frame: the median of the
            # scales found at each full-frame detection since (one frame's estimate can be
            # far off: a hand, a pale table taken for a card at a small level)
            if not self.SCALE_LOOKS or len(self._scales) < self.SCALE_LOOKS:
                self._scales.append(det.estimate_scale(image))  # type: ignore[attr-defined]
            ranked = sorted(self._scales)
            mid = ranked[(len(ranked) - 1) // 2:len(ranked) // 2 + 1]
            # (of two middle ones, the one nearer the scale in use: no flip-flop)
            scale = min(mid, key=lambda v: abs(v - (self._scale or v)))
            judged = scale
            if self._expected is not None and not self._agrees(scale):
                scale = self._expected
        new = det(image, scale=scale) if scale is not None else det(image)
        if judged is not None:
            faces = int(np.count_nonzero(np.asarray(new.code) != "back")) if len(new) else 0
            if scale == judged:
                self._judged_faces = faces
            elif why == "rescaled" and self._judged_faces and faces <= self._judged_faces:
                # (the judged scale found as many: it stays; none found by either, as on
                # a table before the deal, decides nothing)
                self._refuted, self._expected = True, None
                scale = judged  # (this frame's cards kept; the judged scale from now on)
        self.stats.detect_s += time.perf_counter() - t0
        self.stats.full += 1
        self.stats.full_reasons[why] = self.stats.full_reasons.get(why, 0) + 1
        if why in ("first", "large change", "rescaled") or self._dirty is None:
            self.detections = new
        else:
            old = self.detections
            still = ~self._dirty_at(old)
            self.detections = _fuse(old[still], new)
        self._scale = scale
        self._last_full = t_ms
        self._ref = small.copy()
        assert self._moved_at is not None
        # what is still moving stays dirty: looked at again once it settles
        self._dirty = (t_ms - self._moved_at) < self.settle_ms
        self._calm_since = np.full(small.shape, np.inf, np.float32)
        if len(self.detections):
            sides = (self.detections.xyxy[:, 2:] - self.detections.xyxy[:, :2]).max(axis=1)
            self._card_px = float(np.median(sides))
        h, w = image.shape[:2]
        self.last_regions = [(0, 0, w, h)]

    def _dirty_at(self, dets: Detections) -> np.ndarray:
        """Whether each detection's centre lies where the frame is dirty."""
        assert self._dirty is not None
        if not len(dets):
            return np.zeros(0, bool)
        c = (dets.xyxy[:, :2] + dets.xyxy[:, 2:]) / 2 * self._f
        hh, ww = self._dirty.shape
        xs = np.clip(c[:, 0].astype(int), 0, ww - 1)
        ys = np.clip(c[:, 1].astype(int), 0, hh - 1)
        return self._dirty[ys, xs]

    def _redetect(self, image: np.ndarray, small: np.ndarray, f: float, t_ms: float,
                  ready: Sequence[tuple[Region, np.ndarray]],
                  confirm: Sequence[tuple[float, int, list[list[float]] | None]]) -> None:
        """Read the ready regions (their new cards replace the old ones) and the regions
        due a confirmation (fused with what is known), in one detector call."""
        h, w = image.shape[:2]
        margin = self.margin if self.margin is not None else max(32.0, self._card_px)
        pad = 1.0 / f  # one grey-copy pixel
        # frame-pixel boxes: the ready components, then the confirmations
        boxes = [[x0 / f - pad, y0 / f - pad, x1 / f + pad, y1 / f + pad]
                 for (x0, y0, x1, y1), _m in ready]
        fresh = len(boxes)
        for c in confirm:
            boxes += [list(b) for b in c[2] or []]
        groups = _groups(boxes, margin)
        looks = [_clip(_grow(_union([boxes[i] for i in g]), margin), w, h) for g in groups]
        self.stats.regions += len(looks)
        self.stats.region_px += sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in looks)
        self.last_regions = looks
        plan = (small, t_ms, ready, confirm, boxes, fresh, groups)
        if self.background:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate")
            self._job = (self._pool.submit(self._read, image, looks, boxes), plan)
            return
        self._apply(self._read(image, looks, boxes), *plan)

    def _read(self, image: np.ndarray, looks: list[Region],
              boxes: list[list[float]] | None = None) -> Detections:
        """One detector call on the regions (the detector runs them as one batch); with
        :attr:`focus`, only the cards that belong to ``boxes`` (as :meth:`_apply` keeps
        them) are read."""
        t0 = time.perf_counter()
        kwargs: dict[str, Any] = {"regions": looks}
        if self._scale is not None:
            kwargs["scale"] = self._scale
        if self.focus and boxes:
            kwargs["focus"], kwargs["focus_slack"] = boxes, self.SLACK * self._card_px
        found = self.detector(image, **kwargs)
        self.stats.detect_s += time.perf_counter() - t0
        return found

    def _apply(self, found: Detections, small: np.ndarray, t_ms: float,
               ready: Sequence[tuple[Region, np.ndarray]],
               confirm: Sequence[tuple[float, int, list[list[float]] | None]],
               boxes: list[list[float]], fresh: int, groups: list[list[int]]) -> None:
        """A region read's cards replace the old ones of the changed regions and are fused
        with those of the confirmed ones; the regions are clean again (their reference:
        the frame they were read from) and each read is due a confirmation."""
        slack = self.SLACK * self._card_px
        replace = boxes[:fresh]
        # a card belongs to a box by its centre, or by a quarter of its own box (a card
        # across the region's edge that a hand partly hid: read again with the region)
        in_new = in_boxes(found.xyxy, replace, slack)
        in_old = in_boxes(found.xyxy, boxes[fresh:], slack) & ~in_new
        dets = self.detections
        if replace:
            # the new cards of a changed region replace the old ones there and any old box
            # of the same card
            new = found[in_new]
            stale = in_boxes(dets.xyxy, replace)
            if len(new) and len(dets):
                stale |= (box_iou(dets.xyxy, new.xyxy) > 0.3).any(axis=1)
            dets = Detections.merge([dets[~stale], new])
        if in_old.any():
            dets = _fuse(dets, found[in_old])
        self.detections = dets
        for r in ready:
            self._clean(r[0], r[1], small)
        # each read is confirmed while its region stays still
        for g in groups:
            core = [boxes[i] for i in g if i < fresh]
            if core and self.confirms > 0 and self.confirm_regions:
                self._confirm.append((t_ms + self.confirm_ms, self.confirms - 1, core))
        for c in confirm:
            if c[1] > 0:
                self._confirm.append((t_ms + self.confirm_ms, c[1] - 1, c[2]))


def _fuse(old: Detections, new: Detections, iou: float = 0.3) -> Detections:
    """Two reads of a still scene as one: a card found by either read is kept; where both
    found it (boxes overlapping by ``iou``), the surer read."""
    if not len(old) or not len(new):
        return Detections.merge([old, new])
    overlap = box_iou(old.xyxy, new.xyxy)
    keep_old = np.ones(len(old), bool)
    keep_new = np.ones(len(new), bool)
    used_old, used_new = set(), set()  # one to one, the most overlapping pairs first
    for k in np.argsort(-overlap, axis=None, kind="stable"):
        i, j = divmod(int(k), len(new))
        if overlap[i, j] <= iou:
            break
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        if new.confidence[j] > old.confidence[i]:
            keep_old[i] = False
        else:
            keep_new[j] = False
    return Detections.merge([old[keep_old], new[keep_new]])


def _groups(boxes: Sequence[Sequence[float]], margin: float) -> list[list[int]]:
    """Indices of ``boxes`` in groups whose boxes, grown by ``margin``, overlap."""
    groups = [[i] for i in range(len(boxes))]
    merged = True
    while merged:
        merged = False
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                ba = _union([boxes[i] for i in groups[a]])
                bb = _union([boxes[i] for i in groups[b]])
                if _overlaps(_grow(ba, margin), _grow(bb, margin)):
                    groups[a] += groups.pop(b)
                    merged = True
                    break
            if merged:
                break
    return groups


def mark_pending(obs: Any, gate: ChangeGatedDetector,
                 spot_box: Callable[[str], Sequence[float] | None] | None = None) -> Any:
    """Count as covered every place of ``obs`` (an :class:`~vision.observation.Observation`)
    whose cards lie where ``gate`` has not read the frame again since it changed (their
    detections may be out of date: the card may be gone, or another on it). ``spot_box``
    gives an empty place's box in frame pixels (None: empty places are left alone)."""
    pending = gate.pending_reader()
    for view in getattr(obs, "places", {}).values():
        boxes = [c.box for c in view.cards]
        if not boxes and spot_box is not None:
            box = spot_box(view.place)
            boxes = [box] if box is not None else []
        share = max((pending(b) for b in boxes), default=0.0)
        if share > view.covered:
            view.covered = share
    return obs


def _takes_focus(detector: Callable[..., Detections]) -> bool:
    """Whether ``detector`` takes ``focus=`` boxes (:class:`~vision.detector.CardDetector`
    does; a stand-in in a test may not)."""
    try:
        return "focus" in inspect.signature(detector).parameters
    except (TypeError, ValueError):
        return False


def _cells(box: Sequence[float], f: float, shape: tuple[int, ...]
           ) -> tuple[int, int, int, int] | None:
    """The grey copy's cells (x0, y0, x1, y1; ``shape`` its (rows, columns)) that a
    frame-pixel ``box`` covers at scale ``f``, or None when it covers none."""
    hh, ww = shape[:2]
    a, b = max(0, int(box[0] * f)), max(0, int(box[1] * f))
    c, d = min(ww, int(np.ceil(box[2] * f))), min(hh, int(np.ceil(box[3] * f)))
    return (a, b, c, d) if c > a and d > b else None


def _union(boxes: Sequence[Sequence[float]]) -> list[float]:
    a = np.asarray(boxes, np.float64).reshape(-1, 4)
    return [float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 2].max()),
            float(a[:, 3].max())]


def _grow(box: Sequence[float], m: float) -> list[float]:
    return [box[0] - m, box[1] - m, box[2] + m, box[3] + m]


def _overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _clip(box: Sequence[float], w: int, h: int) -> Region:
    return (max(0, int(np.floor(box[0]))), max(0, int(np.floor(box[1]))),
            min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3]))))
