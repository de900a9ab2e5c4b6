import pytest

from rules import PRESETS, HouseRules, RulesError


def test_defaults_are_the_nertz_preset():
    rules = HouseRules()
    assert rules == HouseRules.preset("nertz")
    assert (rules.river_columns, rules.draw, rules.nertz_penalty, rules.call_bonus,
            rules.false_call_penalty, rules.target, rules.empty_column_fill) == (
        4, 3, 2, 0, -5, 100, "any")


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_and_round_trips(name, tmp_path):
    rules = HouseRules.preset(name)
    assert rules.to_dict()["preset"] == name
    assert HouseRules.from_dict(rules.to_dict()) == rules
    path = tmp_path / "rules.toml"
    path.write_text(rules.to_toml())
    assert HouseRules.from_toml(path) == rules


def test_presets_change_what_rules_md_says():
    assert HouseRules.preset("single-draw").draw == 1
    kd = HouseRules.preset("klondike-draw")
    assert (kd.draw, kd.redeals) == (1, 1)
    assert HouseRules.preset("racing-demon").fixed_rounds is not None
    assert HouseRules.preset("racing-demon").call_word == "Out!"
    pounce = HouseRules.preset("pounce")
    assert pounce.slide_under and not pounce.must_call and pounce.nertz_penalty == 0
    assert HouseRules.preset("teams").teams
    assert HouseRules.preset("jokers").jokers and HouseRules.preset("jokers").deck_size == 54
    assert HouseRules.preset("turn-based").turn_based


@pytest.mark.parametrize("values,name", [
    ({"draw": 2}, "draw"), ({"river_columns": 7}, "river_columns"),
    ({"empty_column_fill": "some"}, "empty_column_fill"), ({"tie_rule": "middle"}, "tie_rule"),
    ({"call_bonus": 7}, "call_bonus"), ({"nertz_penalty": -1}, "nertz_penalty"),
    ({"false_call_penalty": 5}, "false_call_penalty"), ({"target": 0}, "target"),
    ({"must_call": "yes"}, "must_call"), ({"redeals": -1}, "redeals"),
    ({"fixed_rounds": 0}, "fixed_rounds"), ({"tiebreak": "coin"}, "tiebreak"),
    ({"stall_timeout_s": 0}, "stall_timeout_s"), ({"draw": True}, "draw"),
    ({"call_grace_ms": 1.5}, "call_grace_ms"),
])
def test_bad_values_name_the_option(values, name):
    with pytest.raises(RulesError, match=f"option {name}"):
        HouseRules.from_dict(values)


def test_unknown_option_and_preset_are_named():
    with pytest.raises(RulesError, match="'drwa'"):
        HouseRules.from_dict({"drwa": 1})
    with pytest.raises(RulesError, match="'speed'"):
        HouseRules.preset("speed")


def test_toml_with_rules_table_and_preset_base(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text('[rules]\npreset = "pounce"\ncall_bonus = 10\nredeals = "unlimited"\n')
    rules = HouseRules.from_toml(path)
    assert rules.slide_under and rules.call_bonus == 10 and rules.redeals is None
    path.write_text("draw = [")
    with pytest.raises(RulesError, match="not valid TOML"):
        HouseRules.from_toml(path)


def test_teams_pair_neighbouring_seats():
    rules = HouseRules.preset("teams")
    assert [rules.team_of(k) for k in range(6)] == [0, 0, 1, 1, 2, 2]
    assert HouseRules().team_of(5) == 5
