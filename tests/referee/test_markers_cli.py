"""``nertz markers`` and ``nertz calibrate``: real files written and read back."""

from __future__ import annotations

import re
import zlib

import cv2
import numpy as np
from typer.testing import CliRunner

from referee.cli import app
from vision.calibration import detect_markers
from vision.profile import TableProfile

runner = CliRunner()


def test_markers_png_holds_the_four_markers(tmp_path):
    out = tmp_path / "markers.png"
    res = runner.invoke(app, ["markers", "--out", str(out), "--dpi", "100"])
    assert res.exit_code == 0, res.output
    page = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert page.shape == (int(297 * 100 / 25.4), int(210 * 100 / 25.4))
    assert sorted(detect_markers(page)) == [0, 1, 2, 3]
    side = np.linalg.norm(detect_markers(page)[0][1] - detect_markers(page)[0][0])
    assert abs(side / 100 * 25.4 - 52.5) < 1.5  # true size when printed at 100 %


def test_markers_pdf_is_a_pdf_with_the_page(tmp_path):
    out = tmp_path / "markers.pdf"
    res = runner.invoke(app, ["markers", "--out", str(out), "--dpi", "100"])
    assert res.exit_code == 0, res.output
    data = out.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    w, h = (int(v) for v in re.search(rb"/Width (\d+) /Height (\d+)", data).groups())
    start = data.index(b"stream\n") + 7
    raw = zlib.decompress(data[start:data.index(b"\nendstream", start)])
    page = np.frombuffer(raw, np.uint8).reshape(h, w)
    assert sorted(detect_markers(page)) == [0, 1, 2, 3]


def test_markers_refuses_other_formats(tmp_path):
    res = runner.invoke(app, ["markers", "--out", str(tmp_path / "m.txt")])
    assert res.exit_code == 2 and "pdf" in res.output


def test_calibrate_from_corners_writes_a_profile(tmp_path):
    out = tmp_path / "table.toml"
    res = runner.invoke(app, ["calibrate", "--out", str(out), "--seats", "4", "--size",
                              "1400x900", "--corners", "100,80;1180,90;1200,650;90,640"])
    assert res.exit_code == 0, res.output
    profile = TableProfile.load(out)
    assert len(profile.seats) == 4 and profile.markers is None
    mm = profile.plane.to_mm(np.array([[100.0, 80.0], [1200.0, 650.0]]))
    assert np.allclose(mm, [[-700, -450], [700, 450]], atol=0.01)


def test_calibrate_names_the_bad_field(tmp_path):
    res = runner.invoke(app, ["calibrate", "--out", str(tmp_path / "t.toml"), "--seats", "6",
                              "--size", "1000x800"])
    assert res.exit_code == 2 and "overlap" in res.output
    res = runner.invoke(app, ["calibrate", "--out", str(tmp_path / "t.toml"), "--corners",
                              "1,2;3,4"])
    assert res.exit_code == 2 and "corners" in res.output
