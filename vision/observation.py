"""What the camera saw in one frame, place by place: the contract between the table model
(detections → places) and the tracker (observations over time → moves).

An :class:`Observation` maps place names (DESIGN.md: ``lake:<j>``, ``seat<k>:nertz``,
``seat<k>:river<i>``, ``seat<k>:waste``, ``seat<k>:stock``) to :class:`PlaceView` s: the
cards visible there, deepest first (the exposed, playable card is last), and how much of the
place a hand or a moving card covers. Lake piles carry the table model's own pile ids
(``lake:<j>`` numbered in the order the piles were first seen); the tracker maps them to the
log's foundation indices.

:func:`observation_from_labels` builds the observation a perfect detector and table model
would give from a frame of the renderer's ``*.labels.jsonl``, so the tracker can be built
and measured without the detector's errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Observation", "PlaceView", "SeenCard", "look_distance", "observation_from_labels"]

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class SeenCard:
    """One card the camera saw: ``code`` is a card code or ``"back"``; ``alternatives`` are
    the next most likely reads with their probabilities (for corrections and the tracker's
    legal-history search); ``look`` is a face card's look (:func:`vision.crops.card_look`,
    which deck it is), None where its outline was not found."""

    code: str
    box: Box
    conf: float = 1.0
    design: str | None = None
    alternatives: tuple[tuple[str, float], ...] = ()
    look: Any = field(default=None, compare=False, repr=False)

    @property
    def face_up(self) -> bool:
        return self.code != "back"


@dataclass
class PlaceView:
    """The visible cards of one place, deepest first; ``covered`` is the share (0–1) of the
    place under a hand or a moving card: a covered place must not be committed."""

    place: str
    cards: list[SeenCard] = field(default_factory=list)
    covered: float = 0.0

    @property
    def top(self) -> SeenCard | None:
        """The exposed card, or None for an empty place."""
        return self.cards[-1] if self.cards else None

    @property
    def codes(self) -> list[str]:
        return [c.code for c in self.cards]


@dataclass
class Observation:
    """One frame's view of the table. ``table_found`` is False when the table is not in
    view (then ``places`` is empty: no guess). ``loose`` holds cards seen outside every
    place (in a hand, in flight); ``hands`` the boxes of hands and arms. ``camera`` says
    why the table was not found (``"ok"``, ``"no_table"``, ``"moved"``: the camera moved
    and no markers are in view to follow it); ``alerts`` are one-line notices of the
    table model (a back of another seat's design in a seat's area, …); ``hand_seats`` is
    parallel to ``hands``: the seat each arm reaches in from, or None when unknown (one
    blob where two players' arms meet is listed once per arm, the same box)."""

    frame: int
    t_ms: float
    places: dict[str, PlaceView] = field(default_factory=dict)
    hands: list[Box] = field(default_factory=list)
    loose: list[SeenCard] = field(default_factory=list)
    table_found: bool = True
    camera: str = "ok"
    alerts: list[str] = field(default_factory=list)
    hand_seats: list[int | None] = field(default_factory=list)

    def __getitem__(self, place: str) -> PlaceView:
        return self.places.get(place) or PlaceView(place)

    def __iter__(self) -> Iterator[PlaceView]:
        return iter(self.places.values())

    def seat_places(self, seat: int) -> dict[str, PlaceView]:
        """This seat's places."""
        prefix = f"seat{seat}:"
        return {k: v for k, v in self.places.items() if k.startswith(prefix)}

    def lake(self) -> dict[str, PlaceView]:
        """The lake's piles."""
        return {k: v for k, v in self.places.items() if k.startswith("lake:")}


def _overlap(a: Box, b: Box) -> float:
    """Share of box ``a`` covered by box ``b``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = max(1e-6, (a[2] - a[0]) * (a[3] - a[1]))
    return max(0.0, w) * max(0.0, h) / area


def look_distance(a: Any, b: Any) -> float:
    """How unlike two card looks (:func:`vision.crops.card_look`) are: the mean squared
    difference, the smallest of the two ways up (an upright card's top end is not known)
    and of shifts by up to one cell each way (outlines found a little off)."""
    x, y = np.asarray(a, np.float32), np.asarray(b, np.float32)
    if x.shape != y.shape:
        raise ValueError(f"looks of other sizes: {x.shape} and {y.shape}")
    h, w = x.shape[:2]
    best = float("inf")
    for z in (y, y[::-1, ::-1]):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                p = x[max(0, dy):h + min(0, dy), max(0, dx):w + min(0, dx)]
                q = z[max(0, -dy):h + min(0, -dy), max(0, -dx):w + min(0, -dx)]
                best = min(best, float(np.mean((p - q) ** 2)))
    return best


def observation_from_labels(labels: Mapping[str, Any], min_index_visible: float = 0.6,
                            min_back_visible: float = 0.3) -> Observation:
    """The observation of a perfect detector from one frame line of ``*.labels.jsonl``.

    A face-up card counts as seen when one of its corner indices is at least
    ``min_index_visible`` visible; a back when at least ``min_back_visible`` of the card
    shows (only the top back of a pile is usually visible). Every place holding a card is
    listed, even when none of its cards can be seen; its ``covered`` is the largest share of
    one of its cards' boxes under a hand box.
    """
    hands: list[Box] = [tuple(h["box"]) for h in labels.get("hands", [])]  # type: ignore[misc]
    hand_seats: list[int | None] = [h.get("seat") for h in labels.get("hands", [])]
    places: dict[str, PlaceView] = {}
    loose: list[SeenCard] = []
    boxes: dict[str, list[Box]] = {}
    rows = sorted(labels.get("cards", []), key=lambda c: (c.get("depth", 0), c.get("z", 0)))
    for card in rows:
        box: Box = tuple(card["box"])  # type: ignore[assignment]
        place = card.get("place")
        if place is not None:
            places.setdefault(place, PlaceView(place))
            boxes.setdefault(place, []).append(box)
        if card.get("face_up", card["code"] != "back"):
            seen = max((i["visible"] for i in card.get("indices", [])), default=0.0)
            if seen < min_index_visible:
                continue
        elif card.get("visible", 0.0) < min_back_visible:
            continue
        sc = SeenCard(card["code"], box, 1.0, card.get("design"))
        if place is None:
            loose.append(sc)
        else:
            places[place].cards.append(sc)
    for place, view in places.items():
        view.covered = max((_overlap(b, h) for b in boxes[place] for h in hands), default=0.0)
    return Observation(int(labels.get("frame", 0)), float(labels.get("t_ms", 0.0)), places,
                       hands, loose, hand_seats=hand_seats)
