"""Group-quantized weights (SPEC 21): GPTQ, AWQ and compressed-tensors files
built with torch from random weights by the schemes' reference packing
(quantref.py), read by the tool; every expected value comes from the
references' dequantization, every GGUF block written is decoded by ggml's
own to_float.

Run: TL=build/tensorlayout python3 tests/quant/test_quant.py [FILTER]
"""
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tensorfiles"))
sys.path.insert(0, os.path.join(HERE, "..", "gguf"))
import quantref as R  # noqa: E402
from tensorfiles import read_safetensors, run_tests, safetensors, tl  # noqa: E402

TMP = None
DT = {torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32"}


def raw(t):
    """A torch tensor's bytes (BF16 by its bits)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def write(folder, tensors, config=None, name="model.safetensors"):
    """tensors: [(name, safetensors dtype, shape, bytes)] into folder/name,
    with config.json holding quantization_config when config is given."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(safetensors(tensors))
    if config is not None:
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump({"architectures": ["LlamaForCausalLM"], "quantization_config": config}, f)
    return path


def gptq_file(folder, bits, group, sym, act=False, v2=False, out_f=64, in_f=256, seed=0,
              config=True):
    torch.manual_seed(seed)
    w = torch.randn(out_f, in_f)
    g_idx = None
    if act:
        g_idx = (torch.arange(in_f) // group)[torch.randperm(in_f)]
    iw, z, s, g = R.quantize(w, bits, group, sym, g_idx)
    qw, qz = R.gptq_pack(iw, z, bits, v2)
    cfg = {"quant_method": "gptq", "bits": bits, "group_size": group, "desc_act": act,
           "sym": sym}
    if v2:
        cfg["checkpoint_format"] = "gptq_v2"
    p = write(folder, [("m.q_proj.qweight", "I32", qw.shape, qw.tobytes()),
                       ("m.q_proj.qzeros", "I32", qz.shape, qz.tobytes()),
                       ("m.q_proj.scales", "F16", list(s.shape), raw(s)),
                       ("m.q_proj.g_idx", "I32", [in_f], g.numpy().tobytes()),
                       ("m.norm.weight", "F16", [in_f], raw(torch.ones(in_f, dtype=torch.float16)))],
              cfg if config else None)
    return p, R.gptq_dequant(qw, qz, s, g.numpy(), bits, v2)


def awq_file(folder, group=32, out_f=64, in_f=256, seed=1):
    torch.manual_seed(seed)
    w = torch.randn(out_f, in_f)
    iw, z, s, _ = R.quantize(w, 4, group, sym=False)
    qw, qz = R.awq_pack(iw, z)
    p = write(folder, [("m.up.qweight", "I32", qw.shape, qw.tobytes()),
                       ("m.up.qzeros", "I32", qz.shape, qz.tobytes()),
                       ("m.up.scales", "F16", list(s.shape), raw(s))],
              {"quant_method": "awq", "bits": 4, "group_size": group, "zero_point": True,
               "version": "gemm"})
    return p, R.awq_dequant(qw, qz, s, group)


def ct_file(folder, bits, group, sym, out_f=64, in_f=256, seed=2, scale_dtype=torch.bfloat16,
            zp_int8=False, ignore=("lm_head",)):
    torch.manual_seed(seed)
    w = torch.randn(out_f, in_f)
    gs = in_f if group is None else group
    q, s, zp = R.ct_quantize(w, bits, gs, sym, scale_dtype)
    packed = R.pack_to_int32(q, bits)
    ts = [("m.down.weight_packed", "I32", packed.shape, packed.tobytes()),
          ("m.down.weight_scale", DT[scale_dtype], list(s.shape), raw(s)),
          ("m.down.weight_shape", "I64", [2], np.array([out_f, in_f], np.int64).tobytes()),
          ("lm_head.weight", "BF16", [8, in_f], raw(torch.randn(8, in_f).to(torch.bfloat16)))]
    if not sym:
        z = zp.numpy().tobytes() if zp_int8 else R.pack_to_int32(zp, bits, packed_dim=0)
        ts.insert(2, ("m.down.weight_zero_point", "I8" if zp_int8 else "I32",
                      list(zp.shape) if zp_int8 else z.shape, z if zp_int8 else z.tobytes()))
    cfg = {"quant_method": "compressed-tensors", "format": "pack-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
               "num_bits": bits, "type": "int", "symmetric": sym,
               "strategy": "channel" if group is None else "group",
               "group_size": group}}},
           "ignore": list(ignore)}
    p = write(folder, ts, cfg)
    uq = R.unpack_from_int32(packed, bits, (out_f, in_f))
    return p, uq, s, zp, gs


def dequantized(path, to_type=None, extra=()):
    out = path + ".out.safetensors"
    args = ["convert", path, "-o", out] + (["--to-type", to_type] if to_type
                                                       else ["--dequantize"]) + list(extra)
    tl(*args)
    return read_safetensors(out)


def test_gptq_every_bits_v1_v2_act_order():
    """GPTQ at 2, 3, 4 and 8 bits, symmetric and not, v1 and v2, act-order:
    FLOAT32 values equal AutoGPTQ's dequantization exactly."""
    for bits in (2, 3, 4, 8):
        for sym in (True, False):
            for act, v2 in ((False, False), (True, False), (False, True)):
                d = os.path.join(TMP, "gptq%d%s%s%s" % (bits, sym, act, v2))
                p, ref = gptq_file(d, bits, 32, sym, act, v2)
                got = dequantized(p)
                dt, a = got["m.q_proj.weight"]
                assert dt == "F32" and a.shape == (64, 256), (dt, a.shape)
                assert np.array_equal(a, ref.numpy()), (bits, sym, act, v2,
                                                        np.abs(a - ref.numpy()).max())
                assert "m.q_proj.qweight" not in got and "m.norm.weight" in got


def test_gptq_bf16_and_shapes_alone():
    """--to-type BFLOAT16 gives torch's rounding of the exact values; a lone
    file (no config.json) is recognized by its shapes."""
    p, ref = gptq_file(os.path.join(TMP, "gbf"), 4, 64, False, config=False)
    dt, a = dequantized(p, "BFLOAT16")["m.q_proj.weight"]
    want = ref.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert dt == "BF16" and np.array_equal(a, want)


def test_awq_gemm():
    """AWQ's nibble order: values equal AutoAWQ's dequantize_gemm; also
    with outputs past one tile of 128 rows, the last tile partial, and
    inputs not a multiple of 8 (the last words' inputs partly absent), and
    words gathered in blocks of 16 with a partial last block (25 words)."""
    for group, out_f, in_f in ((32, 64, 256), (128, 64, 256), (20, 200, 100), (40, 136, 200)):
        p, ref = awq_file(os.path.join(TMP, "awq%d" % group), group, out_f, in_f)
        dt, a = dequantized(p)["m.up.weight"]
        assert np.array_equal(a, ref.numpy()), group


def test_compressed_tensors():
    """pack-quantized: 4 and 8 bits, symmetric and asymmetric, per group and
    per channel, packed or INT8 zero points; FLOAT32 equals the reference
    exactly, BFLOAT16 equals it computed in the scale's type; the ignored
    lm_head is carried as it is."""
    for bits in (4, 8):
        for sym in (True, False):
            for group in (32, None):
                for zp8 in ((False, True) if not sym else (False,)):
                    d = os.path.join(TMP, "ct%d%s%s%s" % (bits, sym, group, zp8))
                    p, q, s, zp, gs = ct_file(d, bits, group, sym, zp_int8=zp8)
                    got = dequantized(p)
                    ref = R.ct_dequant(q, s, zp, gs)
                    assert np.array_equal(got["m.down.weight"][1], ref.numpy()), (bits, sym, group)
                    assert "lm_head.weight" in got and "m.down.weight_packed" not in got
                    bf = dequantized(p, "BFLOAT16")["m.down.weight"][1]
                    want = R.ct_dequant(q, s, zp, gs, torch.bfloat16)
                    assert np.array_equal(bf, want.view(torch.int16).numpy().view(np.uint16))


def test_ignore_list_honoured():
    """A module the config ignores keeps its parts as they are."""
    p, *_ = ct_file(os.path.join(TMP, "ign"), 4, 32, True, ignore=("m.down",))
    got = dequantized(p, "FLOAT32")
    assert "m.down.weight_packed" in got and "m.down.weight" not in got


def test_list_one_logical_weight():
    p, _ = gptq_file(os.path.join(TMP, "lst"), 4, 32, True, act=True)
    text = tl("list", p).stdout.decode()
    assert "m.q_proj.weight  [64, 256]  GPTQ 4-bit, groups of 32, act-order" in text, text
    doc = json.loads(tl("list", "--json", p).stdout)
    e = doc["scaled"][0]
    assert e["kind"] == "gptq" and e["shape"] == [64, 256] and e["bits"] == 4
    assert e["groupSize"] == 32 and e["actOrder"] and not e["symmetric"]
    assert e["parts"] == ["m.q_proj.qweight", "m.q_proj.scales", "m.q_proj.qzeros",
                          "m.q_proj.g_idx"]


def test_dump_compare_inspect_decoded():
    """FILE:P.weight reads the decoded values: compare against numpy's
    .npy of the reference is equal; dump prints them; inspect FLOAT32."""
    p, ref = awq_file(os.path.join(TMP, "dc"))
    npy = os.path.join(TMP, "dc", "ref.npy")
    np.save(npy, ref.numpy())
    r = tl("compare", p + ":m.up.weight", npy)
    assert b"equal" in r.stdout, r.stdout
    assert b"FLOAT32" in tl("inspect", p + ":m.up.weight").stdout
    lines = tl("dump", p + ":m.up.weight", "--stats").stdout.decode()
    assert "64" in lines or "16384" in lines


def test_decoded_across_windows():
    """A weight of many windows (768 KiB of FLOAT32: the reader decodes
    256 KiB at a time, from any value on): 3-bit act-order GPTQ compared
    with the reference is equal, one value changed near the end is the one
    mismatch at its index, and dump --stats's min and max are numpy's."""
    p, ref = gptq_file(os.path.join(TMP, "win"), 3, 32, False, act=True, out_f=384, in_f=512)
    r = np.array(ref, dtype=np.float32)
    npy = os.path.join(TMP, "win", "ref.npy")
    np.save(npy, r)
    assert b"equal" in tl("compare", p + ":m.q_proj.weight", npy).stdout
    r[383, 500] += 1.0
    np.save(npy, r)
    res = tl("compare", p + ":m.q_proj.weight", npy, "--json", check=False)
    assert res.returncode == 1, res.stderr
    j = json.loads(res.stdout)
    assert j["mismatches"] == 1 and j["first"][0]["index"] == [383, 500], j
    assert j["first"][0]["a"] == float(ref[383, 500]), j
    stats = dict(l.split(None, 1) for l in tl("dump", p + ":m.q_proj.weight", "--stats")
                 .stdout.decode().splitlines())
    assert np.float32(stats["min"]) == np.float32(ref.min())
    assert np.float32(stats["max"]) == np.float32(ref.max())
    assert int(stats["count"]) == 384 * 512


def test_offset_names_group_and_bits():
    """offset FILE:P.weight o,i: the word it names, at the byte it gives,
    holds the element's code (from the reference's integer weight) at the
    bits it gives; the group and scale are the element's."""
    torch.manual_seed(7)
    w = torch.randn(64, 256)
    iw, z, s, g = R.quantize(w, 4, 32, False)
    qw, qz = R.awq_pack(iw, z)
    p = write(os.path.join(TMP, "off"), [("m.up.qweight", "I32", qw.shape, qw.tobytes()),
                                         ("m.up.qzeros", "I32", qz.shape, qz.tobytes()),
                                         ("m.up.scales", "F16", list(s.shape), raw(s))])
    data = open(p, "rb").read()
    rng = np.random.default_rng(1)
    for _ in range(20):
        o, i = int(rng.integers(64)), int(rng.integers(256))
        e = json.loads(tl("offset", p + ":m.up.weight", "%d,%d" % (o, i), "--json").stdout)[0]
        c = e["code"]
        word = int.from_bytes(data[c["byte"]:c["byte"] + 4], "little")
        assert (word >> c["bit"]) & 15 == int(iw[i, o]), (o, i, e)
        assert e["group"] == i // 32 and e["scale"]["row"] == i // 32 and e["scale"]["column"] == o
        zw = int.from_bytes(data[e["zero"]["byte"]:e["zero"]["byte"] + 4], "little")
        assert (zw >> e["zero"]["bit"]) & 15 == int(z[i // 32, o])
    r = tl("offset", p + ":m.up.weight", "64,0", check=False)
    assert r.returncode == 4 and b"inside [64, 256]" in r.stderr


def ggml_values(path, name):
    import ggml
    G = ggml.GGML()
    info = G.read(path)
    data = open(path, "rb").read()
    for n, t, off, size in info["tensors"]:
        if n == name:
            raw_ = data[info["data"] + off:info["data"] + off + size]
            return t, G.to_float(t, raw_, size // G.block(t)[1] * G.block(t)[0])
    raise KeyError(name)


def test_gguf_repack_lossless():
    """Symmetric 4-bit groups (32, 128) become Q4_0 blocks whose ggml
    decoded values equal the dequantized ones bit for bit; asymmetric AWQ
    becomes Q4_1 (within the offset's FLOAT16 rounding, said in a note);
    8-bit symmetric compressed-tensors becomes Q8_0 exactly, 4-bit too."""
    for group in (32, 128):
        p, ref = gptq_file(os.path.join(TMP, "q40_%d" % group), 4, group, True)
        out = p + ".gguf"
        tl("convert", p, "-o", out, "--to-type", "Q4_0")
        t, v = ggml_values(out, "m.q_proj.weight")
        assert t == 2 and np.array_equal(v, ref.numpy().ravel()), group
    p, ref = awq_file(os.path.join(TMP, "q41"))
    out = p + ".gguf"
    r = tl("convert", p, "-o", out, "--to-type", "Q4_0")
    t, v = ggml_values(out, "m.up.weight")
    assert t == 3, t
    assert b"Q4_1" in r.stderr and b"offset" in r.stderr, r.stderr
    assert np.abs(v - ref.numpy().ravel()).max() <= 2 ** -10 * np.abs(ref.numpy()).max()
    for bits in (8, 4):
        p, q, s, zp, gs = ct_file(os.path.join(TMP, "q80_%d" % bits), bits, 32, True,
                                  scale_dtype=torch.float16)
        out = p + ".gguf"
        tl("convert", p, "-o", out, "--to-type", "Q8_0")
        t, v = ggml_values(out, "m.down.weight")
        assert t == 8 and np.array_equal(v, R.ct_dequant(q, s, zp, gs).numpy().ravel())


def test_gguf_requantized_named():
    """Act-order and 3-bit groups are requantized from the decoded values,
    named in a note; ggml reads the blocks."""
    p, ref = gptq_file(os.path.join(TMP, "rq"), 4, 32, True, act=True)
    out = p + ".gguf"
    r = tl("convert", p, "-o", out, "--to-type", "Q4_0")
    assert b"requantized" in r.stderr and b"m.q_proj.weight" in r.stderr, r.stderr
    t, v = ggml_values(out, "m.q_proj.weight")
    import ggml
    want = ggml.GGML().to_float(2, ggml.GGML().quantize(2, ref.numpy(), 256), ref.numel())
    assert t == 2 and np.array_equal(v, want)


def test_sharded_parts_across_shards():
    """A model whose scales lie in another shard than the codes: decoded
    whole; the output folder's config.json has no quantization_config."""
    d = os.path.join(TMP, "sh")
    torch.manual_seed(5)
    w = torch.randn(64, 256)
    iw, z, s, g = R.quantize(w, 4, 64, False)
    qw, qz = R.gptq_pack(iw, z, 4)
    write(d, [("m.q_proj.qweight", "I32", qw.shape, qw.tobytes()),
              ("m.q_proj.g_idx", "I32", [256], g.numpy().tobytes())],
          {"quant_method": "gptq", "bits": 4, "group_size": 64}, "model-00001-of-00002.safetensors")
    write(d, [("m.q_proj.qzeros", "I32", qz.shape, qz.tobytes()),
              ("m.q_proj.scales", "F16", list(s.shape), raw(s))], None,
          "model-00002-of-00002.safetensors")
    wm = {"m.q_proj.qweight": "model-00001-of-00002.safetensors",
          "m.q_proj.g_idx": "model-00001-of-00002.safetensors",
          "m.q_proj.qzeros": "model-00002-of-00002.safetensors",
          "m.q_proj.scales": "model-00002-of-00002.safetensors"}
    idx = os.path.join(d, "model.safetensors.index.json")
    json.dump({"metadata": {}, "weight_map": wm}, open(idx, "w"))
    out = os.path.join(TMP, "sh_out")
    tl("convert", idx, "--to-type", "BFLOAT16", "-o", out + "/")
    cfg = json.load(open(os.path.join(out, "config.json")))
    assert "quantization_config" not in cfg and cfg["architectures"]
    got = {}
    for f in os.listdir(out):
        if f.endswith(".safetensors"):
            got.update(read_safetensors(os.path.join(out, f)))
    ref = R.gptq_dequant(qw, qz, s, g.numpy(), 4).to(torch.bfloat16)
    assert set(got) == {"m.q_proj.weight"}, set(got)
    assert np.array_equal(got["m.q_proj.weight"][1], ref.view(torch.int16).numpy().view(np.uint16))


def bad(path, says):
    r = tl("convert", path, "--dequantize", "-o", path + ".bad.safetensors",
           check=False)
    err = r.stderr.decode()
    assert r.returncode == 4 and says in err and err.count("\n") == 1, (r.returncode, err)
    assert not os.path.exists(path + ".bad.safetensors")
    r = tl("list", path, check=False)
    assert r.returncode == 4, r.returncode


def test_bad_files():
    """A part missing, a wrong shape, a group size that does not divide,
    g_idx out of range, zero points beyond the bits: one line naming the
    weight, exit 4, nothing written."""
    qw = np.zeros((32, 64), np.int32)
    qz = np.zeros((8, 8), np.int32)
    sc = np.ones((8, 64), np.float16)
    d = os.path.join(TMP, "bad")
    bad(write(d + "1", [("a.qweight", "I32", qw.shape, qw.tobytes()),
                        ("a.scales", "F16", sc.shape, sc.tobytes())]),
        "weight 'a.weight': is a GPTQ or AWQ weight without its qzeros")
    bad(write(d + "2", [("a.qweight", "I32", qw.shape, qw.tobytes()),
                        ("a.qzeros", "I32", (8, 7), np.zeros((8, 7), np.int32).tobytes()),
                        ("a.scales", "F16", sc.shape, sc.tobytes())]), "weight 'a.weight'")
    sc7 = np.ones((7, 64), np.float16)
    bad(write(d + "3", [("a.qweight", "I32", qw.shape, qw.tobytes()),
                        ("a.qzeros", "I32", (7, 8), np.zeros((7, 8), np.int32).tobytes()),
                        ("a.scales", "F16", sc7.shape, sc7.tobytes())]),
        "do not divide into 7 groups")
    g = np.arange(256, dtype=np.int32)
    g[5] = 9
    bad(write(d + "4", [("a.qweight", "I32", qw.shape, qw.tobytes()),
                        ("a.qzeros", "I32", qz.shape, qz.tobytes()),
                        ("a.scales", "F16", sc.shape, sc.tobytes()),
                        ("a.g_idx", "I32", [256], g.tobytes())]), "g_idx[5] is 9")
    for args in (("convert", d + "4/model.safetensors:a.weight", "--dequantize", "-o",
                  d + "4/one.npy"), ("dump", d + "4/model.safetensors:a.weight"),
                 ("offset", d + "4/model.safetensors:a.weight", "0,0")):
        r = tl(*args, check=False)              # one weight alone: checked as a whole file is
        assert r.returncode == 4 and b"g_idx[5] is 9" in r.stderr, (args, r.stderr)
    p, *_ = ct_file(d + "5", 4, 32, False, zp_int8=True)
    b = bytearray(open(p, "rb").read())
    n = int.from_bytes(b[:8], "little")
    h = json.loads(b[8:8 + n])
    a = h["m.down.weight_zero_point"]["data_offsets"][0]
    b[8 + n + a] = 0x40                     # 64: beyond 4 bits
    open(p, "wb").write(b)
    bad(p, "beyond 4 bits")
    p, *_ = ct_file(d + "6", 4, 32, True)
    b = bytearray(open(p, "rb").read())
    n = int.from_bytes(b[:8], "little")
    h = json.loads(b[8:8 + n])
    a = h["m.down.weight_shape"]["data_offsets"][0]
    b[8 + n + a + 8] = 100                  # in: 0x164 = 356, the codes hold 256
    open(p, "wb").write(b)
    bad(p, "weight_shape says [64, 356]")


def test_bad_config():
    """config.json's quantization_config that is not what it should be:
    one line naming config.json and the key, exit 4; a re: pattern that
    would cost the regex library too much is refused the same way."""
    p, *_ = ct_file(os.path.join(TMP, "cfg"), 4, 32, True)
    cfg = os.path.join(TMP, "cfg", "config.json")
    base = json.load(open(cfg))
    for ignore, says in ((["re:(a+)+\\1"], "ignore"), (["re:a{1,9}"], "ignore"),
                         (["re:(.+)+" * 5], "ignore"), (["re:[unclosed"], "ignore"),
                         (["re:.*+++++"], "ignore")):
        c = json.loads(json.dumps(base))
        c["quantization_config"]["ignore"] = ignore
        json.dump(c, open(cfg, "w"))
        r = tl("list", p, check=False)
        err = r.stderr.decode()
        assert r.returncode == 4 and "config.json" in err and says in err, (ignore, err)
    # * + ? inside a bracket expression are characters, not quantifiers
    c = json.loads(json.dumps(base))
    c["quantization_config"]["ignore"] = ["re:[*+?]+x", "re:a[]+]*b"]
    json.dump(c, open(cfg, "w"))
    tl("list", p)
    c = json.loads(json.dumps(base))
    c["quantization_config"]["config_groups"]["group_0"]["weights"]["group_size"] = 1e300
    json.dump(c, open(cfg, "w"))
    r = tl("list", p, check=False)
    assert r.returncode == 4 and b"group_size" in r.stderr, r.stderr


def test_quant_option():
    """--quant names the scheme of a lone file; none leaves the parts."""
    p, ref = gptq_file(os.path.join(TMP, "qo"), 4, 32, False, config=False)
    got = dequantized(p, "BFLOAT16", ("--quant", "none"))
    assert "m.q_proj.qweight" in got
    dt, a = dequantized(p, None, ("--quant", "gptq"))["m.q_proj.weight"]
    assert np.array_equal(a, ref.numpy())
    r = tl("convert", p, "--dequantize", "--quant", "zzz", "-o", p + ".x.safetensors",
           check=False)
    assert r.returncode == 2 and b"--quant" in r.stderr


if __name__ == "__main__":
    sys.exit(run_tests(globals(), "quant"))
