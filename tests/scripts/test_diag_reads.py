"""scripts.diag_reads: per-place read accuracy of kept observations against labels."""

from __future__ import annotations

from scripts.diag_reads import compare
from vision.observation import Observation, PlaceView, SeenCard

BOX = (0.0, 0.0, 10.0, 10.0)


def _label(place: str, code: str) -> dict:
    return {"code": code, "box": list(BOX), "place": place, "depth": 0, "z": 0,
            "face_up": True, "indices": [{"visible": 1.0}]}


def test_misreads_and_lake_piles_matched_by_code():
    labels = [{"frame": 0, "t_ms": 0, "hands": [],
               "cards": [_label("seat0:nertz", "AS"), _label("seat0:river0", "KH"),
                         _label("lake:0", "2C")]}]
    obs = [Observation(0, 0.0, {
        "seat0:nertz": PlaceView("seat0:nertz", [SeenCard("AC", BOX)]),
        "seat0:river0": PlaceView("seat0:river0", [SeenCard("KH", BOX)]),
        "lake:3": PlaceView("lake:3", [SeenCard("2C", BOX)]),  # the model's own pile id
    })]
    tally, misreads = compare(obs, labels)
    assert tally[("nertz", False)] == 1 and tally[("river", True)] == 1
    assert tally[("lake", True)] == 1
    assert misreads == {("AS", "AC", "nertz"): 1}
