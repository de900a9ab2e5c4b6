"""Which model file is loaded (an int8 ``NAME.int8.onnx`` beside ``NAME.onnx``), the float
fallback, and the committed int8 face reader against its float original."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision import identify
from vision.crops import card_quad, upright_card
from vision.face_reader import FaceReader
from vision.identify import MODELS, ModelError, int8_pays, model_file, onnx_model

from .conftest import NEEDS_ARTWORK

FACE, FACE_INT8 = MODELS / "face_reader.onnx", MODELS / "face_reader.int8.onnx"
HAS_INT8_FACE = pytest.mark.skipif(not (FACE.is_file() and FACE_INT8.is_file()),
                                   reason="no int8 face reader in models/")


AVX2_ONLY = "processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2 fma bmi2 aes\n"
VNNI = "processor\t: 0\nflags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512_vnni\n"


def test_int8_is_chosen_only_on_a_cpu_whose_int8_arithmetic_pays():
    assert not int8_pays(AVX2_ONLY)
    assert int8_pays(VNNI)
    assert int8_pays(AVX2_ONLY.replace("avx2", "avx2 avx_vnni"))
    assert int8_pays(AVX2_ONLY.replace("avx2", "avx2 avx512bw"))
    # not "avx512_vnni" inside another flag's name
    assert not int8_pays(AVX2_ONLY.replace("avx2", "avx2 xavx512_vnni"))
    # flags that cannot be read (an ARM CPU's "Features") keep int8
    assert int8_pays("processor\t: 0\nFeatures\t: fp asimd asimddp\n")


@pytest.mark.parametrize("pays", [True, False])
def test_the_int8_sibling_is_taken_where_there_is_one(tmp_path, monkeypatch, pays):
    monkeypatch.setattr(identify, "_int8_pays_here", lambda: pays)
    fp32 = tmp_path / "reader.onnx"
    shutil.copy(MODELS / "index_classifier.onnx", fp32)
    assert model_file(fp32) == fp32
    assert model_file(fp32, "int8") == fp32
    int8 = tmp_path / "reader.int8.onnx"
    shutil.copy(MODELS / "index_classifier.onnx", int8)  # any loadable model will do
    assert model_file(fp32) == (int8 if pays else fp32)
    assert model_file(fp32, "int8") == int8
    assert model_file(fp32, "fp32") == fp32
    assert model_file(int8) == int8
    assert Path(onnx_model(fp32, "test", 1, precision="int8")[0]._model_path) == int8
    assert Path(onnx_model(fp32, "test", 1, precision="fp32")[0]._model_path) == fp32
    with pytest.raises(ValueError, match="precision"):
        model_file(fp32, "int4")
    with pytest.raises(ModelError, match="no test model"):
        onnx_model(tmp_path / "missing.onnx", "test")


@HAS_INT8_FACE
def test_the_detector_loads_the_int8_face_reader_and_falls_back_to_float(tmp_path,
                                                                         monkeypatch):
    from vision.detector import CardDetector

    def files(detector: CardDetector) -> list[str]:
        return [Path(p.session._model_path).name for p in
                (detector.localiser, detector.classifier, detector.face_reader)]

    monkeypatch.setattr(identify, "PRECISION", "int8")
    assert "face_reader.int8.onnx" in files(CardDetector.load(threads=1))
    for name in ("card_detector.onnx", "index_classifier.onnx", "face_reader.onnx"):
        shutil.copy(MODELS / name, tmp_path / name)
    assert files(CardDetector.load(tmp_path, threads=1)) == [
        "card_detector.onnx", "index_classifier.onnx", "face_reader.onnx"]
    monkeypatch.setattr(identify, "PRECISION", "fp32")
    assert "face_reader.onnx" in files(CardDetector.load(threads=1))
    # the default: int8 only where this CPU's int8 arithmetic pays
    monkeypatch.setattr(identify, "PRECISION", "auto")
    monkeypatch.setattr(identify, "_int8_pays_here", lambda: False)
    assert "face_reader.onnx" in files(CardDetector.load(threads=1))
    monkeypatch.setattr(identify, "_int8_pays_here", lambda: True)
    assert "face_reader.int8.onnx" in files(CardDetector.load(threads=1))


@HAS_INT8_FACE
@NEEDS_ARTWORK
def test_the_int8_face_reader_reads_held_out_cards_as_the_float_one_does(card_cache):
    from .test_face_reader import _card_in_frame

    int8, fp32 = FaceReader(FACE_INT8), FaceReader(FACE)
    assert int8.names == fp32.names and int8.size == fp32.size
    codes = ["4D", "6D", "3S", "9D", "5C", "8H", "10S", "2H", "KC", "7S"]
    crops = []
    for k, code in enumerate(codes):
        frame, box = _card_in_frame("gnome-simplistic", code, 60 + 6 * k, 25 + 40 * k)
        found, _ = fp32.read_boxes(frame, box[None])
        assert found[0], code
        crops.append(upright_card(frame, card_quad(frame, box)))
    a, b = fp32.probabilities(crops), int8.probabilities(crops)
    assert (a.argmax(axis=1) == b.argmax(axis=1)).all()
    assert np.abs(a - b).max() < 0.1
    # and it stays blind to which end of the card is up (quantized in both turns)
    turned = int8.probabilities([np.ascontiguousarray(c[::-1, ::-1]) for c in crops])
    np.testing.assert_allclose(turned, b, atol=1e-6)
