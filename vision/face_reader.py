"""The face reader: a whole card, warped upright (:func:`vision.crops.upright_card`), read
as one of the 52 card codes (or ``none``) from its pips, picture and indices together —
where a card's corner index is too small to read alone (a 7–11 px index), its pips are
still several pixels each. ONNX model ``models/face_reader.onnx``
(``scripts/train_face_reader.py``), run with onnxruntime; its output does not depend on
which end of the card is up (the graph reads the crop both ways).

The detector multiplies the face reader's probabilities into its index reads
(:func:`fuse`); court cards lean on the index: the face tells a court card of a suit from a
number card, not which court (real decks' court pictures vary far more than the renders').
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from .crops import card_look, card_outline, upright_card
from .identify import MODELS, IndexClassifier, ModelError, onnx_model

COURTS = ("J", "Q", "K")


class FaceReader:
    """Reads whole upright cards as card codes."""

    #: weights (exponents) of the face reader's rank and suit against the index reader's
    WEIGHT, SUIT_WEIGHT = 1.0, 0.5
    #: a face whose ``none`` probability is above this is not used (a back, a hand over it)
    MAX_NONE = 0.5
    #: batches of at most this many cards run on one thread (0: none; as
    #: ``IndexClassifier.SMALL_BATCH`` and ``Localiser.SMALL_INPUT``: session 50's replay
    #: 1.67× → 1.71× real time with all three on two threads)
    SMALL_BATCH = 0
    #: where a card's outline is not found in its box grown by 10 % (a neighbour touching
    #: it), look again in the box grown by this much (None: not again)
    FALLBACK_MARGIN: float | None = 0.0
    #: and where neither look finds it, fit a card's shape to the box
    #: (:func:`~vision.crops.fitted_card_quad`): the top card of a fanned column or waste
    FIT_OUTLINE = True

    def __init__(self, path: str | Path, threads: int = 2) -> None:
        self.session, self.names, _size = onnx_model(path, "face reader", threads)
        meta = self.session.get_modelmeta().custom_metadata_map
        try:
            h, w = (int(v) for v in ast.literal_eval(meta["imgsz"]))
        except (KeyError, ValueError, SyntaxError, TypeError):
            raise ModelError(f"{path}: the face reader carries no input size") from None
        self.size = (w, h)  # width, height
        self.input = self.session.get_inputs()[0].name
        self.small_session = (onnx_model(path, "face reader", 1)[0]
                              if threads > 1 and self.SMALL_BATCH > 0 else self.session)

    @classmethod
    def load(cls, path: str | Path | None = None, threads: int = 2) -> FaceReader | None:
        """The model at ``path`` (default ``models/face_reader.onnx``), or None when there
        is no such file (the detector then reads indices alone)."""
        path = Path(path) if path else MODELS / "face_reader.onnx"
        return cls(path, threads) if path.is_file() else None

    def probabilities(self, cards: Sequence[np.ndarray]) -> np.ndarray:
        """(N, classes) probabilities for upright BGR card images of any size."""
        if not len(cards):
            return np.zeros((0, len(self.names)), np.float32)
        batch = np.stack([
            cv2.cvtColor(cv2.resize(c, self.size, interpolation=cv2.INTER_AREA)
                         if c.shape[1::-1] != self.size else c, cv2.COLOR_BGR2RGB)
            for c in cards]).astype(np.float32) / 255.0
        batch = np.ascontiguousarray(batch.transpose(0, 3, 1, 2))
        session = self.small_session if len(cards) <= self.SMALL_BATCH else self.session
        step = IndexClassifier.MAX_BATCH  # images per run at most (bounded memory)
        return np.concatenate([session.run(None, {self.input: batch[i:i + step]})[0]
                               for i in range(0, len(batch), step)])

    def read_boxes(self, image: np.ndarray, boxes: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        """For each face box of a frame: whether the card's whole outline was found
        (:func:`~vision.crops.card_outline`: :func:`~vision.crops.card_quad`, in the box
        grown by 10 %, else in the box grown by :attr:`FALLBACK_MARGIN`, else fitted to the
        box: :attr:`FIT_OUTLINE`, or fitted to the card's edges where they show better) and,
        where it was, the (classes,) probabilities of its face (zeros elsewhere)."""
        found, probs, _looks = self.read_boxes_with_looks(image, boxes)
        return found, probs

    def read_boxes_with_looks(self, image: np.ndarray, boxes: np.ndarray
                              ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
        """:meth:`read_boxes` and, per box, the look of its card where its outline was
        found (:func:`~vision.crops.card_look`, which deck it is; None elsewhere)."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        found = np.zeros(len(boxes), bool)
        crops = []
        looks: list[np.ndarray | None] = [None] * len(boxes)
        for i, box in enumerate(boxes):
            quad = card_outline(image, box, self.FALLBACK_MARGIN, self.FIT_OUTLINE)
            if quad is not None:
                found[i] = True
                crops.append(upright_card(image, quad))
                looks[i] = card_look(crops[-1])
        probs = np.zeros((len(boxes), len(self.names)), np.float32)
        if crops:
            probs[found] = self.probabilities(crops)
        return found, probs, looks

    def __call__(self, cards: Sequence[np.ndarray]) -> tuple[list[str], np.ndarray]:
        """The most likely code of each upright card image and its probability."""
        probs = self.probabilities(cards)
        best = probs.argmax(axis=1) if len(probs) else np.zeros(0, np.int64)
        return [self.names[i] for i in best], probs[np.arange(len(best)), best]


@functools.lru_cache(maxsize=16)
def _maps(index_names: tuple[str, ...], face_names: tuple[str, ...]
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`court_blind` and :func:`fuse` need of two class lists, worked out once:
    the court-blinding matrix (face classes × face classes), the face classes' rank and suit
    one-hot matrices, and for each index class whether it is a card both readers know and
    its rank and suit columns."""
    names = list(face_names)
    blind = np.eye(len(names), dtype=np.float32)
    for suit in "CDHS":
        cols = [names.index(r + suit) for r in COURTS if r + suit in names]
        for c in cols:
            blind[c] = 0.0
            blind[c, cols] = 1.0 / len(cols)
    blind = blind.T  # probs @ blind: each court column the mean of its suit's courts
    ranks = sorted({n[:-1] for n in names if n != "none"})
    suits = sorted({n[-1] for n in names if n != "none"})
    rank_of = np.zeros((len(names), len(ranks)), np.float32)
    suit_of = np.zeros((len(names), len(suits)), np.float32)
    for k, n in enumerate(names):
        if n != "none":
            rank_of[k, ranks.index(n[:-1])] = 1.0
            suit_of[k, suits.index(n[-1])] = 1.0
    card = np.array([n != "none" and n[:-1] in ranks and n[-1] in suits for n in index_names])
    cols = np.array([(ranks.index(n[:-1]), suits.index(n[-1])) if c else (0, 0)
                     for n, c in zip(index_names, card, strict=True)]).reshape(-1, 2)
    return blind, rank_of, suit_of, card, cols.T


def court_blind(probs: np.ndarray, names: Sequence[str]) -> np.ndarray:
    """``probs`` (…, classes) with each suit's J, Q and K sharing their probability evenly:
    the face says "a court card of this suit", the index says which."""
    blind = _maps((), tuple(names))[0]
    return np.asarray(probs, np.float32) @ blind


def fuse(index_probs: np.ndarray, face_probs: np.ndarray, index_names: Sequence[str],
         face_names: Sequence[str], weight: float = 1.0, suit_weight: float = 0.0,
         floor: float = 1e-3) -> np.ndarray:
    """The index reader's (…, classes) probabilities times the face reader's: its rank
    probability (summed over suits; J, Q and K sharing theirs, :func:`court_blind`) raised
    to ``weight`` and its suit probability (summed over ranks) raised to ``suit_weight``
    (each at least ``floor``, so that the face never vetoes a code alone); renormalised to
    the index reader's total card probability. ``none`` is kept as the index reader gave
    it. The face reader's suit is weaker than its rank on small cards (a club and a spade
    of 4 px): the detector weighs it half (:attr:`FaceReader.SUIT_WEIGHT`)."""
    blind, rank_of, suit_of, card, cols = _maps(tuple(index_names), tuple(face_names))
    index_probs = np.asarray(index_probs, np.float32)
    face = np.asarray(face_probs, np.float32) @ blind
    pr, ps = face @ rank_of, face @ suit_of  # the face's rank and suit marginals
    pr = np.maximum(pr / np.maximum(pr.sum(axis=-1, keepdims=True), 1e-9), floor)
    ps = np.maximum(ps / np.maximum(ps.sum(axis=-1, keepdims=True), 1e-9), floor)
    factor = np.ones_like(index_probs)
    factor[..., card] = (pr[..., cols[0][card]] ** weight * ps[..., cols[1][card]] ** suit_weight)
    prod = index_probs * factor
    mass = index_probs[..., card].sum(axis=-1, keepdims=True)
    scale = mass / np.maximum(prod[..., card].sum(axis=-1, keepdims=True), 1e-12)
    out = index_probs.copy()
    out[..., card] = (prod * scale)[..., card]
    return out


__all__ = ["FaceReader", "court_blind", "fuse"]
