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
