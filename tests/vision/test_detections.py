"""The detections container: YOLO decoding, NMS, tiles, JSON output, annotation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.detections import (
    BoxAnnotator,
    Detections,
    box_iou,
    merge_tiles,
    nms_indices,
    tiles,
)


def yolo_tensor(boxes: list[tuple[float, float, float, float, int, float]], nc: int = 2,
                anchors: int = 50) -> np.ndarray:
    """A (1, 4 + nc, anchors) tensor: the given (cx, cy, w, h, class, score) rows, then
    low-score filler."""
    out = np.zeros((1, 4 + nc, anchors), np.float32)
    out[0, :4] = 10.0
    out[0, 4:] = 0.01
    for a, (cx, cy, w, h, c, s) in enumerate(boxes):
        out[0, :4, a] = (cx, cy, w, h)
        out[0, 4 + c, a] = s
        out[0, 4 + (1 - c), a] = s / 10
    return out


def test_from_yolo_decodes_threshold_and_letterbox():
    raw = yolo_tensor([(100, 200, 20, 40, 0, 0.9), (300, 300, 50, 50, 1, 0.6),
                       (10, 10, 4, 4, 1, 0.2)])
    # a 1280x720 frame letterboxed into 640x640: scale 0.5, pad top (640 - 360) / 2 = 140
    dets = Detections.from_yolo(raw, conf=0.25, class_names=["index", "back"], scale=0.5,
                                pad=(0, 140), image_size=(1280, 720))
    assert len(dets) == 2
    np.testing.assert_allclose(dets.xyxy[0], [180, 80, 220, 160])
    np.testing.assert_allclose(dets.xyxy[1], [550, 270, 650, 370])
    np.testing.assert_allclose(dets.confidence, [0.9, 0.6], rtol=1e-6)
    assert dets.class_id.tolist() == [0, 1]
    assert dets.code.tolist() == ["index", "back"]
    assert dets.xyxy.dtype == np.float32 and dets.corners is None
    # a plain (non-uniform) resize and a batchless tensor
    plain = Detections.from_yolo(raw[0], conf=0.5, scale=(0.5, 640 / 720))
    np.testing.assert_allclose(plain.xyxy[0], [180, 180 / (640 / 720), 220, 220 / (640 / 720)],
                               rtol=1e-5)
    assert plain.code.tolist() == [None, None]


def _level_maps(h: int, w: int, bins: int = 16, nc: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """A scale's box-distribution and class-logit maps with nothing in them (scores ~0)."""
    return np.zeros((4 * bins, h, w), np.float32), np.full((nc, h, w), -20.0, np.float32)


def test_from_yolo_levels_decodes_only_anchors_that_score():
    box8, cls8 = _level_maps(4, 8)  # stride 8 of a 64×32 input
    box16, cls16 = _level_maps(2, 4)  # stride 16
    # cell (x 4, y 1) at stride 8: class 1 at 0.9; sides left/top 2 cells, right/bottom 3
    cls8[1, 1, 4] = np.log(0.9 / 0.1)
    for side, distance in enumerate((2, 2, 3, 3)):
        box8[side * 16 + distance, 1, 4] = 30.0  # all its weight on one bin
    # cell (x 0, y 0) at stride 16: class 0 at 0.2 (below the threshold: not decoded)
    cls16[0, 0, 0] = np.log(0.2 / 0.8)
    dets = Detections.from_yolo_levels([(box8, cls8), (box16, cls16)], conf=0.25,
                                       class_names=["index", "back"], input_size=(64, 32))
    assert len(dets) == 1 and dets.code.tolist() == ["back"]
    np.testing.assert_allclose(dets.xyxy[0], [(4.5 - 2) * 8, (1.5 - 2) * 8,
                                              (4.5 + 3) * 8, (1.5 + 3) * 8], atol=1e-3)
    np.testing.assert_allclose(dets.confidence, [0.9], rtol=1e-5)
    # a lower threshold takes the second anchor, at stride 16; a spread distribution
    # decodes to its expected distance (bins 1 and 3 alike: 2 cells)
    box16[:, 0, 0] = -30.0
    box16[[1, 3, 17, 19, 33, 35, 49, 51], 0, 0] = 5.0
    both = Detections.from_yolo_levels([(box8, cls8), (box16[None], cls16[None])], conf=0.1,
                                       input_size=(64, 32), image_size=(64, 32))
    assert sorted(both.class_id.tolist()) == [0, 1]
    second = both[both.class_id == 0]
    np.testing.assert_allclose(second.xyxy[0], [0, 0, 2.5 * 16, 32], atol=1e-3)  # clipped
    np.testing.assert_allclose(both[both.class_id == 1].xyxy[0], [20, 0, 60, 32], atol=1e-3)
    with pytest.raises(ValueError):
        Detections.from_yolo_levels([(box8[:, :2], cls8)])
    assert len(Detections.from_yolo_levels([_level_maps(2, 2)], conf=0.5)) == 0


def test_from_yolo_rejects_bad_shapes():
    with pytest.raises(ValueError):
        Detections.from_yolo(np.zeros((2, 6, 10), np.float32))
    with pytest.raises(ValueError):
        Detections.from_yolo(np.zeros((1, 4, 10), np.float32))


def test_nms_keeps_best_of_overlap_and_separate_classes():
    dets = Detections.create(
        [[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [50, 50, 60, 60]],
        confidence=[0.6, 0.9, 0.8, 0.3], class_id=[0, 0, 1, 0], code=["a", "b", "c", "d"])
    kept = dets.with_nms(0.5)
    assert kept.code.tolist() == ["b", "c", "d"]  # by confidence; class 1 survives
    agnostic = dets.with_nms(0.5, class_agnostic=True)
    assert agnostic.code.tolist() == ["b", "d"]
    assert len(Detections.empty().with_nms()) == 0


def test_nms_many_boxes_vectorised():
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 1000, (400, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(10, 60, (400, 2))], axis=1)
    dets = Detections.create(boxes, confidence=rng.uniform(0, 1, 400))
    kept = dets.with_nms(0.4)
    iou = box_iou(kept.xyxy, kept.xyxy)
    np.fill_diagonal(iou, 0)
    assert iou.max() <= 0.4 and 0 < len(kept) < 400


def reference_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The textbook pairwise IoU (the form box_iou had before it was made faster)."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=2)
    area_a = np.prod(np.clip(a[:, 2:] - a[:, :2], 0, None), axis=1)
    area_b = np.prod(np.clip(b[:, 2:] - b[:, :2], 0, None), axis=1)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0).astype(np.float32)


def reference_nms(xyxy, scores, iou, class_id=None) -> np.ndarray:
    """Greedy NMS over the whole IoU matrix, classes moved apart (the earlier form)."""
    boxes = np.asarray(xyxy, np.float32).reshape(-1, 4)
    if len(boxes) == 0:
        return np.zeros(0, np.int64)
    if class_id is not None:
        span = float(np.abs(boxes).max()) + 1.0
        boxes = boxes + (np.asarray(class_id, np.float32) * 2 * span)[:, None]
    order = np.argsort(-np.asarray(scores, np.float32), kind="stable")
    ious = reference_iou(boxes[order], boxes[order])
    suppressed = np.zeros(len(boxes), bool)
    keep = []
    for i in range(len(boxes)):
        if not suppressed[i]:
            keep.append(i)
            suppressed |= ious[i] > iou
    return order[np.array(keep, np.int64)]


def random_boxes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Boxes as a detector gives them, with the awkward cases: zero and negative widths,
    whole-pixel coordinates (exact ties), repeated boxes."""
    xy = rng.uniform(-50, 1300, (n, 2)).astype(np.float32)
    wh = rng.uniform(-5, 80, (n, 2)).astype(np.float32)
    if rng.random() < 0.3:
        xy, wh = np.round(xy), np.round(wh)
    boxes = np.concatenate([xy, xy + wh], axis=1)
    if n > 1 and rng.random() < 0.3:
        boxes[rng.integers(1, n)] = boxes[0]
    return boxes


def test_box_iou_and_nms_give_exactly_the_reference_results():
    rng = np.random.default_rng(1)
    for _ in range(400):
        a = random_boxes(rng, int(rng.integers(0, 50)))
        b = random_boxes(rng, int(rng.integers(0, 50)))
        got = box_iou(a, b)
        assert got.dtype == np.float32 and got.shape == (len(a), len(b))
        assert np.array_equal(got, reference_iou(a, b))  # bit for bit
        scores = rng.random(len(a)).astype(np.float32)
        if rng.random() < 0.3:
            scores = np.round(scores, 1)  # ties: the earlier box first
        classes = rng.integers(0, 3, len(a))
        for iou in (0.3, 0.5):
            assert np.array_equal(nms_indices(a, scores, iou, classes),
                                  reference_nms(a, scores, iou, classes))
            assert np.array_equal(nms_indices(a, scores, iou), reference_nms(a, scores, iou))


def test_indexing_masks_merge_offset():
    dets = Detections.create([[0, 0, 2, 2], [5, 5, 9, 9], [1, 1, 3, 4]], [0.5, 0.7, 0.9],
                             code=["AS", "back", "10H"], design=[None, "solid:0b6e4f", None],
                             corners=np.zeros((3, 4, 2)))
    assert len(dets) == 3
    back = dets[dets.code == "back"]
    assert len(back) == 1 and back.design[0] == "solid:0b6e4f" and back.corners.shape == (1, 4, 2)
    assert dets[1:].code.tolist() == ["back", "10H"]
    assert dets[2].code.tolist() == ["10H"]
    np.testing.assert_allclose(dets.area, [4, 16, 6])
    moved = dets.offset(100, 10)
    np.testing.assert_allclose(moved.xyxy[0], [100, 10, 102, 12])
    np.testing.assert_allclose(moved.corners[0, 0], [100, 10])
    both = Detections.merge([dets, Detections.empty(), moved])
    assert len(both) == 6 and both.corners is not None
    assert len(Detections.merge([])) == 0
    assert [len(d) for d in dets] == [1, 1, 1]


@pytest.mark.parametrize("w, h, tile, overlap", [(1280, 720, 640, 64), (1920, 1080, 640, 96),
                                                  (500, 300, 640, 64), (3840, 2160, 800, 0)])
def test_tiles_cover_the_frame(w, h, tile, overlap):
    rects = list(tiles(w, h, tile, overlap))
    cover = np.zeros((h, w), np.int32)
    for x1, y1, x2, y2 in rects:
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        assert x2 - x1 == min(tile, w) and y2 - y1 == min(tile, h)
        cover[y1:y2, x1:x2] += 1
    assert cover.min() >= 1
    xs = sorted({r[0] for r in rects})
    for a, b in zip(xs, xs[1:], strict=False):
        assert a + tile - b >= overlap  # neighbours overlap enough


def test_merge_tiles_shifts_and_deduplicates():
    rects = [(0, 0, 640, 640), (576, 0, 1216, 640)]
    # the same card seen by both tiles near their shared edge
    left = Detections.create([[600, 100, 630, 140]], [0.8], code=["QH"])
    right = Detections.create([[25, 101, 54, 140], [300, 300, 320, 330]], [0.9, 0.5],
                              code=["QH", "back"])
    merged = merge_tiles([left, right], rects)
    assert len(merged) == 2
    np.testing.assert_allclose(merged.xyxy[0], [601, 101, 630, 140])
    assert merged.confidence[0] == pytest.approx(0.9)
    assert merge_tiles(list(zip(rects, [left, right], strict=True))).code.tolist() == \
        ["QH", "back"]


def test_json_matches_the_detect_contract():
    dets = Detections.create([[10.26, 20, 30, 40.04], [1, 2, 3, 4]], [0.97, 1.2],
                             code=["QH", "back"], design=[None, "solid:0b6e4f"])
    line = dets.to_json("img/a.jpg", 1280, 720)
    assert "\n" not in line
    obj = json.loads(line)
    assert list(obj) == ["path", "width", "height", "cards"]
    assert obj["path"] == "img/a.jpg" and obj["width"] == 1280 and obj["height"] == 720
    assert obj["cards"][0] == {"code": "QH", "box": [10.3, 20.0, 30.0, 40.0], "conf": 0.97,
                               "design": None}
    assert obj["cards"][1]["code"] == "back" and obj["cards"][1]["design"] == "solid:0b6e4f"
    assert obj["cards"][1]["conf"] == 1.0
    for card in obj["cards"]:
        assert set(card) == {"code", "box", "conf", "design"}
        assert len(card["box"]) == 4
    assert json.loads(Detections.empty().to_json("x.png", 1, 1))["cards"] == []


def test_annotator_draws_boxes_and_labels():
    frame = np.zeros((120, 200, 3), np.uint8)
    dets = Detections.create([[20, 30, 80, 100], [120, 5, 180, 60]], [0.9, 0.4],
                             class_id=[0, 1], code=["QH", "back"], design=[None, "solid:1"])
    out = BoxAnnotator(thickness=2).annotate(frame, dets)
    assert out.shape == frame.shape and frame.max() == 0
    assert out[30:100, 20].max() > 0 and out[65, 50].max() == 0  # edge drawn, inside not
    corners = Detections.create([[20, 30, 80, 100]], corners=[[[20, 30], [80, 30], [80, 100],
                                                                [20, 100]]])
    assert BoxAnnotator(labels=False).annotate(frame, corners)[30:100, 20].max() > 0


def test_alternatives_stay_parallel_through_slicing_merging_and_nms():
    dets = Detections.create([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]],
                             [0.9, 0.5, 0.8], [0, 0, 0], ["AS", "2S", "KH"],
                             alternatives=[(("AC", 0.2),), (), (("KD", 0.3), ("QH", 0.1))])
    kept = dets.with_nms(0.5)
    assert kept.code.tolist() == ["AS", "KH"]
    assert kept.alternatives.tolist() == [(("AC", 0.2),), (("KD", 0.3), ("QH", 0.1))]
    both = Detections.merge([kept[1:], Detections.create([[0, 0, 1, 1]])])
    assert both.alternatives.tolist() == [(("KD", 0.3), ("QH", 0.1)), ()]
    assert both.offset(5, 5).alternatives.tolist() == both.alternatives.tolist()


def test_looks_stay_parallel_through_slicing_merging_and_nms():
    looks = [np.full((14, 10, 3), v, np.float16) for v in (1.0, 2.0)]
    dets = Detections.create([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]],
                             [0.9, 0.5, 0.8], [0, 0, 0], ["AS", "2S", "KH"],
                             look=[looks[0], None, looks[1]])
    kept = dets.with_nms(0.5)
    assert kept.code.tolist() == ["AS", "KH"]
    assert [float(x[0, 0, 0]) for x in kept.look] == [1.0, 2.0]
    both = Detections.merge([kept[1:], Detections.create([[0, 0, 1, 1]])])
    assert float(both.look[0][0, 0, 0]) == 2.0 and both.look[1] is None
    assert both.offset(5, 5).look[0] is both.look[0]
    with pytest.raises(ValueError, match="expected 1 entries, got 2"):
        Detections.create([[0, 0, 1, 1]], look=[None, None])


def test_a_box_belongs_to_a_region_by_its_centre_with_slack_or_by_a_share_of_its_area():
    from vision.detections import in_boxes

    region = [[100, 100, 200, 200]]
    boxes = np.array([[140, 140, 160, 160],    # inside
                      [197, 140, 217, 160],    # centre 207: outside, within slack 10
                      [205, 140, 225, 160],    # centre 215: outside even with slack
                      [76, 90, 116, 130],      # centre outside, 30 % of it inside
                      [0, 0, 10, 10]], np.float32)
    assert list(in_boxes(boxes, region)) == [True, False, False, True, False]
    assert list(in_boxes(boxes, region, slack=10)) == [True, True, False, True, False]
    assert list(in_boxes(boxes, region, share=0.35)) == [True, False, False, False, False]
    assert list(in_boxes(boxes, [])) == [False] * 5
    assert in_boxes(np.zeros((0, 4)), region).shape == (0,)
