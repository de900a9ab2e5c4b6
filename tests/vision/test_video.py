"""Rendered videos: real files read back through OpenCV, labels checked against the pixels."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from rules import HouseRules
from rules.log import write_log
from rules.simulator import simulate_round
from vision.render.camera import Camera, CameraError, Lighting
from vision.render.video import RenderError, RoundRenderer, VideoSettings, render_video

from .conftest import FAST_DECKS, NEEDS_ARTWORK, index_ink

BACKS = ("stripes:1f4e9a:f4f4f4:45:40", "diamonds:c8102e:f4f4f4:60", "solid:0b6e4f")
CLEAN = Lighting()  # no noise or light falloff: pixels can be compared with the artwork


@pytest.fixture(scope="module")
def round_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "round.jsonl"
    write_log(simulate_round(3, HouseRules(), seed=21), path)
    return path


def _settings(**kw):
    base = dict(size=(960, 540), seed=3, decks=(FAST_DECKS[0], FAST_DECKS[1], FAST_DECKS[0]),
                backs=BACKS, lighting=CLEAN, max_seconds=4.0,
                camera=Camera(width=960, height=540, tilt_deg=10, yaw_deg=8))
    base.update(kw)
    return VideoSettings(**base)


def _read(path):
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(img)
    return frames


@NEEDS_ARTWORK
def test_video_and_labels_are_written_and_readable(card_cache, round_log, tmp_path):
    out = tmp_path / "round.mp4"
    summary = render_video(round_log, out, _settings())
    frames = _read(out)
    assert len(frames) == summary["frames"] == 120  # 4 s at 30 fps
    assert frames[0].shape == (540, 960, 3)
    lines = [json.loads(x) for x in (tmp_path / "round.labels.jsonl").read_text().splitlines()]
    header, per_frame = lines[0], lines[1:]
    assert header["type"] == "header" and header["fps"] == 30
    assert np.array(header["homography"]).shape == (3, 3)
    assert header["decks"] == list(_settings().decks) and header["backs"] == list(BACKS)
    assert [f["frame"] for f in per_frame] == list(range(120))
    assert any(f["hands"] for f in per_frame), "players' hands never showed"


@NEEDS_ARTWORK
def test_an_h264_video_reads_back_through_opencv_like_the_mpeg4_one(card_cache, round_log,
                                                                   tmp_path):
    pytest.importorskip("av", reason="H.264 needs PyAV (the train extra)")
    settings = _settings(max_seconds=2.0, lighting=None)
    render_video(round_log, tmp_path / "a.mp4", settings)
    render_video(round_log, tmp_path / "b.mp4", settings, codec="h264", crf=23)
    mpeg4, h264 = _read(tmp_path / "a.mp4"), _read(tmp_path / "b.mp4")
    assert len(h264) == len(mpeg4) == 60
    # the same picture (both lossy), in a file several times smaller
    assert np.abs(h264[30].astype(int) - mpeg4[30].astype(int)).mean() < 6
    assert (tmp_path / "b.mp4").stat().st_size < 0.5 * (tmp_path / "a.mp4").stat().st_size
    with pytest.raises(RenderError, match="codec"):
        render_video(round_log, tmp_path / "c.mp4", settings, codec="xvid")


@NEEDS_ARTWORK
def test_index_boxes_hold_ink_in_decoded_frames(card_cache, round_log, tmp_path):
    out = tmp_path / "ink.mp4"
    render_video(round_log, out, _settings(size=(1280, 720), camera=Camera(tilt_deg=6)))
    frames = _read(out)
    labels = [json.loads(x) for x in out.with_suffix(".labels.jsonl").read_text().splitlines()]
    checked = 0
    for lab in labels[1::20]:
        for card in lab["cards"]:
            for ix in card["indices"]:
                if ix["visible"] < 0.95 or ix["box"][3] - ix["box"][1] < 10:
                    continue
                ink, _paper = index_ink(frames[lab["frame"]], card, ix)
                assert ink > 0.08, (lab["frame"], card["card"], card["place"])
                checked += 1
    assert checked >= 20


@NEEDS_ARTWORK
def test_cards_under_a_hand_lose_visibility_and_moving_cards_have_no_place(
        card_cache, round_log):
    renderer = RoundRenderer(round_log, _settings(max_seconds=8.0))
    covered = moving = 0
    for _frame, _t, _img, labels in renderer.frames():
        still = {(c["owner"], c["card"], c["place"]): c for c in renderer.static_labels}
        for c in labels["cards"]:
            if c["place"] is None:
                moving += 1
                continue
            before = still.get((c["owner"], c["card"], c["place"]))
            assert before is not None
            assert c["visible"] <= before["visible"] + 1e-6
            if c["visible"] < before["visible"] - 0.05:
                covered += 1
        for c in labels["cards"]:
            assert 0 < c["visible"] <= 1
    assert covered > 0 and moving > 0


@NEEDS_ARTWORK
def test_same_seed_same_frames(card_cache, round_log):
    a = RoundRenderer(round_log, _settings(max_seconds=1.0, lighting=None))
    b = RoundRenderer(round_log, _settings(max_seconds=1.0, lighting=None))
    for (_, _, ia, la), (_, _, ib, lb) in zip(a.frames(), b.frames(), strict=True):
        assert np.array_equal(ia, ib) and la == lb


@NEEDS_ARTWORK
def test_bad_input_fails_before_any_frame(card_cache, round_log, tmp_path):
    lines = round_log.read_text().splitlines()
    truncated = tmp_path / "cut.jsonl"
    truncated.write_text("\n".join(lines[:40]) + "\n")
    out = tmp_path / "x.mp4"
    with pytest.raises(RenderError, match="fails `nertz check`.*line 40"):
        render_video(truncated, out, _settings())
    with pytest.raises(RenderError, match="unknown deck 'no-such-deck'"):
        _settings(decks=("no-such-deck", FAST_DECKS[0], FAST_DECKS[1]))
    with pytest.raises(RenderError, match="2 decks for 3 seats"):
        RoundRenderer(round_log, _settings(decks=FAST_DECKS))
    with pytest.raises(CameraError, match="tilt_deg"):
        Camera.parse("tilt_deg=75")
    with pytest.raises(RenderError, match="fps"):
        _settings(fps=0)
    assert not out.exists() and not out.with_suffix(".labels.jsonl").exists()


@NEEDS_ARTWORK
def test_incremental_still_layer_equals_a_full_redraw(card_cache, round_log):
    renderer = RoundRenderer(round_log, _settings(max_seconds=9.0))
    checked = 0
    for frame, _t, _img, _labels in renderer.frames():
        if frame % 45 != 44:
            continue
        image, labels = renderer.static.copy(), list(renderer.static_labels)
        flying = {key for key, i in renderer._card_ids.items()
                  if i not in renderer.static_cards}
        renderer.static, renderer.static_cards, renderer.static_by_index = None, {}, {}
        renderer._redraw_static(flying)
        assert np.array_equal(image, renderer.static)
        assert labels == renderer.static_labels
        checked += 1
    assert checked >= 5


@NEEDS_ARTWORK
@pytest.mark.parametrize("preset, seats, seed", [("nertz", 2, 5), ("turn-based", 2, 2),
                                                 ("klondike-draw", 3, 7)])
def test_a_whole_round_renders_to_the_logged_end(card_cache, tmp_path, preset, seats, seed):
    """Every action of the log (recycles, rotations, passes, retracts…) happens on screen:
    after the last frame the table is the one the log ends with."""
    events = simulate_round(seats, HouseRules.preset(preset), seed=seed, mistakes=0.1)
    log = tmp_path / "round.jsonl"
    write_log(events, log)
    renderer = RoundRenderer(log, VideoSettings(size=(320, 180), fps=2, seed=seed,
                                                decks=(FAST_DECKS * 2)[:seats],
                                                backs=BACKS[:seats]))
    frames = sum(1 for _ in renderer.frames())
    assert frames == math.ceil((events[-1]["t_ms"] + 1000) / 500)
    assert renderer.table.score().scores == events[-1]["scores"]


@NEEDS_ARTWORK
def test_a_card_taken_from_another_seats_layout_is_carried_by_the_movers_arm(
        card_cache, tmp_path):
    path = tmp_path / "mistakes.jsonl"
    events = simulate_round(3, HouseRules(), seed=5, mistakes=0.3)
    write_log(events, path)
    taken = [e for e in events if e["type"] == "move" and e["from"].startswith("seat")
             and int(e["from"][4:].split(":")[0]) != e["seat"]]
    assert taken, "the simulator made no cross-seat move with this seed"
    renderer = RoundRenderer(path, _settings(max_seconds=1.0))
    for e in taken:
        motion = next(m for m in renderer.motions if m.event is e or m.event == e)
        assert motion.seat == e["seat"]
        owner = int(e["from"][4:].split(":")[0])
        carried = [(a.owner, a.card) for a, _b in motion.cards]
        assert carried[0] == (owner, e["card"])  # (with what lay on it, as the engine does)
        assert {o for o, _c in carried} == {owner}
