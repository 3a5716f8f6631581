"""Tensor files built byte by byte from the formats' descriptions, for the
examples, the bad-input corpus and the interoperability tests.

No safetensors library is packaged for Debian, so safetensors files are
written here from the format's description (an 8-byte little-endian header
length, the JSON header, the data).  .npy headers are written the way numpy's
format.py lays them out, so that hostile variants can be made of them; the
interoperability test checks the real numpy against the tool as well."""
import json
import struct


def npy_header(descr, shape, fortran=False, version=(1, 0), align=64, text=None):
    """The bytes of a .npy header: magic, version, length, dictionary."""
    if text is None:
        dims = "".join("%d," % d for d in shape) if len(shape) == 1 else \
            ", ".join("%d" % d for d in shape)
        text = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
            descr, "True" if fortran else "False", dims)
    lenbytes = 2 if version[0] == 1 else 4
    pre = 6 + 2 + lenbytes
    body = text.encode("latin1")
    total = -(-(pre + len(body) + 1) // align) * align
    body += b" " * (total - pre - len(body) - 1) + b"\n"
    out = b"\x93NUMPY" + bytes(version)
    out += struct.pack("<H" if lenbytes == 2 else "<I", len(body))
    return out + body


def safetensors(tensors, metadata=None, header=None, pad=8):
    """A safetensors file: tensors is a list of (name, dtype, shape, data
    bytes), laid out in order; header (a dict) replaces the computed one."""
    if header is None:
        header = {}
        if metadata is not None:
            header["__metadata__"] = metadata
        pos = 0
        for name, dtype, shape, data in tensors:
            header[name] = {"dtype": dtype, "shape": list(shape),
                            "data_offsets": [pos, pos + len(data)]}
            pos += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % pad)
    return struct.pack("<Q", len(text)) + text + b"".join(t[3] for t in tensors)


def bf16(values):
    """BFLOAT16 bytes of floats: the top half of each FLOAT32, rounded to
    nearest, ties to even."""
    out = b""
    for v in values:
        x = struct.unpack("<I", struct.pack("<f", v))[0]
        x = (x + 0x7FFF + ((x >> 16) & 1)) >> 16
        out += struct.pack("<H", x)
    return out


def tl(*args, check=True):
    """Runs the tool ($TL, else build/tensorlayout) with args; with check,
    a non-zero exit status is a failure naming the command and its
    message.  @return the finished process (stdout, stderr as bytes)."""
    import os
    import subprocess
    p = subprocess.run([os.environ.get("TL", "build/tensorlayout")] + [str(a) for a in args],
                       capture_output=True)
    if check and p.returncode != 0:
        raise AssertionError("tensorlayout %s: exit %d: %s" % (" ".join(map(str, args)),
                                                              p.returncode, p.stderr.decode()))
    return p


def read_safetensors(p):
    """A safetensors file's tensors, from the format's published layout:
    {name: (dtype, numpy array)} (BF16 as its bits, uint16)."""
    import numpy as np
    b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    dt = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I8": np.int8,
          "I16": np.int16, "I32": np.int32, "I64": np.int64, "U8": np.uint8, "U16": np.uint16,
          "U32": np.uint32, "U64": np.uint64, "BF16": np.uint16, "BOOL": np.bool_}
    out = {}
    for k, e in h.items():
        if k == "__metadata__":
            continue
        a, z = e["data_offsets"]
        out[k] = (e["dtype"], np.frombuffer(b[8 + n + a:8 + n + z], dt[e["dtype"]]).reshape(e["shape"]))
    return out


def run_tests(scope, label):
    """A test file's main: every test_* function of scope (a module's
    globals()) whose name holds one of the command line's words (all with
    none), in name order, each in turn, with scope["TMP"] a scratch
    directory of the run; a line each, then "LABEL: N passed, N failed".
    @return the exit status: 1 when one failed."""
    import sys
    import tempfile
    passed = failed = 0
    want = sys.argv[1:]
    with tempfile.TemporaryDirectory() as d:
        scope["TMP"] = d
        for name, fn in sorted(scope.items()):
            if not name.startswith("test_") or not callable(fn) or \
                    (want and not any(w in name for w in want)):
                continue
            try:
                fn()
                passed += 1
                print("ok   %s" % name)
            except Exception as e:  # noqa: BLE001 - every failure is reported
                failed += 1
                print("FAIL %s: %r" % (name, e))
    print("%s: %d passed, %d failed" % (label, passed, failed))
    return 1 if failed else 0
