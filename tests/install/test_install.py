"""The library as a product (SPEC 22): what `make install` put in a scratch
prefix (headers, libtensorlayout.so with its soname, libtensorlayout.a,
tensorlayout.pc), and examples/convert_model.c, built against it with
pkg-config (shared and static), converting model files that torch and
numpy wrote: every tensor as torch or numpy has it, 4-D ones permuted to
NHWC as torch's permute(0, 2, 3, 1) does.

Usage: TL_STAGE=PREFIX TL_EXAMPLE=BIN TL_EXAMPLE_STATIC=BIN python3 tests/install/test_install.py
"""
import json
import os
import re
import struct
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensorfiles"))
import tensorfiles  # noqa: E402

STAGE = os.environ["TL_STAGE"]
EXAMPLES = [os.environ["TL_EXAMPLE"], os.environ["TL_EXAMPLE_STATIC"]]
TMP = None
ST = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32,
      "U8": np.uint8, "I8": np.int8, "BF16": np.uint16}


def read_st(path):
    """A safetensors file, read from the format's description: {name:
    (dtype, array)} and its __metadata__."""
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    meta = h.pop("__metadata__", None)
    body = b[8 + n:]
    return {k: (v["dtype"], np.frombuffer(body[v["data_offsets"][0]:v["data_offsets"][1]],
                                          ST[v["dtype"]]).reshape(v["shape"]))
            for k, v in h.items()}, meta


def as_numpy(t):
    """A torch tensor as numpy has it (BFLOAT16 as its 16-bit words)."""
    if t.dtype == torch.bfloat16:
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    return t.contiguous().numpy()


def example(exe, src, out):
    r = subprocess.run([exe, src, out], capture_output=True)
    assert r.returncode == 0, (exe, src, r.stderr)
    return r


def test_installed_files():
    """Headers under include/tensorlayout/ (no cJSON, calibration, ggml or
    format-specific fields in them), the .so with soname
    libtensorlayout.so.1 exporting only the public functions, the .a, the
    .pc that pkg-config reads."""
    inc = os.path.join(STAGE, "include", "tensorlayout")
    headers = sorted(os.listdir(inc))
    assert headers == ["tensorlayout.h", "tl_compare.h", "tl_copy.h", "tl_desc.h", "tl_model.h",
                       "tl_types.h"], headers
    text = "".join(open(os.path.join(inc, h)).read() for h in headers)
    for word in ("cJSON", "tl_calib", "ggml_type", "npy_fortran", "struct tl_file "):
        assert word not in text, word
    lib = os.path.join(STAGE, "lib")
    assert os.readlink(os.path.join(lib, "libtensorlayout.so")) == "libtensorlayout.so.1"
    assert os.readlink(os.path.join(lib, "libtensorlayout.so.1")) == "libtensorlayout.so.1.0.0"
    assert os.path.isfile(os.path.join(lib, "libtensorlayout.a"))
    dyn = subprocess.run(["readelf", "-d", os.path.join(lib, "libtensorlayout.so.1.0.0")],
                         capture_output=True, text=True).stdout
    assert "Library soname: [libtensorlayout.so.1]" in dyn, dyn
    syms = subprocess.run(["nm", "-D", "--defined-only", os.path.join(lib, "libtensorlayout.so.1")],
                          capture_output=True, text=True).stdout.split("\n")
    names = {line.split()[-1].split("@")[0] for line in syms if line.strip()}
    names.discard("TENSORLAYOUT_1")
    declared = set(re.findall(r"\b(tl_[a-z0-9_]+)\(", text))
    assert names and names <= declared, sorted(names - declared)
    assert {"tl_model_open", "tl_model_read", "tl_write_safetensors", "tl_copy_run"} <= names
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tensorlayout"], env=env,
                           capture_output=True, text=True).stdout.split()
    assert "-I" + os.path.join(STAGE, "include") in flags and "-ltensorlayout" in flags, flags


def test_example_converts_models():
    """A torch checkpoint of conv weights (FLOAT32, FLOAT16, BFLOAT16, an
    INT64 count, a view), an .npz numpy wrote: the example's output holds
    each tensor as torch or numpy has it, 4-D ones permuted to NHWC, with
    "format": "pt"; shared and static builds write the same bytes."""
    g = torch.Generator().manual_seed(22)
    sd = {"conv1.weight": torch.randn(8, 3, 5, 7, generator=g),
          "conv1.bias": torch.randn(8, generator=g),
          "conv2.weight": torch.randn(4, 8, 3, 3, generator=g).half(),
          "conv3.weight": torch.randn(2, 4, 1, 9, generator=g).bfloat16(),
          "steps": torch.tensor([7, 9], dtype=torch.int64)}
    sd["tied"] = sd["conv1.weight"][2:6]                        # a view of another's storage
    pt = os.path.join(TMP, "model.pt")
    torch.save(sd, pt)
    outs = []
    for exe in EXAMPLES:
        out = os.path.join(TMP, "out_%d.safetensors" % len(outs))
        example(exe, pt, out)
        outs.append(open(out, "rb").read())
        got, meta = read_st(out)
        assert meta == {"format": "pt"}, meta
        assert sorted(got) == sorted(sd), sorted(got)
        for name, t in sd.items():
            want = as_numpy(t.permute(0, 2, 3, 1) if t.dim() == 4 else t)
            dt, a = got[name]
            assert a.shape == want.shape and np.array_equal(a, want), name
    assert outs[0] == outs[1]
    arrays = {"w": np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5),
              "b": np.arange(6, dtype=np.int32)}
    npz = os.path.join(TMP, "weights.npz")
    np.savez_compressed(npz, **arrays)
    out = os.path.join(TMP, "npz.safetensors")
    example(EXAMPLES[0], npz, out)
    got, _ = read_st(out)
    assert np.array_equal(got["w"][1], arrays["w"].transpose(0, 2, 3, 1))
    assert np.array_equal(got["b"][1], arrays["b"])


def test_example_refuses_what_is_no_model():
    """A file the library does not read: one line naming it, exit 1, no
    output left."""
    bad = os.path.join(TMP, "notes.txt")
    open(bad, "w").write("not a model\n")
    out = os.path.join(TMP, "none.safetensors")
    r = subprocess.run([EXAMPLES[0], bad, out], capture_output=True)
    lines = r.stderr.decode().strip().split("\n")
    assert r.returncode == 1 and len(lines) == 1 and bad in lines[0], r
    assert not os.path.exists(out)


def main():
    return tensorfiles.run_tests(globals(), "install")


if __name__ == "__main__":
    sys.exit(main())
