"""Train the card localiser (``index``, ``face``, ``back`` on table tiles) with Ultralytics,
from yaml (no pretrained weights), on a dataset of ``scripts.make_dataset``; export ONNX to
models/.

Runs on the CPU here and unchanged on a GPU (``--device 0``, ``--workers`` loaders,
``--time`` hours instead of epochs); checkpoints every epoch and resumes with ``--resume``.

    python -m scripts.make_dataset --out datasets/cards --stills 400 --tile 320
    python -m scripts.train_detector --data datasets/cards/data.yaml --epochs 30 --imgsz 320
    python -m scripts.train_detector --resume runs/detector/weights/last.pt
"""

from __future__ import annotations

from pathlib import Path

from scripts import yolo_train
from scripts.yolo_train import ROOT, export, run


def train(data: Path, epochs: int, imgsz: int, batch: int, device: str, project: Path,
          name: str, seed: int, resume: Path | None, model_yaml: str,
          lr0: float | None = None, warmup_epochs: float = 3.0, workers: int = 4,
          hours: float | None = None) -> Path:
    # the renders already vary light, scale and angle: mosaic and mild HSV jitter suffice
    rate = {} if lr0 is None else {"optimizer": "AdamW", "lr0": lr0}
    return run(model_yaml, resume, data, project, name, device, seed, workers, hours,
               epochs=epochs,
               imgsz=imgsz, batch=batch, degrees=0.0, mosaic=1.0, close_mosaic=2,
               hsv_h=0.015, hsv_s=0.4, hsv_v=0.3, scale=0.3, translate=0.1,
               warmup_epochs=warmup_epochs, **rate)


def main(argv: list[str] | None = None) -> None:
    parser = yolo_train.parser(__doc__, ROOT / "datasets" / "cards" / "data.yaml",
                               ROOT / "models" / "card_detector.onnx", "detector",
                               "yolo11n.yaml", epochs=30, imgsz=320, batch=16)
    parser.add_argument("--lr0", type=float, default=None,
                        help="AdamW at this learning rate (default: Ultralytics' choice); "
                        "a fine-tune of earlier weights wants a small one, e.g. 0.0005")
    parser.add_argument("--warmup-epochs", type=float, default=3.0)
    args = parser.parse_args(argv)
    if args.export_only is not None:
        print(export(args.export_only, args.imgsz, args.out))
        return
    best = train(args.data, args.epochs, args.imgsz, args.batch, args.device, args.project,
                 args.name, args.seed, args.resume, args.model, args.lr0, args.warmup_epochs,
                 args.workers, args.time)
    print(f"best weights: {best}")
    print(f"exported: {export(best, args.imgsz, args.out)}")


if __name__ == "__main__":
    main()
