#!/usr/bin/env python3
"""Interoperability with the real numpy: numpy writes .npy and .npz files of every
supported type, C and Fortran order, 0-d to 8-d, versions 1.0 to 3.0, and
the tool must read them to the same values; numpy must np.load every .npy the
tool writes and find what its own transpose gives; safetensors files built
byte by byte (no safetensors library is packaged here) read to the values
numpy put in them, names with '.', '/' and ':' included; compare across
layouts finds what numpy's isclose finds; np.savez and np.savez_compressed
archives read, and the .npz files the tool writes np.load-ed; a sharded
model built from the format's description converted whole and read back.

Usage: TL=/path/to/tensorlayout python3 tests/interop/test_numpy.py"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tensorfiles"))
import tensorfiles  # noqa: E402

TL = os.environ["TL"]
rng = np.random.default_rng(20261123)
passed = 0
failed = 0

TYPES = {"<f2": "FLOAT16", "<f4": "FLOAT32", "<f8": "FLOAT64", "|u1": "UINT8", "<u2": "UINT16",
         "<u4": "UINT32", "<u8": "UINT64", "|i1": "INT8", "<i2": "INT16", "<i4": "INT32",
         "<i8": "INT64"}


def ohwi_bf16_ok(got, st, a):
    """Whether tensor a (safetensors type st) came out of a whole-file
    --to OHWI --to-type BFLOAT16 as got = (type, array) says: a floating one
    transposed if 4-D and rounded to nearest even, any other as it was."""
    dt, b = got
    if st in ("F32", "F16"):
        x = np.transpose(a, (0, 2, 3, 1)) if a.ndim == 4 else a
        want = np.frombuffer(tensorfiles.bf16(x.astype(np.float32).ravel().tolist()), "<u2")
        return dt == "BF16" and b.shape == x.shape and np.array_equal(b.ravel(), want)
    return dt == st and b.shape == a.shape and b.tobytes() == a.tobytes()


def tl(*args, stdin=None):
    return subprocess.run([TL, *args], capture_output=True, input=stdin)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def values(dt, shape):
    """Random values of a type, edges included, never NaN (compared by bytes)."""
    n = int(np.prod(shape)) if shape else 1
    d = np.dtype(dt)
    if d.kind == "f":
        v = rng.standard_normal(n) * 1000
        edges = [0.0, -0.0, np.inf, -np.inf, float(np.finfo(d).max), float(np.finfo(d).tiny),
                 float(np.finfo(d).smallest_subnormal)]
        for i, e in enumerate(edges[:n]):
            v[i] = e
        return v.astype(d).reshape(shape)
    info = np.iinfo(d)
    v = rng.integers(info.min, info.max, n, dtype=d, endpoint=True)
    edges = [info.min, info.max, 0]
    for i, e in enumerate(edges[:n]):
        v[i] = e
    return v.reshape(shape)


def header_length(path):
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        np.lib.format._read_array_header(f, version)
        return f.tell()


ST_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "U8": "|u1", "U16": "<u2", "U32": "<u4",
             "U64": "<u8", "I8": "|i1", "I16": "<i2", "I32": "<i4", "I64": "<i8", "BF16": "<u2",
             "BOOL": "|b1", "C64": "<c8"}


def read_safetensors(path):
    """A safetensors file read from the format's description, not from our
    own parser: {name: (dtype, numpy array)}, BF16 as its raw 16-bit words;
    the header padded to 8 bytes, the tensors contiguous and in bounds."""
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    out, spans = {}, []
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        spans.append((b, e))
        a = np.frombuffer(body[b:e], dtype=ST_DTYPES[t["dtype"]]).reshape(t["shape"])
        out[name] = (t["dtype"], a)
    spans.sort()
    contiguous = all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
    return out if (n % 8 == 0 and contiguous and spans[-1][1] == len(body)) else None


def dumped_values(text):
    """dump --json's values as exact text: "-0" keeps its sign, "Infinity" is a string."""
    return json.loads(text, parse_int=str, parse_float=str)["values"]


def same_values(a, dumped):
    """dump --json's values (shortest decimals of the type) read back to a."""
    flat = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        else:
            flat.append(v)
    walk(dumped)
    if a.dtype.kind == "f":
        back = np.array([float(x) for x in flat], dtype=np.float64).astype(a.dtype)
    else:
        back = np.array([int(x) for x in flat], dtype=a.dtype)
    return back.tobytes() == np.ascontiguousarray(a).tobytes()


with tempfile.TemporaryDirectory() as tmp:
    # 1. numpy writes, the tool reads: every type, 0-d to 8-d, C and Fortran
    for k, (descr, name) in enumerate(TYPES.items()):
        for ndim in range(0, 9):
            shape = tuple(int(x) for x in rng.integers(1, 4, ndim))
            a = values(descr, shape)
            for order in ("C", "F"):
                path = os.path.join(tmp, "a%d_%d%s.npy" % (k, ndim, order))
                np.save(path, np.asarray(a, order=order))
                what = "%s %s %s" % (descr, shape, order)
                r = tl("inspect", "--json", path)
                info = json.loads(r.stdout)
                check(r.returncode in (0, 1) and info["dataType"] == name and
                      info["sizes"] == (list(shape) or [1]) and
                      info["byteOffset"] == 0 and info["fileOffset"] == header_length(path) and info["data"]["covers"],
                      "inspect " + what)
                r = tl("dump", "--json", path)
                check(r.returncode == 0 and same_values(a, dumped_values(r.stdout)),
                      "dump " + what)
    # versions 2.0 and 3.0, which np.save writes only for huge headers
    for version in ((2, 0), (3, 0)):
        a = values("<f4", (2, 3))
        path = os.path.join(tmp, "v%d.npy" % version[0])
        with open(path, "wb") as f:
            np.lib.format.write_array(f, a, version=version)
        r = tl("dump", "--json", path)
        check(r.returncode == 0 and same_values(a, dumped_values(r.stdout)),
              "version %d.%d" % version)

    # 2. the tool writes, numpy reads: random layouts of random tensors
    for k in range(60):
        descr = list(TYPES)[k % len(TYPES)]
        ndim = 1 + k % 6
        shape = tuple(int(x) for x in rng.integers(1, 5, ndim))
        a = values(descr, shape)
        src = os.path.join(tmp, "s%d.npy" % k)
        np.save(src, np.asarray(a, order="F" if k % 3 == 0 else "C"))
        perm = [int(x) for x in rng.permutation(ndim)]
        out = os.path.join(tmp, "o%d.npy" % k)
        r = tl("convert", src, "--to", ",".join(map(str, perm)), "-o", out)
        ok = r.returncode == 0
        if ok:
            b = np.load(out)
            ok = b.dtype == a.dtype and b.shape == tuple(shape[p] for p in perm) and \
                b.tobytes() == np.ascontiguousarray(np.transpose(a, perm)).tobytes()
        check(ok, "convert %s %s --to %s: %s" % (descr, shape, perm, r.stderr.decode().strip()))
        # read back with --axes: the logical tensor is a again
        if ok:
            axes = ",".join(map(str, perm))
            r = tl("dump", "--json", out, "--axes", axes)
            check(r.returncode == 0 and same_values(a, dumped_values(r.stdout)),
                  "dump --axes " + axes)
    # to standard output, and from a JSON description and raw bytes
    a = values("<f4", (1, 3, 4, 5))
    raw = os.path.join(tmp, "x.bin")
    a.tofile(raw)
    r = tl("convert", '{"dataType": "FLOAT32", "sizes": [1, 3, 4, 5]}', raw, "--to", "NHWC",
           "-o", "-", "--format", "npy")
    b = np.load(io.BytesIO(r.stdout)) if r.returncode == 0 else None
    check(b is not None and np.array_equal(b, a.transpose(0, 2, 3, 1)), "convert -o - --format npy")

    # weight letters: PyTorch's OIHW conv weights into MLX's OHWI
    # (transpose(0, 2, 3, 1), as MLX's conversion scripts do) and
    # TensorFlow's HWIO; OIW into OWI; and --to-type alone keeps the order
    w = values("<f4", (8, 3, 5, 4))
    wpath = os.path.join(tmp, "oihw.npy")
    np.save(wpath, w)
    for label, perm in (("OHWI", (0, 2, 3, 1)), ("HWIO", (2, 3, 1, 0))):
        out = os.path.join(tmp, label + ".npy")
        r = tl("convert", wpath, "--to", label, "-o", out)
        check(r.returncode == 0 and np.array_equal(np.load(out), np.transpose(w, perm)),
              "convert OIHW --to " + label)
    w3 = values("<f2", (4, 3, 7))
    np.save(wpath, w3)
    out = os.path.join(tmp, "owi.npy")
    r = tl("convert", wpath, "--to", "OWI", "-o", out)
    check(r.returncode == 0 and np.array_equal(np.load(out), np.transpose(w3, (0, 2, 1))),
          "convert OIW --to OWI")
    r = tl("convert", wpath, "--to-type", "FLOAT32", "-o", out)
    check(r.returncode == 0 and np.array_equal(np.load(out), w3.astype(np.float32)),
          "convert --to-type alone")

    # numpy's logical shape kept (SPEC 19): a Fortran-order array (np.save of
    # W.T writes one) converted with --to-type alone comes back from .npy as
    # a Fortran-order .npy of the same shape, and into safetensors, which
    # has no order flag, in C order with that shape; whole .npz files alike;
    # --to chooses a memory order, whose sizes are then the shape
    for shape in ((4, 5), (2, 3, 4), (3, 1, 2, 5)):
        fa = np.asfortranarray(values("<f4", shape).astype("<f8"))
        fpath = os.path.join(tmp, "fortran.npy")
        np.save(fpath, fa)
        out = os.path.join(tmp, "f32.npy")
        r = tl("convert", fpath, "--to-type", "FLOAT32", "-o", out)
        got = np.load(out) if r.returncode == 0 else None
        check(got is not None and got.shape == shape and got.flags["F_CONTIGUOUS"] and
              np.array_equal(got, fa.astype(np.float32)),
              "Fortran %s --to-type into .npy: %s" % (shape, r.stderr))
        st = os.path.join(tmp, "f32.safetensors")
        r = tl("convert", fpath, "--to-type", "FLOAT32", "-o", st)
        got = read_safetensors(st) if r.returncode == 0 else None
        check(got is not None and got["tensor"][1].shape == shape and
              np.array_equal(got["tensor"][1], fa.astype(np.float32)),
              "Fortran %s --to-type into safetensors: %s" % (shape, r.stderr))
        zpath = os.path.join(tmp, "fortran.npz")
        np.savez(zpath, w=fa, b=np.arange(3.0))
        r = tl("convert", zpath, "--to-type", "FLOAT32", "-o", st)
        got = read_safetensors(st) if r.returncode == 0 else None
        check(got is not None and got["w"][1].shape == shape and
              np.array_equal(got["w"][1], fa.astype(np.float32)),
              "Fortran %s .npz member into safetensors: %s" % (shape, r.stderr))
        zout = os.path.join(tmp, "f32.npz")
        r = tl("convert", zpath, "--to-type", "FLOAT32", "-o", zout)
        got = np.load(zout)["w"] if r.returncode == 0 else None
        check(got is not None and got.shape == shape and got.flags["F_CONTIGUOUS"] and
              np.array_equal(got, fa.astype(np.float32)),
              "Fortran %s .npz member into .npz: %s" % (shape, r.stderr))
        rev = ",".join(str(len(shape) - 1 - i) for i in range(len(shape)))
        r = tl("convert", fpath, "--to", rev, "-o", out)
        got = np.load(out) if r.returncode == 0 else None
        check(got is not None and got.shape == shape[::-1] and np.array_equal(got, fa.T),
              "Fortran %s --to %s: the memory order's shape: %s" % (shape, rev, r.stderr))

    # a format change alone (SPEC 19): every tensor as it is, no rule
    arrs = {"w": values("<f2", (3, 4)), "d": values("<f8", (5,)), "n": values("<i8", ()),
            "f": np.asfortranarray(values("<f4", (2, 3)))}
    zpath = os.path.join(tmp, "plain.npz")
    np.savez(zpath, **arrs)
    st = os.path.join(tmp, "plain.safetensors")
    r = tl("convert", zpath, "-o", st)
    got = read_safetensors(st) if r.returncode == 0 else None
    check(got is not None and all(np.array_equal(got[k][1], v) and got[k][1].dtype == v.dtype
                                  for k, v in arrs.items()),
          ".npz into safetensors, no rule: %s" % r.stderr)
    back = os.path.join(tmp, "plain2.npz")
    r = tl("convert", st, "-o", back)
    got = np.load(back) if r.returncode == 0 else None
    check(got is not None and all(np.array_equal(got[k], v) and got[k].dtype == v.dtype and
                                  got[k].shape == v.shape for k, v in arrs.items()),
          "safetensors into .npz, no rule: %s" % r.stderr)
    # types both formats have cross as they are (SPEC 19): numpy's
    # complex64 is safetensors' C64, stored and deflated, with empty members
    # of any shape; a Fortran-order complex64 (which no copy can reorder)
    # is refused with a message
    cx = {"c": (np.arange(12) * (1 - 2j)).astype(np.complex64).reshape(3, 4),
          "s": np.array(2 + 3j, np.complex64), "e": np.zeros((2, 0), np.float32),
          "z": np.zeros((0,), np.int8), "f": values("<f4", (2, 2))}
    for save in (np.savez, np.savez_compressed):
        zc = os.path.join(tmp, "complex.npz")
        save(zc, **cx)
        stc = os.path.join(tmp, "complex.safetensors")
        r = tl("convert", zc, "-o", stc)
        got = read_safetensors(stc) if r.returncode == 0 else None
        check(got is not None and got["c"][0] == "C64" and
              all(got[k][1].dtype == v.dtype and got[k][1].shape == v.shape and
                  np.array_equal(got[k][1], v) for k, v in cx.items()),
              "complex64 and empty .npz members into safetensors (%s): %s" %
              (save.__name__, r.stderr))
        back = os.path.join(tmp, "complex2.npz")
        r = tl("convert", stc, "-o", back)
        got = np.load(back) if r.returncode == 0 else None
        check(got is not None and all(got[k].dtype == v.dtype and got[k].shape == v.shape and
                                      np.array_equal(got[k], v) for k, v in cx.items()),
              "C64 and empty safetensors tensors into .npz: %s" % r.stderr)
    zf = os.path.join(tmp, "complex_f.npz")
    np.savez(zf, c=np.asfortranarray(cx["c"]))
    r = tl("convert", zf, "-o", os.path.join(tmp, "complex_f.safetensors"))
    check(r.returncode == 4 and b"Fortran order" in r.stderr and
          not os.path.exists(os.path.join(tmp, "complex_f.safetensors")),
          "a Fortran-order complex64 member refused: %s" % r.stderr)
    one = os.path.join(tmp, "one.npy")
    np.save(one, arrs["f"])
    r = tl("convert", one, "-o", st)
    got = read_safetensors(st) if r.returncode == 0 else None
    check(got is not None and np.array_equal(got["tensor"][1], arrs["f"]),
          "a Fortran .npy into safetensors, no rule: %s" % r.stderr)

    # a safetensors OUT, read back by read_safetensors: OIHW weights as
    # MLX's OHWI, and as BFLOAT16 against the round-to-nearest-even bit rule
    np.save(wpath, w)
    out = os.path.join(tmp, "w.safetensors")
    r = tl("convert", wpath, "--to", "OHWI", "-o", out, "--name", "conv.weight")
    got = read_safetensors(out) if r.returncode == 0 else None
    check(got is not None and got["conv.weight"][0] == "F32" and
          np.array_equal(got["conv.weight"][1], np.transpose(w, (0, 2, 3, 1))),
          "convert OIHW --to OHWI -o .safetensors")
    r = tl("convert", wpath, "--to", "OHWI", "--to-type", "BFLOAT16", "-o", out)
    got = read_safetensors(out) if r.returncode == 0 else None
    want = np.frombuffer(tensorfiles.bf16(np.transpose(w, (0, 2, 3, 1)).ravel().tolist()),
                         dtype="<u2")
    check(got is not None and got["tensor"][0] == "BF16" and
          got["tensor"][1].shape == (8, 5, 4, 3) and np.array_equal(got["tensor"][1].ravel(), want),
          "convert OIHW --to OHWI --to-type BFLOAT16 -o .safetensors")

    # a whole model file: OIHW conv weights to MLX's OHWI and every floating
    # tensor to BFLOAT16 in one command; integer tensors and other ranks kept
    model = [("conv1.weight", "F32", values("<f4", (8, 3, 3, 3))),
             ("conv1.bias", "F32", values("<f4", (8,))),
             ("conv2.weight", "F16", values("<f2", (4, 8, 1, 1))),
             ("bn.num_batches_tracked", "I64", np.array(7, dtype="<i8").reshape(())),
             ("pos_ids", "I32", values("<i4", (2, 5)))]
    mpath = os.path.join(tmp, "model.safetensors")
    with open(mpath, "wb") as f:
        f.write(tensorfiles.safetensors([(n, st, a.shape, a.tobytes()) for n, st, a in model],
                                        metadata={"format": "pt"}))
    out = os.path.join(tmp, "mlx.safetensors")
    r = tl("convert", mpath, "--to", "OHWI", "--to-type", "BFLOAT16", "-o", out, "--json")
    got = read_safetensors(out) if r.returncode == 0 else None
    ok = got is not None and len(got) == len(model)
    for n, st, a in model:
        if not ok:
            break
        ok = ohwi_bf16_ok(got[n], st, a)
        check(ok, "whole file --to OHWI --to-type BFLOAT16: " + n)
    with open(out, "rb") as f:
        head = json.loads(f.read(8 + int.from_bytes(open(out, "rb").read(8), "little"))[8:])
    names = [k for k in head if k != "__metadata__"]
    check(head.get("__metadata__") == {"format": "pt"} and
          names == ["bn.num_batches_tracked", "pos_ids", "conv1.bias", "conv1.weight",
                    "conv2.weight"], "whole file: metadata kept, the reference writer's order")

    # every safetensors file written says its format, as transformers requires
    # ("format": "pt"), unless its source says another (SPEC 23)
    def st_meta(path):
        with open(path, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            return json.loads(f.read(n)).get("__metadata__")
    arr = values("<f4", (2, 3))
    np.save(os.path.join(tmp, "pt_src.npy"), arr)
    np.savez(os.path.join(tmp, "pt_src.npz"), a=arr, b=arr[0])
    mlx = os.path.join(tmp, "mlx_src.safetensors")
    with open(mlx, "wb") as f:
        f.write(tensorfiles.safetensors([("w", "F32", arr.shape, arr.tobytes())],
                                        metadata={"format": "mlx", "k": "v"}))
    metas = []
    for src, extra in (("pt_src.npy", ()), ("pt_src.npz", ()), ("pt_src.npz", ("--to-type", "FLOAT16")),
                       ("mlx_src.safetensors", ("--to-type", "FLOAT16"))):
        out = os.path.join(tmp, "meta_out.safetensors")
        r = tl("convert", os.path.join(tmp, src), *extra, "-o", out)
        metas.append(st_meta(out) if r.returncode == 0 else r.stderr)
    check(metas == [{"format": "pt"}] * 3 + [{"format": "mlx", "k": "v"}],
          "every safetensors written has __metadata__.format, the source's kept: %r" % metas)

    # a whole file of many tensors, written by several threads at their
    # places (small ones and large ones, an empty one, INT64 carried,
    # OIHW weights of several windows transposed): the same bytes on 1 and
    # 3 threads, each tensor numpy's
    many = []
    for k in range(40):
        shape = [(16, 8, 3, 3), (7,), (0, 4), (300, 256, 3, 3), (2, 3), (1,)][k % 6]
        st, descr = [("F32", "<f4"), ("F16", "<f2"), ("I64", "<i8")][k % 3]
        many.append(("t%02d" % k, st, values(descr, shape)))
    mpath = os.path.join(tmp, "many.safetensors")
    with open(mpath, "wb") as f:
        f.write(tensorfiles.safetensors([(n, st, a.shape, a.tobytes()) for n, st, a in many]))
    outs = []
    for threads in ("1", "3"):
        out = os.path.join(tmp, "many%s.safetensors" % threads)
        r = tl("convert", mpath, "--to", "OHWI", "--to-type", "BFLOAT16", "-o", out,
               "--threads", threads)
        outs.append(open(out, "rb").read() if r.returncode == 0 else None)
    got = read_safetensors(os.path.join(tmp, "many3.safetensors")) if outs[1] else None
    ok = got is not None and len(got) == len(many) and outs[0] == outs[1]
    for n, st, a in many:
        if not ok:
            break
        ok = ohwi_bf16_ok(got[n], st, a)
    check(ok, "whole file of 40 tensors on 3 threads: the bytes of 1 thread, numpy's values")

    # 3. safetensors, built byte by byte, names with '.', '/' and ':'
    tensors = []
    arrays = {}
    st_types = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "U8": "|u1", "U16": "<u2", "U32": "<u4",
                "U64": "<u8", "I8": "|i1", "I16": "<i2", "I32": "<i4", "I64": "<i8"}
    for k, (st, descr) in enumerate(st_types.items()):
        shape = tuple(int(x) for x in rng.integers(1, 4, 1 + k % 4))
        a = values(descr, shape)
        name = ["layer.%d.weight", "enc/block_%d/kernel:0", "x%d"][k % 3] % k
        tensors.append((name, st, shape, a.tobytes()))
        arrays[name] = a
    bf = np.array([1.0, -2.5, 3.140625, 0.0], dtype=np.float32)
    tensors.append(("bf/16:x", "BF16", (2, 2), tensorfiles.bf16(bf.tolist())))
    path = os.path.join(tmp, "m.safetensors")
    with open(path, "wb") as f:
        f.write(tensorfiles.safetensors(tensors, metadata={"format": "pt"}))
    r = tl("list", "--json", path)
    listed = json.loads(r.stdout)
    check(r.returncode == 0 and [t["name"] for t in listed["tensors"]] == [t[0] for t in tensors],
          "list safetensors")
    for name, a in arrays.items():
        r = tl("dump", "--json", path + ":" + name)
        check(r.returncode == 0 and same_values(a, dumped_values(r.stdout)), "dump " + name)
        out = os.path.join(tmp, "st.npy")
        perm = list(range(a.ndim))[::-1]
        r = tl("convert", path + ":" + name, "--to", ",".join(map(str, perm)), "-o", out)
        check(r.returncode == 0 and np.array_equal(np.load(out), np.transpose(a, perm)),
              "convert " + name)
    r = tl("dump", "--json", path + ":bf/16:x")
    # each value's shortest text rounds back to its own bfloat16 bits
    got = [float(x) for row in dumped_values(r.stdout) for x in row] if r.returncode == 0 else []
    check(tensorfiles.bf16(got) == tensorfiles.bf16(bf.tolist()), "dump BF16")

    # 4. --to-type against numpy's astype: every pair of the 11 types numpy
    # has, values inside the destination's range (out of range is an error
    # here, and undefined in numpy), every layout change random; BFLOAT16,
    # which numpy lacks, against the bit rule (round the FLOAT32 bits to
    # nearest, ties to even)
    names = {v: k for k, v in TYPES.items()}
    for k, (sd, sname) in enumerate(TYPES.items()):
        for dd, dname in TYPES.items():
            s_t, d_t = np.dtype(sd), np.dtype(dd)
            shape = (2, 3, 4)
            n = 24
            if d_t.kind == "f":
                lo, hi = (-60000.0, 60000.0) if d_t.itemsize == 2 else (-1e30, 1e30)
            else:
                info = np.iinfo(d_t)
                lo, hi = int(info.min), int(info.max)
            if s_t.kind == "f":
                slo = max(float(lo), -float(np.finfo(s_t).max))
                shi = min(float(hi), float(np.finfo(s_t).max))
                v = rng.uniform(-1, 1, n) * min(abs(slo), abs(shi), 1e6) * rng.choice(
                    [1e-6, 1e-3, 1, 1], n)
                v = np.clip(v, slo, shi).astype(s_t)
                if d_t.kind in "ui":       # values that truncate into the range
                    v = np.where((v > lo - 1) & (v < hi + 1), v, 0).astype(s_t)
            else:
                sinfo = np.iinfo(s_t)
                a_lo, a_hi = max(sinfo.min, int(lo)), min(sinfo.max, int(hi))
                v = rng.integers(a_lo, a_hi, n, dtype=np.int64 if a_lo < 0 else np.uint64,
                                 endpoint=True).astype(s_t)
                v[:2] = [a_lo, a_hi]
            a = v.reshape(shape)
            src = os.path.join(tmp, "t.npy")
            out = os.path.join(tmp, "t_out.npy")
            np.save(src, a)
            perm = [int(x) for x in rng.permutation(3)]
            r = tl("convert", src, "--to", ",".join(map(str, perm)), "--to-type", dname, "-o", out)
            ok = r.returncode == 0
            if ok:
                b = np.load(out)
                want = np.ascontiguousarray(np.transpose(a, perm)).astype(d_t)
                ok = b.dtype == d_t and b.tobytes() == want.tobytes()
            check(ok, "--to-type %s -> %s: %s" % (sname, dname, r.stderr.decode().strip()))
    for sd in ("<f4", "<f2", "|u1"):       # exact in FLOAT32, so one rounding
        a = values(sd, (3, 5))
        if np.dtype(sd).kind == "f":
            a = np.where(np.isfinite(a), a, 1).astype(sd)
        src = os.path.join(tmp, "t.npy")
        np.save(src, a)
        out = os.path.join(tmp, "t_bf16.bin")
        r = tl("convert", src, "--to", "HW", "--to-type", "BFLOAT16", "-o", out)
        ok = r.returncode == 0
        if ok:
            with open(out, "rb") as f:
                got = f.read()
            ok = got == tensorfiles.bf16(a.astype(np.float32).ravel().tolist())
        check(ok, "--to-type %s -> BFLOAT16" % sd)

    # 5b. outputs of many windows (written in order while the next window is
    # built by another thread): a 24 MB tensor to .npy and raw, padded
    # with --fill, with the helper thread and without
    a = rng.standard_normal((2, 3, 1000, 1000)).astype(np.float32)
    src = os.path.join(tmp, "big.npy")
    np.save(src, a)
    want = np.ascontiguousarray(np.transpose(a, (0, 2, 3, 1)))
    for threads in ("1", "2"):
        out = os.path.join(tmp, "big_out.npy")
        r = tl("convert", src, "--to", "NHWC", "-o", out, "--threads", threads)
        check(r.returncode == 0 and np.array_equal(np.load(out), want),
              "many windows to .npy, %s threads" % threads)
        out = os.path.join(tmp, "big_out.bin")       # NHWC, 500,000 slots between images
        r = tl("convert", src, "--to-strides", "3500000,1,3000,3", "--fill", "7",
               "-o", out, "--threads", threads)
        exp = np.full(6500000, 7, dtype=np.float32)
        for n in range(2):
            exp[n * 3500000:n * 3500000 + 3000000] = want[n].ravel()
        check(r.returncode == 0 and np.array_equal(np.fromfile(out, dtype=np.float32), exp),
              "many windows, padded, --fill, %s threads" % threads)

    # 6. dump prints the same shortest decimal of its own type as numpy's
    # repr: every finite FLOAT16, 100,000 random FLOAT32 and FLOAT64 bit
    # patterns, every power of two of FLOAT64 and 100,000 model-like values
    # of both, as numbers (65500 is 65500.0); dump --json gives each value exactly, as numpy's tolist()
    # gives it to Python (a FLOAT16 0.1 is 0.0999755859375), -0.0 kept
    from decimal import Decimal
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)]
    w = rng.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    w = w[np.isfinite(w)]
    g = rng.integers(0, 2**63, 100000, dtype=np.uint64).view(np.float64)
    g = g[np.isfinite(g)]
    g = np.concatenate([g, -g[:1000], np.ldexp(1.0, np.arange(-1074, 1024))])
    # and values as models hold them, 1e-8 to 1e8 (the fast path's range)
    m = rng.standard_normal(100000) * 10.0 ** rng.integers(-8, 9, 100000)
    for a in (h, w, g, m, m.astype(np.float32)):
        path = os.path.join(tmp, "repr.npy")
        np.save(path, a)
        r = tl("dump", "--all", path)
        got = [Decimal(x.decode()) for x in r.stdout.split()] if r.returncode == 0 else []
        want = [Decimal(np.format_float_positional(x, unique=True, trim="-")) for x in a]
        bad = [(x, g) for x, g, e in zip(a, got, want) if g != e]
        check(len(got) == len(a) and not bad,
              "numpy's shortest text of %d %s values: %s" % (len(a), a.dtype, bad[:3]))
        r = tl("dump", "--json", path)
        got = dumped_values(r.stdout) if r.returncode == 0 else []
        want = a.tolist()
        bad = [(x, t) for x, t in zip(want, got)
               if Decimal(t) != Decimal(repr(x)) or (x == 0 and (repr(x)[0] == "-") != (t[0] == "-"))]
        check(len(got) == len(a) and not bad,
              "dump --json of %d %s values is tolist()'s: %s" % (len(a), a.dtype, bad[:3]))

    # 7. compare against numpy's isclose: a tensor of more than 2^20 elements
    # (so that threads share it), NCHW as .npy against NHWC as a raw file with
    # a description (and as numpy's own (N,H,W,C) .npy), a few hundred elements
    # changed, some within --atol; each side in turn is the one read in place;
    # 1 and 2 threads give numpy's count, first mismatches and largest
    # differences
    a = rng.standard_normal((2, 64, 96, 96)).astype(np.float32)
    b = a.copy()
    flat = b.reshape(-1)
    at = rng.choice(flat.size, 400, replace=False)
    flat[at[:200]] += 0.5                                   # beyond the tolerance
    flat[at[200:]] += np.float32(2e-4)                      # within it
    npy = os.path.join(tmp, "cmp_a.npy")
    np.save(npy, a)
    raw = os.path.join(tmp, "cmp_b.bin")
    np.ascontiguousarray(np.transpose(b, (0, 2, 3, 1))).tofile(raw)
    desc = os.path.join(tmp, "cmp_b.json")
    with open(desc, "w") as f:
        json.dump({"dataType": "FLOAT32", "sizes": list(b.shape),
                   "strides": [96 * 96 * 64, 1, 96 * 64, 64]}, f)
    # and the NHWC side as numpy saves it, an (N,H,W,C) .npy read with --axes-b
    nhwc = os.path.join(tmp, "cmp_b_nhwc.npy")
    np.save(nhwc, np.ascontiguousarray(np.transpose(b, (0, 2, 3, 1))))
    sides = [("NCHW .npy with NHWC raw", a, b, [npy, desc, raw]),
             ("NHWC raw with NCHW .npy", b, a, [desc, raw, npy]),
             ("NCHW .npy with NHWC .npy", a, b, [npy, nhwc, "--axes-b", "NHWC"])]
    for label, x, y, args in sides:
        bad = ~np.isclose(x, y, rtol=0, atol=1e-3)
        diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
        where = np.argwhere(bad)
        worst = np.unravel_index(np.argmax(np.where(bad, diff, -1)), x.shape)
        for threads in ("1", "2"):
            r = tl("compare", *args, "--atol", "1e-3", "--show", "5", "--json",
                   "--threads", threads)
            ok = r.returncode == 1
            if ok:
                got = json.loads(r.stdout)
                ok = (got["mismatches"] == int(bad.sum()) == 200 and
                      [e["index"] for e in got["first"]] == where[:5].tolist() and
                      got["maxAbsDiffIndex"] == list(map(int, worst)) and
                      got["maxAbsDiff"] == float(diff[worst]))
            check(ok, "compare %s, %s threads, against numpy's isclose: %s" %
                  (label, threads, r.stdout.decode()[:200] + r.stderr.decode()))

    # 8. .npz archives (SPEC section 10): np.savez and np.savez_compressed
    # files read to numpy's values, member by member; whole-file conversion
    # into .npz read back by np.load against numpy's own transpose and
    # rounding; a bool member read and written as numpy's bool (its --to-type
    # leaves it bool, as numpy's astype of the floats alone would); a text
    # member carried byte for byte; 0-d
    # arrays stay 0-d, Fortran-order ones Fortran-order; zip64 records (as numpy writes past 4 GiB, forced
    # here on small members) read; safetensors to .npz and back
    import zipfile
    arrays = {"conv1/weight": values("<f4", (8, 3, 3, 3)), "conv1/bias": values("<f4", (8,)),
              "fc.weight": np.asfortranarray(values("<f8", (5, 7))), "steps": np.array(12345),
              "ids": values("<i4", (4, 6)), "half": values("<f2", (2, 3, 4, 5)),
              "mask": np.array([True, False, True])}
    finite = {k: (np.where(np.isfinite(v), v, 1).astype(v.dtype) if v.dtype.kind == "f" else v)
              for k, v in arrays.items()}
    for kind, save in (("savez", np.savez), ("savez_compressed", np.savez_compressed)):
        src = os.path.join(tmp, kind + ".npz")
        save(src, **finite)
        r = tl("list", "--json", src)
        names = [t["name"] for t in json.loads(r.stdout)["tensors"]] if r.returncode == 0 else []
        check(names == list(finite), "list of an np.%s file: %s" % (kind, names))
        for name, a in finite.items():
            r = tl("dump", "--json", src + ":" + name)
            check(r.returncode == 0 and same_values(a.reshape(a.shape or (1,)), dumped_values(r.stdout)),
                  "dump %s:%s against numpy" % (kind, name))
        out = os.path.join(tmp, kind + "_ohwi.npz")
        r = tl("convert", src, "--to", "OHWI", "--to-type", "FLOAT16", "-o", out)
        ok = r.returncode == 0
        if ok:
            got = np.load(out)
            ok = list(got.keys()) == list(finite)
            for name, a in finite.items():
                want = a
                if a.ndim == 4:
                    want = np.transpose(a, (0, 2, 3, 1))
                if a.dtype.kind == "f":
                    with np.errstate(over="ignore"):      # beyond FLOAT16: infinities
                        want = want.astype(np.float16)
                ok = ok and got[name].dtype == want.dtype and got[name].shape == want.shape and \
                    np.array_equal(got[name], want)
        check(ok, "np.%s -> --to OHWI --to-type FLOAT16 -> .npz, np.load: %s" % (kind, r.stderr))
        with zipfile.ZipFile(out) as z:
            check(z.testzip() is None and all(i.compress_type == zipfile.ZIP_STORED
                                              for i in z.infolist()),
                  "the written .npz is stored, CRCs right (%s)" % kind)
    # a text member, carried into .npz as it is
    src = os.path.join(tmp, "with_text.npz")
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("notes.txt", b"trained 3 epochs\n")
        with z.open("w.npy", "w") as f:
            np.lib.format.write_array(f, finite["conv1/weight"])
    out = os.path.join(tmp, "with_text_out.npz")
    r = tl("convert", src, "--to-type", "FLOAT64", "-o", out)
    ok = r.returncode == 0
    if ok:
        with zipfile.ZipFile(out) as z:
            ok = z.read("notes.txt") == b"trained 3 epochs\n"
        ok = ok and np.array_equal(np.load(out)["w"], finite["conv1/weight"].astype(np.float64))
    check(ok, "a text member carried, an .npy member converted: %s" % r.stderr)
    # bool (SPEC 19: it crosses formats): dump prints JSON true/false; an
    # np.savez file with a bool member into safetensors under --to-type (the
    # trial's 'has no safetensors form') and back into .npz; a Fortran-order
    # bool .npy, and a float array cast to bool as numpy's astype(bool) does
    # (NaN and -0.0 included)
    src = os.path.join(tmp, "savez.npz")
    r = tl("dump", "--json", src + ":mask")
    got = json.loads(r.stdout)["values"] if r.returncode == 0 else None
    check(got == [True, False, True] and all(type(x) is bool for x in got),
          "dump --json of a bool member: JSON booleans: %s" % r.stdout[:80])
    st = os.path.join(tmp, "withbool.safetensors")
    r = tl("convert", src, "--to-type", "f16", "-o", st)
    t = read_safetensors(st) if r.returncode == 0 else None
    ok = t is not None and t["mask"][0] == "BOOL" and \
        np.array_equal(t["mask"][1], finite["mask"]) and t["half"][0] == "F16"
    back = os.path.join(tmp, "withbool.npz")
    ok = ok and tl("convert", st, "-o", back).returncode == 0
    ok = ok and np.load(back)["mask"].dtype == bool and \
        np.array_equal(np.load(back)["mask"], finite["mask"])
    check(ok, "np.savez with a bool member -> safetensors (--to-type f16) -> .npz: %s" % r.stderr)
    mask = np.asfortranarray(rng.standard_normal((5, 7)) > 0)
    src = os.path.join(tmp, "mask_f.npy")
    np.save(src, mask)
    out = os.path.join(tmp, "mask_c.npy")
    r = tl("convert", src, "--to-strides", "7,1", "-o", out)
    check(r.returncode == 0 and np.load(out).dtype == bool and np.array_equal(np.load(out), mask),
          "a Fortran-order bool .npy rewritten in C order: %s" % r.stderr)
    x = rng.standard_normal((9, 13)).astype(np.float32)
    x[0, 0], x[1, 1], x[2, 2], x[3, 3] = np.nan, 0.0, -0.0, np.inf
    src = os.path.join(tmp, "x.npy")
    np.save(src, x)
    out = os.path.join(tmp, "x_bool.npy")
    r = tl("convert", src, "--to-type", "bool", "-o", out)
    check(r.returncode == 0 and np.array_equal(np.load(out), x.astype(bool)),
          "FLOAT32 -> bool as numpy's astype(bool): %s" % r.stderr)
    out2 = os.path.join(tmp, "x_back.npy")
    r = tl("convert", out, "--to-type", "float32", "-o", out2)
    check(r.returncode == 0 and np.array_equal(np.load(out2), x.astype(bool).astype(np.float32)),
          "bool -> FLOAT32 as numpy's astype: %s" % r.stderr)
    # zip64 central directory records, as numpy writes them for large members
    limit = zipfile.ZIP64_LIMIT
    zipfile.ZIP64_LIMIT = 64
    try:
        src = os.path.join(tmp, "zip64.npz")
        np.savez(src, a=finite["conv1/weight"], b=finite["ids"])
    finally:
        zipfile.ZIP64_LIMIT = limit
    r = tl("dump", "--json", src + ":b")
    check(r.returncode == 0 and same_values(finite["ids"], dumped_values(r.stdout)),
          "zip64 records read: %s" % r.stderr)
    # safetensors into .npz and back
    st = os.path.join(tmp, "m.safetensors")
    w = finite["conv1/weight"]
    with open(st, "wb") as f:
        f.write(tensorfiles.safetensors([("w", "F32", w.shape, w.tobytes()),
                                         ("n", "I64", (), np.int64(7).tobytes())]))
    out = os.path.join(tmp, "m.npz")
    r = tl("convert", st, "--to", "OHWI", "-o", out)
    ok = r.returncode == 0
    if ok:
        got = np.load(out)
        ok = np.array_equal(got["w"], np.transpose(w, (0, 2, 3, 1))) and got["n"].shape == () \
            and int(got["n"]) == 7
        back = os.path.join(tmp, "m_back.safetensors")
        ok = ok and tl("convert", out, "--to-type", "FLOAT64", "-o", back).returncode == 0
        t = read_safetensors(back) if ok else None
        ok = ok and t is not None and t["n"][1].shape == () and \
            np.array_equal(t["w"][1], np.transpose(w, (0, 2, 3, 1)).astype(np.float64))
    check(ok, "safetensors -> .npz -> safetensors: %s" % r.stderr)
    # a deflated member of many windows, inflated as a stream
    big = rng.standard_normal((4, 256, 64, 64)).astype(np.float32)
    src = os.path.join(tmp, "big.npz")
    np.savez_compressed(src, big=big)
    out = os.path.join(tmp, "big_out.npz")
    r = tl("convert", src, "--to", "NHWC", "-o", out)
    check(r.returncode == 0 and np.array_equal(np.load(out)["big"], np.transpose(big, (0, 2, 3, 1))),
          "a 16 MB deflated member to NHWC: %s" % r.stderr)

    # 8b. a 0-d array converted as one tensor stays 0-d: .npy shape (), safetensors []
    src = os.path.join(tmp, "scalar.npy")
    np.save(src, np.float32(3.5))
    out_npy, out_st = os.path.join(tmp, "scalar16.npy"), os.path.join(tmp, "scalar.safetensors")
    r1 = tl("convert", src, "--to-type", "FLOAT16", "-o", out_npy)
    r2 = tl("convert", src, "--to-type", "FLOAT64", "-o", out_st)
    t = read_safetensors(out_st) if r2.returncode == 0 else None
    check(r1.returncode == 0 and np.load(out_npy).shape == () and np.load(out_npy) == 3.5 and
          t is not None and t["tensor"][1].shape == () and t["tensor"][1] == 3.5,
          "a 0-d array stays 0-d in .npy and safetensors: %s %s" % (r1.stderr, r2.stderr))
    # and list and dump show it as numpy does: shape (), value as tolist() gives it
    r3, r4 = tl("list", "--json", src), tl("dump", "--json", src)
    check(r3.returncode == 0 and json.loads(r3.stdout)["tensors"][0]["sizes"] == [] and
          r4.returncode == 0 and json.loads(r4.stdout) == {"sizes": [], "values":
                                                              np.load(src).tolist()},
          "list and dump of a 0-d array: %s %s" % (r3.stdout, r4.stdout))

    # 9. a sharded model built from the format's description (three shards
    # and model.safetensors.index.json): each tensor read through the index
    # to numpy's values; the whole model converted into a folder, each shard
    # read back from the description and checked against numpy's transpose
    # and the BFLOAT16 bit rule; the new index's weight map as it was, its
    # total_size the tensors' bytes, its other metadata kept
    model = os.path.join(tmp, "sharded")
    os.makedirs(model)
    tensors = {"model-00001-of-00003.safetensors": {"a.weight": values("<f4", (16, 8, 3, 3)),
                                                    "a.bias": values("<f4", (16,))},
               "model-00002-of-00003.safetensors": {"b.weight": values("<f4", (32, 16, 1, 1)),
                                                    "b.count": np.array([3], dtype=np.int64)},
               "model-00003-of-00003.safetensors": {"head.weight": values("<f2", (10, 32))}}
    tensors = {k: {n: (np.where(np.isfinite(a), a, 1).astype(a.dtype) if a.dtype.kind == "f" else a)
                   for n, a in v.items()} for k, v in tensors.items()}
    st_of = {"<f4": "F32", "<f2": "F16", "<i8": "I64"}
    weight_map = {}
    for shard, ts in tensors.items():
        with open(os.path.join(model, shard), "wb") as f:
            f.write(tensorfiles.safetensors([(n, st_of[a.dtype.str], a.shape, a.tobytes())
                                             for n, a in ts.items()]))
        weight_map.update({n: shard for n in ts})
    index = os.path.join(model, "model.safetensors.index.json")
    with open(index, "w") as f:
        json.dump({"metadata": {"total_size": 1, "format": "pt", "note": "kept"},
                   "weight_map": weight_map}, f)
    for shard, ts in tensors.items():
        for n, a in ts.items():
            r = tl("dump", "--json", index + ":" + n)
            check(r.returncode == 0 and same_values(a, dumped_values(r.stdout)),
                  "dump INDEX:%s against numpy" % n)
    out = os.path.join(tmp, "sharded_out")
    r = tl("convert", index, "--to", "OHWI", "--to-type", "BFLOAT16", "-o", out + "/")
    ok = r.returncode == 0
    if ok:
        with open(os.path.join(out, "model.safetensors.index.json")) as f:
            new = json.load(f)
        want_total = 0
        for shard, ts in tensors.items():
            got = read_safetensors(os.path.join(out, shard))
            ok = ok and got is not None and set(got) == set(ts)
            for n, a in ts.items():
                if not ok:
                    break
                want = np.transpose(a, (0, 2, 3, 1)) if a.ndim == 4 else a
                if a.dtype.kind == "f":
                    bits = tensorfiles.bf16(want.astype(np.float32).ravel().tolist())
                    ok = got[n][0] == "BF16" and got[n][1].shape == want.shape and \
                        got[n][1].tobytes() == bits
                    want_total += len(bits)
                else:
                    ok = got[n][0] == "I64" and np.array_equal(got[n][1], want)
                    want_total += want.nbytes
        ok = ok and new["weight_map"] == weight_map and new["metadata"]["format"] == "pt" and \
            new["metadata"]["note"] == "kept" and new["metadata"]["total_size"] == want_total
    check(ok, "a sharded model to OHWI + BFLOAT16, read back from the description: %s" % r.stderr)

    # 9b. --max-shard-size: merged into one model.safetensors (no index),
    # and, converted to BFLOAT16 on the way, split into shards of at most
    # 2000 bytes of tensors (a larger one alone), named as save_pretrained
    # names them, the index's weight map covering every tensor once
    with open(os.path.join(model, "config.json"), "w") as f:
        f.write('{"model_type": "test"}')
    merged = os.path.join(tmp, "merged")
    r = tl("convert", index, "--max-shard-size", "5GB", "-o", merged + "/")
    got = read_safetensors(os.path.join(merged, "model.safetensors")) if r.returncode == 0 else None
    ok = got is not None and sorted(os.listdir(merged)) == ["config.json", "model.safetensors"]
    for shard, ts in tensors.items():
        for n, a in ts.items():
            ok = ok and n in got and got[n][1].shape == a.shape and np.array_equal(got[n][1], a)
    check(ok, "a sharded model merged into one file: %s" % r.stderr)
    split = os.path.join(tmp, "split")
    r = tl("convert", index, "--to-type", "BFLOAT16", "--max-shard-size", "2000", "-o", split + "/")
    ok = r.returncode == 0
    if ok:
        with open(os.path.join(split, "model.safetensors.index.json")) as f:
            new = json.load(f)
        files = sorted(x for x in os.listdir(split) if x.endswith(".safetensors"))
        k = len(files)
        ok = files == ["model-%05d-of-%05d.safetensors" % (i + 1, k) for i in range(k)] and k > 1
        seen, total = {}, 0
        for name in files:
            part = read_safetensors(os.path.join(split, name))
            sizes = [v[1].nbytes for v in part.values()]
            ok = ok and (sum(sizes) <= 2000 or len(sizes) == 1)
            for n, v in part.items():
                seen[n] = name
                total += v[1].nbytes
        for shard, ts in tensors.items():
            for n, a in ts.items():
                if not ok or n not in seen:
                    ok = False
                    break
                v = read_safetensors(os.path.join(split, seen[n]))[n]
                if a.dtype.kind == "f":
                    ok = v[0] == "BF16" and v[1].shape == a.shape and \
                        v[1].tobytes() == tensorfiles.bf16(a.astype(np.float32).ravel().tolist())
                else:
                    ok = np.array_equal(v[1], a)
        ok = ok and new["weight_map"] == seen and new["metadata"]["total_size"] == total and \
            new["metadata"]["note"] == "kept" and \
            os.path.exists(os.path.join(split, "config.json"))
    check(ok, "a sharded model to BFLOAT16 re-sharded at 2000 bytes: %s" % r.stderr)

    # 10. every command's --json is strict RFC 8259 JSON over values full of
    # NaN, +-Inf, -0, subnormals and 2^64-1: Python's json with every
    # non-standard constant refused
    def strict(text):
        def refuse(x):
            raise ValueError("not JSON: " + x)
        return json.loads(text, parse_constant=refuse)
    nasty = {"f4": np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4e38], dtype=np.float32),
             "f8": np.array([np.nan, -np.inf, 5e-324, -0.0, 1.7976931348623157e308, 1.0]),
             "f2": np.array([np.nan, np.inf, -0.0, 6e-8, 65504.0, -1.0], dtype=np.float16),
             "u8": np.array([2**64 - 1, 0, 1, 2**63, 7, 9], dtype=np.uint64),
             "i8": np.array([-2**63, 2**63 - 1, 0, -1, 3, 4], dtype=np.int64)}
    for name, a in nasty.items():
        a = a.reshape(2, 3)
        path = os.path.join(tmp, "nasty_%s.npy" % name)
        np.save(path, a)
        other = os.path.join(tmp, "nasty_%s_b.npy" % name)
        b = a[::-1].copy()
        np.save(other, b)
        runs = [("dump", "--json", path), ("dump", "--json", "--physical", path),
                ("inspect", "--json", path), ("offset", "--json", path, "1,2"),
                ("size", "--json", path), ("list", "--json", path),
                ("compare", "--json", path, other), ("compare", "--json", path, path),
                ("convert", "--json", path, "--to", "WH", "-o", os.path.join(tmp, "n.npy")),
                ("strides", "--json", "--sizes", "2,3", "--layout", "WH", "--type", name)]
        for args in runs:
            r = tl(*args)
            try:
                strict(r.stdout)
                ok = r.returncode in (0, 1)
            except ValueError as e:
                ok = False
                print(e)
            check(ok, "strict JSON from %s of %s: %s" % (" ".join(args[:2]), name,
                                                          r.stdout[:200] + r.stderr[:200]))
    z = os.path.join(tmp, "nasty.npz")
    np.savez(z, **{k: v.reshape(2, 3) for k, v in nasty.items()})
    for args in (("list", "--json", z), ("dump", "--json", z + ":f4"),
                 ("convert", "--json", z, "--to-type", "FLOAT64", "-o", os.path.join(tmp, "n.npz"))):
        r = tl(*args)
        try:
            strict(r.stdout)
            ok = r.returncode == 0
        except ValueError:
            ok = False
        check(ok, "strict JSON from %s: %s" % (" ".join(args[:2]), r.stderr[:200]))

    # 11. 4-bit types (SPEC 12): numpy has no packed 4-bit dtype; ml_dtypes
    # and ONNX pack two values a byte, the lower index in the low nibble.
    # numpy writes the values one a byte (int8 / uint8 .npy); the tool packs
    # them (--to-type INT4, raw), and its bytes must be numpy's own packing
    # of the same values; the packed file, transposed and unpacked to INT8
    # .npy by the tool, must np.load as numpy's transpose.
    def pack(v):
        flat = (v.reshape(-1).astype(np.int16) & 15).astype(np.uint8)
        if flat.size % 2:
            flat = np.append(flat, np.uint8(0))
        return (flat[0::2] | (flat[1::2] << 4)).tobytes()
    for kind, lo, hi, dt in (("INT4", -8, 8, np.int8), ("UINT4", 0, 16, np.uint8)):
        for shape in ((5,), (3, 5), (2, 3, 7), (1, 4, 5, 3), (33, 65)):
            v = rng.integers(lo, hi, size=shape).astype(dt)
            src = os.path.join(tmp, "v4.npy")
            packed = os.path.join(tmp, "v4.bin")
            np.save(src, v)
            r = tl("convert", src, "--to-type", kind, "--format", "raw", "-o", packed)
            ok = r.returncode == 0 and open(packed, "rb").read() == pack(v)
            check(ok, "%s %s packed as numpy packs it: %s" % (kind, shape, r.stderr))
            sizes = ",".join(str(n) for n in shape)
            order = ",".join(str(i) for i in reversed(range(len(shape))))
            back = os.path.join(tmp, "v4t.npy")
            r = tl("convert", "--type", kind, "--sizes", sizes, packed, "--to", order,
                   "--to-type", "INT8", "-o", back)
            ok = r.returncode == 0
            if ok:
                got = np.load(back)
                ok = got.dtype == np.int8 and np.array_equal(got, v.astype(np.int8).transpose())
            check(ok, "%s %s transposed, unpacked to INT8, np.load-ed: %s" % (kind, shape, r.stderr))
            # the transpose in 4 bits, packed as numpy packs its transpose
            tbin = os.path.join(tmp, "v4t.bin")
            r = tl("convert", "--type", kind, "--sizes", sizes, packed, "--to", order,
                   "-o", tbin, "--out-desc", os.path.join(tmp, "v4t.json"))
            ok = r.returncode == 0 and open(tbin, "rb").read() == pack(v.transpose().copy())
            check(ok, "%s %s transposed in 4 bits: %s" % (kind, shape, r.stderr))
    # values numpy holds that INT4 cannot: the first one named, nothing written
    v = np.array([1, -8, 7, 8, -9], dtype=np.int8)
    np.save(os.path.join(tmp, "wide.npy"), v)
    out = os.path.join(tmp, "wide.bin")
    r = tl("convert", os.path.join(tmp, "wide.npy"), "--to-type", "INT4", "--format", "raw", "-o", out)
    check(r.returncode == 4 and b"[3] is 8" in r.stderr and not os.path.exists(out),
          "INT8 8 does not fit INT4: %s" % r.stderr)

print("numpy: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
