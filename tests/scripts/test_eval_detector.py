"""``scripts.eval_detector``: the failure-grid path is checked before any work (it used to
evaluate for minutes and then fail in OpenCV's writer); the rank glyph's size by which the
goal's range is told."""

from __future__ import annotations

import pytest

from scripts import eval_detector

from ..vision.conftest import NEEDS_ARTWORK


@pytest.mark.parametrize("name", ["grid", "grid.txt"])
def test_a_failure_grid_named_without_an_image_extension_is_refused(tmp_path, capsys, name):
    with pytest.raises(SystemExit) as exit_info:
        eval_detector.main(["--failures", str(tmp_path / name), "--no-renders"])
    assert exit_info.value.code == 2
    assert "name an image file" in capsys.readouterr().err


def test_a_failure_grid_in_a_missing_folder_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        eval_detector.main(["--failures", str(tmp_path / "no" / "grid.png"), "--no-renders"])
    assert exit_info.value.code == 2
    assert "its folder does not exist" in capsys.readouterr().err


@NEEDS_ARTWORK
def test_the_rank_glyph_is_measured_from_the_decks_ink(card_cache):
    share = eval_detector.rank_glyph_share("gnome-simplistic", "4H")
    assert 0.4 < share < 0.7  # the rank over a smaller suit pip
    card = {"deck": "gnome-simplistic", "card": "4H", "indices": [
        {"visible": 1.0, "quad": [[0, 0], [8, 0], [8, 20], [0, 20]]},   # 20 px tall
        {"visible": 0.4, "quad": [[0, 0], [16, 0], [16, 40], [0, 40]]}]}  # hidden: no
    assert eval_detector.glyph_px(card) == pytest.approx(20 * share)


def test_a_turned_photos_card_is_found_only_by_a_report_on_the_card_itself(tmp_path):
    # two cards side by side, labelled upright; the photo turned by 45°: the box around the
    # turned second card takes in the first card's centre, but the one report (on the first
    # card) is not on the second card
    import cv2
    import numpy as np

    from vision.crops import turn_image
    from vision.detections import Detections
    from vision.detector import FACE

    (tmp_path / "images" / "test").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "test" / "a.png"), np.zeros((200, 300, 3), np.uint8))
    rows = ["filename,width,height,class,xmin,ymin,xmax,ymax",
            "a.png,300,200,ace,50,50,110,140", "a.png,300,200,king,112,50,172,140"]
    (tmp_path / "images" / "test_labels.csv").write_text("\n".join(rows) + "\n")
    _turned, m = turn_image(np.zeros((200, 300, 3), np.uint8), 45.0)
    centre = m @ np.array([80.0, 95.0, 1.0])  # the first card's centre, turned

    def detector(image):
        box = np.array([[*(centre - 20), *(centre + 20)]], np.float32)
        return Detections.create(box, np.array([0.9]), [FACE], ["AS"], [None])

    upright_centre = np.array([80.0, 95.0])

    def upright(image):
        box = np.array([[*(upright_centre - 20), *(upright_centre + 20)]], np.float32)
        return Detections.create(box, np.array([0.9]), [FACE], ["AS"], [None])

    for fn, turn in ((detector, 45.0), (upright, 0.0)):
        failures: list = []
        scores = eval_detector.eval_cluttered(fn, tmp_path, failures, turn)
        assert scores["box_recall"] == 0.5 and scores["rank_of_all"] == 0.5, (turn, scores)
        # the missed king goes to the failure grid, marked with the photo's turn, its
        # labelled outline drawn green on its crop
        [(crop, truth, read)] = failures
        assert truth == "K" and read == ("miss@45" if turn else "miss")
        green = (crop[:, :, 1] > 150) & (crop[:, :, 0] < 60) & (crop[:, :, 2] < 60)
        assert crop.size and green.any()
    grid = tmp_path / "grid.png"
    eval_detector.failure_grid(failures, grid)
    assert cv2.imread(str(grid)) is not None
    # the other split: its own labels and folder
    (tmp_path / "images" / "train").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "train" / "a.png"), np.zeros((200, 300, 3), np.uint8))
    (tmp_path / "images" / "train_labels.csv").write_text("\n".join(rows[:2]) + "\n")
    scores = eval_detector.eval_cluttered(upright, tmp_path, [], 0.0, split="train")
    assert scores["cards"] == 1 and scores["box_recall"] == 1.0


def test_a_turned_photos_corners_are_filled_as_asked(tmp_path):
    import cv2
    import numpy as np

    from vision.detections import Detections

    (tmp_path / "images" / "test").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "test" / "a.png"), np.full((200, 300, 3), 30, np.uint8))
    (tmp_path / "images" / "test_labels.csv").write_text(
        "filename,width,height,class,xmin,ymin,xmax,ymax\na.png,300,200,ace,50,50,110,140\n")
    seen = []

    def detector(image):
        seen.append(tuple(int(v) for v in image[0, 0]))
        return Detections.create(np.zeros((0, 4), np.float32), np.zeros(0), [], [], [])

    for border in ("grey", "edge"):
        eval_detector.eval_cluttered(detector, tmp_path, [], 30.0, border=border)
    assert seen == [(128, 128, 128), (30, 30, 30)]
    with pytest.raises(SystemExit):
        eval_detector.main(["--no-renders", "--turn-border", "mirror"])
