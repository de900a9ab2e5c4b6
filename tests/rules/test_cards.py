import pytest

from rules import ALL_CODES, Card, CardCodeError, Place, PlaceError, parse_code


def test_every_code_round_trips():
    assert len(ALL_CODES) == 52
    for code in ALL_CODES:
        card = Card.parse(code, owner=3)
        assert card.code == code and str(card) == code and card.owner == 3


def test_parse_values_and_colours():
    assert Card.parse("10H") == Card(10, "H")
    assert Card.parse("as") == Card(1, "S")
    assert Card.parse("KD").rank == 13
    assert Card.parse("QD").is_red and Card.parse("JH").is_red
    assert not Card.parse("2C").is_red and not Card.parse("9S").is_red


@pytest.mark.parametrize("bad", ["", "1H", "11S", "HA", "10", "AX", "JK", "10HH", "0C", 5, None])
def test_bad_codes_are_rejected_clearly(bad):
    with pytest.raises(CardCodeError, match="card code"):
        Card.parse(bad)
    assert issubclass(CardCodeError, ValueError)


def test_jokers_parse():
    assert Card.parse("JKR").is_joker and Card.parse("JKR").is_red
    assert not Card.parse("JKB").is_red
    assert parse_code("jkb") == "JKB"


@pytest.mark.parametrize("name,kind,seat,index", [
    ("lake:0", "lake", None, 0), ("lake:17", "lake", None, 17),
    ("seat3:nertz", "nertz", 3, None), ("seat0:river5", "river", 0, 5),
    ("seat7:waste", "waste", 7, None), ("seat1:stock", "stock", 1, None),
])
def test_places_round_trip(name, kind, seat, index):
    p = Place.parse(name)
    assert (p.kind, p.seat, p.index) == (kind, seat, index)
    assert str(p) == name


@pytest.mark.parametrize("bad", ["lake", "lake:-1", "seat:nertz", "seat1:river", "seat1:hand",
                                 "pile:3", "seat1:nertz ", "", 3])
def test_bad_places_are_rejected(bad):
    if bad == "seat1:nertz ":
        assert str(Place.parse(bad)) == "seat1:nertz"  # surrounding blanks are tolerated
        return
    with pytest.raises(PlaceError, match="place"):
        Place.parse(bad)
