#!/usr/bin/env bash
# Train the card localiser on a GPU machine from a packed dataset (scripts/pack_dataset.py):
# yolo11n fine-tuned from the CPU run's epoch-15 weights (models/checkpoints/
# card_detector_partial.pt) and the smaller scripts/yolo11-pico.yaml from scratch, side by side
# on one GPU, each for HOURS (Ultralytics fits epochs and schedule to the time). Writes, in
# OUT, each run's log and a tar of its weights (best.pt, last.pt) and results.csv; the ONNX
# export is made from best.pt afterwards with `python -m scripts.train_detector --export-only`.
#
#   python -m scripts.pack_dataset datasets/cards --splits train val --out .dsdev/cards.tar
#   scripts/train_localiser_gpu.sh .dsdev/cards.tar OUT [HOURS]     # DEVICE=cpu for a dry run
# START=models/checkpoints/card_detector_gpu51.pt fine-tunes session 35's GPU run instead.
set -uo pipefail
tarball=$1
out=$2
hours=${3:-0.09}
device=${DEVICE:-0}
start=${START:-models/checkpoints/card_detector_partial.pt}
export PYTHONUNBUFFERED=1
mkdir -p "$out"
ds=$(mktemp -d)
tar -xf "$tarball" -C "$ds" || exit 1
data=$(ls "$ds"/*/data.yaml) || exit 1
runs=$(mktemp -d)
common=(--data "$data" --imgsz 320 --batch 64 --device "$device" --workers 7 --time "$hours"
        --project "$runs")
python3 -m scripts.train_detector "${common[@]}" --name n-ft \
    --model "$start" --out "$runs/n-ft.onnx" \
    > "$out/n-ft.log" 2>&1 &
python3 -m scripts.train_detector "${common[@]}" --name pico --model scripts/yolo11-pico.yaml \
    --out "$runs/pico.onnx" > "$out/pico.log" 2>&1 &
wait
status=0
for run in n-ft pico; do
    tar -cf "$out/$run.tar" -C "$runs/$run" weights/best.pt weights/last.pt results.csv args.yaml \
        || status=1
done
exit $status
