"""Build tables in exact states for rule tests."""

from __future__ import annotations

from rules import Card, HouseRules, Layout, Table
from rules.cards import new_deck


def layout(seat: int, nertz: list[str], river: list[list[str]], waste: list[str] | None = None,
           stock: list[str] | None = None, jokers: bool = False) -> Layout:
    """A seat's layout; cards not named go to the stock (unless ``stock`` is given)."""
    named = [*nertz, *(c for col in river for c in col), *(waste or [])]
    cards = [Card.parse(c, seat) for c in named]
    if stock is None:
        rest = [c for c in new_deck(seat, jokers) if c not in cards]
    else:
        rest = [Card.parse(c, seat) for c in stock]
    return Layout([Card.parse(c, seat) for c in nertz],
                  [[Card.parse(c, seat) for c in col] for col in river], rest,
                  [Card.parse(c, seat) for c in (waste or [])])


def table(*layouts: Layout, rules: HouseRules | None = None, **options) -> Table:
    rules = rules or HouseRules.from_dict(options)
    return Table(list(layouts), rules)


def two_seats(nertz0: list[str], river0: list[list[str]], waste0: list[str] | None = None,
              **options) -> Table:
    """Seat 0 as given, seat 1 a quiet layout without Aces showing."""
    rules = HouseRules.from_dict(options)
    cols = rules.river_columns
    river1 = [["9C"], ["9D"], ["9H"], ["9S"], ["8C"], ["8D"]][:cols]
    return table(layout(0, nertz0, river0, waste0),
                 layout(1, ["2C", "3D"], river1), rules=rules)
