import pytest

from rules import (
    Call,
    Draw,
    EndRound,
    HouseRules,
    Illegal,
    ImpossibleAction,
    Move,
    OrderError,
    Pass,
    Recycle,
    Retract,
    Rotate,
    SetAside,
    Table,
    Unseen,
)

from .helpers import layout, table, two_seats


def rule(t: Table, action) -> str | None:
    verdict = t.is_legal(action)
    return None if verdict is True else verdict.rule


def test_deal_follows_rules_md():
    t = Table.deal(4, HouseRules(), seed=7)
    for lo in t.layouts:
        assert len(lo.nertz) == 13 and len(lo.river) == 4 and len(lo.stock) == 35
        assert all(len(col) == 1 for col in lo.river) and not lo.waste
    assert Table.deal(3, HouseRules.preset("pounce"), seed=1).layouts[0].stock.__len__() == 34
    assert [c.code for c in Table.deal(2, seed=5).layouts[1].nertz] == [
        c.code for c in Table.deal(2, seed=5).layouts[1].nertz]
    with pytest.raises(ValueError, match="2 to 8"):
        Table.deal(9)


def test_is_legal_is_true_or_a_falsy_reason():
    t = two_seats(["KH", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]])
    assert t.is_legal(Move(0, "AS", "seat0:nertz", "lake:0")) is True
    verdict = t.is_legal(Move(0, "9S", "seat0:river0", "lake:0"))
    assert isinstance(verdict, Illegal) and not verdict and verdict.rule == "foundation_needs_ace"


def test_foundations_build_up_by_suit():
    t = two_seats(["3S", "2H", "2S", "AS"], [["AH"], ["8H"], ["7S"], ["QD"]])
    assert t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100) == []
    assert rule(t, Move(0, "AH", "seat0:river0", "lake:0")) == "foundation_suit"
    assert rule(t, Move(0, "2S", "seat0:nertz", "lake:0")) is None
    t.push(Move(0, "AH", "seat0:river0", "lake:1"), 200)
    t.push(Move(0, "2S", "seat0:nertz", "lake:0"), 300)
    assert rule(t, Move(0, "2H", "seat0:nertz", "lake:0")) == "foundation_suit"
    t.push(Move(0, "2H", "seat0:nertz", "lake:1"), 400)
    assert rule(t, Move(0, "3S", "seat0:nertz", "lake:0")) is None
    assert rule(t, Move(0, "3S", "seat0:nertz", "lake:1")) == "foundation_suit"
    assert t.score().lake_cards == [4, 0]


def test_foundation_rank_and_needs_ace():
    t = two_seats(["4S", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]])
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 10)
    assert rule(t, Move(0, "4S", "seat0:nertz", "lake:0")) == "foundation_rank"
    assert rule(t, Move(0, "4S", "seat0:nertz", "lake:1")) == "foundation_needs_ace"
    with pytest.raises(ImpossibleAction, match="skips a lake index"):
        t.push(Move(0, "4S", "seat0:nertz", "lake:5"), 20)


def test_lake_takes_one_card_at_a_time():
    t = two_seats(["KC"], [["AS"], ["8H"], ["7S"], ["QD"]])
    t.push(Move(0, "AS", "seat0:river0", "lake:0"), 0)
    t2 = two_seats(["KC"], [["3D", "2S"], ["8H"], ["7S"], ["QD"]])
    assert rule(t2, Move(0, "3D", "seat0:river0", "lake:0", n=2)) == "lake_one_card"


def test_river_colour_and_rank():
    t = two_seats(["KC"], [["9S"], ["8H"], ["8C"], ["7D"]])
    assert rule(t, Move(0, "8H", "seat0:river1", "seat0:river0")) is None
    assert rule(t, Move(0, "8C", "seat0:river2", "seat0:river0")) == "river_colour"
    assert rule(t, Move(0, "7D", "seat0:river3", "seat0:river0")) == "river_rank"
    t.push(Move(0, "8H", "seat0:river1", "seat0:river0"), 0)
    # a run moves together onto a matching card
    t3 = two_seats(["KC"], [["9S", "8H"], ["10D"], ["8C"], ["7D"]])
    assert rule(t3, Move(0, "9S", "seat0:river0", "seat0:river1", n=2)) is None
    t3.push(Move(0, "9S", "seat0:river0", "seat0:river1", n=2), 5)
    assert [c.code for c in t3.pile("seat0:river1")] == ["10D", "9S", "8H"]
    assert t3.pile("seat0:river0") == []


def test_run_must_be_ordered():
    t = two_seats(["KC"], [["9S", "5H"], ["10D"], ["8C"], ["7D"]])
    assert rule(t, Move(0, "9S", "seat0:river0", "seat0:river1", n=2)) == "run_not_ordered"
    with pytest.raises(ImpossibleAction, match="run of 3"):
        t.push(Move(0, "9S", "seat0:river0", "seat0:river1", n=3), 0)


def test_not_your_card_and_not_your_layout():
    t = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["AD"]])
    assert rule(t, Move(1, "AD", "seat0:river3", "lake:0")) == "not_your_card"
    assert rule(t, Move(0, "8H", "seat0:river1", "seat1:river0")) == "not_your_layout"
    flags = t.push(Move(1, "AD", "seat0:river3", "lake:0"), 100)
    assert [f.rule for f in flags] == ["not_your_card"]
    assert t.score().lake_cards == [0, 0]  # a stolen card does not score


def test_not_playable_and_bad_destination():
    t = two_seats(["KC", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]], waste0=["AH", "5C"])
    assert rule(t, Move(0, "KC", "seat0:nertz", "lake:0")) == "not_playable"
    assert rule(t, Move(0, "AH", "seat0:waste", "lake:0")) == "not_playable"
    stock_top = t.layouts[0].stock[0].code
    assert rule(t, Move(0, stock_top, "seat0:stock", "seat0:river0")) == "not_playable"
    assert rule(t, Move(0, "5C", "seat0:waste", "seat0:nertz")) == "bad_destination"
    assert rule(t, Move(0, "AS", "seat0:nertz", "seat0:waste")) == "bad_destination"
    with pytest.raises(ImpossibleAction, match="not in seat0:nertz"):
        t.push(Move(0, "2D", "seat0:nertz", "lake:0"), 0)


def test_empty_column_fill_options():
    river = [["KS"], ["8H"], ["7S"], []]
    anyfill = two_seats(["QC"], river, waste0=["4D"])
    assert rule(anyfill, Move(0, "4D", "seat0:waste", "seat0:river3")) is None
    strict = two_seats(["QC"], river, waste0=["4D"], empty_column_fill="nertz_first")
    assert rule(strict, Move(0, "4D", "seat0:waste", "seat0:river3")) == (
        "empty_column_nertz_first")
    assert rule(strict, Move(0, "7S", "seat0:river2", "seat0:river3")) == (
        "empty_column_nertz_first")
    assert rule(strict, Move(0, "QC", "seat0:nertz", "seat0:river3")) is None
    empty_nertz = two_seats([], river, waste0=["4D"], empty_column_fill="nertz_first")
    assert rule(empty_nertz, Move(0, "4D", "seat0:waste", "seat0:river3")) is None


def test_slide_under():
    river = [["QS", "JH"], ["8H"], ["7S"], []]
    off = two_seats(["KD"], river)
    assert rule(off, Move(0, "KD", "seat0:nertz", "seat0:river0", under=True)) == (
        "slide_under_off")
    on = two_seats(["KD"], river, slide_under=True)
    assert rule(on, Move(0, "KD", "seat0:nertz", "seat0:river0", under=True)) is None
    on.push(Move(0, "KD", "seat0:nertz", "seat0:river0", under=True), 0)
    assert [c.code for c in on.pile("seat0:river0")] == ["KD", "QS", "JH"]
    full = two_seats(["KD"], [["QS"], ["8H"], ["7S"], ["2C"]], slide_under=True)
    assert rule(full, Move(0, "KD", "seat0:nertz", "seat0:river0", under=True)) == (
        "slide_under_needs_empty_column")
    wrong = two_seats(["KC"], river, slide_under=True)
    assert rule(wrong, Move(0, "KC", "seat0:nertz", "seat0:river0", under=True)) == (
        "river_colour")


def test_draw_three_one_and_recycle_order():
    t = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["QD"]])
    stock = [c.code for c in t.layouts[0].stock]
    t.push(Draw(0), 10)
    assert [c.code for c in t.layouts[0].waste] == stock[:3]
    while t.layouts[0].stock:
        t.push(Draw(0), 20)
    assert rule(t, Draw(0)) == "impossible"
    t.push(Recycle(0), 30)
    assert [c.code for c in t.layouts[0].stock] == stock  # unshuffled
    assert t.layouts[0].waste == []
    one = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["QD"]], draw=1)
    one.push(Draw(0), 0)
    assert len(one.layouts[0].waste) == 1


def test_redeals_and_stock_not_empty():
    t = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["QD"]], draw=1, redeals=1)
    t.push(Draw(0), 0)
    assert rule(t, Recycle(0)) == "stock_not_empty"
    while t.layouts[0].stock:
        t.push(Draw(0), 0)
    t.push(Recycle(0), 1)
    while t.layouts[0].stock:
        t.push(Draw(0), 2)
    assert rule(t, Recycle(0)) == "redeals_exhausted"
    assert Recycle(0) not in set(t.legal_moves(0))


def test_rotate_moves_top_stock_card_to_bottom():
    t = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["QD"]])
    top = t.layouts[0].stock[0]
    t.push(Rotate(0), 0)
    assert t.layouts[0].stock[-1] == top
    t.pop()
    assert t.layouts[0].stock[0] == top


def test_true_and_false_calls():
    t = two_seats(["AS"], [["9S"], ["8H"], ["7S"], ["QD"]], call_bonus=10)
    flags = t.push(Call(0), 100)
    assert [f.rule for f in flags] == ["false_call"] and not t.ended
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 200)
    assert t.nertz_emptied_at == {0: 200}
    assert t.push(Call(0), 300) == [] and t.ended and t.caller == 0
    s = t.score()
    assert s.false_calls == [1, 0] and s.bonus == [10, 0]
    assert s.scores == [1 - 5 + 10, -2 * 2]


def test_moves_after_the_round_ended_and_grace():
    t = two_seats(["AS"], [["9S"], ["8H"], ["7S"], ["AD"]])
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100)
    t.push(Call(0), 200)
    assert rule(t, Move(0, "AD", "seat0:river3", "lake:1")) is None  # at the call instant
    assert t.check(Move(0, "AD", "seat0:river3", "lake:1"), 201).rule == "round_over"
    t.push(Move(0, "AD", "seat0:river3", "lake:1"), 250)
    assert t.score().lake_cards == [1, 0]
    graced = two_seats(["AS"], [["9S"], ["8H"], ["7S"], ["AD"]], call_grace_ms=500)
    graced.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100)
    graced.push(Call(0), 200)
    assert graced.push(Move(0, "AD", "seat0:river3", "lake:1"), 650) == []
    assert graced.score().lake_cards == [2, 0]


def test_misplacement_taken_back_in_time_is_corrected():
    t = two_seats(["5H", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]])
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100)
    [flag] = t.push(Move(0, "5H", "seat0:nertz", "lake:0"), 1000)
    assert flag.rule == "foundation_suit" and not flag.corrected
    assert t.score().lake_cards == [1, 0]
    assert rule(t, Retract(0, "5H", "lake:0", "seat0:waste")) == "retract_elsewhere"
    assert rule(t, Retract(1, "5H", "lake:0", "seat0:nertz")) == "not_your_card"
    assert t.push(Retract(0, "5H", "lake:0", "seat0:nertz"), 2500) == []
    assert flag.corrected and flag.corrected_at == 2500
    assert [c.code for c in t.layouts[0].nertz] == ["5H"]
    assert t.nertz_emptied_at == {}  # emptied at 1000 ms, holds a card again since 2500
    late = two_seats(["5H", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]])
    late.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100)
    [flag] = late.push(Move(0, "5H", "seat0:nertz", "lake:0"), 1000)
    late.push(Retract(0, "5H", "lake:0", "seat0:nertz"), 9000)
    assert not flag.corrected


def test_legal_card_is_never_taken_back():
    t = two_seats(["KC", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]])
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100)
    assert rule(t, Retract(0, "AS", "lake:0", "seat0:nertz")) == "retract_legal_card"


def test_river_misplacement_retract():
    t = two_seats(["KC"], [["9S"], ["8C"], ["7S"], ["QD"]])
    [flag] = t.push(Move(0, "8C", "seat0:river1", "seat0:river0"), 100)
    assert flag.rule == "river_colour"
    t.push(Retract(0, "8C", "seat0:river0", "seat0:river1"), 900)
    assert flag.corrected


@pytest.mark.parametrize("tie_rule,counted", [("bottom", (1, 0)), ("top", (0, 1)),
                                               ("both", (1, 1))])
def test_simultaneous_placements_follow_tie_rule(tie_rule, counted):
    t = table(layout(0, ["2S"], [["9S"], ["8H"], ["7S"], ["AS"]]),
              layout(1, ["2S"], [["9C"], ["8D"], ["7C"], ["QD"]]), tie_rule=tie_rule)
    t.push(Move(0, "AS", "seat0:river3", "lake:0"), 100)
    assert t.push(Move(0, "2S", "seat0:nertz", "lake:0"), 500) == []
    assert t.push(Move(1, "2S", "seat1:nertz", "lake:0"), 500) == []
    lake = t.score().lake_cards
    assert (lake[0] - 1, lake[1]) == counted
    if tie_rule != "both":
        loser = 1 if tie_rule == "bottom" else 0
        t.push(Retract(loser, "2S", "lake:0", f"seat{loser}:nertz"), 900)
        assert t.nertz_count(loser) == 1
    # one instant later the same card is simply illegal
    t2 = table(layout(0, ["2S"], [["9S"], ["8H"], ["7S"], ["AS"]]),
               layout(1, ["2S"], [["9C"], ["8D"], ["7C"], ["QD"]]), tie_rule=tie_rule)
    t2.push(Move(0, "AS", "seat0:river3", "lake:0"), 100)
    t2.push(Move(0, "2S", "seat0:nertz", "lake:0"), 500)
    assert [f.rule for f in t2.push(Move(1, "2S", "seat1:nertz", "lake:0"), 510)] == [
        "foundation_rank"]


def test_set_aside_finished_foundation():
    spades = ["KS", "QS", "JS", "10S", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S", "AS"]
    t = table(layout(0, spades, [["9H"], ["8H"], ["7H"], ["QD"]]),
              layout(1, ["2C"], [["9C"], ["8D"], ["7C"], ["QH"]]))
    assert rule(t, SetAside("lake:0")) == "impossible"
    for n, code in enumerate(reversed(spades)):
        t.push(Move(0, code, "seat0:nertz", "lake:0"), n * 100)
        if code != "KS":
            assert rule(t, SetAside("lake:0")) == "foundation_not_complete"
    t.push(SetAside("lake:0"), 5000)
    assert t.lake[0].set_aside and t.score().lake_cards == [13, 0]
    with pytest.raises(ImpossibleAction, match="set aside"):
        t.push(Move(1, "2C", "seat1:nertz", "lake:0"), 6000)


def test_a_card_that_left_unseen_leaves_the_pile_and_scores_nowhere():
    # the referee saw seat 0's nertz pile empty but not where its last cards went
    t = two_seats(["KH", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]])
    with pytest.raises(ImpossibleAction, match="not the top"):
        t.push(Unseen(0, "KH", "seat0:nertz"), 100)  # only the top card can leave
    with pytest.raises(ImpossibleAction, match="seat0 has no"):
        t.push(Unseen(0, "2C", "seat1:nertz"), 100)
    assert t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 100) == []
    assert rule(t, Call(0)) == "false_call"
    assert t.push(Unseen(0, "KH", "seat0:nertz"), 200) == []  # no rule broken
    assert t.nertz_count(0) == 0 and t.nertz_emptied_at == {0: 200}
    assert rule(t, Call(0)) is None
    score = t.score()
    assert score.lake_cards == [1, 0] and score.nertz_left == [0, 2]
    t.pop()  # undone like any action
    assert [c.code for c in t.layouts[0].nertz] == ["KH"] and t.nertz_emptied_at == {}
    with pytest.raises(ValueError, match="nertz pile, waste or river"):
        Unseen(0, "KH", "lake:0")
    with pytest.raises(ValueError, match="not a card code"):
        Unseen(0, "1X", "seat0:nertz")


def test_a_lost_card_that_shows_again_is_played_from_the_seats_lost_cards():
    # the camera saw seat 0's column empty, not where its 2S went; later it lands on the lake
    t = two_seats(["KH", "AS"], [["9S"], ["8H"], ["2S"], ["QD"]])
    t.push(Unseen(0, "2S", "seat0:river2"), 100)
    assert [c.code for c in t.layouts[0].lost] == ["2S"] and t.layouts[0].river[2] == []
    back = Move(0, "2S", "seat0:river2", "lake:0", lost=True)
    with pytest.raises(ImpossibleAction, match="skips a lake index"):
        t.push(Move(0, "2S", "seat0:river2", "lake:1", lost=True), 150)
    assert rule(t, back) == "foundation_needs_ace"  # its target is judged as usual
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 200)
    with pytest.raises(ImpossibleAction, match="not in seat1's lost cards"):
        t.push(Move(1, "2S", "seat1:river2", "lake:0", lost=True), 250)
    assert rule(t, Move(1, "2S", "seat0:river2", "lake:0", lost=True)) == "not_your_card"
    assert t.push(back, 300) == []
    assert t.layouts[0].lost == [] and t.score().lake_cards == [2, 0]
    assert t.lake[0].codes() == ["AS", "2S"]
    t.pop()  # undone like any action: the card is lost again
    assert [c.code for c in t.layouts[0].lost] == ["2S"] and t.lake[0].codes() == ["AS"]
    t.pop()
    t.pop()  # the unseen record undone: the card is back on its column
    assert [c.code for c in t.layouts[0].river[2]] == ["2S"] and t.layouts[0].lost == []
    with pytest.raises(ValueError, match="one card at a time"):
        Move(0, "2S", "seat0:river2", "lake:0", n=2, lost=True)


def test_a_lost_card_goes_back_into_play_on_a_column_and_by_itself():
    # two cards lost from one column: the upper one shows again, the lower stays lost
    t = two_seats(["KH", "AS"], [["9S", "8H"], ["7C"], ["2S"], ["QD"]])
    t.push(Unseen(0, "8H", "seat0:river0"), 100)
    t.push(Unseen(0, "9S", "seat0:river0"), 110)
    assert [c.code for c in t.layouts[0].lost] == ["8H", "9S"]
    assert t.push(Move(0, "8H", "seat0:river0", "seat0:river0", lost=True), 200) == []
    assert [c.code for c in t.layouts[0].river[0]] == ["8H"]
    assert [c.code for c in t.layouts[0].lost] == ["9S"]
    assert rule(t, Move(0, "9S", "seat0:river0", "seat0:river1", lost=True)) == "river_colour"


def test_jokers_need_a_declaration_and_are_wild_in_the_river():
    rules = HouseRules.preset("jokers")
    t = table(layout(0, ["JKR", "AS"], [["9S"], ["8H"], ["7S"], ["QD"]], jokers=True),
              layout(1, ["2C"], [["9C"], ["8D"], ["7C"], ["QH"]], jokers=True), rules=rules)
    assert len(t.layouts[0].stock) == 54 - 2 - 4
    t.push(Move(0, "AS", "seat0:nertz", "lake:0"), 0)
    assert rule(t, Move(0, "JKR", "seat0:nertz", "lake:0")) == "joker_undeclared"
    assert rule(t, Move(0, "JKR", "seat0:nertz", "lake:0", declared="3S")) == (
        "foundation_rank")
    assert rule(t, Move(0, "JKR", "seat0:nertz", "seat0:river1")) is None
    t.push(Move(0, "JKR", "seat0:nertz", "lake:0", declared="2S"), 100)
    assert t.lake[0].next_rank == 3 and t.score().lake_cards == [2, 0]


def test_turn_based_play():
    rules = HouseRules.preset("turn-based")
    t = table(layout(0, ["KC"], [["9S"], ["8H"], ["7S"], ["AD"]]),
              layout(1, ["2C"], [["9C"], ["8D"], ["7C"], ["AH"]]), rules=rules)
    assert rule(t, Move(1, "AH", "seat1:river3", "lake:0")) == "not_your_turn"
    t.push(Move(0, "AD", "seat0:river3", "lake:0"), 0)
    t.push(Draw(0), 10)
    assert t.turn == 1
    assert rule(t, Move(1, "AH", "seat1:river3", "lake:1")) is None
    t.push(Pass(1), 20)
    assert t.turn == 0
    assert rule(two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["AD"]]), Pass(0)) == "not_turn_based"


def test_teams_call_on_partner_pile_and_add_scores():
    rules = HouseRules.preset("teams")
    t = table(layout(0, ["KC"], [["9S"], ["8H"], ["7S"], ["AD"]]),
              layout(1, [], [["9C"], ["8D"], ["7C"], ["AH"]]),
              layout(2, ["2C", "3C"], [["9C"], ["8D"], ["7C"], ["QH"]]),
              layout(3, ["2D"], [["9C"], ["8D"], ["7C"], ["QH"]]), rules=rules)
    t.push(Move(1, "AH", "seat1:river3", "lake:0"), 10)
    assert t.push(Call(0), 50) == []  # the partner's pile is empty
    s = t.score()
    assert s.scores == [-2, 1, -4, -2] and s.team_scores == [-1, -6]


def test_stall_end_and_abandon():
    t = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["QD"]])
    t.push(EndRound("stall"), 1000)
    assert t.ended and t.score().reason == "stall" and t.score().scores == [-2, -4]
    ab = two_seats(["KC"], [["9S"], ["8H"], ["7S"], ["QD"]], stall_rule="abandon")
    ab.push(EndRound("stall"), 1000)
    assert ab.score().reason == "abandon" and ab.score().scores == [0, 0]


def test_push_pop_restores_everything_and_order_is_enforced():
    t = Table.deal(3, seed=11)
    before = str(t)
    moves = []
    for _ in range(30):
        action = next(iter(t.legal_moves(0)))
        t.push(action, t.now + 10)
        moves.append(action)
    for action in reversed(moves):
        assert t.pop() == action
    assert str(t) == before and t.now == 0
    t.push(Draw(0), 50)
    with pytest.raises(OrderError, match="before the previous"):
        t.push(Draw(0), 40)


def test_legal_move_generator_covers_the_obvious_moves():
    t = two_seats(["5D", "AS"], [["9S"], ["8H"], ["7S"], ["AH"]], waste0=["8D"])
    moves = set(t.legal_moves(0))
    assert Move(0, "AS", "seat0:nertz", "lake:0") in moves
    assert Move(0, "AH", "seat0:river3", "lake:0") in moves
    assert Move(0, "8H", "seat0:river1", "seat0:river0") in moves
    assert Move(0, "8D", "seat0:waste", "seat0:river0") in moves
    assert Draw(0) in moves and Call(0) not in moves
    assert all(t.is_legal(m) is True for m in moves)


def test_covered_river_card_cannot_be_taken_alone_and_runs_on_the_lake_stay_whole():
    t = two_seats(["KC"], [["4D", "3S"], ["8H"], ["7S"], ["AD"]])
    with pytest.raises(ImpossibleAction, match="run of 1"):
        t.push(Move(1, "4D", "seat0:river0", "lake:0"), 10)
    flags = t.push(Move(0, "4D", "seat0:river0", "lake:0", n=2), 20)
    assert [f.rule for f in flags] == ["lake_one_card"]
    assert t.pile("lake:0") and len(t.all_cards()) == 104
    assert t.score().lake_cards == [0, 0]


def test_a_hidden_card_goes_to_the_lake_from_anywhere_in_its_stock_waste_or_nertz_pile():
    # the referee's record of a card the cards built on it show went to a pile unseen
    t = two_seats(["KH", "5D", "QS"], [["9S"], ["8H"], ["AS"], ["QD"]], ["4C", "JD"])
    t.push(Move(0, "AS", "seat0:river2", "lake:0"), 100)
    assert rule(t, Move(0, "2S", "seat0:stock", "lake:0")) == "not_playable"
    stock = len(t.layouts[0].stock)
    assert t.push(Move(0, "2S", "seat0:stock", "lake:0", hidden=True), 200) == []
    assert len(t.layouts[0].stock) == stock - 1 and t.score().lake_cards == [2, 0]
    # from under a waste's or a nertz pile's top; the rules for its target still hold
    assert rule(t, Move(0, "4C", "seat0:waste", "lake:0", hidden=True)) == "foundation_suit"
    assert t.push(Move(0, "3S", "seat0:stock", "lake:0", hidden=True), 300) == []
    assert t.push(Move(0, "4C", "seat0:waste", "lake:1", hidden=True), 400)[0].rule == \
        "foundation_needs_ace"
    assert [c.code for c in t.layouts[0].waste] == ["JD"]
    t.push(Move(0, "5D", "seat0:nertz", "lake:2", hidden=True), 500)
    assert [c.code for c in t.layouts[0].nertz] == ["KH", "QS"] and t.score().nertz_left[0] == 2
    t.pop()  # undone like any action
    assert [c.code for c in t.layouts[0].nertz] == ["KH", "5D", "QS"]
    with pytest.raises(ValueError, match="hidden card goes one at a time"):
        Move(0, "9S", "seat0:river0", "lake:0", hidden=True)
