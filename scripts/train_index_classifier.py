"""Train the card-index classifier (52 codes + ``none``) with Ultralytics, from yaml (no
pretrained weights), on the crops of ``scripts.make_index_crops``; export ONNX to models/.

Runs on the CPU here and unchanged on a GPU (``--device 0``); checkpoints every epoch and
resumes with ``--resume``.

    python -m scripts.train_index_classifier --data datasets/index_crops --epochs 30
    python -m scripts.train_index_classifier --resume runs/index_cls/weights/last.pt
"""

from __future__ import annotations

from pathlib import Path

from scripts import yolo_train
from scripts.yolo_train import ROOT, export, run


def train(data: Path, epochs: int, imgsz: int, batch: int, device: str, project: Path,
          name: str, seed: int, resume: Path | None, model_yaml: str, lr0: float,
          workers: int = 4, hours: float | None = None) -> Path:
    # no flips (an index is not mirror-symmetric); the crops are already augmented, so
    # Ultralytics' own crops keep 90-100 % of the image
    return run(model_yaml, resume, data, project, name, device, seed, workers, hours,
               epochs=epochs,
               imgsz=imgsz, batch=batch, scale=0.1, erasing=0.1, auto_augment=None,
               hsv_h=0.02, hsv_s=0.4, hsv_v=0.3, optimizer="AdamW", lr0=lr0,
               warmup_epochs=1)


def main(argv: list[str] | None = None) -> None:
    parser = yolo_train.parser(__doc__, ROOT / "datasets" / "index_crops",
                               ROOT / "models" / "index_classifier.onnx", "index_cls",
                               "yolo11n-cls.yaml", epochs=30, imgsz=64, batch=128)
    parser.add_argument("--lr0", type=float, default=0.002, help="AdamW learning rate")
    args = parser.parse_args(argv)
    if args.export_only is not None:
        print(export(args.export_only, args.imgsz, args.out))
        return
    best = train(args.data, args.epochs, args.imgsz, args.batch, args.device, args.project,
                 args.name, args.seed, args.resume, args.model, args.lr0, args.workers,
                 args.time)
    print(f"best weights: {best}")
    print(f"exported: {export(best, args.imgsz, args.out)}")


if __name__ == "__main__":
    main()
