"""The ONNX tests (SPEC 20), with Debian's python3-onnx as the oracle: onnx's
helper and numpy_helper write every model, onnx.numpy_helper.to_array gives
every expected value (with base_dir for external data), never the tool's own
reader.  Debian's onnx is 1.12, older than the 8-bit floats and the 4-bit
types: those TensorProtos are written by their type numbers with the
protobuf API, their expected values computed from SPEC 18's formulas here.
The tool's values are read back by numpy from the .npy and .npz files it
writes.  Debian's libonnx-testdata (ONNX's own test models and .pb
tensors) is read whole.

Usage: TL=/path/to/tensorlayout python3 tests/onnx/test_onnx.py [FILTER]
"""
import glob
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensorfiles"))
import tensorfiles  # noqa: E402

TL = os.environ.get("TL", "build/tensorlayout")
TMP = None
TESTDATA = "/usr/share/libonnx-testdata/data"


tl = tensorfiles.tl
read_safetensors = tensorfiles.read_safetensors


def path(name):
    return os.path.join(TMP, name)


def values(arg, to_type="FLOAT64"):
    """The tool's values of one weight, as numpy reads the .npy it writes
    (converted to to_type, or as they are when to_type is None)."""
    out = path("v.npy")
    extra = ["--to-type", to_type] if to_type else []
    tl("convert", arg, "-o", out, *extra)
    return np.load(out)


def same(got, want, what):
    want = np.asarray(want)
    if got.shape != want.shape and not (want.ndim == 0 and got.shape in ((), (1,))):
        raise AssertionError("%s: shape %s, onnx says %s" % (what, got.shape, want.shape))
    g, w = got.reshape(-1).astype(np.float64), want.reshape(-1).astype(np.float64)
    if not np.array_equal(g, w, equal_nan=True):
        raise AssertionError("%s: %s, onnx says %s" % (what, g[:8], w[:8]))


def save(graph_tensors, name, nodes=(), sparse=(), **kw):
    g = helper.make_graph(list(nodes), "g", [], [], list(graph_tensors),
                          sparse_initializer=list(sparse))
    m = helper.make_model(g, producer_name="tl-test", opset_imports=[helper.make_opsetid("", 13)])
    p = path(name)
    onnx.save(m, p, **kw)
    return p


RNG = np.random.default_rng(20)

PLAIN = {   # onnx type: numpy values (numpy_helper writes raw_data, helper the typed field)
    TensorProto.FLOAT: RNG.standard_normal((3, 4, 2, 2)).astype(np.float32),
    TensorProto.DOUBLE: RNG.standard_normal((5,)),
    TensorProto.FLOAT16: RNG.standard_normal((7, 3)).astype(np.float16),
    TensorProto.INT8: RNG.integers(-128, 128, (9,)).astype(np.int8),
    TensorProto.UINT8: RNG.integers(0, 256, (2, 5)).astype(np.uint8),
    TensorProto.INT16: RNG.integers(-32768, 32768, (6,)).astype(np.int16),
    TensorProto.UINT16: RNG.integers(0, 65536, (6,)).astype(np.uint16),
    TensorProto.INT32: RNG.integers(-2**31, 2**31, (4, 3)).astype(np.int32),
    TensorProto.INT64: RNG.integers(-2**62, 2**62, (3,)).astype(np.int64),
    TensorProto.UINT32: RNG.integers(0, 2**32, (5,)).astype(np.uint32),
    TensorProto.UINT64: RNG.integers(0, 2**63, (2,)).astype(np.uint64),
    TensorProto.BOOL: RNG.integers(0, 2, (11,)).astype(np.bool_),
}


def test_every_type_raw_and_typed():
    tensors = []
    for ty, a in PLAIN.items():
        name = TensorProto.DataType.Name(ty).lower()
        tensors.append(numpy_helper.from_array(a, name + "_raw"))
        if ty == TensorProto.FLOAT16:   # helper takes float16 values as their bits' int32
            tensors.append(helper.make_tensor(name + "_typed", ty, a.shape, a))
        else:
            tensors.append(helper.make_tensor(name + "_typed", ty, a.shape, a.reshape(-1).tolist()))
    bf = helper.make_tensor("bfloat16_typed", TensorProto.BFLOAT16, [5], [1.0, -2.5, 3.14159,
                                                                         1e-3, 65504.0])
    tensors.append(bf)
    p = save(tensors, "types.onnx")
    listed = json.loads(tl("list", "--json", p).stdout)
    stored = {t["name"]: t["stored"] for t in listed["tensors"]}
    for t in tensors:
        want = numpy_helper.to_array(t)
        exact = want.dtype in (np.int64, np.uint64)
        got = values("%s:%s" % (p, t.name), None if exact else "FLOAT64")
        same(got, want, t.name)
        if t.name.endswith("_raw"):
            assert stored[t.name] == "raw_data", (t.name, stored[t.name])
        else:
            kept = [f.name for f, _ in t.ListFields() if f.name.endswith("_data")]
            assert stored[t.name] == kept[0], (t.name, stored[t.name], kept)


def test_whole_model_to_npz_and_safetensors():
    tensors = [numpy_helper.from_array(a, TensorProto.DataType.Name(ty).lower())
               for ty, a in PLAIN.items() if ty != TensorProto.BOOL]
    p = save(tensors, "whole.onnx")
    tl("convert", p, "-o", path("whole.npz"))
    z = np.load(path("whole.npz"))
    for t in tensors:
        same(z[t.name], numpy_helper.to_array(t), t.name)
        assert z[t.name].dtype == numpy_helper.to_array(t).dtype, t.name
    # conv weights to OHWI and BFLOAT16, as the model's rank-4 weights go
    tl("convert", p, "-o", path("whole.safetensors"), "--to", "OHWI", "--to-type", "BFLOAT16",
       "--select", "float")
    got = read_safetensors(path("whole.safetensors"))
    w = numpy_helper.to_array(tensors[0]).transpose(0, 2, 3, 1)
    bits = w.astype(np.float32).view(np.uint32)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    assert got["float"][0] == "BF16" and np.array_equal(got["float"][1], bits.reshape(w.shape))




# ---- the types onnx 1.12 predates: by type number, SPEC 18's formulas ----

def e4m3fn(code):
    s, e, m = code >> 7, (code >> 3) & 15, code & 7
    if e == 15 and m == 7:
        return float("nan")
    v = m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
    return -v if s else v


def e5m2(code):
    s, e, m = code >> 7, (code >> 2) & 31, code & 3
    if e == 31:
        v = float("inf") if m == 0 else float("nan")
    else:
        v = m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15)
    return -v if s else v


def e2m1(code):
    s, e, m = code >> 3, (code >> 1) & 3, code & 1
    v = m / 2 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1)
    return -v if s else v


def test_new_types_by_number():
    codes = np.arange(256, dtype=np.uint8)
    nibbles = RNG.integers(0, 16, 9)
    packed = bytes((nibbles[i] | (nibbles[i + 1] << 4 if i + 1 < 9 else 0)) for i in range(0, 9, 2))
    cases = [  # name, type number, dims, raw bytes, expected values
        ("fp8_e4m3fn", 17, [256], codes.tobytes(), [e4m3fn(c) for c in codes]),
        ("fp8_e5m2", 19, [16, 16], codes.tobytes(), [e5m2(c) for c in codes]),
        ("uint4", 21, [9], packed, [int(x) for x in nibbles]),
        ("int4", 22, [9], packed, [int(x) - 16 if x > 7 else int(x) for x in nibbles]),
        ("fp4_e2m1", 23, [9], packed, [e2m1(int(x)) for x in nibbles]),
    ]
    tensors = []
    for name, ty, dims, raw, want in cases:
        t = TensorProto(name=name + "_raw", data_type=ty, dims=dims, raw_data=raw)
        typed = TensorProto(name=name + "_typed", data_type=ty, dims=dims)
        typed.int32_data.extend(raw)    # one byte (a code, or two 4-bit values) an element
        tensors += [(t, want), (typed, want)]
    p = save([t for t, _ in tensors], "new_types.onnx")
    for t, want in tensors:
        same(values("%s:%s" % (p, t.name)), np.array(want).reshape(list(t.dims)), t.name)
    # dump reads int32_data's 4-bit pairs as convert does (each entry a byte
    # of two values), and so do its statistics
    for t, want in tensors:
        if t.data_type not in (21, 22):
            continue
        arg = "%s:%s" % (p, t.name)
        got = json.loads(tl("dump", "--json", arg).stdout)["values"]
        same(np.array(got), np.array(want), t.name + " (dump)")
        st = json.loads(tl("dump", "--stats", "--json", arg).stdout)
        assert (st["min"], st["max"]) == (min(want), max(want)), (t.name, st)


def test_external_data_one_and_several_files():
    a = RNG.standard_normal((16, 8, 3, 3)).astype(np.float32)
    b = RNG.standard_normal((300,)).astype(np.float16)
    c = RNG.integers(-9, 9, (5,)).astype(np.int64)
    tensors = [numpy_helper.from_array(x, n) for x, n in ((a, "a"), (b, "b"), (c, "c"))]
    os.makedirs(path("one"), exist_ok=True)
    os.makedirs(path("many"), exist_ok=True)
    p1 = save(tensors, "one/m.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    p2 = save(tensors, "many/m.onnx", save_as_external_data=True, all_tensors_to_one_file=False,
              size_threshold=0)
    for p in (p1, p2):
        m = onnx.load(p)                # loads the external data too
        listed = json.loads(tl("list", "--json", p).stdout)["tensors"]
        assert all(t["stored"] == "external" for t in listed), listed
        for t in m.graph.initializer:
            same(values("%s:%s" % (p, t.name), None), numpy_helper.to_array(t), p + ":" + t.name)
        out = path("ext.npz")
        tl("convert", p, "-o", out)
        z = np.load(out)
        for t in m.graph.initializer:
            same(z[t.name], numpy_helper.to_array(t), "npz " + t.name)
        tl("compare", p, out)           # model against the .npz, weight by weight
        # inspect's description points into the file holding the bytes
        text = tl("inspect", "%s:a" % p).stdout.decode()
        assert "fileOffset" in text and ("weights.bin" in text or "/a" in text), text


def test_constant_nodes_subgraphs_and_sparse():
    k = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "k")
    const = helper.make_node("Constant", [], ["c_out"], value=k, name="c")
    then_w = numpy_helper.from_array(np.full((2,), 7, np.int32), "w")
    else_w = numpy_helper.from_array(np.full((3,), 9, np.int32), "w")
    then_g = helper.make_graph([], "then", [], [helper.make_tensor_value_info("w", TensorProto.INT32, None)],
                               [then_w])
    else_g = helper.make_graph([], "else", [], [helper.make_tensor_value_info("w", TensorProto.INT32, None)],
                               [else_w])
    iff = helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g,
                           else_branch=else_g)
    dense = numpy_helper.from_array(np.array([1.5, 2.5], np.float32), "sp")
    idx = numpy_helper.from_array(np.array([1, 4], np.int64), "sp_idx")
    sp = helper.make_sparse_tensor(dense, idx, [6])
    top = numpy_helper.from_array(np.ones((2,), np.float32), "top")
    p = save([top], "graphs.onnx", nodes=[const, iff], sparse=[sp])
    listed = json.loads(tl("list", "--json", p).stdout)
    names = [t["name"] for t in listed["tensors"]]
    for n in ("c_out", "branch/then_branch/w", "branch/else_branch/w", "top"):
        assert n in names, (n, names)
    same(values(p + ":c_out"), numpy_helper.to_array(k), "Constant")
    same(values(p + ":branch/then_branch/w"), numpy_helper.to_array(then_w), "then")
    same(values(p + ":branch/else_branch/w"), numpy_helper.to_array(else_w), "else")
    r = tl("dump", p + ":sp", check=False)
    assert r.returncode == 4 and b"sparse" in r.stderr, r
    text = tl("list", p).stdout.decode()
    assert "sp" in text and "sparse FLOAT" in text, text
    meta = listed["metadata"]
    assert meta["producer_name"] == "tl-test" and meta["opset_import"] == "ai.onnx 13", meta


def test_single_tensor_pb():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    t = numpy_helper.from_array(a, "x")
    with open(path("x.pb"), "wb") as f:
        f.write(t.SerializeToString())
    same(values(path("x.pb")), a, "x.pb")
    same(values(path("x.pb") + ":x"), a, "x.pb:x")
    # unnamed, as ONNX's test data writes them: one tensor, as a .npy is
    with open(path("anon.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a).SerializeToString())
    same(values(path("anon.pb")), a, "anon.pb")
    # a lone tensor of typed values: dumped without a word about the file's
    # size (its bytes are the message's, not the tensor's)
    h = np.array([1, -2, 300, 7], np.int16)
    t = TensorProto(name="h", data_type=TensorProto.INT16, dims=[4])
    t.int32_data.extend(h.tolist())
    with open(path("typed.pb"), "wb") as f:
        f.write(t.SerializeToString())
    r = tl("dump", "--json", path("typed.pb"))
    assert json.loads(r.stdout)["values"] == h.tolist() and r.stderr == b"", r
    tl("convert", path("anon.pb"), "-o", path("anon.safetensors"))
    assert read_safetensors(path("anon.safetensors"))["tensor"][1].shape == a.shape
    r = tl("convert", path("anon.pb"), "--max-shard-size", "1KB", "-o", path("anon_dir") + "/",
           check=False)
    assert r.returncode == 2 and b"one tensor" in r.stderr, r


def hostile(name, model_bytes, files=()):
    d = path("hostile_" + name)
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "m.onnx")
    with open(p, "wb") as f:
        f.write(model_bytes)
    for fname, data in files:
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    return p


def external_model(location, offset=0, length=None, n=4):
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[n])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset))) + \
            ((("length", str(length)),) if length is not None else ()):
        e = t.external_data.add()
        e.key, e.value = k, v
    g = helper.make_graph([], "g", [], [], [t])
    return helper.make_model(g).SerializeToString()


def test_hostile_files_refused():
    secret = path("secret.bin")
    with open(secret, "wb") as f:
        f.write(np.arange(4, dtype=np.float32).tobytes())
    good = np.ones(4, np.float32).tobytes()
    raw_short = helper.make_model(helper.make_graph([], "g", [], [], [
        TensorProto(name="w", data_type=1, dims=[4], raw_data=b"\0" * 12)])).SerializeToString()
    negative = helper.make_model(helper.make_graph([], "g", [], [], [
        TensorProto(name="w", data_type=1, dims=[-2, 2], raw_data=b"")])).SerializeToString()
    overflow = helper.make_model(helper.make_graph([], "g", [], [], [
        TensorProto(name="w", data_type=1, dims=[2**40, 2**40], raw_data=b"")])).SerializeToString()
    whole = external_model("w.bin")
    # graphs nested 40 deep: an If whose branch holds an If...
    inner = helper.make_graph([], "g", [], [], [numpy_helper.from_array(np.ones(1, np.float32), "w")])
    empty = helper.make_graph([], "e", [], [])
    for _ in range(40):
        node = helper.make_node("If", ["c"], ["y"], then_branch=inner, else_branch=empty)
        inner = helper.make_graph([node], "g", [], [])
    deep = helper.make_model(inner).SerializeToString()
    cases = [
        ("absolute", external_model(secret), [], "w"),
        ("dotdot", external_model("../secret.bin"), [], "w"),
        ("symlink", external_model("link.bin"), [], "w"),
        ("past_end", external_model("w.bin", offset=8), [("w.bin", good)], "w"),
        ("length", external_model("w.bin", length=12), [("w.bin", good)], "w"),
        ("raw_short", raw_short, [], "w"),
        ("negative_dims", negative, [], "w"),
        ("overflow_dims", overflow, [], "w"),
        ("truncated", whole[:-7], [], ""),
        ("length_past_end", whole[:3] + bytes([0x7f]) + whole[4:], [], ""),
        ("wire_type", bytes([0x08, 0x07, 0x3b]) + whole[2:], [], ""),
        ("varint", bytes([0x08] + [0xff] * 11), [], ""),
        ("deep", deep, [], ""),
    ]
    for name, data, files, weight in cases:
        p = hostile(name, data, files)
        if name == "symlink":
            os.symlink(secret, os.path.join(os.path.dirname(p), "link.bin"))
        for cmd in (["list", p], ["dump", p + ":w"], ["convert", p, "-o",
                                                      os.path.join(os.path.dirname(p), "o.npz")]):
            r = tl(*cmd, check=False)
            err = r.stderr.decode()
            assert r.returncode == 4, (name, cmd, r.returncode, err)
            assert r.stdout == b"", (name, cmd, r.stdout)
            assert err.count("\n") == 1 and p in err, (name, err)
            assert ("'%s'" % weight) in err or not weight, (name, err)
            assert not os.path.exists(os.path.join(os.path.dirname(p), "o.npz")), name
            assert "0 1 2 3" not in r.stdout.decode(), name


def graph_tensors(g):
    """Every TensorProto of a graph: initializers, Constant values,
    subgraphs' (as onnx.external_data_helper walks them)."""
    out = list(g.initializer)
    for n in g.node:
        for a in n.attribute:
            if a.HasField("t"):
                out.append(a.t)
            if a.HasField("g"):
                out += graph_tensors(a.g)
    return out


def test_rewrite_external_and_inline():
    big = numpy_helper.from_array(RNG.standard_normal((64, 8, 3, 3)).astype(np.float32), "conv.w")
    typed = helper.make_tensor("bias", TensorProto.FLOAT16, [600], RNG.standard_normal(600).astype(np.float16))
    small = numpy_helper.from_array(np.arange(4, dtype=np.int64), "small")
    const = helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(
        RNG.standard_normal(700).astype(np.float32), "v"))
    sub = helper.make_graph([], "then", [], [helper.make_tensor_value_info("w", TensorProto.FLOAT, [300])],
                            [numpy_helper.from_array(RNG.standard_normal(300).astype(np.float32), "w")])
    iff = helper.make_node("If", ["c"], ["w"], name="pick", then_branch=sub, else_branch=sub)
    g = helper.make_graph([const, iff], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("w", TensorProto.FLOAT, [300])],
                          [big, typed, small])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(m)
    src = path("rw_src.onnx")
    onnx.save(m, src)
    want = [numpy_helper.to_array(t) for t in graph_tensors(m.graph)]
    out = path("rw_ext.onnx")
    tl("convert", src, "-o", out, "--external-data")
    onnx.checker.check_model(out)
    lazy = onnx.load(out, load_external_data=False)
    for t in graph_tensors(lazy.graph):
        nbytes = numpy_helper.to_array(t).nbytes if t.data_location != TensorProto.EXTERNAL else None
        if t.data_location == TensorProto.EXTERNAL:
            e = {x.key: x.value for x in t.external_data}
            assert e["location"] == "rw_ext.onnx.data" and int(e["offset"]) % 4096 == 0, e
            assert int(e["length"]) >= 1024, e
        else:
            assert nbytes < 1024, (t.name, nbytes)
    moved = [t.name for t in graph_tensors(lazy.graph) if t.data_location == TensorProto.EXTERNAL]
    assert sorted(moved) == ["bias", "conv.w", "v", "w", "w"], moved
    got = [numpy_helper.to_array(t) for t in graph_tensors(onnx.load(out).graph)]
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    # and back in: one file, no external data, the same arrays
    back = path("rw_back.onnx")
    tl("convert", out, "-o", back, "--inline")
    onnx.checker.check_model(back)
    lazy = onnx.load(back, load_external_data=False)
    assert not any(t.data_location == TensorProto.EXTERNAL for t in graph_tensors(lazy.graph))
    for a, b in zip([numpy_helper.to_array(t) for t in graph_tensors(lazy.graph)], want):
        assert np.array_equal(a, b)
    # a threshold and a data file named
    tl("convert", src, "-o", path("rw_t.onnx"), "--external-data=weights.bin", "--size-threshold", "4KiB")
    lazy = onnx.load(path("rw_t.onnx"), load_external_data=False)
    assert [t.name for t in graph_tensors(lazy.graph) if t.data_location] == ["conv.w"]
    assert os.path.exists(path("weights.bin"))
    # usage: a rule with it, both at once
    for extra in (["--to", "NHWC"], ["--inline"]):
        r = tl("convert", src, "-o", path("x.onnx"), "--external-data", *extra, check=False)
        assert r.returncode == 2 and not os.path.exists(path("x.onnx")), r


def test_inline_past_2gib_refused():
    """A model of more than 2 GiB of weights in external data (a sparse file,
    made here and deleted) converts out, and --inline refuses it with the
    size, writing nothing."""
    d = path("huge")
    os.makedirs(d, exist_ok=True)
    n = (2**31 + 2**20) // 4
    data = os.path.join(d, "huge.bin")
    with open(data, "wb") as f:
        f.truncate(n * 4)
    m = external_model("huge.bin", length=n * 4, n=n)
    p = os.path.join(d, "huge.onnx")
    with open(p, "wb") as f:
        f.write(m)
    try:
        listed = json.loads(tl("list", "--json", p).stdout)["tensors"]
        assert listed[0]["bytes"] == n * 4, listed
        r = tl("convert", p, "-o", os.path.join(d, "in.onnx"), "--inline", check=False)
        err = r.stderr.decode()
        assert r.returncode == 4 and "2 GiB" in err and str(n * 4 + 0)[:4] in err, (r.returncode, err)
        assert not os.path.exists(os.path.join(d, "in.onnx"))
    finally:
        os.unlink(data)


def test_onnx_testdata_tensors():
    """Every .pb tensor of ONNX's own test data that its model names as a
    tensor input or output: its values equal onnx's."""
    if not os.path.isdir(TESTDATA):
        raise AssertionError("libonnx-testdata is not installed (.ci/install-deps installs it)")
    checked = 0
    for model_path in sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx"))):
        m = onnx.load(model_path, load_external_data=False)
        kinds = [v.type.WhichOneof("value") for v in m.graph.input] + \
                [v.type.WhichOneof("value") for v in m.graph.output]
        ninputs = len(m.graph.input)
        for pb in sorted(glob.glob(os.path.join(os.path.dirname(model_path), "test_data_set_*",
                                                "*.pb"))):
            base = os.path.basename(pb)
            k = int(base.split("_")[1].split(".")[0])
            idx = k if base.startswith("input") else ninputs + k
            if idx >= len(kinds) or kinds[idx] != "tensor_type":
                continue
            t = TensorProto()
            t.ParseFromString(open(pb, "rb").read())
            want = numpy_helper.to_array(t)
            if t.data_type == TensorProto.STRING or want.dtype.kind == "c":
                r = tl("dump", pb, check=False)
                assert r.returncode == 4, pb
                continue
            if want.size == 0:
                continue
            exact = want.dtype in (np.int64, np.uint64)
            got = values(pb, None if exact else "FLOAT64")
            same(got, want, pb)
            checked += 1
    assert checked > 1000, checked
    print("     %d tensors of ONNX's test data" % checked)


if __name__ == "__main__":
    sys.exit(tensorfiles.run_tests(globals(), "onnx"))
