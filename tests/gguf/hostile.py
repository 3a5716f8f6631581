"""Hostile GGUF files (SPEC 16's bad files), made byte by byte here, from
GGUF's published layout, not by the tool: each case is (name, the file's
bytes, a phrase its one-line message must hold).  test_gguf.py runs every
command on them (exit 4, one line), and `python3 hostile.py DIR` writes them
into DIR for the fuzzer's corpus.
"""
import os
import struct
import sys

Q4_0, F32 = 2, 0


def s(text):
    b = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(b)) + b


def kv_u32(key, v):
    return s(key) + struct.pack("<II", 4, v)


def kv_str(key, v):
    return s(key) + struct.pack("<I", 8) + s(v)


def tensor(name, ne, ty, off, ndim=None):
    return (s(name) + struct.pack("<I", len(ne) if ndim is None else ndim) +
            b"".join(struct.pack("<Q", n) for n in ne) + struct.pack("<IQ", ty, off))


def gguf(kvs=(), tensors=(), data=b"", version=3, ntensors=None, nkv=None, align=32,
         magic=b"GGUF", endian="<"):
    head = magic + struct.pack(endian + "IQQ", version,
                               len(tensors) if ntensors is None else ntensors,
                               len(kvs) if nkv is None else nkv)
    body = head + b"".join(kvs) + b"".join(tensors)
    body += b"\0" * ((align - len(body) % align) % align)
    return body + data


def cases(base):
    """The hostile files; base is a sound GGUF written by ggml (cut short
    for the truncation cases)."""
    q = bytes(18 * 2)                   # two Q4_0 blocks: 64 elements
    f = bytes(32)                       # 8 F32
    ok_t = [tensor("a", [64], Q4_0, 0), tensor("b", [8], F32, 64)]
    data = q + bytes(64 - len(q)) + f
    out = [
        ("truncated_header", base[:10], "truncated"),
        ("truncated_in_meta", base[:40], "truncated"),
        ("truncated_data", base[:len(base) - 5], "past the end of the file"),
        ("tensor_count_huge", gguf(ntensors=1 << 60), "tensors, more than"),
        ("kv_count_huge", gguf(nkv=1 << 60), "key/value pairs, more than"),
        ("key_length_past_end", gguf([struct.pack("<Q", 1 << 40) + b"abc"], nkv=1),
         "runs past the end"),
        ("string_value_past_end", gguf([s("k") + struct.pack("<IQ", 8, 1 << 33) + b"x"]),
         "runs past the end"),
        ("array_past_end", gguf([s("k") + struct.pack("<IIQ", 9, 5, 1 << 40) + b"\0" * 8]),
         "an array of"),
        ("array_of_arrays", gguf([s("k") + struct.pack("<IIQ", 9, 9, 1) + bytes(12)]),
         "array of arrays"),
        ("value_type_unknown", gguf([s("k") + struct.pack("<I", 13) + bytes(8)]),
         "is not a GGUF type"),
        ("ndim_zero", gguf([], [tensor("a", [], F32, 0, ndim=0)], f), "dimensions"),
        ("ndim_five", gguf([], [tensor("a", [1, 1, 1, 1, 8], F32, 0)], f), "dimensions"),
        ("count_overflow", gguf([], [tensor("a", [1 << 40, 1 << 40], F32, 0)], f),
         "does not fit"),
        ("ne_negative", gguf([], [tensor("a", [(1 << 63) + 1], F32, 0)], f), "negative"),
        ("offset_unaligned", gguf([], [tensor("a", [64], Q4_0, 0),
                                       tensor("b", [8], F32, 40)], data),
         "not a multiple of the alignment"),
        ("overlap", gguf([], [tensor("a", [64], Q4_0, 0), tensor("b", [8], F32, 0)], data),
         "share bytes"),
        ("offset_past_end", gguf([], [tensor("a", [8], F32, 1 << 20)], f),
         "past the end of the file"),
        ("offset_wraps", gguf([], [tensor("a", [8], F32, (1 << 64) - 32)], f),
         "past the end of the file"),
        ("type_unknown", gguf([], [tensor("a", [8], 99, 0)], f), "not one ggml has"),
        ("type_removed", gguf([], [tensor("a", [32], 4, 0)], f), "not one ggml has"),
        ("block_split", gguf([], [tensor("a", [48], Q4_0, 0)], data),
         "not a multiple of Q4_0's block"),
        ("alignment_not_power", gguf([kv_u32("general.alignment", 48)], ok_t, data),
         "not a power of two"),
        ("alignment_zero", gguf([kv_u32("general.alignment", 0)], ok_t, data),
         "not a power of two"),
        ("alignment_not_u32", gguf([kv_str("general.alignment", "32")], ok_t, data),
         "must be a u32"),
        ("big_endian", gguf(ok_t and [], [], b"", endian=">"), "big-endian"),
        ("version_1", gguf(version=1), "is not one this tool reads"),
        ("name_twice", gguf([], [tensor("a", [8], F32, 0), tensor("a", [8], F32, 32)], f + f),
         "appears twice"),
        ("key_twice", gguf([kv_u32("k", 1), kv_u32("k", 2)]), "appears twice"),
        # found in n log n: 100,000 keys, the last a second k5 (issue 73)
        ("keys_100k_twice", gguf([kv_u32("k%d" % i, i) for i in range(100000)] + [kv_u32("k5", 1)]),
         "key 'k5': appears twice"),
        ("name_empty", gguf([], [tensor("", [8], F32, 0)], f), "empty"),
    ]
    return out


if __name__ == "__main__":
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    base = gguf([kv_str("general.architecture", "x")],
                [tensor("a", [64], Q4_0, 0), tensor("b", [8], F32, 64)],
                bytes(64) + bytes(32))
    for name, data, _ in cases(base):
        with open(os.path.join(d, name + ".gguf"), "wb") as fh:
            fh.write(data)
