"""Card artwork: the installed SVG decks, their train/test split, and cached card bitmaps.

The decks come from Debian's ``kdegames-card-data-kf5`` (``/usr/share/carddecks/svg-*/``,
element ids like ``king_heart``, ``1_spade``) and ``gnome-cards-data``
(``/usr/share/aisleriot/cards/``, ids like ``heart_king``, ``club_1``); install them with
``scripts/setup_assets.sh``. Nothing here is committed: cards are rendered on first use with
``rsvg-convert`` and cached as BGRA PNGs under ``$NERTZ_CACHE`` (default
``~/.cache/nertz-referee/cards``).

Deck names are ``kde-<dir>`` (the ``svg-`` folder without its prefix) and ``gnome-<stem>``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from rules.cards import ALL_CODES, RANKS, SUITS

KDE_ROOT = Path("/usr/share/carddecks")
GNOME_ROOT = Path("/usr/share/aisleriot/cards")
BACK = "back"

_SUIT_WORD = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
_RANK_WORD = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}


class DeckError(ValueError):
    """An unknown deck name, a deck that is not installed, or artwork that fails to render."""


@dataclass(frozen=True)
class DeckInfo:
    """One deck of the declared list: where its artwork is and how it is used.

    ``split`` is ``"train"``, ``"test"`` or ``"excluded"``; ``family`` groups near-duplicate
    designs (a family is never split between train and test); ``reason`` says why a deck is
    excluded.
    """

    name: str
    scheme: str  # "kde" or "gnome": how card codes map to SVG element ids
    relpath: str  # below KDE_ROOT or GNOME_ROOT
    family: str
    split: str
    reason: str = ""

    @property
    def path(self) -> Path:
        return (KDE_ROOT if self.scheme == "kde" else GNOME_ROOT) / self.relpath

    @property
    def installed(self) -> bool:
        return self.path.is_file()


def _d(name: str, relpath: str, family: str, split: str, reason: str = "") -> DeckInfo:
    scheme = name.split("-", 1)[0]
    return DeckInfo(name, scheme, relpath, family, split, reason)


_NO_INDEX = "no corner index (rank top-right, suit bottom-left)"

#: The declared deck list. Families of near-duplicates (same court artwork) stay on one side
#: of the split. Held out for testing: 6 families, 9 decks (two dondorf, two anglo-modern,
#: two neoclassical, plastic, simplistic, tango), among them 4-colour suits and large
#: modern indices. Excluded decks say why.
DECKS: dict[str, DeckInfo] = {d.name: d for d in [
    # --- KDE (kdegames-card-data-kf5) ---
    _d("kde-ancient-egyptians", "svg-ancient-egyptians/Ancient_Egyptians.svgz",
       "ancient-egyptians", "train"),
    _d("kde-dondorf", "svg-dondorf/dondorf.svgz", "dondorf", "test"),
    _d("kde-future", "svg-future/future.svgz", "future", "excluded",
       "ids render a fragment, not the card"),
    _d("kde-gm-paris", "svg-gm-paris/paris.svgz", "paris", "train"),
    _d("kde-jolly-royal", "svg-jolly-royal/jolly-royal.svgz", "jolly-royal", "train"),
    _d("kde-konqi-modern", "svg-konqi-modern/konqi.svgz", "konqi", "excluded",
       "licence grant is KDE-only (and rsvg-convert cannot export its ids)"),
    _d("kde-nicu-ornamental", "svg-nicu-ornamental/ornamental.svgz", "nicu", "train"),
    _d("kde-nicu-white", "svg-nicu-white/white.svgz", "nicu", "train"),
    _d("kde-oxygen", "svg-oxygen/oxygen.svgz", "oxygen", "excluded", _NO_INDEX),
    _d("kde-oxygen-air", "svg-oxygen-air/oxygen-air.svgz", "oxygen", "excluded", _NO_INDEX),
    _d("kde-oxygen-white", "svg-oxygen-white/oxygen-white.svgz", "oxygen", "excluded",
       _NO_INDEX),
    _d("kde-penguins", "svg-penguins/penguins.svgz", "penguins", "excluded",
       "ids render wrongly (NOTES.md)"),
    _d("kde-standard", "svg-standard/standard.svgz", "standard", "train"),
    _d("kde-tigullio-international", "svg-tigullio-international/tigullio-international.svgz",
       "tigullio", "train"),
    _d("kde-xskat-french", "svg-xskat-french/french.svgz", "xskat", "excluded",
       "rsvg-convert cannot export its ids (72x112 px bitmaps)"),
    _d("kde-xskat-german", "svg-xskat-german/german.svgz", "xskat-german", "excluded",
       "German indices"),
    # --- GNOME (gnome-cards-data, aisleriot) ---
    _d("gnome-ancient-french", "ancient_french.svgz", "ancient-french", "excluded",
       "non-French indices"),
    _d("gnome-anglo", "anglo.svgz", "anglo", "train"),
    _d("gnome-anglo-bitmap", "anglo_bitmap.svgz", "anglo", "train"),
    _d("gnome-anglo-modern", "anglo_modern.svgz", "anglo-modern", "test"),
    _d("gnome-anglo-modern-4-color", "anglo_modern_4_color.svgz", "anglo-modern", "test"),
    _d("gnome-anglo-poker", "anglo_poker.svgz", "anglo-poker", "train"),
    _d("gnome-atlasnye", "atlasnye.svgz", "atlasnye", "train"),
    _d("gnome-atlasnye-skat", "atlasnye_skat.svgz", "atlasnye", "excluded",
       "Russian court indices (В Д К)"),
    _d("gnome-atlasnye-ru", "Атласные.svgz", "atlasnye", "excluded",
       "Russian indices (Т В Д К)"),
    _d("gnome-bellot", "bellot.svgz", "paris", "train"),
    _d("gnome-berlin", "berlin.svgz", "berlin", "excluded", "German indices"),
    _d("gnome-dondorf", "dondorf.svgz", "dondorf", "test"),
    _d("gnome-gnomangelo", "gnomangelo.svgz", "anglo", "train"),
    _d("gnome-gnomangelo-bitmap", "gnomangelo_bitmap.svgz", "anglo", "train"),
    _d("gnome-guyenne-classic", "guyenne-classic.svgz", "guyenne", "excluded",
       "court cards carry no rank index"),
    _d("gnome-lattmann", "lattmann.svgz", "lattmann", "excluded", "non-French indices"),
    _d("gnome-neoclassical", "neoclassical.svgz", "neoclassical", "test"),
    _d("gnome-neoclassical-4-color", "neoclassical_4_color.svgz", "neoclassical", "test"),
    _d("gnome-orell", "orell.svgz", "orell", "train"),
    _d("gnome-ornamental", "ornamental.svgz", "nicu", "train"),
    _d("gnome-paris", "paris.svgz", "paris", "train"),
    _d("gnome-plastic", "plastic.svgz", "plastic", "test"),
    _d("gnome-rheinland", "rheinland.svgz", "rheinland", "excluded", "German indices"),
    _d("gnome-simplistic", "simplistic.svgz", "simplistic", "test"),
    _d("gnome-slavic-costumes", "slavic_costumes.svgz", "slavic", "excluded",
       "non-French indices"),
    _d("gnome-swiss-xvii", "swiss-xvii.svgz", "swiss", "excluded", "Swiss indices"),
    _d("gnome-tango", "tango.svgz", "tango", "test"),
    _d("gnome-tango-nuevo", "tango_nuevo.svgz", "tango", "excluded",
       "ids render wrongly (NOTES.md)"),
    _d("gnome-tarocco", "tarocco.svgz", "tarocco", "excluded",
       "Italian court indices (F D R)"),
    _d("gnome-tigullio", "tigullio.svgz", "tigullio", "train"),
]}


def deck_info(name: str) -> DeckInfo:
    """The declared entry of a deck, or :class:`DeckError` naming the known decks."""
    try:
        return DECKS[name]
    except KeyError:
        known = ", ".join(sorted(n for n, d in DECKS.items() if d.split != "excluded"))
        raise DeckError(f"unknown deck {name!r}; known decks: {known}") from None


def deck_names(split: str | None = None, installed_only: bool = True) -> list[str]:
    """Usable deck names (``split`` ``"train"``/``"test"``/None for both), sorted.

    Only decks whose artwork is installed are listed unless ``installed_only`` is False.
    """
    if split not in (None, "train", "test"):
        raise ValueError(f"split must be 'train', 'test' or None, not {split!r}")
    return sorted(n for n, d in DECKS.items()
                  if d.split != "excluded" and (split is None or d.split == split)
                  and (d.installed or not installed_only))


def discover_decks() -> list[Path]:
    """Every SVG deck file installed on this machine (listed or not)."""
    found = sorted(KDE_ROOT.glob("svg-*/*.svgz")) + sorted(GNOME_ROOT.glob("*.svgz"))
    return found


def artwork_available() -> bool:
    """True when rsvg-convert and at least one usable deck are installed."""
    return shutil.which("rsvg-convert") is not None and bool(deck_names())


def svg_id(code: str, scheme: str) -> str:
    """The SVG element id of a card code (or ``"back"``) in a naming scheme.

    >>> svg_id("10H", "kde"), svg_id("QS", "gnome"), svg_id("AC", "kde")
    ('10_heart', 'spade_queen', '1_club')
    """
    if code == BACK:
        return BACK
    rank, suit = code[:-1], code[-1]
    if rank not in RANKS or suit not in SUITS:
        raise DeckError(f"not a card code: {code!r}")
    r, s = _RANK_WORD.get(rank, rank), _SUIT_WORD[suit]
    if scheme == "kde":
        return f"{r}_{s}"
    if scheme == "gnome":
        return f"{s}_{r}"
    raise DeckError(f"unknown naming scheme {scheme!r}")


def id_map(name: str) -> dict[str, str]:
    """Card code → SVG element id for all 52 codes and ``back`` of a deck."""
    scheme = deck_info(name).scheme
    return {code: svg_id(code, scheme) for code in (*ALL_CODES, BACK)}


def cache_root() -> Path:
    """Where rendered cards are cached: ``$NERTZ_CACHE`` or ``~/.cache/nertz-referee/cards``."""
    env = os.environ.get("NERTZ_CACHE")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "nertz-referee" / "cards"


# --- rendering ---------------------------------------------------------------------------

_ALPHA_SOLID = 128  # alpha at or above which a pixel belongs to the card


def _rsvg(path: Path, element: str, zoom: float, box: tuple[float, float, float, float] | None,
          ) -> np.ndarray:
    """Run rsvg-convert on one element; ``box`` (x, y, w, h at this zoom) crops the page."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise DeckError("rsvg-convert is not installed; run scripts/setup_assets.sh")
    cmd = [exe, f"--export-id={element}", f"--zoom={zoom:.6f}"]
    if box is not None:
        x, y, w, h = box
        cmd += [f"--left={-x:.3f}", f"--top={-y:.3f}", f"--page-width={w:.3f}",
                f"--page-height={h:.3f}"]
    cmd.append(str(path))
    proc = subprocess.run(cmd, capture_output=True, timeout=120)
    if proc.returncode != 0 or not proc.stdout:
        raise DeckError(f"rsvg-convert failed on {path.name}#{element}: "
                        f"{proc.stderr.decode(errors='replace').strip()[:200]}")
    img = cv2.imdecode(np.frombuffer(proc.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is not None and img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img is not None and img.ndim == 3 and img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)  # fully opaque: written without alpha
    if img is None or img.ndim != 3 or img.shape[2] != 4 or img.dtype != np.uint8:
        raise DeckError(f"rsvg-convert gave no 8-bit image for {path.name}#{element}")
    return img


def _opaque_box(img: np.ndarray) -> tuple[int, int, int, int]:
    """x, y, w, h of the pixels with alpha >= ``_ALPHA_SOLID``."""
    ys, xs = np.nonzero(img[..., 3] >= _ALPHA_SOLID)
    if xs.size == 0:
        raise DeckError("the element rendered fully transparent")
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(path: Path) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(path, threading.Lock())


def render_card(deck: str, code: str, height: int = 256, cache: Path | None = None) -> np.ndarray:
    """A card's bitmap, BGRA uint8, cropped to the card (rounded corners transparent),
    ``height`` pixels high, as the deck draws it (its own aspect ratio).

    Rendered with rsvg-convert on first use and cached as PNG.
    """
    info = deck_info(deck)
    if info.split == "excluded":
        raise DeckError(f"deck {deck!r} is excluded: {info.reason}")
    if code != BACK:
        from rules.cards import parse_code
        code = parse_code(code)
    if not 16 <= height <= 4096:
        raise DeckError(f"card height {height} px is out of range 16..4096")
    root = (cache or cache_root()) / deck
    out = root / str(height) / f"{code}.png"
    if out.is_file():
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
        if img is not None and img.ndim == 3 and img.shape[2] == 4:
            return img
    if not info.installed:
        raise DeckError(f"deck {deck!r} is not installed ({info.path}); "
                        "run scripts/setup_assets.sh")
    with _lock(out):
        img = _render_uncached(info, code, height, root / "natural_boxes.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(suffix=".png", dir=out.parent)
        os.close(fd)
        cv2.imwrite(tmp, img)
        os.replace(tmp, out)
    return img


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".json", dir=path.parent)
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


def _render_uncached(info: DeckInfo, code: str, height: int,
                     boxes_file: Path | None = None) -> np.ndarray:
    element = svg_id(code, info.scheme)
    # rsvg-convert 2.54 draws an exported element at its place on a page that may be much
    # larger than the card; a probe at zoom 1 finds the card (remembered per deck in
    # ``boxes_file``, so other heights cost one call), the real render crops to it.
    known = _read_json(boxes_file) if boxes_file is not None else {}
    if element in known:
        x, y, w, h = known[element]
    else:
        x, y, w, h = _opaque_box(_rsvg(info.path, element, 1.0, None))
        if boxes_file is not None:
            with _lock(boxes_file):
                known = _read_json(boxes_file)
                known[element] = [x, y, w, h]
                _write_json(boxes_file, known)
    zoom = height / h
    pad = 2.0
    img = _rsvg(info.path, element, zoom,
                (x * zoom - pad, y * zoom - pad, w * zoom + 2 * pad, h * zoom + 2 * pad))
    bx, by, bw, bh = _opaque_box(img)
    img = img[by:by + bh, bx:bx + bw]
    width = max(1, round(height * bw / bh))
    if img.shape[:2] != (height, width):
        img = cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(img)


def render_deck(deck: str, height: int = 256, codes: Iterable[str] | None = None,
                cache: Path | None = None, jobs: int | None = None) -> dict[str, np.ndarray]:
    """Render (or load from the cache) many cards of a deck: all 52 and the back by default.

    ``jobs`` rsvg-convert processes run at once (default: the number of CPUs).
    """
    from concurrent.futures import ThreadPoolExecutor

    wanted = list(codes) if codes is not None else [*ALL_CODES, BACK]
    jobs = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        imgs = list(pool.map(lambda c: render_card(deck, c, height, cache), wanted))
    return dict(zip(wanted, imgs, strict=True))


# --- corner indices ----------------------------------------------------------------------

#: Bumped whenever :func:`measure_index_box` changes, so cached boxes are measured again.
INDEX_VERSION = 2

#: The search window of the top-left corner index, as fractions of the card's width/height.
INDEX_WINDOW = (0.0, 0.0, 0.30, 0.38)


def _background(img: np.ndarray) -> np.ndarray:
    """The card's paper colour (BGR float): the most common colour of the solid pixels."""
    solid = img[img[..., 3] >= 250][:, :3]
    if solid.size == 0:
        solid = img[..., :3].reshape(-1, 3)
    q = (solid // 16).astype(np.int32)
    keys = q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]
    mode = np.bincount(keys).argmax()
    return solid[keys == mode].mean(axis=0)


def ink_mask(img: np.ndarray, threshold: float = 60.0,
             background: np.ndarray | None = None) -> np.ndarray:
    """Pixels that clearly differ from the card's paper colour (bool), inside the card."""
    bg = _background(img) if background is None else background
    diff = np.abs(img[..., :3].astype(np.float32) - bg[None, None, :]).sum(axis=2)
    return (diff > threshold) & (img[..., 3] >= 250)


def measure_index_box(img: np.ndarray) -> tuple[float, float, float, float] | None:
    """Where the top-left corner index (rank and suit pip) is on a card bitmap.

    Returns (x1, y1, x2, y2) as fractions of the card's width and height, or None when no
    index ink is found. Ink is looked for in :data:`INDEX_WINDOW`: long straight strokes
    (the card's border, a court picture's frame) are taken out first, then marks that run
    out of the window (the picture) are left out. The rank is the topmost sizeable mark
    near the left edge (with the "0" of a "10"), the suit the mark right below it (or right
    beside it, for decks that print them side by side).
    """
    hgt, wid = img.shape[:2]
    # a high threshold keeps anti-aliased seams between close glyphs out of the marks
    ink = ink_mask(img, threshold=150.0, background=_background(img))
    wx2, wy2 = round(INDEX_WINDOW[2] * wid), round(INDEX_WINDOW[3] * hgt)
    win = ink[:wy2, :wx2].astype(np.uint8)
    margin = max(1, round(0.01 * wid))  # the card's very edge (anti-aliased outline)
    win[:margin, :] = 0
    win[:, :margin] = 0
    lv, lh = max(3, round(0.25 * hgt)), max(3, round(0.26 * wid))
    lines = cv2.morphologyEx(win, cv2.MORPH_OPEN, np.ones((lv, 1), np.uint8))
    lines |= cv2.morphologyEx(win, cv2.MORPH_OPEN, np.ones((1, lh), np.uint8))
    lines = cv2.dilate(lines, np.ones((3, 3), np.uint8))
    win &= 1 - lines
    n, labels, stats, _ = cv2.connectedComponentsWithStats(win, connectivity=8)
    min_area = max(3, round(0.0002 * wid * hgt))
    marks = [(*(float(v) for v in stats[i]), i) for i in range(1, n)
             if stats[i, 4] >= min_area
             and stats[i, 0] + stats[i, 2] < wx2 and stats[i, 1] + stats[i, 3] < wy2]
    # the rank: the topmost sizeable mark near the left edge
    ranks = [m for m in marks if m[0] < 0.16 * wid and m[3] >= 0.04 * hgt]
    if not ranks:
        return None
    big = max(m[4] for m in ranks)
    ranks = [m for m in ranks if m[4] >= 0.25 * big]
    rank = min(ranks, key=lambda m: m[1] + 0.5 * m[0])
    x1, y1, x2, y2 = rank[0], rank[1], rank[0] + rank[2], rank[1] + rank[3]
    used = {rank}
    # a "10": a narrow "1" followed closely by a "0" of about the same height
    if rank[2] < 0.5 * rank[3]:
        for m in sorted(marks, key=lambda m: m[0]):
            if m in used:
                continue
            rh = y2 - y1
            if (0 <= m[0] - x2 <= 0.035 * wid and abs(m[1] - y1) <= 0.1 * rh
                    and abs(m[1] + m[3] - y2) <= 0.1 * rh):
                x2, y1, y2 = m[0] + m[2], min(y1, m[1]), max(y2, m[1] + m[3])
                used.add(m)
                break
    # the suit pip: directly below the rank (or, failing that, right beside it)
    below = [m for m in marks if m not in used
             and 0 <= m[1] - y2 <= 0.1 * hgt
             and x1 - 0.02 * wid <= m[0] + m[2] / 2 <= x2 + 0.02 * wid
             and m[2] <= 1.6 * (x2 - x1) + 0.05 * wid]
    beside = [m for m in marks if m not in used
              and 0 <= m[0] - x2 <= 0.04 * wid
              and y1 - 0.02 * hgt <= m[1] + m[3] / 2 <= y2 + 0.02 * hgt
              and m[3] <= 0.9 * (y2 - y1) and m[4] <= 1.5 * rank[4]]
    if not below:  # the index pip may touch a big pip beside it: cut it out of the blob
        for m in marks:
            if (m in used or not 0 <= m[1] - y2 <= 0.1 * hgt
                    or not x1 - 0.02 * wid <= m[0] <= x2 or m[2] <= 1.6 * (x2 - x1)):
                continue
            cx1, cx2 = int(max(0, x1 - 0.02 * wid)), int(x2 + 0.02 * wid) + 1
            rows = int(m[1]), int(m[1] + (y2 - y1)) + 1
            part = labels[rows[0]:rows[1], cx1:cx2] == m[5]
            if part.sum() >= min_area:
                ys, xs = np.nonzero(part)
                below = [(float(cx1 + xs.min()), float(rows[0] + ys.min()),
                          float(xs.max() - xs.min() + 1), float(ys.max() - ys.min() + 1),
                          float(part.sum()), -1)]
                break
    pips = below or beside
    if pips:
        pip = min(pips, key=lambda m: (m[1] - y2) if below else (m[0] - x2))
        x1, y1 = min(x1, pip[0]), min(y1, pip[1])
        x2, y2 = max(x2, pip[0] + pip[2]), max(y2, pip[1] + pip[3])
        # a pip drawn in pieces (outline and fill): take the pieces inside its box as well
        for m in marks:
            if (m not in used and m is not pip and m[0] >= pip[0] - 1 and m[1] >= pip[1] - 1
                    and m[0] + m[2] <= pip[0] + pip[2] + 1
                    and m[1] + m[3] <= pip[1] + pip[3] + 1):
                used.add(m)
    return (x1 / wid, y1 / hgt, x2 / wid, y2 / hgt)


def index_boxes(deck: str, code: str, height: int = 256, cache: Path | None = None,
                ) -> list[tuple[float, float, float, float]]:
    """The corner-index boxes of a card (fractions of its width/height): the top-left one
    and the bottom-right one (measured on the card turned 180°). Cached as JSON."""
    root = (cache or cache_root()) / deck / str(height)
    meta = root / f"index_boxes.v{INDEX_VERSION}.json"
    data = _read_json(meta)
    if code in data:
        return [tuple(b) for b in data[code]]
    img = render_card(deck, code, height, cache)
    boxes: list[tuple[float, float, float, float]] = []
    tl = measure_index_box(img)
    if tl is not None:
        boxes.append(tl)
    br = measure_index_box(img[::-1, ::-1])
    if br is not None:
        boxes.append((1 - br[2], 1 - br[3], 1 - br[0], 1 - br[1]))
    with _lock(meta):
        data = _read_json(meta)
        data[code] = [list(b) for b in boxes]
        _write_json(meta, data)
    return boxes
