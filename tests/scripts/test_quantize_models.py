"""scripts/quantize_models.py on tiny models built here: int8 QDQ files that onnxruntime
loads, keep their metadata, read like the float model, and keep what must stay float."""

from __future__ import annotations

import numpy as np
import pytest

from vision.identify import MODELS, model_file, onnx_model

onnx = pytest.importorskip("onnx")  # the train extra

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from scripts.quantize_models import (  # noqa: E402
    Reader,
    head_nodes,
    quantize,
    reader_float_nodes,
    sample_rows,
)

NAMES = ["a", "b", "c", "d", "none"]


def _branch(prefix: str, source: str, rng: np.random.Generator, nodes: list,
            inits: list) -> str:
    """Normalise, conv, relu, conv, relu, pool, gemm, softmax: the readers' shape, small."""
    w1 = numpy_helper.from_array(rng.normal(0, 0.5, (8, 3, 3, 3)).astype(np.float32),
                                 f"{prefix}w1")
    w2 = numpy_helper.from_array(rng.normal(0, 0.3, (8, 8, 3, 3)).astype(np.float32),
                                 f"{prefix}w2")
    wg = numpy_helper.from_array(rng.normal(0, 1.0, (len(NAMES), 8)).astype(np.float32),
                                 f"{prefix}wg")
    bg = numpy_helper.from_array(np.zeros(len(NAMES), np.float32), f"{prefix}bg")
    inits += [w1, w2, wg, bg]
    p = prefix
    nodes += [
        helper.make_node("ReduceMean", [source], [f"{p}mean"], name=f"{p}ReduceMean",
                         axes=[2, 3], keepdims=1),
        helper.make_node("Sub", [source, f"{p}mean"], [f"{p}centred"], name=f"{p}Sub"),
        helper.make_node("Conv", [f"{p}centred", f"{p}w1"], [f"{p}c1"], name=f"{p}Conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", [f"{p}c1"], [f"{p}r1"], name=f"{p}Relu1"),
        helper.make_node("Conv", [f"{p}r1", f"{p}w2"], [f"{p}c2"], name=f"{p}Conv2",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", [f"{p}c2"], [f"{p}r2"], name=f"{p}Relu2"),
        helper.make_node("GlobalAveragePool", [f"{p}r2"], [f"{p}pool"], name=f"{p}Pool"),
        helper.make_node("Flatten", [f"{p}pool"], [f"{p}flat"], name=f"{p}Flatten"),
        helper.make_node("Gemm", [f"{p}flat", f"{p}wg", f"{p}bg"], [f"{p}logits"],
                         name=f"{p}Gemm", transB=1),
        helper.make_node("Softmax", [f"{p}logits"], [f"{p}probs"], name=f"{p}Softmax",
                         axis=1),
    ]
    return f"{p}probs"


def tiny_reader(path, turned: bool = False, seed: int = 0) -> None:
    """A 16×16 reader of 5 classes; with ``turned``, like the face reader: the average of
    its reads of the input and of the input turned 180° (one set of weights, two
    branches)."""
    rng = np.random.default_rng(seed)
    nodes: list = []
    inits: list = []
    out = _branch("/inner/", "images", rng, nodes, inits)
    if turned:
        inits += [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
                  (("starts", [-1, -1]), ("ends", [-(2 ** 62)] * 2), ("axes", [2, 3]),
                   ("steps", [-1, -1]))]
        nodes.append(helper.make_node("Slice", ["images", "starts", "ends", "axes", "steps"],
                                      ["turned"], name="/Slice"))
        rng2 = np.random.default_rng(seed)  # the same weights for the second branch
        other = _branch("/inner2/", "turned", rng2, nodes, inits)
        nodes += [helper.make_node("Add", [out, other], ["sum"], name="/Add"),
                  helper.make_node("Mul", ["sum", "half"], ["avg"], name="/Mul")]
        inits.append(numpy_helper.from_array(np.array(0.5, np.float32), "half"))
        out = "avg"
    nodes.append(helper.make_node("Identity", [out], ["output0"], name="/Out"))
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 16, 16])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", len(NAMES)])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    for key, value in (("names", str(dict(enumerate(NAMES)))), ("imgsz", "[16, 16]")):
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _inputs(seed: int, n: int) -> np.ndarray:
    """Smooth random images with structure (a bright blob), 0–1."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:16, 0:16]
    out = np.empty((n, 3, 16, 16), np.float32)
    for i in range(n):
        cy, cx = rng.uniform(2, 14, 2)
        blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / rng.uniform(4, 20))
        out[i] = (rng.uniform(0.1, 0.5, (3, 1, 1)) + rng.uniform(0.2, 0.5, (3, 1, 1)) * blob
                  + rng.normal(0, 0.02, (3, 16, 16)))
    return np.clip(out, 0, 1)


def _run(path, x: np.ndarray) -> np.ndarray:
    session, _names, _size = onnx_model(path, "test", 1, precision="fp32")
    return session.run(None, {"images": x})[0]


def test_a_quantized_reader_loads_keeps_its_metadata_and_reads_like_the_float_one(tmp_path):
    src, dst = tmp_path / "reader.onnx", tmp_path / "reader.int8.onnx"
    tiny_reader(src)
    calib = sample_rows([_inputs(1, 256)], 256, 32, np.random.default_rng(0))
    assert [len(b) for b in calib] == [32] * 8
    floats = quantize(src, dst, calib, exclude=reader_float_nodes)
    model = onnx.load(str(dst))
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("QuantizeLinear") >= 2 and "DequantizeLinear" in ops
    # the stem (mean) and the softmax are float: no quantize node reads their outputs
    quantized_inputs = {n.input[0] for n in model.graph.node if n.op_type == "QuantizeLinear"}
    assert "/inner/probs" not in quantized_inputs and "/inner/mean" not in quantized_inputs
    assert floats == 3  # ReduceMean, Sub, Softmax (the pre-processing drops the Identity)
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["names"] == str(dict(enumerate(NAMES))) and "int8" in meta["quantization"]
    _session, names, size = onnx_model(dst, "test", 1)
    assert names == NAMES and size == 16
    x = _inputs(2, 200)  # not the calibration images
    ref, got = _run(src, x), _run(dst, x)
    assert np.allclose(got.sum(axis=1), 1, atol=1e-5)  # float probabilities, not 1/255 steps
    assert (ref.argmax(1) == got.argmax(1)).mean() >= 0.95
    assert np.abs(ref - got).max() < 0.1


def test_a_reader_of_both_turns_stays_blind_to_which_end_is_up(tmp_path):
    src, dst = tmp_path / "face.onnx", tmp_path / "face.int8.onnx"
    tiny_reader(src, turned=True)
    x = _inputs(3, 64)
    turned = np.ascontiguousarray(x[:, :, ::-1, ::-1])
    ref = _run(src, x)
    np.testing.assert_allclose(ref, _run(src, turned), atol=1e-6)
    # calibrated on each crop in both turns, the two branches get the same scales
    quantize(src, dst, sample_rows([_inputs(4, 128)], 128, 32, np.random.default_rng(0),
                                   turned=True), exclude=reader_float_nodes)
    got = _run(dst, x)
    assert np.array_equal(got, _run(dst, turned))
    assert np.abs(ref - got).max() < 0.1


def test_the_calibration_reader_rewinds():
    batches = [np.zeros((2, 3, 16, 16), np.float32), np.ones((1, 3, 16, 16), np.float32)]
    reader = Reader("images", batches)
    assert len(reader) == 2
    first = [reader.get_next()["images"].shape[0] for _ in range(2)]
    assert first == [2, 1] and reader.get_next() is None
    reader.rewind()
    assert reader.get_next()["images"].shape[0] == 2


@pytest.mark.skipif(not (MODELS / "card_detector.onnx").is_file(), reason="no localiser")
def test_the_localisers_decoding_and_the_readers_ends_are_kept_float():
    localiser = onnx.load(str(MODELS / "card_detector.onnx"))
    names = head_nodes(localiser)
    # the committed localiser is cut at its head (decoded in numpy): its six last
    # convolutions, box and class logits at 3 scales, are what stays float
    assert {p.key: p.value for p in localiser.metadata_props}["outputs"] == "levels"
    assert sorted(names) == sorted(n.name for n in localiser.graph.node
                                   if n.output[0] in {o.name for o in localiser.graph.output})
    assert len(names) == 6 and all(n.endswith(".2/Conv") for n in names)
    assert not any(n.startswith(("/model.0/", "/model.22/")) for n in names)
    index = onnx.load(str(model_file(MODELS / "index_classifier.onnx", "fp32")))
    kept = set(reader_float_nodes(index))
    ops = {n.name: n.op_type for n in index.graph.node}
    assert {"/inner/ReduceMean", "/inner/Sqrt", "/inner/Div_1"} <= kept
    assert all(ops[n] != "Conv" for n in kept)
    assert {n for n, op in ops.items() if op == "Softmax"} <= kept
    assert any(ops[n] == "Concat" for n in kept)  # the 53 codes' output
