"""The GGUF tests (SPEC 16), with ggml itself as the oracle (ggml.py).

ggml quantizes the values and writes the GGUF files the tool reads; ggml's
to_float gives the values the tool must decode, bit for bit; numpy reads
what the tool writes.  No expected value comes from the tool's own code.

Usage: TL=/path/to/tensorlayout python3 tests/gguf/test_gguf.py [FILTER]
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensorfiles"))
import tensorfiles  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml  # noqa: E402
import hostile  # noqa: E402

TL = os.environ.get("TL", "build/tensorlayout")
G = None
TMP = None

# the block types the tool decodes; the plain ones
DECODED = ["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K",
           "IQ4_NL", "IQ4_XS", "TQ1_0", "TQ2_0", "MXFP4", "Q1_0", "Q2_0"]
PLAIN = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I8": np.int8,
         "I16": np.int16, "I32": np.int32, "I64": np.int64}


def tl(*args, check=True):
    p = subprocess.run([TL] + [str(a) for a in args], capture_output=True)
    if check and p.returncode != 0:
        raise AssertionError("tensorlayout %s: exit %d: %s" % (" ".join(map(str, args)),
                                                              p.returncode, p.stderr.decode()))
    return p


def path(name):
    return os.path.join(TMP, name)


def read_safetensors(p):
    b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    return h, b[8 + n:]


def same_bits(a, b):
    """Bit for bit, a NaN matching any NaN (which NaN a product of a NaN
    scale keeps is the compiler's choice of operand order)."""
    a = np.ascontiguousarray(a, dtype=np.float32).reshape(-1)
    b = np.ascontiguousarray(b, dtype=np.float32).reshape(-1)
    if a.shape != b.shape:
        return False
    nan = np.isnan(a) & np.isnan(b)
    return bool(np.all((a.view(np.uint32) == b.view(np.uint32)) | nan))


def values(rng, n, kind):
    if kind == "normal":
        return rng.standard_normal(n).astype(np.float32)
    if kind == "wide":
        return (rng.standard_normal(n) * np.exp(rng.uniform(-20, 20, n))).astype(np.float32)
    if kind == "zeros":
        return np.zeros(n, np.float32)
    return rng.uniform(-1e-3, 1e-3, n).astype(np.float32)


def model(name, types, shapes, rng, kind="normal", meta=(), raw=False):
    """A GGUF written by ggml: for each type and ne, a tensor quantized by
    ggml (raw: random block bytes, every bit pattern of the scales).
    Returns [(tensor name, type, ne, bytes)]."""
    tensors = []
    for tname in types:
        t = G.type_id(tname)
        for k, ne in enumerate(shapes):
            count = int(np.prod(ne))
            blck, size = G.block(t)
            if raw:
                data = rng.integers(0, 256, count // blck * size, dtype=np.uint8).tobytes()
            elif tname in PLAIN:
                data = (values(rng, count, kind) * (100 if tname[0] == "I" else 1)).astype(
                    PLAIN[tname]).tobytes()
            elif tname == "BF16":
                data = (values(rng, count, kind).view(np.uint32) >> 16).astype(np.uint16).tobytes()
            else:
                data = G.quantize(t, values(rng, count, kind), ne[0])
            tensors.append(("blk.%d.%s" % (k, tname.lower()), t, ne, data))
    G.write(path(name), tensors, meta)
    return tensors


def expected(t, ne, data):
    """What ggml says the tensor's values are, as float32 (a plain type's
    values as they are)."""
    count = int(np.prod(ne))
    name = [k for k, v in G.names.items() if v == t][0]
    if name in PLAIN:
        return np.frombuffer(data, PLAIN[name])
    if name == "BF16":
        return (np.frombuffer(data, np.uint16).astype(np.uint32) << 16).view(np.float32)
    return G.to_float(t, data, count)


# ---- the tests --------------------------------------------------------------

def test_decode_every_type_bit_for_bit():
    """Every decoded type, ggml's quantization of several kinds of values
    and several shapes, whole-file into safetensors: each tensor's bytes are
    ggml's to_float's, its shape ne reversed."""
    rng = np.random.default_rng(7)
    shapes = [[256], [512, 3], [256, 2, 3], [768, 1, 1, 2]]
    for kind in ("normal", "wide", "zeros", "tiny"):
        tensors = model("dec_%s.gguf" % kind, DECODED, shapes, rng, kind)
        out = path("dec_%s.safetensors" % kind)
        tl("convert", path("dec_%s.gguf" % kind), "-o", out)
        h, data = read_safetensors(out)
        for name, t, ne, raw in tensors:
            e = h[name]
            assert e["dtype"] == "F32", (name, e)
            assert e["shape"] == list(reversed(ne)), (name, e["shape"], ne)
            got = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], np.float32)
            assert same_bits(got, expected(t, ne, raw)), (kind, name)


def test_decode_random_blocks():
    """Blocks of random bytes (every scale's bit pattern: subnormal, NaN,
    infinite), decoded as ggml decodes them, through every kernel the CPU
    has (TENSORLAYOUT_SIMD)."""
    rng = np.random.default_rng(11)
    tensors = model("raw.gguf", DECODED, [[256 * 33, 3]], rng, raw=True)
    isas = tl("--version").stdout.decode()
    isas = isas.split("supported: ")[-1].strip(" )\n").split()
    for isa in isas or ["scalar"]:
        out = path("raw_%s.safetensors" % isa)
        env = dict(os.environ, TENSORLAYOUT_SIMD=isa)
        p = subprocess.run([TL, "convert", path("raw.gguf"), "-o", out], env=env,
                           capture_output=True)
        assert p.returncode == 0, p.stderr
        h, data = read_safetensors(out)
        for name, t, ne, raw in tensors:
            e = h[name]
            got = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], np.float32)
            assert same_bits(got, expected(t, ne, raw)), (isa, name)


def test_decode_in_pieces():
    """Tensors of more stored bytes than the tool reads at once (512 KiB,
    whole blocks of each type: Q6_K's 210-byte and IQ4_NL's 18-byte blocks
    do not divide it), decoded piece after piece, bit for bit as ggml's
    to_float, on one thread and on two."""
    rng = np.random.default_rng(19)
    tensors = model("pieces.gguf", ["Q4_K", "Q6_K", "Q8_0", "IQ4_NL"], [[256 * 16, 400]], rng)
    for name, t, ne, raw in tensors:
        assert len(raw) > 512 * 1024, (name, len(raw))
    for threads in ("1", "2"):
        out = path("pieces_%s.safetensors" % threads)
        tl("convert", path("pieces.gguf"), "-o", out, "--threads", threads)
        h, data = read_safetensors(out)
        for name, t, ne, raw in tensors:
            e = h[name]
            got = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], np.float32)
            assert same_bits(got, expected(t, ne, raw)), (threads, name)


def test_plain_types_kept():
    """F32, F16, BF16, F64 and the integers are carried as they are, their
    types kept; into .npz numpy loads them with ggml's values and shapes."""
    rng = np.random.default_rng(3)
    tensors = model("plain.gguf", list(PLAIN) + ["BF16"], [[64, 5]], rng)
    tl("convert", path("plain.gguf"), "-o", path("plain.safetensors"))
    h, data = read_safetensors(path("plain.safetensors"))
    spell = {"F32": "F32", "F16": "F16", "F64": "F64", "I8": "I8", "I16": "I16", "I32": "I32",
             "I64": "I64", "BF16": "BF16"}
    for name, t, ne, raw in tensors:
        e = h[name]
        assert e["dtype"] == spell[name.split(".")[-1].upper()], e
        assert data[e["data_offsets"][0]:e["data_offsets"][1]] == raw
    # numpy has no bfloat16: the rest into an .npz, BF16 as FLOAT32
    tl("convert", path("plain.gguf"), "-o", path("plain.npz"), "--to-type", "float32",
       "--select", "*bf16")
    z = np.load(path("plain.npz"))
    for name, t, ne, raw in tensors:
        assert z[name].shape == tuple(reversed(ne)), (name, z[name].shape)
        assert same_bits(z[name].astype(np.float32), expected(t, ne, raw).astype(np.float32))


def test_to_type_half_and_bfloat16():
    """--to-type FLOAT16 and BFLOAT16: the decoded values rounded to
    nearest even, as numpy rounds to float16 and as the bits of bfloat16
    are rounded."""
    rng = np.random.default_rng(5)
    tensors = model("half.gguf", ["Q4_K", "Q8_0", "MXFP4"], [[256, 4]], rng)
    tl("convert", path("half.gguf"), "-o", path("half16.npz"), "--to-type", "float16")
    z = np.load(path("half16.npz"))
    for name, t, ne, raw in tensors:
        assert z[name].dtype == np.float16
        exp = expected(t, ne, raw).astype(np.float16)
        assert np.array_equal(z[name].reshape(-1).view(np.uint16), exp.view(np.uint16)), name
    tl("convert", path("half.gguf"), "-o", path("halfbf.safetensors"), "--to-type", "bfloat16")
    h, data = read_safetensors(path("halfbf.safetensors"))
    for name, t, ne, raw in tensors:
        e = h[name]
        assert e["dtype"] == "BF16"
        u = expected(t, ne, raw).view(np.uint32).astype(np.uint64)
        exp = ((u + 0x7fff + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        got = np.frombuffer(data[e["data_offsets"][0]:e["data_offsets"][1]], np.uint16)
        assert np.array_equal(got, exp), name


def test_metadata_into_safetensors():
    """Every value type's key as gguf.KEY in __metadata__, its value JSON
    text equal to what ggml reads; an array of more than 1024 items left
    out with a note naming it."""
    rng = np.random.default_rng(9)
    meta = [("general.architecture", ggml.STR, "llama"), ("general.name", ggml.STR, 'a "q" \\ é'),
            ("u8", ggml.U8, 200), ("i8", ggml.I8, -100), ("u16", ggml.U16, 60000),
            ("i16", ggml.I16, -30000), ("u32", ggml.U32, 4000000000),
            ("i32", ggml.I32, -2000000000), ("f32", ggml.F32, 0.1), ("bool", ggml.BOOL, True),
            ("u64", ggml.U64, 2 ** 63 + 5), ("i64", ggml.I64, -2 ** 62), ("f64", ggml.F64, 1e-300),
            ("arr.i32", ("arr", ggml.I32), [1, -2, 3]), ("arr.f32", ("arr", ggml.F32), [0.5, 1.5]),
            ("arr.str", ("arr", ggml.STR), ["a", "b\nc", ""]),
            ("tokenizer.ggml.tokens", ("arr", ggml.STR), ["t%d" % i for i in range(2000)])]
    model("meta.gguf", ["Q8_0"], [[32]], rng, meta=meta)
    p = tl("convert", path("meta.gguf"), "-o", path("meta.safetensors"))
    assert b"tokenizer.ggml.tokens" in p.stderr and b"2000 items" in p.stderr, p.stderr
    h, _ = read_safetensors(path("meta.safetensors"))
    md = h["__metadata__"]
    truth = G.read(path("meta.gguf"))["meta"]
    for key, (kind, value) in truth.items():
        if key == "tokenizer.ggml.tokens":
            assert "gguf." + key not in md
            continue
        got = json.loads(md["gguf." + key])
        if kind == ggml.F32:
            assert np.float32(got) == np.float32(value), (key, got, value)
        elif isinstance(kind, tuple) and kind[1] == ggml.F32:
            assert [np.float32(x) for x in got] == [np.float32(x) for x in value], key
        else:
            assert got == value, (key, got, value)


def test_list_json_against_ggml():
    """list --json: each tensor's name, ggml type, logical sizes, offset and
    bytes as ggml reads them; the metadata with types; version, alignment
    and the data section's offset."""
    rng = np.random.default_rng(13)
    model("list.gguf", ["Q4_K", "F16", "IQ4_NL"], [[256, 3], [512]], rng,
          meta=[("toks", ("arr", ggml.STR), ["x"] * 1500)])
    doc = json.loads(tl("list", path("list.gguf"), "--json").stdout)
    truth = G.read(path("list.gguf"))
    assert doc["format"] == "gguf" and doc["version"] == truth["version"]
    assert doc["alignment"] == truth["alignment"] == 32
    assert doc["dataOffset"] == truth["data"]
    by = {t["name"]: t for t in doc["tensors"]}
    tensors = model("list_again.gguf", ["Q4_K", "F16", "IQ4_NL"], [[256, 3], [512]],
                    np.random.default_rng(13))
    shapes = {n: ne for n, _, ne, _ in tensors}
    for name, t, off, size in truth["tensors"]:
        e = by[name]
        assert e["ggmlType"] == [k for k, v in G.names.items() if v == t][0]
        assert e["fileByte"] == truth["data"] + off and e["bytes"] == size, (e, off, size)
        assert e["sizes"] == list(reversed(shapes[name]))
        blck, bsize = G.block(t)
        assert e["blockElements"] == blck and e["blockBytes"] == bsize
    toks = doc["metadata"]["toks"]
    assert toks["type"] == "arr[str]" and toks["items"] == 1500 and toks["cut"] is True


def test_alignment_and_version_2():
    """A file of general.alignment 64, and one of GGUF version 2 (made by
    hostile.py's byte writer, which ggml reads too): offsets and data
    section as ggml reads them."""
    f = struct.pack("<8f", *range(8))
    for name, data in [
            ("align64.gguf", hostile.gguf([hostile.kv_u32("general.alignment", 64)],
                                          [hostile.tensor("a", [8], 0, 0),
                                           hostile.tensor("b", [8], 0, 64)],
                                          f + bytes(32) + f, align=64)),
            ("v2.gguf", hostile.gguf([hostile.kv_str("general.name", "two")],
                                     [hostile.tensor("a", [8], 0, 0)], f, version=2))]:
        open(path(name), "wb").write(data)
        truth = G.read(path(name))
        assert truth is not None, name
        doc = json.loads(tl("list", path(name), "--json").stdout)
        assert doc["version"] == truth["version"] and doc["alignment"] == truth["alignment"]
        assert doc["dataOffset"] == truth["data"]
        for (tname, t, off, size), e in zip(truth["tensors"], doc["tensors"]):
            assert e["name"] == tname and e["fileByte"] == truth["data"] + off
        got = json.loads(tl("dump", path(name) + ":a", "--json").stdout)
        vals = got["values"] if isinstance(got, dict) else got
        assert np.array_equal(np.array(vals, np.float32).reshape(-1), np.arange(8))


def test_dump_and_compare():
    """dump FILE:NAME prints ggml's values; compare of a GGUF tensor with
    the safetensors it was converted into finds them equal, and against
    the float values it was quantized from, within a tolerance."""
    rng = np.random.default_rng(17)
    x = rng.standard_normal(64).astype(np.float32)
    t = G.type_id("Q8_0")
    data = G.quantize(t, x, 64)
    G.write(path("dump.gguf"), [("w", t, [64], data), ("x", 0, [64], x.tobytes())])
    out = tl("dump", path("dump.gguf") + ":w", "--json").stdout
    doc = json.loads(out)
    vals = doc["values"] if isinstance(doc, dict) else doc
    got = np.array(vals, dtype=np.float64).reshape(-1)
    assert np.array_equal(got.astype(np.float32), G.to_float(t, data, 64)), got[:4]
    tl("convert", path("dump.gguf"), "-o", path("dump.safetensors"))
    tl("compare", path("dump.gguf") + ":w", path("dump.safetensors") + ":w")
    p = tl("compare", path("dump.gguf") + ":w", path("dump.gguf") + ":x", check=False)
    assert p.returncode == 1, p
    tl("compare", path("dump.gguf") + ":w", path("dump.gguf") + ":x", "--atol", "0.05")


def test_dump_and_compare_stream_without_a_temporary_file():
    """SPEC 22: dump and compare read a GGUF tensor's blocks a window at a
    time, never decoded whole into a temporary file (TMPDIR pointing
    nowhere): a Q4_K tensor of 600 rows (600 KB decoded, several windows)
    dumps ggml's values; compared with numpy's .npy of them it is equal,
    with a copy where three values changed, exactly those three are named,
    in order, the largest difference and its index numpy's."""
    rng = np.random.default_rng(41)
    t = G.type_id("Q4_K")
    x = rng.standard_normal(256 * 600).astype(np.float32)
    data = G.quantize(t, x, 256)
    G.write(path("big.gguf"), [("w", t, [256, 600], data)])
    want = G.to_float(t, data, 256 * 600).reshape(600, 256)
    env = dict(os.environ, TMPDIR=path("nowhere"))
    run = lambda *a: subprocess.run([TL] + [str(v) for v in a], capture_output=True, env=env)
    p = run("dump", path("big.gguf") + ":w", "--json")
    assert p.returncode == 0, p.stderr
    got = np.array(json.loads(p.stdout)["values"], np.float64).astype(np.float32)
    assert np.array_equal(got, want)
    p = run("dump", path("big.gguf") + ":w", "--stats", "--json")
    st = json.loads(p.stdout)
    assert st["count"] == want.size and st["min"] == float(want.min()) and \
        st["max"] == float(want.max()), st
    np.save(path("big.npy"), want)
    p = run("compare", path("big.gguf") + ":w", path("big.npy"))
    assert p.returncode == 0, (p.stdout, p.stderr)
    bad = want.copy()
    for (i, j), d in (((1, 5), 0.5), ((300, 7), -2.0), ((599, 255), 1.0)):
        bad[i, j] += d
    np.save(path("bad.npy"), bad)
    p = run("compare", path("big.gguf") + ":w", path("bad.npy"), "--json")
    assert p.returncode == 1, p.stderr
    doc = json.loads(p.stdout)
    assert doc["mismatches"] == 3 and doc["elementCount"] == want.size, doc
    assert [m["index"] for m in doc["first"]] == [[1, 5], [300, 7], [599, 255]], doc["first"]
    diff = np.abs(want.astype(np.float64) - bad.astype(np.float64))
    assert doc["maxAbsDiffIndex"] == list(np.unravel_index(diff.argmax(), diff.shape)), doc
    # whole files: the GGUF against the safetensors convert wrote of it
    assert run("convert", path("big.gguf"), "-o", path("big.safetensors")).returncode == 0
    p = run("compare", path("big.gguf"), path("big.safetensors"))
    assert p.returncode == 0 and b"equal (153600 elements)" in p.stdout, (p.stdout, p.stderr)


def test_offset_names_each_elements_bits():
    """offset FILE:NAME INDEX names where an element's bits lie: flipping
    them in the file changes that element, and no other of its block, as
    ggml decodes it; flipping a byte of a scale it names changes it (its
    quantized value not 0).  offset --byte names that element among the
    ones the byte holds."""
    rng = np.random.default_rng(37)
    tensors = model("where.gguf", DECODED, [[512, 2]], rng)
    raw = bytearray(open(path("where.gguf"), "rb").read())
    for name, t, ne, data in tensors:
        count = int(np.prod(ne))
        blck, bsize = G.block(t)
        base = expected(t, ne, data)
        for j in rng.integers(0, count, 6):
            idx = "%d,%d" % (j // ne[0], j % ne[0])
            doc = json.loads(tl("offset", "--json", path("where.gguf") + ":" + name, idx).stdout)[0]
            assert doc["element"] == j and doc["blockBytes"] == bsize, doc
            truth = G.read(path("where.gguf"))
            off = [o for n, _, o, _ in truth["tensors"] if n == name][0] + truth["data"]
            assert doc["blockBegin"] == off + (int(j) // blck) * bsize, doc
            block = int(j) // blck

            def changes(mod):
                new = G.to_float(t, bytes(mod[off:off + len(data)]), count)
                return np.nonzero(new.view(np.uint32) != base.view(np.uint32))[0]

            for p in doc["pieces"]:
                if p["scale"]:
                    continue
                if p["bits"]:           # the element's bits flipped: it alone changes
                    mod = bytearray(raw)
                    mod[p["byte"]] ^= ((1 << p["bits"]) - 1) << p["bit"]
                    assert list(changes(mod)) == [j], (name, idx, p, list(changes(mod))[:8])
                    continue
                # a base-3 digit (TQ1_0): some value of the byte changes the
                # element, and none changes an element of another block
                hit = False
                for v in range(256):
                    mod = bytearray(raw)
                    mod[p["byte"]] = v
                    ch = changes(mod)
                    assert all(block * blck <= c < (block + 1) * blck for c in ch), (name, v)
                    hit = hit or j in ch
                assert hit, (name, idx, p)
            # --byte: the element's own byte names it
            own = [p for p in doc["pieces"] if not p["scale"]][0]
            r = json.loads(tl("offset", "--json", path("where.gguf") + ":" + name, "--byte",
                              own["byte"]).stdout)
            assert any(a <= j <= b for a, b in r["elements"]) and r["field"] == own["field"], r


def test_undecoded_types_listed_and_refused():
    """A type the tool does not decode (IQ2_XS) is listed by name and bytes;
    converting it into safetensors is refused by name (exit 4)."""
    rng = np.random.default_rng(19)
    t = G.type_id("IQ3_S")
    blck, size = G.block(t)
    data = rng.integers(0, 256, 2 * size, dtype=np.uint8).tobytes()
    G.write(path("iq.gguf"), [("q", t, [2 * blck], data)])
    doc = json.loads(tl("list", path("iq.gguf"), "--json").stdout)
    assert doc["tensors"][0]["ggmlType"] == "IQ3_S" and not doc["tensors"][0]["decodable"]
    p = tl("convert", path("iq.gguf"), "-o", path("iq.safetensors"), check=False)
    assert p.returncode == 4 and b"IQ3_S" in p.stderr, p
    assert not os.path.exists(path("iq.safetensors"))
    p = tl("dump", path("iq.gguf") + ":q", check=False)
    assert p.returncode == 4 and b"IQ3_S" in p.stderr, p


def write_safetensors(p, tensors):
    """A safetensors file of float32 arrays, written here from the format's
    published layout."""
    header, data = {}, b""
    for name, a in tensors:
        b = np.ascontiguousarray(a).tobytes()
        header[name] = {"dtype": {"float32": "F32", "float16": "F16"}[str(a.dtype)],
                        "shape": list(a.shape), "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    open(p, "wb").write(struct.pack("<Q", len(h)) + h + data)


def test_write_gguf_quantized_as_ggml_does():
    """--to-type Q8_0 and Q4_0 into a GGUF OUT, from safetensors and from an
    .npz numpy wrote: ggml reads the file, and each tensor's blocks are the
    bytes ggml's own quantizer makes of the same values; ne is the numpy
    shape reversed."""
    rng = np.random.default_rng(29)
    arrays = [("w.a", (rng.standard_normal((5, 64)) * 3).astype(np.float32)),
              ("w.b", rng.uniform(-1e-3, 1e-3, (2, 3, 96)).astype(np.float32)),
              ("w.z", np.zeros((1, 32), np.float32)),
              ("w.wide", (rng.standard_normal((4, 32)) * np.exp(rng.uniform(-30, 30, (4, 32))))
               .astype(np.float32))]
    write_safetensors(path("q.safetensors"), arrays)
    with np.errstate(over="ignore"):            # the wide values' F16 is infinite
        np.savez(path("q.npz"), **{n: a.astype(np.float16) for n, a in arrays})
    for src in ("q.safetensors", "q.npz"):
        for qname in ("Q8_0", "Q4_0"):
            out = path("q_%s_%s.gguf" % (src, qname))
            tl("convert", path(src), "--to-type", qname, "-o", out)
            truth = G.read(out)
            assert truth is not None, out
            raw = open(out, "rb").read()
            t = G.type_id(qname)
            by = {n: (ty, off, size) for n, ty, off, size in truth["tensors"]}
            for name, a in arrays:
                ty, off, size = by[name]
                assert ty == t, (name, ty)
                with np.errstate(over="ignore"):
                    vals = a.astype(np.float16).astype(np.float32) if src == "q.npz" else a
                want = G.quantize(t, vals.reshape(-1), a.shape[-1])
                got = raw[truth["data"] + off:truth["data"] + off + size]
                assert got == want, (src, qname, name)
            doc = json.loads(tl("list", out, "--json").stdout)
            shapes = {e["name"]: e["sizes"] for e in doc["tensors"]}
            assert all(shapes[n] == list(a.shape) for n, a in arrays), shapes


def test_write_gguf_from_gguf_keeps_metadata():
    """A GGUF into a GGUF OUT (--to-type F16): ggml reads the same keys,
    types and values, the same names and shapes; F16 of ggml's decoded
    values; with --select, the other tensors carried as they are."""
    rng = np.random.default_rng(31)
    meta = [("general.architecture", ggml.STR, "llama"), ("llama.block_count", ggml.U32, 2),
            ("f", ggml.F64, 0.25), ("toks", ("arr", ggml.STR), ["a%d" % i for i in range(3000)]),
            ("ids", ("arr", ggml.I32), list(range(50)))]
    tensors = model("keep.gguf", ["Q4_K", "Q8_0", "F32", "IQ4_NL"], [[256, 2]], rng, meta=meta)
    tl("convert", path("keep.gguf"), "--to-type", "F16", "-o", path("keep16.gguf"))
    a, b = G.read(path("keep.gguf")), G.read(path("keep16.gguf"))
    assert b is not None and a["meta"] == b["meta"], (a["meta"].keys(), b and b["meta"].keys())
    raw = open(path("keep16.gguf"), "rb").read()
    by = {n: (ty, off, size) for n, ty, off, size in b["tensors"]}
    for name, t, ne, data in tensors:
        ty, off, size = by[name]
        assert ty == G.type_id("F16"), (name, ty)
        got = np.frombuffer(raw[b["data"] + off:b["data"] + off + size], np.float16)
        assert np.array_equal(got.view(np.uint16),
                              expected(t, ne, data).astype(np.float16).view(np.uint16)), name
    tl("convert", path("keep.gguf"), "--to-type", "Q8_0", "--select", "*f32", "-o",
       path("keep8.gguf"))
    c = G.read(path("keep8.gguf"))
    raw_in, raw_out = open(path("keep.gguf"), "rb").read(), open(path("keep8.gguf"), "rb").read()
    src = {n: (ty, off, size) for n, ty, off, size in a["tensors"]}
    for name, ty, off, size in c["tensors"]:
        if name.endswith("f32"):
            assert ty == G.type_id("Q8_0")
            continue
        sty, soff, ssize = src[name]
        assert ty == sty and raw_out[c["data"] + off:c["data"] + off + size] == \
            raw_in[a["data"] + soff:a["data"] + soff + ssize], name


def test_requantize_as_llama_cpp_does():
    """SPEC 23: --to-type Q8_0 of a GGUF holding Q4_K and a 1-D F16 norm is
    refused (it would requantize); with --allow-requantize ggml reads the
    file: the 2-D Q4_K tensor is Q8_0 of ggml's decoded values, bit for
    bit, and the 1-D norm is F32 (never quantized), its values ggml's."""
    rng = np.random.default_rng(37)
    tensors = model("rq.gguf", ["Q4_K"], [[256, 2]], rng)
    norm = values(rng, 256, "normal").astype(np.float16)
    G.write(path("rq.gguf"), tensors + [("norm.weight", G.type_id("F16"), [256],
                                          norm.tobytes())])
    p = tl("convert", path("rq.gguf"), "--to-type", "Q8_0", "-o", path("rq8.gguf"), check=False)
    assert p.returncode == 4 and b"--allow-requantize" in p.stderr, p.stderr
    assert not os.path.exists(path("rq8.gguf"))
    tl("convert", path("rq.gguf"), "--to-type", "Q8_0", "--allow-requantize", "-o",
       path("rq8.gguf"))
    out = G.read(path("rq8.gguf"))
    assert out is not None
    raw = open(path("rq8.gguf"), "rb").read()
    by = {n: (ty, off, size) for n, ty, off, size in out["tensors"]}
    name, t, ne, data = tensors[0]
    ty, off, size = by[name]
    assert ty == G.type_id("Q8_0"), ty
    want = G.quantize(ty, expected(t, ne, data), ne[0])
    assert raw[out["data"] + off:out["data"] + off + size] == want
    ty, off, size = by["norm.weight"]
    assert ty == G.type_id("F32"), ty
    got = np.frombuffer(raw[out["data"] + off:out["data"] + off + size], np.float32)
    assert np.array_equal(got, norm.astype(np.float32))


def test_gpt_oss_mxfp4_pairs_as_ggml_decodes_them():
    """gpt-oss's MXFP4 in safetensors: W_blocks UINT8 [E, NG, 16] (two FP4
    values a byte, low nibble first) beside W_scales UINT8 [E, NG]; the tool
    decodes W [E, G * 32] with --dequantize, and each value is what ggml's
    own MXFP4 decoding gives the same block (its nibbles reordered into
    ggml's block: e, then 16 bytes whose low nibbles are values 0..15)."""
    rng = np.random.default_rng(41)
    # every E8M0 exponent once: 0 and 1 give subnormal scales, 255 turns
    # the larger values infinite, in ggml's decoding as in ours
    E, NG = 4, 67
    blocks = rng.integers(0, 256, (E, NG, 16), dtype=np.uint8)
    scales = np.concatenate([rng.permutation(256), rng.integers(0, 256, E * NG - 256)])
    scales = scales.astype(np.uint8).reshape(E, NG)
    write_safetensors_raw(path("oss.safetensors"),
                          [("mlp.experts.down_proj_blocks", "U8", [E, NG, 16], blocks.tobytes()),
                           ("mlp.experts.down_proj_scales", "U8", [E, NG], scales.tobytes())])
    tl("convert", path("oss.safetensors"), "--dequantize", "-o", path("oss.npz"))
    z = np.load(path("oss.npz"))
    assert z.files == ["mlp.experts.down_proj"], z.files
    got = z["mlp.experts.down_proj"]
    assert got.shape == (E, NG * 32), got.shape
    # the same blocks as ggml's block_mxfp4
    vals = np.zeros((E * NG, 32), np.uint8)
    flat = blocks.reshape(E * NG, 16)
    vals[:, 0::2] = flat & 15
    vals[:, 1::2] = flat >> 4
    ggml_blocks = np.zeros((E * NG, 17), np.uint8)
    ggml_blocks[:, 0] = scales.reshape(-1)
    ggml_blocks[:, 1:] = vals[:, :16] | (vals[:, 16:] << 4)
    want = G.to_float(G.type_id("MXFP4"), ggml_blocks.tobytes(), E * NG * 32)
    # equal values; the bits differ only where FP4's -0 (code 8) is -0 here
    # and +0 in ggml's table, which holds no -0
    assert np.array_equal(got.reshape(-1), want)
    assert same_bits(np.where(got.reshape(-1) == 0, 0, got.reshape(-1)), want)
    # into BFLOAT16 (each value exact there: two significant bits at most),
    # ggml's FLOAT32 values' top halves, -0 again the only difference
    tl("convert", path("oss.safetensors"), "--to-type", "BFLOAT16", "-o",
       path("oss_bf.safetensors"))
    raw = open(path("oss_bf.safetensors"), "rb").read()
    n = int.from_bytes(raw[:8], "little")
    a, e = json.loads(raw[8:8 + n])["mlp.experts.down_proj"]["data_offsets"]
    bf = np.frombuffer(raw[8 + n + a:8 + n + e], np.uint16)
    assert np.array_equal(np.where(bf == 0x8000, 0, bf), (want.view(np.uint32) >> 16).astype(np.uint16))
    doc = json.loads(tl("list", "--json", path("oss.safetensors")).stdout)
    assert len(doc["tensors"]) == 2


def write_safetensors_raw(p, tensors):
    """A safetensors file of (name, dtype, shape, bytes), by the tests'
    writer of the format (tests/tensorfiles)."""
    open(p, "wb").write(tensorfiles.safetensors(tensors))

def test_hostile_files():
    """Each hostile file of the generator (hostile.py): one line on stderr,
    exit 4, for list, dump and convert alike."""
    base = path("host.gguf")
    rng = np.random.default_rng(23)
    t = G.type_id("Q4_0")
    G.write(base, [("a", t, [64, 2], G.quantize(t, values(rng, 128, "normal"), 64)),
                   ("b", 0, [8], np.arange(8, dtype=np.float32).tobytes())],
            [("general.architecture", ggml.STR, "x"), ("n", ("arr", ggml.U32), [1, 2])])
    cases = hostile.cases(open(base, "rb").read())
    assert len(cases) >= 12
    for name, data, says in cases:
        p = path("bad_" + name + ".gguf")
        open(p, "wb").write(data)
        for args in (["list", p], ["convert", p, "-o", path("bad.safetensors")]):
            r = tl(*args, check=False)
            lines = r.stderr.decode().strip().split("\n")
            assert r.returncode == 4, (name, args, r.returncode, r.stderr)
            assert len(lines) == 1 and says in lines[0], (name, lines, says)
        assert not os.path.exists(path("bad.safetensors"))


def main():
    global G
    G = ggml.GGML()
    return tensorfiles.run_tests(globals(), "gguf")


if __name__ == "__main__":
    sys.exit(main())
