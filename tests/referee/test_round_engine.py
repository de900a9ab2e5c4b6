"""The service's round engine fed a vision source's events: the deal holds hidden cards,
so the engine cannot replay it and keeps tallies; the source's own score (its tracker's)
is what it reports when the source gives one."""

from __future__ import annotations

from referee.live import RoundEngine
from rules import HouseRules

RIVER = [["KS", "QD", "9C", "7H"], ["KH", "QC", "9D", "7S"]]


class _Source:
    """What a source's own rules engine answers (a vision pipeline's tracker)."""

    def __init__(self, score: dict | None = None, table: object = None) -> None:
        self._score, self._table = score, table

    def score(self) -> dict | None:
        return self._score

    def table(self) -> object:
        return self._table


def _vision_round() -> RoundEngine:
    engine = RoundEngine(2, HouseRules.preset("nertz"))
    engine.feed({"type": "round_start", "t_ms": 0, "seats": 2})
    for seat, top in enumerate(("AS", "AH")):
        engine.feed({"type": "deal", "t_ms": 0, "seat": seat,
                     "nertz": [None] * 12 + [top], "river": [[c] for c in RIVER[seat]],
                     "stock": [None] * 35})
    return engine


def test_a_vision_deal_is_kept_as_tallies():
    engine = _vision_round()
    assert engine.passthrough
    engine.feed({"type": "move", "t_ms": 100, "seat": 0, "card": "AS", "from": "seat0:nertz",
                 "to": "lake:0", "n": 1})
    score = engine.score()
    assert score["lake_cards"] == [1, 0] and score["nertz_left"] == [12, 13]


def test_a_tallied_nertz_card_leaves_once_when_it_went_unseen_and_came_back():
    engine = _vision_round()
    engine.feed({"type": "unseen", "t_ms": 100, "seat": 1, "card": "AH",
                 "from": "seat1:nertz"})
    assert engine.score()["nertz_left"] == [13, 12]
    engine.feed({"type": "move", "t_ms": 900, "seat": 1, "card": "AH", "from": "seat1:nertz",
                 "to": "lake:0", "n": 1, "lost": True})
    score = engine.score()
    assert score["lake_cards"] == [0, 1] and score["nertz_left"] == [13, 12]


def test_the_sources_own_score_is_reported_and_ends_the_round():
    engine = _vision_round()
    engine.feed({"type": "move", "t_ms": 100, "seat": 0, "card": "AS", "from": "seat0:nertz",
                 "to": "lake:0", "n": 1})
    # the tracker decided later that this AS lay on another seat's identical card and does
    # not count, and that seat 1 had emptied its pile: its engine's score is the truth here
    tracked = {"lake_cards": [0, 13], "nertz_left": [12, 0], "false_calls": [0, 0],
               "bonus": [0, 0], "scores": [-24, 13], "reason": "call", "caller": 1}
    engine.source = _Source(score=tracked)
    assert engine.score()["scores"] == [-24, 13]
    out, problems = engine.feed({"type": "call", "t_ms": 900, "seat": 1, "valid": True})
    assert not problems and engine.ended
    end = out[-1]
    assert end["type"] == "round_end" and end["scores"] == [-24, 13]
    assert engine.score()["lake_cards"] == [0, 13]


def test_the_live_view_draws_the_sources_own_table():
    from rules.cards import Card
    from rules.table import Layout, Table

    engine = _vision_round()
    assert engine.state()["lake"] == []  # tallies only: nothing to draw
    layouts = [Layout([Card.parse(c, k) for c in ("2C", top)],
                      [[Card.parse(c, k)] for c in RIVER[k]], [Card.parse("3C", k)])
               for k, top in enumerate(("AS", "AH"))]
    engine.source = _Source(table=Table(layouts, HouseRules.preset("nertz")))
    state = engine.state()
    assert state["passthrough"] and [s["nertz_top"] for s in state["seats"]] == ["AS", "AH"]
    assert state["seats"][0]["river"] == [[c] for c in RIVER[0]]
