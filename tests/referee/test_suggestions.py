"""Corrections: the suggested alternatives of a recorded move."""

from __future__ import annotations

from referee.live import rebuild
from rules import HouseRules
from rules.simulator import simulate_round


def test_the_readers_other_likely_read_is_suggested_first():
    rules = HouseRules()
    events = simulate_round(2, rules, seed=3)
    for i, move in enumerate(events):
        if move["type"] != "move":
            continue
        engine, _log, problems = rebuild(2, rules, 1, events[:i])
        assert not problems
        other = next((m for m in engine.table.card_moves(move["seat"])
                      if m.dst != move["to"] and m.src != move["from"]
                      and m.card != move["card"]), None)
        if other is not None:
            break
    else:
        raise AssertionError("no move with another legal move elsewhere")
    def others(found: list[dict]) -> list[tuple[str, str]]:  # not the recorded move
        return [(m["card"], m["to"]) for m in found
                if (m["card"], m["to"]) != (move["card"], move["to"])]

    # without the reader's word, moves like the recorded one (its destination, source,
    # rank, suit) come first
    plain = others(engine.suggestions(move["seat"], move["card"], move["to"], move["from"]))
    assert not plain or plain[0] != (other.card, other.dst)
    # the reader found the other card likely too: it is suggested first
    suggested = others(engine.suggestions(move["seat"], move["card"], move["to"],
                                          move["from"], [[other.card, 0.31], ["QS", 0.05]]))
    assert suggested[0] == (other.card, other.dst)
