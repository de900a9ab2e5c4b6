"""The change-gated detector on real video frames (written and read back through OpenCV)
with the real card detector: a card put down is read once it lies still, nothing is looked
at while a hand moves, untouched cards keep their detections, and a big change or the
safety-net period gives a full-frame detection."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.conftest import NEEDS_ARTWORK, paste_card
from vision.incremental import ChangeGatedDetector

pytestmark = NEEDS_ARTWORK

W, H = 640, 360
CARD_H = 64
DECK = "kde-standard"


class Counting:
    """The real detector, with every call's regions kept (None: the whole frame)."""

    def __init__(self, detector):
        self.detector = detector
        self.calls: list[list[tuple[int, int, int, int]] | None] = []

    def __call__(self, image, regions=None, scale=None):
        self.calls.append(None if regions is None else [tuple(r) for r in regions])
        return self.detector(image, regions=regions, scale=scale)

    def __getattr__(self, name):  # scale, estimate_scale
        return getattr(self.detector, name)

    @property
    def full(self) -> int:
        return sum(c is None for c in self.calls)

    @property
    def regions(self) -> list[tuple[int, int, int, int]]:
        return [r for c in self.calls if c is not None for r in c]


@pytest.fixture(scope="module")
def detector():
    from vision.detector import CardDetector

    return CardDetector.load()


def _card(code: str) -> np.ndarray:
    from vision.render import decks

    return decks.render_card(DECK, code, CARD_H)


def _hand(img: np.ndarray, cx: int, cy: int) -> tuple[int, int, int, int]:
    """A hand (an ellipse) at (cx, cy) with its arm out to the right edge; its box."""
    skin = (150, 175, 215)
    cv2.ellipse(img, (cx, cy), (34, 26), 0, 0, 360, skin, -1)
    cv2.rectangle(img, (cx, cy - 18), (W, cy + 18), skin, -1)
    return cx - 34, cy - 26, W, cy + 26


def _table(rng: np.random.Generator) -> np.ndarray:
    img = np.full((H, W, 3), (55, 105, 45), np.int16)
    img += rng.integers(-4, 5, img.shape).astype(np.int16)  # sensor noise, every frame
    return np.clip(img, 0, 255).astype(np.uint8)


def write_video(path: Path, frames: list[np.ndarray], fps: float = 10.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (W, H))
    for f in frames:
        writer.write(f)
    writer.release()


def read_video(path: Path) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    out = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        out.append(img)
    return out


def scene(tmp_path: Path, carry: str = "KS", to: tuple[int, int] = (420, 150),
          cover: str | None = None, beside: str | None = None
          ) -> tuple[list[np.ndarray], list[tuple | None]]:
    """Frames at 10 fps: 7H and 3D lie still (and ``beside``, if given, a little left of
    ``to``); from frame 5 a hand carries ``carry`` in from the right and puts it at ``to``
    (on ``cover`` lying there from the start, if given), leaves by frame 13; then nothing
    moves. Returns the frames as read back from an MJPG file and the hand's box per
    frame."""
    rng = np.random.default_rng(7)
    seven, three, moved = _card("7H"), _card("3D"), _card(carry)
    under = _card(cover) if cover else None
    neighbour = _card(beside) if beside else None
    path_x = [700, 640, 580, 520, 470, to[0] + 20, to[0] + 20, to[0] + 20]  # frames 5-12
    frames, hands = [], []
    for i in range(30):
        img = _table(rng)
        paste_card(img, seven, 100, 150)
        paste_card(img, three, 250, 60)
        if under is not None:
            paste_card(img, under, *to)
        if neighbour is not None:
            paste_card(img, neighbour, to[0] - 60, to[1])
        hand = None
        if i >= 10:
            paste_card(img, moved, *to)
        if 5 <= i <= 12:
            x = path_x[i - 5]
            if i < 10:
                paste_card(img, moved, x - 20, to[1] + 10 - (i - 5))
            # the hand lifts away from the card once it is down
            hand = _hand(img, x + 30 + (25 * (i - 9) if i > 9 else 0), to[1] + 30)
        frames.append(img)
        hands.append(hand)
    video = tmp_path / "scene.avi"
    write_video(video, frames)
    return read_video(video), hands


def _at(dets, x: float, y: float) -> list[str]:
    c = (dets.xyxy[:, :2] + dets.xyxy[:, 2:]) / 2
    near = np.hypot(c[:, 0] - x, c[:, 1] - y) < 25
    return [str(k) for k in dets.code[near]]


def _meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_a_card_put_down_is_read_once_it_settles(tmp_path, detector):
    frames, hands = scene(tmp_path)
    counting = Counting(detector)
    gate = ChangeGatedDetector(counting, full_every_ms=0)
    first_seen = None
    seven_box = None
    pending = []
    rng = np.random.default_rng(1)
    corners = rng.uniform(-20, max(W, H) + 20, (60, 2, 2))
    boxes_to_check = [(*c.min(axis=0), *c.max(axis=0)) for c in corners] + [
        (420, 150, 464, 214), (0, 0, W, H), (430.5, 160.2, 430.9, 170.0), (W + 5, 0, W + 9, 9)]
    for i, img in enumerate(frames):
        n_calls = len(counting.calls)
        dets = gate(img, i * 100.0)
        if i == 0:
            assert counting.full == 1
            assert _at(dets, 100 + 22, 150 + 32) == ["7H"] and _at(dets, 250 + 22, 60 + 32) == [
                "3D"]
            seven_box = dets.xyxy[dets.code == "7H"][0].copy()
        for call in counting.calls[n_calls:] if i else []:
            # after the first frame and its confirmation, no full-frame detection
            assert call is not None or (i == 4 and counting.full == 2), i
        if hands[i] is not None:  # nothing is read where the hand is moving
            c = (dets.xyxy[:, :2] + dets.xyxy[:, 2:]) / 2
            hx0, hy0, hx1, hy1 = hands[i]
            inside = (c[:, 0] > hx0) & (c[:, 0] < hx1) & (c[:, 1] > hy0) & (c[:, 1] < hy1)
            assert not inside.any(), (i, list(dets.code[inside]))
        if first_seen is None and "KS" in _at(dets, 420 + 22, 150 + 32):
            first_seen = i
        pending.append(gate.pending((420, 150, 464, 214)))
        # the shares of many boxes at once (an integral image) are the shares one by one
        share = gate.pending_reader()
        for box in boxes_to_check:
            assert share(box) == gate.pending(box), (i, box)
    assert first_seen is not None, "the card put down was never read"
    assert max(pending) > 0.1
    last_hand = max(i for i, h in enumerate(hands) if h is not None)
    assert last_hand < first_seen <= last_hand + 6  # read soon after everything is still
    # the spot is "pending" (not known, counted as covered) from the hand's arrival there
    # until it is read
    assert pending[0] == 0 and all(p > 0.1 for p in pending[10:first_seen])
    assert all(p == 0 for p in pending[first_seen:])
    # the untouched cards kept their detections: not looked at again, the very same box
    assert all(not _meets(r, (100, 150, 144, 214)) for r in counting.regions)
    final = gate.detections
    assert _at(final, 250 + 22, 60 + 32) == ["3D"] and _at(final, 100 + 22, 150 + 32) == ["7H"]
    assert np.abs(final.xyxy[final.code == "7H"][0] - seven_box).max() < 3
    assert counting.full == 2  # the first frame and its confirmation 400 ms later
    # a few small regions (where the hand went, once still, and their confirmations)
    assert 2 <= len(counting.regions) <= 8
    assert all((r[2] - r[0]) * (r[3] - r[1]) < 0.3 * W * H for r in counting.regions)
    assert gate.stats.frames == len(frames) and gate.stats.regions == len(counting.regions)


def test_a_card_put_on_a_lookalike_is_read_again(tmp_path, detector):
    """8H onto 7H at the same spot: the pixels barely differ once the hand is gone, but
    the hand passed there, so the pile is read again."""
    frames, _hands = scene(tmp_path, carry="8H", to=(420, 150), cover="7H")
    gate = ChangeGatedDetector(Counting(detector), full_every_ms=0)
    seen = []
    for i, img in enumerate(frames):
        seen.append(_at(gate(img, i * 100.0), 442, 182))
    assert seen[0] == ["7H"]
    assert seen[-1] == ["8H"]


def test_no_change_no_detector_call(tmp_path, detector):
    rng = np.random.default_rng(3)
    still = _table(rng)
    paste_card(still, _card("7H"), 100, 150)
    frames = []
    for _ in range(12):  # the same picture, new sensor noise each frame
        img = still.astype(np.int16) + rng.integers(-4, 5, still.shape)
        frames.append(np.clip(img, 0, 255).astype(np.uint8))
    write_video(tmp_path / "still.avi", frames)
    counting = Counting(detector)
    gate = ChangeGatedDetector(counting, full_every_ms=0)
    for i, img in enumerate(read_video(tmp_path / "still.avi")):
        gate(img, i * 100.0)
    assert counting.calls == [None, None]  # the first frame and its confirmation


def test_pending_places_count_as_covered(tmp_path, detector):
    from vision.incremental import mark_pending
    from vision.observation import Observation, PlaceView, SeenCard

    frames, _hands = scene(tmp_path)
    gate = ChangeGatedDetector(detector, full_every_ms=0)
    for i, img in enumerate(frames[:12]):  # the card is down, the hand still near it
        gate(img, i * 100.0)
    obs = Observation(11, 1100.0, {
        "lake:0": PlaceView("lake:0", [SeenCard("KS", (420, 150, 464, 214), 0.9)]),
        "seat0:river0": PlaceView("seat0:river0", [SeenCard("7H", (100, 150, 144, 214), 0.9)]),
        "seat0:waste": PlaceView("seat0:waste")})
    mark_pending(obs, gate, lambda place: (250, 250, 300, 320))
    assert obs.places["lake:0"].covered > 0.1
    assert obs.places["seat0:river0"].covered == 0 and obs.places["seat0:waste"].covered == 0


def test_reads_of_a_still_region_are_fused():
    from vision.detections import Detections
    from vision.incremental import _fuse

    old = Detections.create([[0, 0, 40, 60], [100, 0, 140, 60]], [0.9, 0.4], [1, 1],
                            ["7H", "4D"], [None, None])
    new = Detections.create([[1, 1, 41, 61], [101, 0, 141, 60], [200, 0, 240, 60]],
                            [0.5, 0.8, 0.7], [1, 1, 1], ["7D", "4H", "KS"], [None] * 3)
    both = _fuse(old, new)
    # 7H kept (surer than 7D), 4H replaces 4D (surer), KS found only now is added
    assert sorted(both.code) == ["4H", "7H", "KS"]
    assert sorted(_fuse(old, Detections.empty()).code) == ["4D", "7H"]


def test_light_change_and_period_give_full_frames(tmp_path, detector):
    rng = np.random.default_rng(5)
    base = _table(rng)
    paste_card(base, _card("7H"), 100, 150)
    frames = []
    for i in range(32):
        img = base.astype(np.int16) + (50 if i >= 8 else 0)  # the light jumps at frame 8
        frames.append(np.clip(img, 0, 255).astype(np.uint8))
    write_video(tmp_path / "light.avi", frames)
    counting = Counting(detector)
    gate = ChangeGatedDetector(counting, full_every_ms=1500, confirms=0)
    for i, img in enumerate(read_video(tmp_path / "light.avi")):
        gate(img, i * 100.0)
    assert not counting.regions
    # first, the light change once it settled, then each 1.5 s
    assert gate.stats.full_reasons.get("first") == 1
    assert gate.stats.full_reasons.get("large change") == 1
    assert gate.stats.full_reasons.get("periodic", 0) >= 1
    assert "7H" in list(gate.detections.code)


def _cards(dets) -> list[tuple[str, tuple[float, ...]]]:
    return sorted((str(c), tuple(np.round(b, 2))) for c, b in zip(dets.code, dets.xyxy,
                                                                   strict=True))


def test_background_reads_are_the_same_reads_one_frame_later(tmp_path, detector):
    """With ``background=True`` the region reads run on a worker thread: the detector gets
    the same calls on the same regions, the cards read join one frame later, the spot
    stays pending (covered) until they do, and in the end the detections are the same."""
    frames, _hands = scene(tmp_path)
    runs = {}
    for background in (False, True):
        counting = Counting(detector)
        gate = ChangeGatedDetector(counting, full_every_ms=0, background=background)
        seen, pending = [], []
        for i, img in enumerate(frames):
            dets = gate(img, i * 100.0)
            seen.append(_cards(dets))
            pending.append(gate.pending((420, 150, 464, 214)))
        runs[background] = (counting.calls, seen, pending, _cards(gate.flush()),
                            gate.stats.as_dict())
    sync, bg = runs[False], runs[True]
    assert bg[0] == sync[0], "not the same detector calls"
    assert bg[3] == sync[3] and any(c == "KS" for c, _b in bg[3])
    first = {k: next(i for i, s in enumerate(r[1]) if any(c == "KS" for c, _b in s))
             for k, r in runs.items()}
    assert first[True] == first[False] + 1
    # the frame the card was read in: already clean without the worker, still pending
    # (its read not in yet) with it
    assert sync[2][first[False]] == 0 and bg[2][first[False]] > 0.1
    assert bg[2][first[True]] == 0
    # between region reads, what the caller sees is the synchronous result a frame late
    region_frames = [i for i in range(1, len(frames)) if sync[1][i] != sync[1][i - 1]]
    for i in region_frames:
        if i + 1 < len(frames) and i != 4:  # frame 4: the first frame's full confirmation
            assert bg[1][i + 1] == sync[1][i], i
    for k in ("frames", "full", "regions", "region_px"):
        assert bg[4][k] == sync[4][k], k


class _ScaleLog(Counting):
    """The real detector; its scale estimate scripted (now and then far off, as a hand or a
    pale table taken for a card at a small level can make it), the scales used kept."""

    def __init__(self, detector, estimates):
        super().__init__(detector)
        self.estimates = list(estimates)
        self.asked = 0
        self.used: list[float | None] = []

    @property
    def scale(self):
        return None  # no fixed scale: the gate looks for one

    def estimate_scale(self, image):
        self.asked += 1
        return self.estimates[(self.asked - 1) % len(self.estimates)]

    def __call__(self, image, regions=None, scale=None):
        self.used.append(scale)
        return super().__call__(image, regions=regions, scale=scale)


def test_the_scale_is_the_median_of_those_found_and_starts_afresh_when_the_view_changes(
        tmp_path, detector):
    frames, _hands = scene(tmp_path)
    counting = _ScaleLog(detector, [1.0, 0.05, 1.0, 1.0, 0.05])
    gate = ChangeGatedDetector(counting, full_every_ms=600, confirms=1)
    for i, img in enumerate(frames):
        gate(img, i * 100.0)
    # full frames: the first, its confirmation and the periodic ones, each asking until
    # SCALE_LOOKS scales are known; every detection (full frames and the card put down,
    # read in a region) at the median
    assert gate.stats.full > gate.SCALE_LOOKS
    assert counting.asked == gate.SCALE_LOOKS
    assert 0.05 not in counting.used and set(counting.used) == {1.0}
    assert "KS" in _at(gate.detections, 420 + 22, 150 + 32)
    # a large change (the camera moved or was swapped, the light changed): the scales
    # found before no longer count
    counting.estimates, counting.asked = [0.5], 0
    moved = [np.clip(f.astype(np.int16) + 50, 0, 255).astype(np.uint8) for f in frames[-8:]]
    for i, img in enumerate(moved):
        gate(img, (len(frames) + i) * 100.0)
    assert gate.stats.full_reasons.get("large change") == 1
    assert counting.used[-1] == 0.5


def test_a_first_frames_odd_scale_gives_way_to_the_later_ones(tmp_path, detector):
    frames, _hands = scene(tmp_path)
    counting = _ScaleLog(detector, [0.8, 1.0, 1.0, 1.0])
    gate = ChangeGatedDetector(counting, full_every_ms=600, confirms=1)
    for i, img in enumerate(frames):
        gate(img, i * 100.0)
    assert counting.used[0] == 0.8 and counting.used[-1] == 1.0


def test_a_misjudged_scale_gives_way_to_the_expected_one(tmp_path, detector):
    """Every scale judged from the frame is 16× too small (a cloth's squares taken for
    card backs): nothing is found, until the table's calibration says how large the cards
    are; the next frame is then looked at whole at that scale, and so is every later look,
    while a judged scale that agrees with it is kept."""
    frames, _hands = scene(tmp_path)
    counting = _ScaleLog(detector, [0.06])
    gate = ChangeGatedDetector(counting, full_every_ms=600, confirms=1)
    for i, img in enumerate(frames[:3]):
        gate(img, i * 100.0)
    assert "7H" not in _at(gate.detections, 100 + 22, 150 + 32), "found at a 16× shrink"
    gate.expect_scale(1.0)
    gate(frames[3], 300.0)
    assert gate.stats.full_reasons.get("rescaled") == 1 and counting.used[-1] == 1.0
    assert "7H" in _at(gate.detections, 100 + 22, 150 + 32)
    for i, img in enumerate(frames[4:], start=4):
        gate.expect_scale(1.0)
        gate(img, i * 100.0)
    assert gate.stats.full_reasons.get("rescaled") == 1
    assert set(counting.used[counting.used.index(1.0):]) == {1.0}
    assert "KS" in _at(gate.detections, 420 + 22, 150 + 32)
    # a judged scale within EXPECTED_RATIO of the expected one is the one used
    counting.estimates, counting.asked = [1.2], 0
    gate.reset()
    gate.expect_scale(1.0)
    gate(frames[-1], 0.0)
    assert counting.used[-1] == 1.2


def test_an_expected_scale_that_finds_fewer_cards_is_given_up(tmp_path, detector):
    """The frame's own scale is right and the calibration's 3× too small (markers printed
    at another size): the look at the expected scale finds no more faces than the look at
    the judged one, so the judged scale stays, and the expectation is no longer heeded."""
    frames, _hands = scene(tmp_path)
    counting = _ScaleLog(detector, [1.0])
    gate = ChangeGatedDetector(counting, full_every_ms=600, confirms=1)
    gate(frames[0], 0.0)
    gate.expect_scale(0.33)
    gate(frames[1], 100.0)
    assert gate.stats.full_reasons.get("rescaled") == 1 and counting.used[-1] == 0.33
    for i, img in enumerate(frames[2:], start=2):
        gate.expect_scale(0.33)
        gate(img, i * 100.0)
    assert gate.stats.full_reasons.get("rescaled") == 1
    assert set(counting.used[2:]) == {1.0}
    assert "KS" in _at(gate.detections, 420 + 22, 150 + 32)


def test_a_focused_gate_reads_fewer_cards_and_sees_the_same(tmp_path):
    """The gate asks the detector to read only the cards its changed boxes keep
    (``focus``): with a card lying just beside the changed spot (inside the region grown
    by a card, outside the change), every frame's detections are the same as with every
    card of the region read, and the readers see fewer crops."""
    from vision.detector import CardDetector

    frames, _hands = scene(tmp_path, beside="9C")
    runs = {}
    for focus in (True, False):
        detector = CardDetector.load()
        crops = [0]
        read = detector.classifier.probabilities

        def counted(batch, read=read, crops=crops):
            crops[0] += len(batch)
            return read(batch)

        detector.classifier.probabilities = counted
        gate = ChangeGatedDetector(detector, full_every_ms=0, focus=focus)
        assert gate.focus is focus
        seen = [_cards(gate(img, i * 100.0)) for i, img in enumerate(frames)]
        runs[focus] = (seen, crops[0], gate.stats.full, gate.stats.regions)
    assert runs[True][0] == runs[False][0]
    assert any(c == "KS" for c, _b in runs[True][0][-1])
    assert any(c == "9C" for c, _b in runs[True][0][-1])
    assert runs[True][2:] == runs[False][2:] and runs[True][3] > 0
    assert runs[True][1] < runs[False][1], (runs[True][1], runs[False][1])


def test_a_detector_that_takes_no_focus_is_asked_without_one(tmp_path, detector):
    """A stand-in detector with no ``focus`` parameter (like :class:`Counting`) is called
    as before: the gate's focus is off for it."""
    gate = ChangeGatedDetector(Counting(detector))
    assert not gate.focus
    assert ChangeGatedDetector(detector).focus
