#!/usr/bin/env python3
"""Writes the .npz part of the bad-input corpus: tests/cli/bad/zip_*.npz
(hostile, truncated, inconsistent or unsupported archives, made with
Python's zipfile and by patching its bytes) and one test
tests/cli/corpus/zip_NAME.sh each (run `UPDATE=1 make test-cli` after, and
review the expectations).  The files are committed; CI does not run this."""
import io
import os
import struct
import sys
import zipfile
import zlib

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tensorfiles"))
import tensorfiles as tf  # noqa: E402

tests = os.path.join(here, "..", "corpus")
cases = {}


def case(name, data, cmd="list"):
    """A file bad/zip_NAME.npz and the command run on it (FILE stands for it)."""
    cases[name] = (data, cmd)


def npy(descr="<f4", shape=(2,), data=None):
    n = 1
    for d in shape:
        n *= d
    if data is None:
        data = b"\0" * (n * int(descr[2:]) if descr[2:].isdigit() else n)
    return tf.npy_header(descr, shape) + data


def archive(members, method=zipfile.ZIP_STORED):
    """A zip of (name, bytes) members, as np.savez writes them."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data,
                       compress_type=method)
    return out.getvalue()


def patch(data, at, new):
    return data[:at] + new + data[at + len(new):]


def central(data):
    """Offsets of the central directory's entries (by their signature)."""
    start = struct.unpack_from("<I", data, data.rfind(b"PK\5\6") + 16)[0]
    out, at = [], start
    while data[at:at + 4] == b"PK\1\2":
        out.append(at)
        n, m, k = struct.unpack_from("<HHH", data, at + 28)
        at += 46 + n + m + k
    return out


def set_sizes(data, comp=None, size=None, crc=None):
    """Rewrites the first member's CRC and sizes in its local header and its
    central entry alike."""
    for at, off in ((0, 14), (central(data)[0], 16)):
        if crc is not None:
            data = patch(data, at + off, struct.pack("<I", crc))
        if comp is not None:
            data = patch(data, at + off + 4, struct.pack("<I", comp))
        if size is not None:
            data = patch(data, at + off + 8, struct.pack("<I", size))
    return data


good = npy("<f4", (2, 3))
two = archive([("a.npy", good), ("b.npy", npy("<i8", (3,)))])
deflated = archive([("a.npy", good)], zipfile.ZIP_DEFLATED)

# --- member names
case("name_dotdot", archive([("../evil.npy", good)]))
case("name_dotdot_inner", archive([("w/../../evil.npy", good)]))
case("name_absolute", archive([("/etc/evil.npy", good)]))
case("name_backslash", archive([("..\\evil.npy", good)]))
case("name_drive", archive([("C:evil.npy", good)]))
case("control_valid", archive([("a.npy", good), ("dir/b.npy", good)]), "dump FILE:dir/b")
case("duplicate_names", archive([("a.npy", good), ("a.npy", good)]))
case("duplicate_after_suffix", archive([("a.npy", good), ("a", b"other data")]))
# --- methods and flags
enc = archive([("a.npy", good)])
for at in (6, central(enc)[0] + 8):
    enc = patch(enc, at, struct.pack("<H", struct.unpack_from("<H", enc, at)[0] | 1))
case("encrypted", enc)
case("method_bzip2", archive([("a.npy", good)], zipfile.ZIP_BZIP2))
case("method_lzma", archive([("a.npy", good)], zipfile.ZIP_LZMA))
# --- the central directory and the end record
case("truncated_end", two[:-10])
case("truncated_half", two[:len(two) // 2])
case("no_end_record", two[:two.rfind(b"PK\5\6")])
eocd = two.rfind(b"PK\5\6")
case("count_too_big", patch(two, eocd + 8, struct.pack("<HH", 9, 9)))
case("count_too_small", patch(two, eocd + 8, struct.pack("<HH", 1, 1)))
case("directory_offset_wrong", patch(two, eocd + 16, struct.pack("<I", 7)))
case("directory_size_wrong", patch(two, eocd + 12, struct.pack("<I", 9999)))
# --- local headers against the central directory
case("local_name_differs", patch(two, 30, b"x"))
case("local_method_differs", patch(two, 8, struct.pack("<H", 8)))
case("local_offset_wrong", patch(two, central(two)[1] + 42, struct.pack("<I", 3)))
case("local_offset_past_end", patch(two, central(two)[1] + 42, struct.pack("<I", 1 << 30)))
# --- the overlapping-member zip bomb: b's local header and data are a's data too
inner = archive([("b.npy", good)])
b_local = inner[:inner.find(b"PK\1\2")]
a_local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 0, 0, 0x21, zlib.crc32(b_local),
                      len(b_local), len(b_local), 5, 0) + b"a.bin"
body = a_local + b_local
cd = b""
for name, at, data in ((b"a.bin", 0, b_local), (b"b.npy", len(a_local), good)):
    cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 0, 0, 0x21,
                      zlib.crc32(data), len(data), len(data), len(name), 0, 0, 0, 0, 0, at) + name
case("overlapping_members", body + cd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 2, 2,
                                                   len(cd), len(body), 0))
case("overlapping_members_dump", cases["overlapping_members"][0], "dump FILE:b")
# --- sizes: declared, inflated, and what the .npy header needs
crc = zlib.crc32(good)
comp = struct.unpack_from("<I", deflated, 18)[0]
case("inflated_longer_than_declared", set_sizes(deflated, size=len(good) - 8), "dump FILE:a")
case("inflated_shorter_than_declared", set_sizes(deflated, size=len(good) + 8), "dump FILE:a")
case("declared_huge", set_sizes(deflated, size=0xFFFFFFF0), "dump FILE:a")
case("crc_wrong", set_sizes(deflated, crc=crc ^ 1), "dump FILE:a")
stream = deflated.find(b"a.npy") + 5
case("deflate_corrupt", patch(deflated, stream + 2, b"\xff\xff\xff\xff"), "dump FILE:a")
case("stored_sizes_disagree", set_sizes(archive([("a.npy", good)]), comp=len(good) - 4))
case("stored_past_end", set_sizes(archive([("a.npy", good)]), comp=len(good) + 999,
                                  size=len(good) + 999))
case("npy_longer_than_header_needs", archive([("a.npy", good + b"\0" * 8)]))
case("npy_shorter_than_header_needs", archive([("a.npy", good[:-8])]))
case("npy_shorter_deflated", archive([("a.npy", good[:-8])], zipfile.ZIP_DEFLATED))
case("npy_garbage", archive([("a.npy", b"not a numpy file at all")]))
case("npy_header_huge_deflated",
     archive([("a.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0x7FFFFFFF) + b"{" * 64)],
             zipfile.ZIP_DEFLATED))
# --- what is listed and carried, but not decoded
mixed = archive([("w.npy", good), ("flags.npy", npy("|b1", (4,))), ("big.npy", npy(">f4", (2,))),
                 ("empty.npy", npy("<f4", (0,))), ("README.txt", b"weights\n")])
case("mixed_list", mixed)
case("mixed_dump_bool", mixed, "dump FILE:flags")
case("mixed_dump_bigendian", mixed, "dump FILE:big")
case("mixed_dump_empty", mixed, "dump FILE:empty")
case("mixed_dump_other", mixed, "dump FILE:README.txt")
case("mixed_to_safetensors", mixed, "convert FILE --to-type FLOAT16 -o out.safetensors")
case("mixed_to_npz", mixed, "convert FILE --to-type FLOAT16 -o out.npz && $TL list out.npz")
case("empty_archive", archive([]))
case("not_zip_after_magic", b"PK\3\4" + b"\0" * 60)

for name in list(os.listdir(here)):
    if name.startswith("zip_"):
        os.remove(os.path.join(here, name))
for name in list(os.listdir(tests)):
    if name.startswith("zip_"):
        os.remove(os.path.join(tests, name))
for name, (data, cmd) in sorted(cases.items()):
    path = "bad/zip_%s.npz" % name
    with open(os.path.join(here, "zip_" + name + ".npz"), "wb") as f:
        f.write(data)
    cmd = "%s %s" % (cmd, path) if "FILE" not in cmd else cmd.replace("FILE", path)
    with open(os.path.join(tests, "zip_" + name + ".sh"), "w") as f:
        f.write("$TL %s; echo exit $?\n" % cmd)
print(len(cases), "cases")
