"""Pack a YOLO dataset of ``scripts.make_dataset`` into one tar file for another machine (a
GPU machine whose transfers are limited in size): each image of the chosen splits re-encoded
as WebP (or JPEG) at ``--quality``, the labels as they are, and a ``data.yaml`` without an
absolute ``path``, so Ultralytics finds the splits beside it wherever the tar is unpacked.
The 3,765 train and val tiles (320 px) of the localiser's dataset: 52.9 MiB as WebP 80,
42.5 MiB as WebP 70; as JPEG 80 with the test split, 77.6 MiB.

    python -m scripts.pack_dataset datasets/cards --splits train val --out .dsdev/cards.tar
    # there: tar -xf cards.tar -C /tmp/ds; ... --data /tmp/ds/cards/data.yaml
"""

from __future__ import annotations

import argparse
import io
import sys
import tarfile
from pathlib import Path

import cv2

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
ENCODINGS = {"webp": cv2.IMWRITE_WEBP_QUALITY, "jpg": cv2.IMWRITE_JPEG_QUALITY}
SPLITS = ("train", "val", "test")


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def portable_yaml(text: str, splits: tuple[str, ...] = SPLITS) -> str:
    """``data.yaml`` without its ``path:`` line (Ultralytics then reads the splits beside the
    yaml file) and without the splits not packed."""
    dropped = ("path:", *(f"{s}:" for s in SPLITS if s not in splits))
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(dropped))


def pack(dataset: Path, out: Path, quality: int, encoding: str = "webp",
         splits: tuple[str, ...] = SPLITS) -> tuple[int, int]:
    """Write ``out``; returns (images, bytes written). Images go under
    ``<name>/images/<split>`` as ``.webp`` or ``.jpg`` (their label files keep their stems),
    labels under ``<name>/labels/<split>``."""
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}: one of {', '.join(ENCODINGS)}")
    unknown = sorted(set(splits) - set(SPLITS))
    if unknown:
        raise ValueError(f"unknown split {unknown[0]!r}: splits are {', '.join(SPLITS)}")
    yaml_path = dataset / "data.yaml"
    if not yaml_path.is_file():
        raise ValueError(f"{dataset}: no data.yaml (not a dataset of scripts.make_dataset)")
    name = dataset.resolve().name
    out.parent.mkdir(parents=True, exist_ok=True)
    images = 0
    with tarfile.open(out, "w") as tar:
        _add_bytes(tar, f"{name}/data.yaml",
                   portable_yaml(yaml_path.read_text(), splits).encode())
        for split in splits:
            for path in sorted((dataset / "images" / split).glob("*")):
                if path.suffix.lower() not in IMAGE_SUFFIXES:
                    continue
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    raise ValueError(f"{path}: not a readable image")
                ok, data = cv2.imencode(f".{encoding}", image, [ENCODINGS[encoding], quality])
                if not ok:
                    raise ValueError(f"{path}: could not be encoded as {encoding}")
                rel = path.relative_to(dataset).with_suffix(f".{encoding}")
                _add_bytes(tar, f"{name}/{rel.as_posix()}", data.tobytes())
                images += 1
            for path in sorted((dataset / "labels" / split).glob("*.txt")):
                tar.add(path, f"{name}/{path.relative_to(dataset).as_posix()}")
    return images, out.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="a folder with data.yaml, images/, labels/")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--quality", type=int, default=80, help="1-100")
    parser.add_argument("--format", default="webp", choices=tuple(ENCODINGS))
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=SPLITS)
    args = parser.parse_args(argv)
    if not 1 <= args.quality <= 100:
        print(f"pack_dataset: --quality must be 1-100, not {args.quality}", file=sys.stderr)
        return 2
    try:
        images, size = pack(args.dataset, args.out, args.quality, args.format,
                            tuple(args.splits))
    except ValueError as e:
        print(f"pack_dataset: {e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {images} images, {size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
