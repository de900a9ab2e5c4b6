"""Train the face reader (``models/face_reader.onnx``): a small CNN that reads a whole card,
warped upright (``vision.crops.upright_card``) and shrunk to 48×64, as one of the 52 codes
or ``none`` — from its pips (count, layout and shape), its picture and its indices together,
so that a card is read where its corner index is too small to read alone.

Data: ``scripts.make_face_crops`` (``<data>/{train,val}/<class>/*.png``). The model has a
rank head (13 ranks + ``none``) and a suit head like ``scripts.train_index_reader``, the
same per-image colour normalisation in the graph, and reads the card both ways up: the
exported graph averages its probabilities over the crop and the crop turned 180° (which
end of a card is up is not known at run time), so its output does not depend on it.

    python -m scripts.make_face_crops --out datasets/face_crops --per-card 40 \\
        --val-per-card 8 --generic-per-card 100 --seed 0
    python -m scripts.train_face_reader --data datasets/face_crops --epochs 6 \\
        --out models/face_reader.onnx

Checkpoints every epoch to ``--work`` (``last.pt``) and resumes from it with ``--resume``;
runs on a GPU unchanged with ``--device cuda``; ``--threads`` sets torch's CPU threads.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scripts.train_index_reader import (
    NONE,
    RANKS,
    SUITS,
    class_names,
    class_probabilities,
    export_onnx,
    fit,
    init_weights,
    load_split,
    training_parser,
)

#: the input (width, height)
SIZE = (48, 64)


def build_model():  # noqa: ANN201 - torch is imported lazily (train extra only)
    import torch
    from torch import nn

    def block(cin: int, cout: int, convs: int) -> list[nn.Module]:
        layers: list[nn.Module] = []
        for k in range(convs):
            layers += [nn.Conv2d(cin if k == 0 else cout, cout, 3, padding=1, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        return layers + [nn.MaxPool2d(2)]

    class FaceReader(nn.Module):
        """Per-image normalisation → 4 conv blocks → a 4×3 grid of features (where the
        pips are) → rank and suit heads."""

        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*block(3, 16, 1), *block(16, 32, 1),
                                          *block(32, 64, 2), *block(64, 128, 2),
                                          nn.AdaptiveAvgPool2d((4, 3)), nn.Flatten())
            self.neck = nn.Sequential(nn.Dropout(0.3), nn.Linear(128 * 12, 256),
                                      nn.ReLU(inplace=True), nn.Dropout(0.2))
            self.rank = nn.Linear(256, len(RANKS) + 1)
            self.suit = nn.Linear(256, len(SUITS))

        @staticmethod
        def normalise(x: torch.Tensor) -> torch.Tensor:
            x = x - x.mean(dim=(2, 3), keepdim=True)
            return x / (x.std(dim=(1, 2, 3), keepdim=True) + 0.02)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.neck(self.features(self.normalise(x)))
            return self.rank(h), self.suit(h)

    return FaceReader()


def both_ways(model, x):  # noqa: ANN001, ANN201
    """(N, 53) class probabilities averaged over the crops and the crops turned 180°."""
    import torch

    return (class_probabilities(*model(x))
            + class_probabilities(*model(torch.flip(x, dims=(2, 3))))) / 2


def augment(batch, generator):  # noqa: ANN001, ANN201
    """On-the-fly augmentation of a float batch (N, 3, H, W) in 0–1: half turned 180°,
    shifts of up to 3 px, per-channel gain and offset, contrast, noise, a random occluding
    bar sometimes."""
    import torch

    n, _c, h, w = batch.shape
    turn = torch.rand(n, generator=generator) < 0.5
    batch = torch.where(turn[:, None, None, None], torch.flip(batch, dims=(2, 3)), batch)
    pad = torch.nn.functional.pad(batch, (3, 3, 3, 3), mode="replicate")
    dx = torch.randint(0, 7, (n,), generator=generator)
    dy = torch.randint(0, 7, (n,), generator=generator)
    out = torch.stack([pad[i, :, dy[i]:dy[i] + h, dx[i]:dx[i] + w] for i in range(n)])
    gain = 1 + 0.25 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5)
    offset = 0.15 * (torch.rand(n, 3, 1, 1, generator=generator) - 0.5)
    contrast = 0.6 + 0.8 * torch.rand(n, 1, 1, 1, generator=generator)
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    out = (out - mean) * contrast + mean
    out = out * gain + offset
    out = out + 0.03 * torch.rand(n, 1, 1, 1, generator=generator) * torch.randn(
        out.shape, generator=generator)
    bars = torch.rand(n, generator=generator) < 0.1
    for i in torch.nonzero(bars).flatten().tolist():
        t = int(torch.randint(4, 12, (1,), generator=generator))
        shade = float(torch.rand(1, generator=generator))
        if float(torch.rand(1, generator=generator)) < 0.5:
            x0 = int(torch.randint(0, w - t, (1,), generator=generator))
            out[i, :, :, x0:x0 + t] = shade
        else:
            y0 = int(torch.randint(0, h - t, (1,), generator=generator))
            out[i, :, y0:y0 + t, :] = shade
    return out.clamp(0, 1)


def evaluate(model, images: np.ndarray, ranks: np.ndarray, suits: np.ndarray,  # noqa: ANN001
             device: str) -> dict[str, float]:
    """Held-out card top-1, rank, suit (cards only) and ``none`` recall, read both ways."""
    import torch

    model.eval()
    names = class_names()
    pred: list[int] = []
    with torch.no_grad():
        for i in range(0, len(images), 512):
            x = torch.from_numpy(images[i:i + 512]).to(device).permute(0, 3, 1, 2).float() / 255
            pred += both_ways(model, x).argmax(dim=1).tolist()
    truth = [NONE if r == len(RANKS) else RANKS[r] + SUITS[s]
             for r, s in zip(ranks, suits, strict=True)]
    got = [names[p] for p in pred]
    cards = [(t, g) for t, g in zip(truth, got, strict=True) if t != NONE]
    pips = [(t, g) for t, g in cards if t[:-1] not in ("J", "Q", "K")]
    n = max(1, len(cards))
    return {"card": sum(t == g for t, g in cards) / n,
            "rank": sum(t[:-1] == g[:-1] for t, g in cards) / n,
            "suit": sum(t[-1] == g[-1] for t, g in cards) / n,
            "pip_cards": sum(t == g for t, g in pips) / max(1, len(pips)),
            "none_recall": sum(t == g for t, g in zip(truth, got, strict=True) if t == NONE)
            / max(1, truth.count(NONE))}


def export(model, out: Path) -> Path:  # noqa: ANN001
    """ONNX (dynamic batch, opset 17) of the both-ways probabilities, with ``names`` and
    ``imgsz`` ([height, width]) metadata."""
    import torch

    class Probabilities(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return both_ways(self.inner, x)

    w, h = SIZE
    return export_onnx(Probabilities(model.cpu().eval()), (h, w), out,
                       "FaceReader (scripts/train_face_reader.py)")


def main(argv: list[str] | None = None) -> None:
    parser = training_parser(__doc__.splitlines()[0], Path("datasets/face_crops"), 6,
                             Path("runs/face_reader"), Path("models/face_reader.onnx"))
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    train = load_split([d / "train" for d in args.data], args.limit, args.seed, SIZE)
    val = load_split([d / "val" for d in args.data], 0, args.seed, SIZE)
    print(f"train {len(train[0])} crops, val {len(val[0])} crops", flush=True)
    model = build_model().to(args.device)
    init_weights(model, args)

    def score(model) -> dict[str, float]:  # noqa: ANN001
        scores = evaluate(model, *val, args.device)
        return {**scores, "score": scores["card"]}

    def export_best(model) -> None:  # noqa: ANN001
        # the best weights so far, exported every epoch (a run stopped early still leaves one)
        state = model.state_dict()
        model.load_state_dict(torch.load(args.work / "best.pt", map_location=args.device))
        export(model, args.out)
        model.to(args.device).load_state_dict(state)

    best = fit(model, train, args, augment, score, generator, log_every=100,
               after_epoch=export_best)
    print(f"best held-out card top-1 {best:.4f}; exported {args.out}")


if __name__ == "__main__":
    main()
