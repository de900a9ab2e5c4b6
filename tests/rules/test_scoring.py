import pytest

from rules import HouseRules, Match, score_round


def round_score(rules, scores_by_seat):
    """A RoundScore whose scores are exactly the given numbers (lake cards only)."""
    n = len(scores_by_seat)
    return score_round(rules, list(scores_by_seat), [0] * n, [0] * n, None, "call")


def test_round_arithmetic_and_options():
    rules = HouseRules(call_bonus=25, nertz_penalty=2, false_call_penalty=-5)
    s = score_round(rules, [10, 4, 7], [0, 5, 2], [0, 1, 2], caller=0, reason="call")
    assert s.scores == [10 + 25, 4 - 10 - 5, 7 - 4 - 10]
    assert s.bonus == [25, 0, 0]
    zero = score_round(HouseRules(nertz_penalty=0), [3, 1], [0, 9], [0, 0], 0, "call")
    assert zero.scores == [3, 1]
    stalled = score_round(rules, [3, 1], [2, 9], [0, 0], None, "stall")
    assert stalled.scores == [-1, -17] and stalled.bonus == [0, 0]


def test_target_reached_by_one():
    rules = HouseRules(target=50)
    m = Match(rules, 3)
    assert m.add(round_score(rules, [30, 20, 10])) is None
    out = m.add(round_score(rules, [25, 20, 10]))
    assert out.winner == 0 and out.reason == "target" and out.totals == [55, 40, 20]
    with pytest.raises(ValueError, match="already decided"):
        m.add(round_score(rules, [1, 1, 1]))


def test_tiebreak_round_score_then_playoff():
    rules = HouseRules(target=50, tiebreak="round_score")
    m = Match(rules, 3)
    m.add(round_score(rules, [45, 40, 0]))
    out = m.add(round_score(rules, [6, 12, 0]))  # both past 50: seat 1 had the better round
    assert out.winner == 1 and out.reason == "round_score"
    m2 = Match(rules, 3)
    m2.add(round_score(rules, [45, 40, 0]))
    assert m2.add(round_score(rules, [10, 10, 0])) is None  # same round score: play on
    assert m2.contenders == [0, 1]
    out = m2.add(round_score(rules, [3, 9, 30]))  # only the contenders count
    assert out.winner == 1


def test_tiebreak_extra_round_by_totals():
    rules = HouseRules(target=50, tiebreak="extra_round")
    m = Match(rules, 2)
    assert m.add(round_score(rules, [60, 40])).winner == 0  # only one past the target
    m3 = Match(rules, 2)
    m3.add(round_score(rules, [49, 45]))
    assert m3.add(round_score(rules, [10, 6])) is None  # both past: one more round
    out = m3.add(round_score(rules, [0, 12]))
    assert out.winner == 1 and out.reason == "extra_round" and out.totals == [59, 63]


def test_fixed_rounds():
    rules = HouseRules.preset("racing-demon", fixed_rounds=3)
    m = Match(rules, 2)
    assert m.add(round_score(rules, [200, 0])) is None  # the target does not end it
    assert m.add(round_score(rules, [0, 10])) is None
    out = m.add(round_score(rules, [0, 10]))
    assert out.winner == 0 and out.reason == "fixed_rounds" and out.rounds == 3


def test_teams_totals():
    rules = HouseRules.preset("teams", target=30)
    m = Match(rules, 4)
    s = score_round(rules, [10, 12, 5, 4], [0, 0, 0, 0], [0, 0, 0, 0], 0, "call")
    assert s.team_scores == [22, 9]
    out = m.add(s)
    assert out is None or out.winner == 0
    assert m.totals == [22, 9]
    out = m.add(score_round(rules, [5, 5, 1, 1], [0] * 4, [0] * 4, 0, "call"))
    assert out.winner == 0 and out.totals == [32, 11]
