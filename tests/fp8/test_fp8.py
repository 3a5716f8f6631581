"""The 8-bit and 4-bit float types (SPEC 18) against OCP's formulas,
written here from the OCP 8-bit floating point and microscaling
specifications, not from the tool's code: every code of FLOAT8E4M3,
FLOAT8E5M2, FLOAT8E8M0 and FLOAT4E2M1 decoded, and FLOAT32 values encoded
by brute force (the nearest code, ties to the even one).

Usage: TL=/path/to/tensorlayout python3 tests/fp8/test_fp8.py
"""
import json
import math
from fractions import Fraction
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensorfiles"))
import tensorfiles  # noqa: E402

TL = os.environ.get("TL", "build/tensorlayout")
TMP = None


def tl(*args):
    p = subprocess.run([TL] + [str(a) for a in args], capture_output=True)
    if p.returncode != 0:
        raise AssertionError("tensorlayout %s: %s" % (" ".join(map(str, args)), p.stderr))
    return p


def ocp(name, code):
    """OCP's value of a code: sign, exponent, mantissa; E4M3 has no
    infinity and S.1111.111 is its NaN; E5M2 follows IEEE 754; E8M0 is
    2^(e - 127), 0xFF its NaN."""
    if name == "FLOAT8E8M0":
        return math.nan if code == 0xFF else 2.0 ** (code - 127)
    eb, mb, bias = (4, 3, 7) if name == "FLOAT8E4M3" else (5, 2, 15)
    s = -1.0 if code & 0x80 else 1.0
    e, m = (code >> mb) & ((1 << eb) - 1), code & ((1 << mb) - 1)
    if name == "FLOAT8E4M3" and e == 15 and m == 7:
        return math.nan
    if name == "FLOAT8E5M2" and e == 31:
        return math.nan if m else s * math.inf
    if e == 0:
        return s * m * 2.0 ** (1 - bias - mb)
    return s * (1 + m / 2 ** mb) * 2.0 ** (e - bias)


def nearest(name, x):
    """The code OCP's round-to-nearest-even gives x (saturating E4M3 to
    +-448), by trying every code."""
    if math.isnan(x):
        return None
    if name == "FLOAT8E4M3" and abs(x) > 448:
        return 0xFE if x < 0 else 0x7E          # OCP's saturation
    if name == "FLOAT8E5M2" and abs(x) >= 61440.0:
        return 0xFC if x < 0 else 0x7C          # past the midpoint to 65536: infinity
    best, bd = None, None
    neg = math.copysign(1, x) < 0
    for c in range(256):
        v = ocp(name, c)
        if math.isnan(v) or math.isinf(v) or (name != "FLOAT8E8M0" and bool(c & 0x80) != neg):
            continue
        d = abs(Fraction(v) - Fraction(x))          # exactly
        if bd is None or d < bd or (d == bd and c % 2 == 0 and best % 2 == 1):
            best, bd = c, d
    return best


def test_every_code_decodes_as_ocp_says():
    raw = bytes(range(256))
    open(os.path.join(TMP, "codes.bin"), "wb").write(raw)
    for name in ("FLOAT8E4M3", "FLOAT8E5M2", "FLOAT8E8M0"):
        out = os.path.join(TMP, name + ".f32")
        tl("convert", "--type", name, "--sizes", 256, os.path.join(TMP, "codes.bin"),
           "--to-type", "FLOAT32", "-o", out)
        got = np.fromfile(out, np.float32)
        for c in range(256):
            want = ocp(name, c)
            assert (math.isnan(want) and math.isnan(got[c])) or got[c] == want, (name, c, got[c], want)
        # dump prints each code's value, shortest
        vals = json.loads(tl("dump", "--json", "--type", name, "--sizes", 256,
                             os.path.join(TMP, "codes.bin")).stdout)
        vals = vals["values"] if isinstance(vals, dict) else vals
        for c in range(256):
            want = ocp(name, c)
            v = vals[c]
            if isinstance(v, str):
                v = float(v)
            assert (math.isnan(want) and (v is None or math.isnan(v))) or v == want, (name, c, v)


def test_float32_encodes_to_the_nearest_code():
    rng = np.random.default_rng(3)
    xs = np.concatenate([
        rng.standard_normal(3000).astype(np.float32) * 100,
        rng.standard_normal(1000).astype(np.float32) * 1e-3,
        (rng.standard_normal(500) * np.exp(rng.uniform(-60, 60, 500))).astype(np.float32),
        np.array([0.0, -0.0, 448, 449, 464, 465, 480, 1e9, -1e9, 57344, 61439, 61440, 65536,
                  2.0 ** -9, 2.0 ** -10, 1.5 * 2.0 ** -10, 2.0 ** -16, 2.0 ** -17, 3 * 2.0 ** -18,
                  np.inf, -np.inf, 1.5, 3.0, 0.75, 2.0 ** 127, 2.0 ** -127, 1.5 * 2 ** 20],
                 np.float32)])
    src = os.path.join(TMP, "x.f32")
    xs.tofile(src)
    for name in ("FLOAT8E4M3", "FLOAT8E5M2", "FLOAT8E8M0"):
        out = os.path.join(TMP, name + ".codes")
        tl("convert", "--type", "FLOAT32", "--sizes", len(xs), src, "--to-type", name, "-o", out)
        got = np.fromfile(out, np.uint8)
        for x, c in zip(xs.tolist(), got.tolist()):
            if name == "FLOAT8E8M0" and x <= 0:
                continue                    # no sign, no zero: the tool's choice (man page)
            if name == "FLOAT8E8M0" and math.isinf(x):
                assert c == 0xFE, (name, x, c)      # saturated to 2^127
                continue
            if name == "FLOAT8E4M3" and math.isinf(x):
                assert c == (0xFE if x < 0 else 0x7E), (name, x, c)
                continue
            if name == "FLOAT8E5M2" and math.isinf(x):
                assert c == (0xFC if x < 0 else 0x7C), (name, x, c)
                continue
            want = nearest(name, x)
            if name == "FLOAT8E8M0" and x > 0:
                # ties in value between two powers of two: either is nearest
                lo = 2.0 ** math.floor(math.log2(x))
                if x == 1.5 * lo:
                    assert c in (want, want ^ 1) or abs(ocp(name, c) - x) == abs(ocp(name, want) - x)
                    continue
            assert c == want, (name, x, hex(c), hex(want), ocp(name, c), ocp(name, want))


def test_safetensors_fp8_reads_and_converts():
    """An F8_E4M3 safetensors tensor: listed as FLOAT8E4M3, converted to
    FLOAT32 by a whole-file --to-type, each value OCP's."""
    codes = bytes([0x00, 0x38, 0x40, 0x7E, 0xB8, 0x01, 0x7F, 0x80])
    header = json.dumps({"w": {"dtype": "F8_E4M3", "shape": [2, 4], "data_offsets": [0, 8]}})
    header += " " * ((8 - len(header) % 8) % 8)
    p = os.path.join(TMP, "fp8.safetensors")
    open(p, "wb").write(struct.pack("<Q", len(header)) + header.encode() + codes)
    doc = json.loads(tl("list", "--json", p).stdout)
    assert doc["tensors"][0]["dataType"] == "FLOAT8E4M3", doc
    out = os.path.join(TMP, "fp8.npz")
    tl("convert", p, "--to-type", "FLOAT32", "-o", out)
    got = np.load(out)["w"].reshape(-1)
    for c, g in zip(codes, got):
        want = ocp("FLOAT8E4M3", c)
        assert (math.isnan(want) and math.isnan(g)) or g == want, (c, g, want)


def ocp_fp4(code):
    """OCP's FP4 E2M1: a sign (bit 3), 2 exponent bits (bias 1), 1 mantissa
    bit; no infinity, no NaN."""
    s = -1.0 if code & 8 else 1.0
    e, m = (code >> 1) & 3, code & 1
    return s * (m * 0.5 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1))


def test_fp4_codes_and_encoding():
    """FLOAT4E2M1 (two a byte, the lower index low): every code decoded as
    OCP says; FLOAT32 values encoded by brute force (nearest code, ties to
    the even one, beyond +-6 saturated); NaN, which it cannot hold, refused
    (exit 4) and made 0 under --saturate; an F4 safetensors tensor read and
    written back bit for bit."""
    src = os.path.join(TMP, "fp4.bin")
    open(src, "wb").write(bytes([(2 * i + 1) << 4 | 2 * i for i in range(8)]))   # codes 0..15
    out = os.path.join(TMP, "fp4.f32")
    tl("convert", "--type", "FLOAT4E2M1", "--sizes", 16, src, "--to-type", "FLOAT32", "-o", out)
    got = np.fromfile(out, np.float32)
    for c in range(16):
        assert got[c] == ocp_fp4(c) and math.copysign(1, got[c]) == math.copysign(1, ocp_fp4(c)), \
            (c, got[c])
    rng = np.random.default_rng(4)
    xs = np.concatenate([rng.standard_normal(2000).astype(np.float32) * 3,
                         np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 7, 6, -6, 100, -1e30,
                                   np.inf, -np.inf, -0.0, 0.0, 1e-30], np.float32)])
    if len(xs) % 2:
        xs = np.append(xs, np.float32(1))
    f32 = os.path.join(TMP, "x4.f32")
    xs.tofile(f32)
    out = os.path.join(TMP, "x4.codes")
    tl("convert", "--type", "FLOAT32", "--sizes", len(xs), f32, "--to-type", "fp4", "-o", out)
    packed = np.fromfile(out, np.uint8)
    codes = np.stack([packed & 15, packed >> 4], axis=1).reshape(-1)
    for x, c in zip(xs.tolist(), codes.tolist()):
        neg = math.copysign(1, x) < 0
        if abs(x) > 6:
            want = 0xF if neg else 0x7
        else:
            best, bd = None, None
            for k in range(16):
                if bool(k & 8) != neg:
                    continue
                d = abs(Fraction(ocp_fp4(k)) - Fraction(x))
                if bd is None or d < bd or (d == bd and k % 2 == 0 and best % 2 == 1):
                    best, bd = k, d
            want = best
        assert c == want, (x, c, want)
    nan = os.path.join(TMP, "nan.f32")
    np.array([1.0, np.nan], np.float32).tofile(nan)
    p = subprocess.run([TL, "convert", "--type", "FLOAT32", "--sizes", "2", nan, "--to-type",
                        "FLOAT4E2M1", "-o", os.path.join(TMP, "nan.codes")], capture_output=True)
    assert p.returncode == 4 and b"nan" in p.stderr and b"--saturate" in p.stderr, p
    assert not os.path.exists(os.path.join(TMP, "nan.codes"))
    tl("convert", "--type", "FLOAT32", "--sizes", 2, nan, "--to-type", "FLOAT4E2M1",
       "--saturate", "-o", os.path.join(TMP, "nan.codes"))
    assert open(os.path.join(TMP, "nan.codes"), "rb").read() == bytes([0x02])
    st = os.path.join(TMP, "fp4.safetensors")
    write_st(st, [("w", "F4", [4, 4], open(src, "rb").read())])
    doc = json.loads(tl("list", "--json", st).stdout)
    assert doc["tensors"][0]["dataType"] == "FLOAT4E2M1", doc
    vals = json.loads(tl("dump", "--json", st + ":w").stdout)["values"]
    flat = [float(v) for row in vals for v in row]
    assert flat == [ocp_fp4(c) for c in range(16)], flat
    wide = os.path.join(TMP, "fp4_f32.safetensors")
    tl("convert", st, "--to-type", "FLOAT32", "-o", wide)
    back = os.path.join(TMP, "fp4_back.safetensors")
    tl("convert", wide, "--to-type", "FLOAT4E2M1", "-o", back)
    assert json.loads(tl("list", "--json", back).stdout)["tensors"][0]["dataType"] == "FLOAT4E2M1"
    assert tensorfiles_body(back) == open(src, "rb").read()


def tensorfiles_body(path):
    """A one-tensor safetensors file's data bytes."""
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    return data[8 + n:]


def write_st(p, tensors):
    """A safetensors file of (name, dtype, shape, bytes), by the tests'
    writer of the format (tests/tensorfiles)."""
    open(p, "wb").write(tensorfiles.safetensors(tensors))

def test_deepseek_block_fp8_dequantized():
    """A synthetic DeepSeek layer: W FLOAT8E4M3 [300, 200] (codes numpy
    picks), W_scale_inv FLOAT32 [3, 2]; --dequantize writes W as each code's
    OCP value times its 128 x 128 block's scale (in FLOAT32), the scales
    dropped; --to-type BFLOAT16 and FLOAT16 do the same, rounded; a scale of the
    wrong shape is one line, exit 4."""
    rng = np.random.default_rng(12)
    codes = rng.integers(0, 256, (300, 200), dtype=np.uint8)
    codes[codes == 0x7F] = 0x7E                 # no NaN codes: values to compare
    codes[codes == 0xFF] = 0xFE
    scales = (rng.uniform(0.5, 2, (3, 2)) * 2.0 ** rng.integers(-8, 8, (3, 2))).astype(np.float32)
    p = os.path.join(TMP, "ds.safetensors")
    write_st(p, [("layer.w", "F8_E4M3", [300, 200], codes.tobytes()),
                 ("layer.w_scale_inv", "F32", [3, 2], scales.tobytes()),
                 ("layer.bias", "F32", [3], np.ones(3, np.float32).tobytes())])
    value = np.vectorize(lambda c: ocp("FLOAT8E4M3", int(c)))(codes).astype(np.float32)
    block = np.kron(scales, np.ones((128, 128), np.float32))[:300, :200]
    want = value * block
    out = os.path.join(TMP, "ds.npz")
    tl("convert", p, "--dequantize", "-o", out)
    z = np.load(out)
    assert sorted(z.files) == ["layer.bias", "layer.w"], z.files
    assert z["layer.w"].dtype == np.float32 and np.array_equal(z["layer.w"], want)
    out = os.path.join(TMP, "ds_bf.safetensors")
    tl("convert", p, "--to-type", "BFLOAT16", "-o", out)
    b = open(out, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    assert "layer.w_scale_inv" not in h and h["layer.w"]["dtype"] == "BF16"
    a, e = h["layer.w"]["data_offsets"]
    got = np.frombuffer(b[8 + n + a:8 + n + e], np.uint16).reshape(300, 200)
    u = want.view(np.uint32).astype(np.uint64)
    assert np.array_equal(got, ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16))
    # FLOAT16: the FLOAT32 product rounded as numpy's astype rounds it
    out = os.path.join(TMP, "ds_h.npz")
    tl("convert", p, "--to-type", "FLOAT16", "-o", out)
    h16 = np.load(out)["layer.w"]
    assert h16.dtype == np.float16 and np.array_equal(h16.view(np.uint16),
                                                      want.astype(np.float16).view(np.uint16))
    bad = os.path.join(TMP, "ds_bad.safetensors")
    write_st(bad, [("layer.w", "F8_E4M3", [300, 200], codes.tobytes()),
                   ("layer.w_scale_inv", "F32", [2, 2], scales[:2].tobytes())])
    r = subprocess.run([TL, "convert", bad, "--dequantize", "-o", os.path.join(TMP, "x.npz")],
                       capture_output=True)
    lines = r.stderr.decode().strip().split("\n")
    assert r.returncode == 4 and len(lines) == 1 and "layer.w_scale_inv" in lines[0], r


def test_deepseek_large_layer_bf16():
    """A layer of several pieces of output and bands of 128 rows, its last
    column block part of one: W FLOAT8E4M3 [700, 1000] with NaN codes,
    W_scale_inv [6, 8] with an infinite scale in one block and a subnormal
    one in another; --to-type BFLOAT16 writes each FLOAT32 product (numpy's)
    rounded to nearest even, a NaN where numpy has one."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 256, (700, 1000), dtype=np.uint8)
    scales = (rng.uniform(0.5, 2, (6, 8)) * 2.0 ** rng.integers(-20, 20, (6, 8))).astype(np.float32)
    scales[2, 3] = np.inf
    scales[4, 7] = np.float32(1e-40)
    p = os.path.join(TMP, "ds_big.safetensors")
    write_st(p, [("m.weight", "F8_E4M3", [700, 1000], codes.tobytes()),
                 ("m.weight_scale_inv", "F32", [6, 8], scales.tobytes())])
    table = np.array([ocp("FLOAT8E4M3", c) for c in range(256)], np.float32)
    block = np.kron(scales, np.ones((128, 128), np.float32))[:700, :1000]
    with np.errstate(invalid="ignore", over="ignore"):
        want = table[codes] * block
    out = os.path.join(TMP, "ds_big_bf.safetensors")
    tl("convert", p, "--to-type", "BFLOAT16", "-o", out)
    b = open(out, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    a, e = json.loads(b[8:8 + n])["m.weight"]["data_offsets"]
    got = np.frombuffer(b[8 + n + a:8 + n + e], np.uint16).reshape(700, 1000)
    nan = np.isnan(want)
    assert nan.any() and np.array_equal((got & 0x7FFF) > 0x7F80, nan)
    u = want.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    assert np.array_equal(got[~nan], rounded[~nan])


def read_st(path):
    """{name: (dtype, shape, bytes)} and the metadata of a safetensors file,
    read from the format's description."""
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    meta = h.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"], b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
            for k, v in h.items()}, meta


def test_scales_across_shards():
    """SPEC 23: a sharded model whose FP8 weight's W_scale_inv and whose MXFP4
    W_blocks' W_scales lie in other shards than theirs.  --dequantize pairs
    them through the weight map: each weight is OCP's values times its
    scales (FLOAT32, and BFLOAT16 under --to-type), the scales are in no
    shard and not in the new index (whose own list works), a shard left
    with nothing is not written; the same with --max-shard-size, and with
    --shard jobs and --index-only."""
    rng = np.random.default_rng(23)
    codes = rng.integers(0, 0x7E, (200, 130), dtype=np.uint8)
    scales = (rng.uniform(0.5, 2, (2, 2)) * 2.0 ** rng.integers(-6, 6, (2, 2))).astype(np.float32)
    blocks = rng.integers(0, 256, (3, 2, 16), dtype=np.uint8)
    e8 = rng.integers(120, 135, (3, 2), dtype=np.uint8)
    model = os.path.join(TMP, "shardmodel")
    os.makedirs(model)
    write_st(os.path.join(model, "a.safetensors"),
             [("l.w", "F8_E4M3", [200, 130], codes.tobytes()),
              ("e.w_scales", "U8", [3, 2], e8.tobytes()),
              ("l.b", "F32", [2], np.ones(2, np.float32).tobytes())])
    write_st(os.path.join(model, "b.safetensors"),
             [("e.w_blocks", "U8", [3, 2, 16], blocks.tobytes())])
    write_st(os.path.join(model, "c.safetensors"),
             [("l.w_scale_inv", "F32", [2, 2], scales.tobytes())])
    wmap = {"l.w": "a.safetensors", "e.w_scales": "a.safetensors", "l.b": "a.safetensors",
            "e.w_blocks": "b.safetensors", "l.w_scale_inv": "c.safetensors"}
    index = os.path.join(model, "model.safetensors.index.json")
    json.dump({"metadata": {"total_size": 0}, "weight_map": wmap}, open(index, "w"))
    table = np.array([ocp("FLOAT8E4M3", c) for c in range(256)], np.float32)
    fp8 = table[codes] * np.kron(scales, np.ones((128, 128), np.float32))[:200, :130]
    fp4 = np.array([ocp_fp4(c) for c in range(16)], np.float32)
    vals = np.stack([fp4[blocks & 15], fp4[blocks >> 4]], axis=-1).reshape(3, 2, 32)
    mx = (vals * (2.0 ** (e8.astype(np.float64) - 127)).astype(np.float32)[..., None]).reshape(3, 64)
    want = {"l.w": fp8, "e.w": mx, "l.b": np.ones(2, np.float32)}

    def check_dir(out, bf16=False):
        idx = json.load(open(os.path.join(out, "model.safetensors.index.json")))
        got = {}
        for name, shard in idx["weight_map"].items():
            t, _ = read_st(os.path.join(out, shard))
            got[name] = t[name]
        assert sorted(got) == sorted(want), sorted(got)
        for name, a in want.items():
            dt, shape, raw = got[name]
            assert shape == list(a.shape), (name, shape)
            if bf16:
                u = a.view(np.uint32).astype(np.uint64)
                r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
                assert dt == "BF16" and np.array_equal(np.frombuffer(raw, np.uint16).reshape(a.shape), r), name
            else:
                assert dt == "F32" and np.array_equal(np.frombuffer(raw, np.float32).reshape(a.shape), a), name
        assert idx["metadata"]["total_size"] == sum(len(v[2]) for v in got.values())
        held = sorted(x for x in os.listdir(out) if x.endswith(".safetensors"))
        assert held == sorted(set(idx["weight_map"].values())), held
        listed = json.loads(tl("list", "--json", os.path.join(out, "model.safetensors.index.json")).stdout)
        assert sorted(t["name"] for t in listed["tensors"]) == sorted(want), listed

    out = os.path.join(TMP, "deq")
    tl("convert", index, "--dequantize", "-o", out + "/")
    check_dir(out)
    out = os.path.join(TMP, "deq_bf16")
    tl("convert", index, "--to-type", "BFLOAT16", "-o", out + "/")
    check_dir(out, bf16=True)
    out = os.path.join(TMP, "deq_split")
    tl("convert", index, "--dequantize", "--max-shard-size", "60KB", "-o", out + "/")
    check_dir(out)
    assert len([x for x in os.listdir(out) if x.endswith(".safetensors")]) == 3, os.listdir(out)
    out = os.path.join(TMP, "deq_jobs")
    for shard in ("a.safetensors", "b.safetensors", "c.safetensors"):
        tl("convert", index, "--dequantize", "--shard", shard, "-o", out + "/")
    tl("convert", index, "--dequantize", "--index-only", "-o", out + "/")
    idx = json.load(open(os.path.join(out, "model.safetensors.index.json")))
    assert sorted(idx["weight_map"]) == sorted(want), idx


def test_dequantize_one_tensor():
    """SPEC 23: convert FILE:W --dequantize decodes W with its scales (FP8
    blocks, MXFP4) into one tensor, as the whole-file conversion does, with
    --to and --to-type on the way; a tensor that is no scaled weight, and a
    sharded model's INDEX:W, are refused in one line, nothing written."""
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 0x7E, (130, 260), dtype=np.uint8)
    scales = rng.uniform(0.25, 4, (2, 3)).astype(np.float32)
    blocks = rng.integers(0, 256, (2, 3, 16), dtype=np.uint8)
    e8 = rng.integers(118, 136, (2, 3), dtype=np.uint8)
    p = os.path.join(TMP, "one.safetensors")
    write_st(p, [("q.weight", "F8_E4M3", [130, 260], codes.tobytes()),
                 ("q.weight_scale_inv", "F32", [2, 3], scales.tobytes()),
                 ("e.w_blocks", "U8", [2, 3, 16], blocks.tobytes()),
                 ("e.w_scales", "U8", [2, 3], e8.tobytes()),
                 ("bias", "F32", [2], np.ones(2, np.float32).tobytes())])
    table = np.array([ocp("FLOAT8E4M3", c) for c in range(256)], np.float32)
    fp8 = table[codes] * np.kron(scales, np.ones((128, 128), np.float32))[:130, :260]
    fp4 = np.array([ocp_fp4(c) for c in range(16)], np.float32)
    vals = np.stack([fp4[blocks & 15], fp4[blocks >> 4]], axis=-1).reshape(2, 3, 32)
    mx = (vals * (2.0 ** (e8.astype(np.float64) - 127)).astype(np.float32)[..., None]).reshape(2, 96)
    out = os.path.join(TMP, "one.npy")
    tl("convert", p + ":q.weight", "--dequantize", "-o", out)
    assert np.array_equal(np.load(out), fp8)
    tl("convert", p + ":e.w", "--dequantize", "--to", "WH", "-o", out)
    assert np.array_equal(np.load(out), mx.T)
    tl("convert", p + ":q.weight", "--dequantize", "--to-type", "FLOAT16", "-o", out)
    assert np.array_equal(np.load(out).view(np.uint16), fp8.astype(np.float16).view(np.uint16))
    model = os.path.join(TMP, "onemodel")
    os.makedirs(model)
    os.link(p, os.path.join(model, "one.safetensors"))
    json.dump({"weight_map": {n: "one.safetensors" for n in
                              ("q.weight", "q.weight_scale_inv", "e.w_blocks", "e.w_scales", "bias")}},
              open(os.path.join(model, "model.safetensors.index.json"), "w"))
    bad = os.path.join(TMP, "bad.npy")
    for arg, status, says in ((p + ":bias", 4, "'bias' is no scaled weight"),
                              (p + ":e.w_scales", 4, "'e.w_scales' is no scaled weight"),
                              (os.path.join(model, "model.safetensors.index.json") + ":q.weight", 2,
                               "convert the index whole with --dequantize")):
        r = subprocess.run([TL, "convert", arg, "--dequantize", "-o", bad], capture_output=True)
        lines = r.stderr.decode().strip().split("\n")
        assert r.returncode == status and len(lines) == 1 and says in lines[0], (arg, r)
        assert not os.path.exists(bad)


def main():
    return tensorfiles.run_tests(globals(), "fp8")


if __name__ == "__main__":
    sys.exit(main())
