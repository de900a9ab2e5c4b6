"""Train the back check (``models/back_check.onnx``, :mod:`vision.back_check`): is a box the
localiser calls a back really a card back?

The samples are crops as the detector hands them over (:func:`vision.back_check.back_crop`):

- backs (label 1): rendered backs (generated designs and the training decks' own) pasted into
  the real ``cluttered-rank-boxes`` photos of the train split (:mod:`vision.render.paste`:
  the photo's card size, light and grain), some cut by the photo's edge or partly covered;
  and the backs of rendered tables (training decks);
- not backs (label 0): rendered faces pasted the same way (so that having been pasted tells
  nothing), the photos' real cards, card-sized boxes anywhere in them (carpet, tables, objects,
  at the edge too), the ``back`` boxes the detector reports on those photos (they show no
  backs: its real false backs, found once and kept in ``--work``), and faces and bare
  table of rendered tables; and hands with their arms (:func:`draw_hand`: skin of many
  tones, flat or shaded, bare-armed or sleeved) drawn into the photos and the rendered
  tables, boxed round the hand (a hand resting over a pile is card-sized and plain: the
  localiser fine-tuned on a GPU takes a flat skin-coloured hand for a back).

Each crop is jittered as the localiser's boxes are and lit, blurred, grained and saved as
JPEG at random. Held out: the test split's photos, the test decks' backs and faces and the
hard-pair designs; the script prints the check's scores there, including how many of the
detector's false backs on the test photos it rules out. About 22 minutes on this project's
2-core CPU (10 building the crops, 12 epochs of ~55 s)::

    python -m scripts.train_back_check                  # writes models/back_check.onnx
    python -m scripts.train_back_check --samples 2000 --epochs 1 --out /tmp/b.onnx  # smoke
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import cv2
import numpy as np

from scripts.eval_detector import card_px, pasted_back_ids, photo_boxes
from vision.back_check import SIZE, back_crop

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "cluttered-rank-boxes"
NAMES = ("other", "back")


def false_backs(photos: dict[Path, list[list[float]]], cache: Path) -> dict[str, list]:
    """The ``back`` boxes the detector (without a back check) reports on these photos,
    which show no backs; found once and kept in ``cache`` (JSON)."""
    if cache.is_file():
        return json.loads(cache.read_text())
    from vision.detector import BACK, CardDetector

    detector = CardDetector.load()
    detector.back_check = None
    out: dict[str, list] = {}
    for path in photos:
        img = cv2.imread(str(path))
        if img is None:
            continue
        dets = detector(img)
        out[str(path)] = [[float(v) for v in b] for b in dets.xyxy[dets.class_id == BACK]]
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(out))
    return out


def jitter(box: np.ndarray, rng: random.Random, amount: float = 0.06) -> np.ndarray:
    """The box with each side moved by a share of its size (the localiser's boxes are loose)."""
    w, h = box[2] - box[0], box[3] - box[1]
    return box + np.array([rng.gauss(0, amount) * w, rng.gauss(0, amount) * h,
                           rng.gauss(0, amount) * w, rng.gauss(0, amount) * h], np.float32)


def cut_by_edge(image: np.ndarray, box: np.ndarray, rng: random.Random
                ) -> tuple[np.ndarray, np.ndarray]:
    """The image cut so that one side of ``box`` lies 10–45 % outside it (a card at the
    photo's edge), and the box moved into the cut image, clipped."""
    x0, y0, x1, y1 = (float(v) for v in box)
    share = rng.uniform(0.1, 0.45)
    side = rng.randrange(4)
    h, w = image.shape[:2]
    cx0, cy0, cx1, cy1 = 0, 0, w, h
    if side == 0:
        cx0 = int(x0 + share * (x1 - x0))
    elif side == 1:
        cy0 = int(y0 + share * (y1 - y0))
    elif side == 2:
        cx1 = int(x1 - share * (x1 - x0))
    else:
        cy1 = int(y1 - share * (y1 - y0))
    cut = image[cy0:cy1, cx0:cx1]
    moved = np.array([max(0, x0 - cx0), max(0, y0 - cy0), min(cx1 - cx0, x1 - cx0),
                      min(cy1 - cy0, y1 - cy0)], np.float32)
    return cut, moved


def covered(crop: np.ndarray, donor: np.ndarray, rng: random.Random) -> np.ndarray:
    """``crop`` with one corner covered by a patch of ``donor`` (another card or object
    lying over it), up to 40 % of its height and width."""
    out = crop.copy()
    h, w = out.shape[:2]
    ph, pw = int(h * rng.uniform(0.2, 0.45)), int(w * rng.uniform(0.3, 0.7))
    patch = cv2.resize(donor, (pw, ph))
    y = 0 if rng.random() < 0.5 else h - ph
    x = 0 if rng.random() < 0.5 else w - pw
    out[y:y + ph, x:x + pw] = patch
    return out


def photometric(crop: np.ndarray, rng: random.Random) -> np.ndarray:
    """Light, white balance, blur, grain and JPEG at random."""
    img = crop.astype(np.float32)
    img = img * rng.uniform(0.65, 1.3) * np.array([rng.uniform(0.85, 1.15) for _ in range(3)],
                                                  np.float32)
    mean = img.mean()
    img = (img - mean) * rng.uniform(0.75, 1.2) + mean
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.2))
    img += np.random.default_rng(rng.randrange(1 << 30)).normal(
        0, rng.uniform(0, 6), img.shape).astype(np.float32)
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 90)])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else out
    return out


def varied_back(card: np.ndarray, rng: random.Random) -> np.ndarray:
    """A back bitmap (BGRA) made less like the few designs drawn: at random its colours
    turned round the hue circle, its pattern enlarged (a design of big motifs, as a picture
    back) and its white margin cut away (a borderless back, as many real decks')."""
    from vision.render.backs import card_mask

    out = card.copy()
    h, w = out.shape[:2]
    if rng.random() < 0.3:
        hsv = cv2.cvtColor(np.ascontiguousarray(out[..., :3]), cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(np.int32) + rng.randrange(180)) % 180
        out[..., :3] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    zoom = rng.uniform(1.5, 2.5) if rng.random() < 0.15 else (
        rng.uniform(1.08, 1.15) if rng.random() < 0.25 else 1.0)
    if zoom > 1.0:  # the middle of the card, enlarged to fill it
        ch, cw = int(h / zoom), int(w / zoom)
        y, x = (h - ch) // 2, (w - cw) // 2
        out = cv2.resize(out[y:y + ch, x:x + cw], (w, h), interpolation=cv2.INTER_LINEAR)
        out[..., 3] = card_mask(h, w)
    return out


def random_box(img: np.ndarray, px: float, rng: random.Random) -> np.ndarray:
    """A card-sized box anywhere in the image, often cut by its edge."""
    h, w = img.shape[:2]
    long = px * rng.uniform(0.6, 1.4)
    short = long * rng.uniform(0.6, 0.8)
    bw, bh = (short, long) if rng.random() < 0.6 else (long, short)
    x0 = rng.uniform(-0.3 * bw, w - 0.7 * bw)
    y0 = rng.uniform(-0.3 * bh, h - 0.7 * bh)
    return np.array([max(0, x0), max(0, y0), min(w, x0 + bw), min(h, y0 + bh)], np.float32)


def _skin(rng: random.Random) -> tuple[float, float, float]:
    """A skin tone (BGR) from the renderer's, varied."""
    from vision.render.video import SKIN_TONES

    base = rng.choice(SKIN_TONES + [(150, 175, 215), (30, 45, 70), (170, 195, 235)])
    k = rng.uniform(0.8, 1.15)
    return tuple(float(np.clip(c * k + rng.uniform(-12, 12), 0, 255)) for c in base)


def draw_hand(img: np.ndarray, centre: tuple[float, float], px: float, rng: random.Random
              ) -> np.ndarray:
    """Draw a hand (palm and fingers, :func:`vision.render.video._arm_polygons`' shape) at
    ``centre`` with its arm out to beyond the image, ``px`` the long side of a card there;
    open or an oval (a fist), flat or shaded, fingers parted or not, the arm bare or
    sleeved. Returns a card-sized
    box round the hand, turned either way and off centre (the localiser's box of a back it
    sees there)."""
    from vision.render.video import SLEEVES, _arm_polygons

    mm = px / 88.9 * rng.uniform(0.5, 1.2)  # pixels per mm
    a = rng.uniform(0, 2 * np.pi)
    u = np.array([np.cos(a), np.sin(a)])
    hand = np.array(centre, np.float64) / mm
    shoulder = hand - u * (max(img.shape[:2]) / mm + 200)
    sleeve, palm = _arm_polygons(shoulder, hand, rng.uniform(80, 140))
    if rng.random() < 0.3:  # a fist or a cupped hand: an oval, the arm a straight band
        a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        rx, ry = rng.uniform(45, 65), rng.uniform(35, 50)
        v = np.array([-u[1], u[0]])
        palm = hand + np.cos(a)[:, None] * rx * u + np.sin(a)[:, None] * ry * v
        half = ry * rng.uniform(0.55, 0.8)
        sleeve = np.array([shoulder + v * half, hand + v * half, hand - v * half,
                           shoulder - v * half])
    skin = _skin(rng)
    arm = skin if rng.random() < 0.3 else tuple(
        float(np.clip(c + rng.uniform(-20, 20), 0, 255)) for c in rng.choice(SLEEVES))
    layer = img.copy()
    mask = np.zeros(img.shape[:2], np.uint8)
    for poly, colour in ((sleeve, arm), (palm, skin)):
        pts = np.round(poly * mm * 16).astype(np.int32)
        cv2.fillPoly(layer, [pts], colour, cv2.LINE_AA, shift=4)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_8, shift=4)
    if rng.random() < 0.5:  # the gaps between the fingers, darker
        tip = hand + u * 60
        v = np.array([-u[1], u[0]])
        for off in (-15, 0, 15):
            p0, p1 = (hand + u * 20 + v * off) * mm, (tip + v * off * 1.3) * mm
            shade = tuple(c * 0.7 for c in skin)
            cv2.line(layer, tuple(int(t) for t in p0), tuple(int(t) for t in p1), shade,
                     max(1, int(mm * 2)), cv2.LINE_AA)
    if rng.random() < 0.6:  # light across the hand and a little blotchy texture
        h, w = img.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        b = rng.uniform(0, 2 * np.pi)
        ramp = ((xx - centre[0]) * np.cos(b) + (yy - centre[1]) * np.sin(b)) / (px * 1.5)
        light = 1 + rng.uniform(0.05, 0.25) * np.clip(ramp, -1, 1)
        blot = cv2.GaussianBlur(np.random.default_rng(rng.randrange(1 << 30)).normal(
            0, 1, (h, w)).astype(np.float32), (0, 0), max(1.0, px / 25))
        light = light + blot * rng.uniform(0, 0.6) / max(1e-6, float(blot.std()))* 0.1
        layer = np.clip(layer * light[..., None], 0, 255).astype(np.uint8)
    inside = mask > 0
    img[inside] = layer[inside]
    long = px * rng.uniform(0.8, 1.25)
    short = long * rng.uniform(0.6, 0.8)
    bw, bh = (short, long) if rng.random() < 0.5 else (long, short)
    cx = centre[0] + rng.uniform(-0.25, 0.25) * bw - u[0] * 20 * mm
    cy = centre[1] + rng.uniform(-0.25, 0.25) * bh - u[1] * 20 * mm
    h, w = img.shape[:2]
    return np.array([max(0, cx - bw / 2), max(0, cy - bh / 2), min(w, cx + bw / 2),
                     min(h, cy + bh / 2)], np.float32)


def _hand_spot(w: int, h: int, cards: list, px: float, rng: random.Random
               ) -> tuple[float, float]:
    """Where a hand goes: anywhere, or half the time just beside one of ``cards`` (boxes),
    partly over it (a hand putting a card down or taking one)."""
    if cards and rng.random() < 0.5:
        b = rng.choice(cards)
        a = rng.uniform(0, 2 * np.pi)
        d = px * rng.uniform(0.45, 0.9)
        return ((b[0] + b[2]) / 2 + np.cos(a) * d, (b[1] + b[3]) / 2 + np.sin(a) * d)
    return rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h


def hands(photos: dict[Path, list[list[float]]], count: int, samples: Samples,
          rng: random.Random) -> None:
    """``count`` hands drawn into the photos (label 0)."""
    paths = list(photos)
    for _ in range(count):
        path = rng.choice(paths)
        img = cv2.imread(str(path))
        if img is None:
            continue
        h, w = img.shape[:2]
        px = card_px(photos[path])
        box = draw_hand(img, _hand_spot(w, h, photos[path], px, rng), px, rng)
        samples.add(back_crop(img, box), 0, "hand", rng)


class Samples:
    """Crops and labels, grown one sample at a time."""

    def __init__(self) -> None:
        self.crops: list[np.ndarray] = []
        self.labels: list[int] = []
        self.kinds: list[str] = []

    def add(self, crop: np.ndarray, label: int, kind: str, rng: random.Random) -> None:
        self.crops.append(photometric(crop, rng))
        self.labels.append(label)
        self.kinds.append(kind)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        return np.stack(self.crops), np.array(self.labels, np.int64), self.kinds


def pasted(photos: dict[Path, list[list[float]]], count: int, bitmaps, label: int,  # noqa: ANN001
           kind: str, samples: Samples, rng: random.Random) -> None:
    """``count`` samples of cards pasted into the photos (``bitmaps(rng)`` gives a BGRA
    card), some cut by the photo's edge or partly covered."""
    from vision.render.paste import paste_cards

    paths = list(photos)
    made = 0
    for _ in range(20 * count):  # (a photo crowded with big cards has no room for one)
        if made >= count:
            break
        path = rng.choice(paths)
        img = cv2.imread(str(path))
        if img is None:
            continue
        boxes = photos[path]
        shot, placed = paste_cards(img, [bitmaps(rng)], rng, card_px(boxes), avoid=boxes,
                                   cover=0.3)
        if placed[0] is None:
            continue
        box = jitter(placed[0].box, rng)
        if rng.random() < 0.3:
            shot, box = cut_by_edge(shot, placed[0].box, rng)
            box = jitter(box, rng, 0.03)
        crop = back_crop(shot, box)
        if rng.random() < 0.2:
            crop = covered(crop, back_crop(shot, random_box(shot, card_px(boxes), rng)), rng)
        samples.add(crop, label, kind, rng)
        made += 1


def real_negatives(photos: dict[Path, list[list[float]]], wrong: dict[str, list],
                   counts: dict[str, int], samples: Samples, rng: random.Random) -> None:
    """Crops of the photos' own cards, of card-sized boxes anywhere, and of the detector's
    false backs (each false back several times, jittered)."""
    paths = list(photos)
    for _ in range(counts["cards"]):
        path = rng.choice(paths)
        img = cv2.imread(str(path))
        box = np.asarray(rng.choice(photos[path]), np.float32)
        samples.add(back_crop(img, jitter(box, rng)), 0, "real card", rng)
    for _ in range(counts["random"]):
        path = rng.choice(paths)
        img = cv2.imread(str(path))
        samples.add(back_crop(img, random_box(img, card_px(photos[path]), rng)), 0,
                    "real anywhere", rng)
    boxes = [(p, np.asarray(b, np.float32)) for p, bs in wrong.items() for b in bs]
    for k in range(counts["false backs"] if boxes else 0):
        path, box = boxes[k % len(boxes)]
        img = cv2.imread(path)
        samples.add(back_crop(img, jitter(box, rng, 0.04)), 0, "detector's false back", rng)


def rendered_tables(split: str, stills: int, per_back: int, samples: Samples,
                    rng: random.Random, hands_per: int = 0) -> None:
    """Backs (label 1), faces, bare table and ``hands_per`` hands drawn on it (label 0) of
    rendered tables."""
    from vision.render.scene import random_table, render_still

    for _ in range(stills):
        table = random_table(rng.choice([2, 3, 4, 5, 6]), seed=rng.randrange(1 << 30))
        size = rng.choice([(960, 540), (1280, 720), (1920, 1080)])
        scene = render_still(table, seed=rng.randrange(1 << 30), size=size, split=split)
        backs = [np.asarray(c["visible_box"], np.float32) for c in scene.cards
                 if c["code"] == "back" and c.get("visible", 0) >= 0.5]
        faces = [np.asarray(c["visible_box"], np.float32) for c in scene.cards
                 if c["code"] != "back" and c.get("visible", 0) >= 0.5]
        for box in backs:
            for _ in range(per_back):
                samples.add(back_crop(scene.image, jitter(box, rng)), 1, "rendered back", rng)
        for box in rng.sample(faces, min(len(faces), 2 * len(backs) + 2)):
            samples.add(back_crop(scene.image, jitter(box, rng)), 0, "rendered face", rng)
        px = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in faces])) if faces else 60
        for _ in range(3):
            box = random_box(scene.image, px, rng)
            c = (box[:2] + box[2:]) / 2
            if not any(b[0] <= c[0] <= b[2] and b[1] <= c[1] <= b[3] for b in backs):
                samples.add(back_crop(scene.image, box), 0, "rendered table", rng)
        h, w = scene.image.shape[:2]
        for _ in range(hands_per):
            img = scene.image.copy()
            box = draw_hand(img, _hand_spot(w, h, faces, px, rng), px, rng)
            samples.add(back_crop(img, box), 0, "hand on a rendered table", rng)


def build(split: str, total: int, stills: int, wrong: dict[str, list], seed: int,
          folder: Path = REAL, vary: bool = False, hand_share: float = 0.0
          ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The samples of ``split`` (``train``: training designs and decks; ``test``: held-out
    ones), about ``total`` of them, with ``stills`` rendered tables; ``vary``: the pasted
    backs varied (:func:`varied_back`); ``hand_share``: that share more of hands drawn
    into the photos, and 4 on each rendered table (none: the check of session 32)."""
    from rules.cards import ALL_CODES
    from vision.render import backs, decks

    rng = random.Random(seed)
    photos = photo_boxes(folder, split)
    designs = pasted_back_ids(split, 400, seed)
    face_decks = decks.deck_names(split)
    codes = list(ALL_CODES)
    samples = Samples()
    def back(r: random.Random) -> np.ndarray:
        card = backs.back_image(r.choice(designs), 256)
        return varied_back(card, r) if vary else card

    pasted(photos, int(0.4 * total), back, 1, "pasted back", samples, rng)
    pasted(photos, int(0.15 * total),
           lambda r: decks.render_card(r.choice(face_decks), r.choice(codes), 256), 0,
           "pasted face", samples, rng)
    real_negatives(photos, wrong, {"cards": int(0.1 * total), "random": int(0.15 * total),
                                   "false backs": int(0.1 * total)}, samples, rng)
    if hand_share:
        hands(photos, int(hand_share * total), samples, rng)
    if stills:
        rendered_tables(split, stills, 3, samples, rng, 4 if hand_share else 0)
    return samples.arrays()


def build_model():  # noqa: ANN201
    import torch
    from torch import nn

    layers: list[nn.Module] = []
    cin = 3
    for cout in (16, 32, 64, 96):
        layers += [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                   nn.ReLU(inplace=True), nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                   nn.BatchNorm2d(cout), nn.ReLU(inplace=True), nn.MaxPool2d(2)]
        cin = cout

    class BackCheckNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(*layers)
            self.head = nn.Linear(cin, len(NAMES))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.body(x).mean(dim=(2, 3)))

    return BackCheckNet()


def to_tensor(crops: np.ndarray):  # noqa: ANN201
    import torch

    return torch.from_numpy(np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2))
                            ).float() / 255.0


def predict(model, crops: np.ndarray) -> np.ndarray:  # noqa: ANN001
    import torch

    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), 512):
            out.append(torch.softmax(model(to_tensor(crops[i:i + 512])), 1)[:, 1].numpy())
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def report(probs: np.ndarray, labels: np.ndarray, kinds: list[str], threshold: float = 0.5
           ) -> dict[str, float]:
    """Share of each kind of sample judged right at ``threshold``."""
    out = {}
    for kind in sorted(set(kinds)):
        m = np.array([k == kind for k in kinds])
        right = (probs[m] >= threshold) == (labels[m] == 1)
        out[kind] = float(right.mean())
    return out


def export(model, out: Path) -> Path:  # noqa: ANN001
    """ONNX (dynamic batch) of the class probabilities, with ``names`` and ``imgsz``."""
    from torch import nn

    from scripts.train_index_reader import export_onnx

    w, h = SIZE
    return export_onnx(nn.Sequential(model.cpu().eval(), nn.Softmax(dim=1)), (h, w), out,
                       "BackCheck (scripts/train_back_check.py)", names=NAMES)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=16000, help="training samples")
    parser.add_argument("--stills", type=int, default=80, help="rendered training tables")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--vary-backs", action="store_true",
                        help="vary the pasted training backs (hue, big motifs, no margin)")
    parser.add_argument("--hands", type=float, default=0.1,
                        help="share more of samples: hands drawn into the photos (0: none)")
    parser.add_argument("--real", type=Path, default=REAL,
                        help="the cluttered-rank-boxes folder")
    parser.add_argument("--work", type=Path, default=Path("runs/back_check"),
                        help="cache of the detector's false backs and the last weights")
    parser.add_argument("--out", type=Path, default=Path("models/back_check.onnx"))
    args = parser.parse_args(argv)
    if not (args.real / "images").is_dir():
        parser.error(f"--real {args.real}: no cluttered-rank-boxes photos there")

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t0 = time.time()
    wrong = {s: false_backs(photo_boxes(args.real, s), args.work / f"false_backs_{s}.json")
             for s in ("train", "test")}
    print(f"detector's false backs: train {sum(map(len, wrong['train'].values()))}, test "
          f"{sum(map(len, wrong['test'].values()))} ({time.time() - t0:.0f} s)", flush=True)
    x, y, _kinds = build("train", args.samples, args.stills, wrong["train"], args.seed, args.real,
                         args.vary_backs, args.hands)
    vx, vy, vkinds = build("test", max(20, args.samples // 5), -(-args.stills // 4),
                           {}, args.seed + 1, args.real, hand_share=args.hands)
    test_false = [back_crop(cv2.imread(p), b) for p, bs in wrong["test"].items() for b in bs]
    print(f"train {len(y)} crops ({int(y.sum())} backs), held out {len(vy)} "
          f"({time.time() - t0:.0f} s)", flush=True)
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = args.epochs * -(-len(y) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    gen = torch.Generator().manual_seed(args.seed)
    labels = torch.from_numpy(y)
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for i in range(0, len(y), 128):
            idx = order[i:i + 128]
            batch = to_tensor(x[idx.numpy()])
            if torch.rand(1, generator=gen).item() < 0.5:
                batch = batch.flip(3)
            if torch.rand(1, generator=gen).item() < 0.5:
                batch = batch.flip(2)
            loss = torch.nn.functional.cross_entropy(model(batch), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        probs = predict(model, vx)
        scores = report(probs, vy, vkinds)
        tf = predict(model, np.stack(test_false)) if test_false else np.zeros(0)
        print(f"epoch {epoch + 1}: loss {total / len(y):.4f}; held out: "
              + ", ".join(f"{k} {v:.3f}" for k, v in scores.items())
              + f"; detector's false backs on the test photos ruled out "
              f"{int((tf < 0.5).sum())} of {len(tf)} ({time.time() - t0:.0f} s)", flush=True)
    args.work.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.work / "last.pt")
    export(model, args.out)
    print(f"exported {args.out}")


if __name__ == "__main__":
    main()
