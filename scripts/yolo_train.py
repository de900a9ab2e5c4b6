"""What the training scripts share: Ultralytics kept offline, a run from yaml or resumed
from its last checkpoint, and the ONNX export to models/."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def offline_env() -> None:
    """Keep Ultralytics from reaching the network or writing outside temporary folders."""
    os.environ.setdefault("YOLO_CONFIG_DIR", tempfile.mkdtemp(prefix="yolo-cfg-"))
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"


def _results_csv(trainer: Any) -> dict[str, list]:
    """``results.csv`` as columns, with the standard library (``BaseTrainer.read_results_csv``
    without polars)."""
    import csv

    try:
        with open(trainer.csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    columns: dict[str, list] = {k.strip(): [] for k in (rows[0] if rows else {})}
    for row in rows:
        for k, v in row.items():
            try:
                columns[k.strip()].append(float(v))
            except (TypeError, ValueError):
                columns[k.strip()].append(v)
    return columns


def offline_trainer() -> None:
    """Fit Ultralytics' trainer to a machine that reaches no network: the AMP check, which
    must download ``yolo26n.pt`` to compare with, is skipped (AMP stays on, as Ultralytics
    does when it is offline), and a GPU image without polars (a 50 MB wheel) still writes
    its checkpoints."""
    import importlib.util

    from ultralytics.engine import trainer

    def amp_on_accelerators(model: Any) -> bool:
        return next(model.parameters()).device.type not in ("cpu", "mps")

    trainer.check_amp = amp_on_accelerators
    if importlib.util.find_spec("polars") is None:
        trainer.BaseTrainer.read_results_csv = _results_csv


def run(model_yaml: str, resume: Path | None, data: Path, project: Path, name: str,
        device: str, seed: int, workers: int = 4, hours: float | None = None,
        **train_args: Any) -> Path:
    """Train from ``model_yaml`` (from scratch), from a ``.pt`` model's weights (fine-tuning
    an earlier run of this project), or resume ``resume``; returns the best weights.
    Checkpoints are written every epoch; ``hours`` (Ultralytics' ``time``) replaces the
    epochs."""
    if hours is not None:
        train_args["time"] = hours
    offline_env()
    from ultralytics import YOLO

    offline_trainer()
    if resume is not None:
        model = YOLO(str(resume))
        model.train(resume=True)
    else:
        model = YOLO(model_yaml)
        model.train(data=str(data.resolve()), device=device,
                    workers=0 if device == "cpu" else workers, seed=seed, deterministic=True,
                    pretrained=model_yaml.endswith(".pt"), plots=False, amp=device != "cpu",
                    project=str(project.resolve()), name=name, exist_ok=True,
                    fliplr=0.0, flipud=0.0, patience=100, verbose=True, cos_lr=True,
                    **train_args)
    return Path(model.trainer.save_dir) / "weights" / "best.pt"


def export(weights: Path, imgsz: int, out: Path) -> Path:
    """Export to ONNX (dynamic batch and size, opset 17) and copy it to ``out``; a detect
    model is cut at its head (:func:`trim_head`)."""
    offline_env()
    from ultralytics import YOLO

    model = YOLO(str(weights))
    onnx = Path(model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False,
                             opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(onnx, out)
    return trim_head(out) if model.task == "detect" else out


#: what a trimmed localiser's metadata says of its outputs (``vision.detector.Localiser``)
LEVEL_OUTPUTS = "levels"


def trim_head(path: Path, out: Path | None = None) -> Path:
    """Cut an exported YOLO detect model at its last convolutions: its outputs become the
    box-distribution and class-logit maps of each scale (``(B, 4·16, h, w)`` and
    ``(B, nc, h, w)``, scale by scale), and the decoding — the DFL softmax over every
    anchor, the class sigmoid, the concatenations — is left to numpy, which decodes only the
    anchors whose class score passes (``Detections.from_yolo_levels``). On a 1280×720 frame
    this saves about a fifth of the localiser's time (its softmax alone took 16–18 %).
    Writes ``out`` (default: over ``path``), metadata kept plus ``outputs: levels``; a model
    already trimmed is left as it is."""
    import onnx

    model = onnx.load(str(path))
    meta = {p.key: p.value for p in model.metadata_props}
    out = out or path
    if meta.get("outputs") == LEVEL_OUTPUTS:
        if out != path:
            shutil.copy(path, out)
        return out
    produced = {o for node in model.graph.node for o in node.output}
    levels = []
    for level in range(8):
        names = [f"/model.23/cv{branch}.{level}/cv{branch}.{level}.2/Conv_output_0"
                 for branch in (2, 3)]
        if not all(n in produced for n in names):
            break
        levels += names
    if not levels:
        raise ValueError(f"{path}: no YOLO detect head (model.23 cv2/cv3) to trim")
    inputs = [i.name for i in model.graph.input]
    del model.graph.output[:]  # the extractor takes outputs from the graph's own list
    model.graph.output.extend(onnx.helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT,
                                                                 None) for name in levels)
    trimmed = onnx.utils.Extractor(model).extract_model(inputs, levels)
    for name, value in {**meta, "outputs": LEVEL_OUTPUTS}.items():
        trimmed.metadata_props.append(onnx.StringStringEntryProto(key=name, value=value))
    onnx.save(trimmed, str(out))
    return out


def parser(doc: str, data: Path, out: Path, name: str, model: str, epochs: int, imgsz: int,
           batch: int) -> argparse.ArgumentParser:
    """The command line every training script shares (its own options added after)."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--data", type=Path, default=data)
    p.add_argument("--epochs", type=int, default=epochs)
    p.add_argument("--imgsz", type=int, default=imgsz)
    p.add_argument("--batch", type=int, default=batch)
    p.add_argument("--device", default="cpu", help="cpu, or a GPU index such as 0")
    p.add_argument("--workers", type=int, default=4,
                   help="data-loading processes on a GPU (the CPU loads on its main thread)")
    p.add_argument("--time", type=float, default=None,
                   help="train for this many hours instead of --epochs (Ultralytics fits "
                   "the epochs and the learning-rate schedule to it after the first epoch)")
    p.add_argument("--project", type=Path, default=ROOT / "runs")
    p.add_argument("--name", default=name)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", default=model,
                   help="a model yaml (from scratch) or an earlier run's .pt (fine-tune)")
    p.add_argument("--resume", type=Path, default=None, help="a run's last.pt to resume")
    p.add_argument("--out", type=Path, default=out)
    p.add_argument("--export-only", type=Path, default=None,
                   help="only export these weights (.pt) to --out")
    return p
