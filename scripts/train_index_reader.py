"""Train the card-index reader (v2 of ``models/index_classifier.onnx``): a small CNN with a
rank head (13 ranks + ``none``) and a suit head, on upright index crops from
``scripts.make_index_crops --max-angle 12``; exports an ONNX model that outputs the 53
class probabilities (P(rank)·P(suit) for each code, P(none)) with the class names and input
size in its metadata, so ``vision.identify.IndexClassifier`` runs it unchanged.

Why not Ultralytics' classifier here: two factored heads share what a rank looks like across
suits (13 + 4 outputs learnt from every crop instead of 52 classes from a 52nd of them), and
the per-image colour normalisation inside the graph (grey-world white balance and contrast)
takes the colour cast of real lamps and cameras out before the first convolution.

    python -m scripts.make_index_crops --out datasets/index_up --per-card 30 \\
        --val-per-card 6 --generic-per-card 250 --max-angle 12 --seed 2
    python -m scripts.make_index_crops --out datasets/index_up45 --per-card 14 \\
        --val-per-card 3 --generic-per-card 120 --max-angle 45 --seed 3
    python -m scripts.train_index_reader --data datasets/index_up datasets/index_up45 \\
        --epochs 10 \\
        --out models/index_classifier.onnx

Checkpoints every epoch to ``--work`` (``last.pt``) and resumes from it with ``--resume``;
runs on a GPU unchanged with ``--device cuda``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2
import numpy as np

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
NONE = "none"
SIZE = 64


def class_names() -> list[str]:
    """The 53 output classes in the order the exported model gives them (sorted, as the
    v1 Ultralytics model's folders were)."""
    return sorted([r + s for r in RANKS for s in SUITS] + [NONE])


def load_split(folders: list[Path], limit: int = 0, seed: int = 0,
               size: tuple[int, int] = (SIZE, SIZE)
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Images (N, H, W, 3) RGB uint8 of ``size`` (W, H), rank targets (13 = none) and suit
    targets (-1 = none or unknown) of ``<folder>/<code>/*.png`` for each folder; a folder
    ``<rank>x`` holds crops whose suit is unknown (real photos labelled by rank only)."""
    files = sorted(p for folder in folders for p in folder.glob("*/*.png"))
    random.Random(seed).shuffle(files)
    if limit:
        files = files[:limit]
    w, h = size
    images = np.zeros((len(files), h, w, 3), np.uint8)
    ranks = np.zeros(len(files), np.int64)
    suits = np.zeros(len(files), np.int64)
    for i, p in enumerate(files):
        img = cv2.imread(str(p))
        if img.shape[:2] != (h, w):
            img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        images[i] = img[:, :, ::-1]
        code = p.parent.name
        if code == NONE:
            ranks[i], suits[i] = len(RANKS), -1
        else:
            ranks[i] = RANKS.index(code[:-1])
            suits[i] = SUITS.index(code[-1]) if code[-1] in SUITS else -1
    return images, ranks, suits


def build_model():  # noqa: ANN201 - torch is imported lazily (train extra only)
    import torch
    from torch import nn

    def block(cin: int, cout: int, convs: int) -> list[nn.Module]:
        layers: list[nn.Module] = []
        for k in range(convs):
            layers += [nn.Conv2d(cin if k == 0 else cout, cout, 3, padding=1, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        return layers + [nn.MaxPool2d(2)]

    class IndexReader(nn.Module):
        """Per-image normalisation → 4 conv blocks → rank and suit heads."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*block(3, 16, 1), *block(16, 32, 1),
                                          *block(32, 64, 2), *block(64, 128, 2),
                                          nn.AdaptiveAvgPool2d(2), nn.Flatten())
            self.neck = nn.Sequential(nn.Dropout(0.3), nn.Linear(512, 256),
                                      nn.ReLU(inplace=True), nn.Dropout(0.2))
            self.rank = nn.Linear(256, len(RANKS) + 1)
            self.suit = nn.Linear(256, len(SUITS))

        @staticmethod
        def normalise(x: torch.Tensor) -> torch.Tensor:
            # grey-world white balance per channel, then one contrast scale per image
            x = x - x.mean(dim=(2, 3), keepdim=True)
            return x / (x.std(dim=(1, 2, 3), keepdim=True) + 0.02)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.neck(self.features(self.normalise(x)))
            return self.rank(h), self.suit(h)

    return IndexReader()


def load_onnx_weights(model, path: Path) -> None:  # noqa: ANN001
    """Load an exported reader's weights (``models/index_classifier.onnx``) into ``model``.
    The export folded each batch norm into its convolution, so the convolutions take the
    folded weights and biases and the batch norms become identities: fine-tune such a model
    with its batch norms frozen (``freeze_batch_norms``)."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    for node in graph.node:  # (a weight used twice may reach its second use by Identity)
        if node.op_type == "Identity" and node.input[0] in weights:
            weights[node.output[0]] = weights[node.input[0]]
    convs = [n for n in graph.node if n.op_type == "Conv"]
    torch_convs = [m for m in model.features if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model.features if isinstance(m, torch.nn.BatchNorm2d)]
    n = len(torch_convs)
    if not convs or len(convs) % n:
        raise ValueError(f"{path}: {len(convs)} convolutions, this reader has {n}")
    # a graph that reads its input more than once (the face reader: as is and turned 180°)
    # holds each convolution once per read, the same weights
    for k in range(n, len(convs)):
        for i in (1, 2):
            if not np.array_equal(weights[convs[k].input[i]], weights[convs[k % n].input[i]]):
                raise ValueError(f"{path}: its reads of the input have different weights")
    convs = convs[:n]
    with torch.no_grad():
        for node, conv, norm in zip(convs, torch_convs, norms, strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(weights[node.input[1]])))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(np.array(weights[node.input[2]])))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        for name, param in model.named_parameters():
            key = f"inner.{name}"
            if key in weights:
                param.copy_(torch.from_numpy(np.array(weights[key])))


def init_weights(model, args) -> None:  # noqa: ANN001
    """``--init``: an exported reader (.onnx; its batch norms folded, so kept fixed from
    then on: ``args.freeze_bn``) or a torch state dict (best.pt)."""
    import torch

    if args.init is not None and args.init.suffix == ".onnx":
        load_onnx_weights(model, args.init)
        args.freeze_bn = True
    elif args.init is not None:
        model.load_state_dict(torch.load(args.init, map_location=args.device))


def freeze_batch_norms(model) -> None:  # noqa: ANN001
    """Batch norms in eval mode (their running statistics kept; scale and shift still
    learn)."""
    import torch

    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def class_probabilities(rank_logits, suit_logits):  # noqa: ANN001, ANN201
    """(N, 53) probabilities in :func:`class_names` order from the two heads."""
    import torch

    pr = torch.softmax(rank_logits, dim=1)
    ps = torch.softmax(suit_logits, dim=1)
    cols = []
    for name in class_names():
        if name == NONE:
            cols.append(pr[:, len(RANKS)])
        else:
            cols.append(pr[:, RANKS.index(name[:-1])] * ps[:, SUITS.index(name[-1])])
    return torch.stack(cols, dim=1)


def shrunk(images: np.ndarray, glyph: float) -> np.ndarray:
    """(N, 64, 64, 3) crops as a ``glyph`` px tall index would look (see
    :func:`low_resolution`), for validation."""
    side = max(4, round(SIZE * glyph / 47))
    return np.stack([cv2.resize(cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA),
                                (SIZE, SIZE), interpolation=cv2.INTER_LINEAR) for img in images])


def coded(small, generator):  # noqa: ANN001, ANN201
    """Small crops (N, 3, h, w) in 0–1 JPEG-coded at a quality of 30–85, as a webcam's or a
    video file's codec leaves a few-pixel index (blocks, smeared red ink)."""
    import torch

    quality = int(30 + 55 * float(torch.rand(1, generator=generator)))
    pixels = (small.permute(0, 2, 3, 1).clamp(0, 1) * 255).round().to(torch.uint8).numpy()
    out = []
    for img in pixels:
        ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(img[:, :, ::-1]),
                               [cv2.IMWRITE_JPEG_QUALITY, quality])
        out.append(cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1] if ok else img)
    return torch.from_numpy(np.stack(out).astype(np.float32) / 255).permute(0, 3, 1, 2)


def low_resolution(batch, share: float, generator, codec: float = 0.0):  # noqa: ANN001, ANN201
    """A ``share`` of the crops seen as a small index would be: shrunk (area-averaged) so
    that the index, about 47 px tall in a 64 px crop, is 6–14 px tall, then enlarged back
    bilinearly, as ``vision.crops.crop_square`` enlarges a small index at run time; a
    ``codec`` share of those JPEG-coded at the small size first (:func:`coded`)."""
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]
    picked = torch.nonzero(torch.rand(n, generator=generator) < share).flatten()
    if not len(picked):
        return batch
    out = batch.clone()
    # a few sizes per batch: crops of one size are resized together
    for part in torch.chunk(picked, 4):
        if not len(part):
            continue
        glyph = 6 + 8 * float(torch.rand(1, generator=generator))
        side = max(4, round(SIZE * glyph / 47))
        small = F.interpolate(batch[part], size=(side, side), mode="area")
        if codec > 0 and float(torch.rand(1, generator=generator)) < codec:
            small = coded(small, generator)
        out[part] = F.interpolate(small, size=(SIZE, SIZE), mode="bilinear",
                                  align_corners=False)
    return out


def augment(batch, generator, low_res: float = 0.0, codec: float = 0.0):  # noqa: ANN001, ANN201
    """Cheap on-the-fly augmentation of a float batch (N, 3, 64, 64) in 0–1: shifts of up
    to 4 px, per-channel gain and offset (colour casts), contrast, noise, and a random
    occluding bar sometimes; a ``low_res`` share seen at 6–14 px (:func:`low_resolution`),
    a ``codec`` share of those JPEG-coded there."""
    import torch

    n = batch.shape[0]
    if low_res > 0:
        batch = low_resolution(batch, low_res, generator, codec)
    pad = torch.nn.functional.pad(batch, (4, 4, 4, 4), mode="replicate")
    dx = torch.randint(0, 9, (n,), generator=generator)
    dy = torch.randint(0, 9, (n,), generator=generator)
    out = torch.stack([pad[i, :, dy[i]:dy[i] + SIZE, dx[i]:dx[i] + SIZE] for i in range(n)])
    gain = 1 + 0.25 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5)
    offset = 0.15 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5)
    contrast = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=generator)
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    out = (out - mean) * contrast + mean
    out = out * gain + offset
    out = out + 0.03 * torch.rand(n, 1, 1, 1, generator=generator) * torch.randn(
        out.shape, generator=generator)
    bars = torch.rand(n, generator=generator) < 0.15
    for i in torch.nonzero(bars).flatten().tolist():
        w = int(torch.randint(4, 14, (1,), generator=generator))
        x0 = int(torch.randint(0, SIZE - w, (1,), generator=generator))
        shade = float(torch.rand(1, generator=generator))
        if float(torch.rand(1, generator=generator)) < 0.5:
            out[i, :, :, x0:x0 + w] = shade
        else:
            out[i, :, x0:x0 + w, :] = shade
    return out.clamp(0, 1)


def evaluate(model, images: np.ndarray, ranks: np.ndarray, suits: np.ndarray,  # noqa: ANN001
             device: str) -> dict[str, float]:
    import torch

    model.eval()
    names = class_names()
    pred: list[int] = []
    with torch.no_grad():
        for i in range(0, len(images), 512):
            x = torch.from_numpy(images[i:i + 512]).to(device).permute(0, 3, 1, 2).float() / 255
            pred += class_probabilities(*model(x)).argmax(dim=1).tolist()
    truth = [NONE if r == len(RANKS) else RANKS[r] + SUITS[s] for r, s in zip(ranks, suits,
                                                                             strict=True)]
    got = [names[p] for p in pred]
    cards = [(t, g) for t, g in zip(truth, got, strict=True) if t != NONE]
    n = max(1, len(cards))
    return {"card": sum(t == g for t, g in cards) / n,
            "rank": sum(t[:-1] == g[:-1] for t, g in cards) / n,
            "suit": sum(t[-1] == g[-1] for t, g in cards) / n,
            "none_recall": sum(t == g for t, g in zip(truth, got, strict=True) if t == NONE)
            / max(1, truth.count(NONE))}


def export_onnx(probabilities, hw: tuple[int, int], out: Path, name: str,  # noqa: ANN001
                names: Sequence[str] | None = None) -> Path:
    """ONNX (dynamic batch, opset 17) of ``probabilities`` (a torch module from an RGB
    batch of ``hw`` = (height, width) to class probabilities) with ``names`` (default: the
    index reader's classes), ``imgsz`` ([height, width]), ``task`` and ``model`` (``name``)
    metadata."""
    import onnx
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    h, w = hw
    torch.onnx.export(probabilities, torch.zeros(1, 3, h, w), str(tmp), input_names=["images"],
                      output_names=["probs"], dynamic_axes={"images": {0: "batch"},
                                                            "probs": {0: "batch"}},
                      opset_version=17, dynamo=False)
    proto = onnx.load(str(tmp))
    meta = {"names": str(dict(enumerate(names or class_names()))), "imgsz": str([h, w]),
            "task": "classify", "model": name}
    for k, v in meta.items():
        entry = proto.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(proto, str(out))
    tmp.unlink()
    return out


def export(model, out: Path) -> Path:  # noqa: ANN001
    """ONNX (dynamic batch, opset 17) with ``names`` and ``imgsz`` metadata."""
    import torch

    class Probabilities(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return class_probabilities(*self.inner(x))

    return export_onnx(Probabilities(model.cpu().eval()), (SIZE, SIZE), out,
                       "IndexReader (scripts/train_index_reader.py)")


def fit(model, train: tuple[np.ndarray, np.ndarray, np.ndarray], args: argparse.Namespace,  # noqa: ANN001
        augment_batch: Callable, score: Callable, generator,  # noqa: ANN001
        log_every: int = 0, after_epoch: Callable | None = None) -> float:
    """The training loop of the rank-and-suit readers (this one and the face reader):
    AdamW with a OneCycle schedule over ``args.epochs`` (``args.lr``, ``args.batch``,
    ``args.device``); every epoch ``score(model)`` (its ``"score"`` picks ``best.pt``) and a
    resumable ``last.pt`` in ``args.work`` (``args.resume`` continues from it); then
    ``after_epoch(model)``. Returns the best score."""
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    steps_per_epoch = math.ceil(len(train[0]) / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, epochs=args.epochs,
                                                steps_per_epoch=steps_per_epoch,
                                                pct_start=0.15)
    args.work.mkdir(parents=True, exist_ok=True)
    start, best = 0, -1.0
    last = args.work / "last.pt"
    if args.resume and last.is_file():
        state = torch.load(last, map_location=args.device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start, best = state["epoch"] + 1, state["best"]
        generator.set_state(state["generator"])
        print(f"resumed after epoch {start}", flush=True)
    ce_rank = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    ce_suit = torch.nn.CrossEntropyLoss(label_smoothing=0.05, ignore_index=-1)
    images = torch.from_numpy(train[0])
    ranks, suits = torch.from_numpy(train[1]), torch.from_numpy(train[2])
    for epoch in range(start, args.epochs):
        model.train()
        if getattr(args, "freeze_bn", False):
            freeze_batch_norms(model)
        t0, total = time.time(), 0.0
        order = torch.randperm(len(images), generator=generator)
        for step in range(steps_per_epoch):
            idx = order[step * args.batch:(step + 1) * args.batch]
            x = images[idx].permute(0, 3, 1, 2).float() / 255
            x = augment_batch(x, generator).to(args.device)
            r_logits, s_logits = model(x)
            loss = ce_rank(r_logits, ranks[idx].to(args.device)) + ce_suit(
                s_logits, suits[idx].to(args.device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            if log_every and step % log_every == 0:
                print(json.dumps({"epoch": epoch + 1, "step": step, "of": steps_per_epoch,
                                  "loss": round(total / (step + 1), 4),
                                  "seconds": round(time.time() - t0, 1)}), flush=True)
        scores = score(model)
        print(json.dumps({"epoch": epoch + 1, "loss": round(total / steps_per_epoch, 4),
                          "seconds": round(time.time() - t0, 1),
                          **{k: round(v, 4) for k, v in scores.items()}}), flush=True)
        if scores["score"] > best:
            best = scores["score"]
            torch.save(model.state_dict(), args.work / "best.pt")
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "epoch": epoch, "best": best,
                    "generator": generator.get_state()}, last)
        if after_epoch is not None:
            after_epoch(model)
    return best


def training_parser(description: str, data: Path, epochs: int, work: Path, out: Path
                    ) -> argparse.ArgumentParser:
    """The options every reader's training takes (data folders, schedule, seed, device,
    resume or start from weights, where the ONNX goes), with this reader's defaults."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, nargs="+", default=[data],
                        help="crop folders (each with train/ and val/)")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--limit", type=int, default=0, help="use only N training crops")
    parser.add_argument("--work", type=Path, default=work)
    parser.add_argument("--resume", action="store_true", help="continue from --work/last.pt")
    parser.add_argument("--init", type=Path, default=None,
                        help="start from these weights (a best.pt, or an exported .onnx) "
                             "with a fresh schedule")
    parser.add_argument("--freeze-bn", action="store_true",
                        help="keep batch-norm statistics fixed (implied by an .onnx --init)")
    parser.add_argument("--out", type=Path, default=out)
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = training_parser(__doc__.splitlines()[0], Path("datasets/index_up"), 14,
                             Path("runs/index_reader"), Path("models/index_classifier.onnx"))
    parser.add_argument("--low-res", type=float, default=0.0,
                        help="share of training crops shrunk to a 6-14 px index first")
    parser.add_argument("--codec", type=float, default=0.0,
                        help="share of the shrunk crops JPEG-coded at their small size")
    args = parser.parse_args(argv)

    import torch

    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    train = load_split([d / "train" for d in args.data], args.limit, args.seed)
    val = load_split([d / "val" for d in args.data], 0, args.seed)
    print(f"train {len(train[0])} crops, val {len(val[0])} crops", flush=True)
    model = build_model().to(args.device)
    init_weights(model, args)

    def score(model) -> dict[str, float]:  # noqa: ANN001
        scores = evaluate(model, *val, args.device)
        if args.low_res > 0:  # also the held-out crops seen at a 10 px index
            small = shrunk(val[0], 10)
            scores["card_10px"] = evaluate(model, small, *val[1:], args.device)["card"]
            scores["score"] = (scores["card"] + scores["card_10px"]) / 2
        else:
            scores["score"] = scores["card"]
        return scores

    best = fit(model, train, args, lambda x, g: augment(x, g, args.low_res, args.codec), score,
               generator)
    model.load_state_dict(torch.load(args.work / "best.pt", map_location="cpu"))
    print(f"best held-out score {best:.4f}; exported {export(model, args.out)}")


if __name__ == "__main__":
    main()
