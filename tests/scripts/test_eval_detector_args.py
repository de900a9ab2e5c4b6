"""``scripts.eval_detector`` refuses a failure-grid path it could not write, before any
work (it used to evaluate for minutes and then fail in OpenCV's writer)."""

from __future__ import annotations

import pytest

from scripts import eval_detector


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
