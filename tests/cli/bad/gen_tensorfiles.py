#!/usr/bin/env python3
"""Writes the tensor-file part of the bad-input corpus: tests/cli/bad/tf_*
(.npy and safetensors files, malformed, truncated, hostile or unsupported)
and one test tests/cli/corpus/tf_NAME.sh each (run `UPDATE=1 make test-cli`
after, and review the expectations).  The files are committed; CI does not
run this."""
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "tensorfiles"))
import tensorfiles as tf  # noqa: E402

tests = os.path.join(here, "..", "corpus")
cases = {}


def case(name, data, cmd="inspect"):
    """A file bad/tf_NAME and the command run on it."""
    cases[name] = (data, cmd)


def npy(dict_text, data=b"\0" * 8, version=(1, 0)):
    return tf.npy_header(None, None, version=version, text=dict_text) + data


def npyd(descr, shape="(2,)", fortran="False", data=b"\0" * 16):
    return npy("{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape), data)


F32x2 = ("t", "F32", (2,), b"\0" * 8)

# --- .npy: versions and lengths
good = npyd("'<f4'")
case("npy_version_4_0", good[:6] + bytes([4, 0]) + good[8:])
case("npy_version_1_1", good[:6] + bytes([1, 1]) + good[8:])
case("npy_version_0_0", good[:6] + bytes([0, 0]) + good[8:])
case("npy_header_longer_than_file", good[:8] + struct.pack("<H", 65535) + good[10:])
case("npy_v2_header_4gib", b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFFF) + b"{" * 20)
case("npy_v3_header_over_100mib", b"\x93NUMPY\x03\x00" + struct.pack("<I", 100 * 2**20 + 1) + b"{" * 20)
case("npy_v2_header_claims_1000", b"\x93NUMPY\x02\x00" + struct.pack("<I", 1000) + b"{'descr'")
case("npy_preamble_only", b"\x93NUMPY\x01")
case("npy_empty_header", b"\x93NUMPY\x01\x00\x00\x00")
# --- .npy: data types numpy has and the tool does not
for label, descr in [("big_endian_f4", "'>f4'"), ("big_endian_i8", "'>i8'"), ("bool", "'|b1'"),
                     ("complex64", "'<c8'"), ("complex128", "'<c16'"), ("unicode", "'<U5'"),
                     ("bytes", "'|S4'"), ("object", "'|O'"), ("datetime", "'<M8[ns]'"),
                     ("timedelta", "'<m8[s]'"), ("void", "'|V8'"), ("float128", "'<f16'"),
                     ("pipe_f4", "'|f4'"), ("no_kind", "'<'"), ("empty_descr", "''"),
                     ("structured", "[('x', '<f4'), ('y', '<i4')]"), ("descr_number", "4")]:
    case("npy_dtype_" + label, npyd(descr))
# --- .npy: shapes
case("npy_shape_zero", npyd("'<f4'", "(0,)"))
case("npy_shape_zero_middle", npyd("'<f4'", "(2, 0, 3)"))
case("npy_shape_9_dims", npyd("'<f4'", "(1, 1, 1, 1, 1, 1, 1, 1, 2)"))
case("npy_shape_not_tuple", npyd("'<f4'", "(5)"))
case("npy_shape_list", npyd("'<f4'", "[2, 3]"))
case("npy_shape_negative", npyd("'<f4'", "(-1,)"))
case("npy_shape_2_64", npyd("'<f4'", "(18446744073709551616,)"))
case("npy_shape_bytes_overflow", npyd("'<f8'", "(4294967296, 4294967296)"))
case("npy_shape_leading_zero", npyd("'<f4'", "(02,)"))
case("npy_shape_unclosed", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, }"))
case("npy_data_short", npyd("'<f4'", "(100,)"))
case("npy_data_short_fortran", npyd("'<i2'", "(3, 5)", "True", b"\0" * 29))
# --- .npy: the dictionary
case("npy_fortran_int", npyd("'<f4'", "(2,)", "1"))
case("npy_fortran_lowercase", npyd("'<f4'", "(2,)", "false"))
case("npy_missing_shape", npy("{'descr': '<f4', 'fortran_order': False, }"))
case("npy_missing_descr", npy("{'fortran_order': False, 'shape': (2,), }"))
case("npy_duplicate_key", npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"))
case("npy_unknown_key", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1, }"))
case("npy_escape", npy("{'descr': '<\\x66\\x34', 'fortran_order': False, 'shape': (2,), }"))
case("npy_unclosed_string", npy("{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }"))
case("npy_trailing_text", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x"))
case("npy_not_dict", npy("['descr', '<f4']"))
case("npy_missing_colon", npy("{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }"))
case("npy_nul_in_header", npy("{'descr': '<f4',\0'fortran_order': False, 'shape': (2,), }"))
case("npy_latin1_in_header", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\xe9': 1}"))
case("npy_name_given", good, "dump bad/tf_npy_name_given.npy:x")
# --- safetensors: the length and the header
case("st_len_2_64_minus_1", b"\xff" * 8 + b'{"t":{}}')
case("st_len_near_2_64", struct.pack("<Q", 2**64 - 16) + b'{"t":{}}')
case("st_len_over_100mib", struct.pack("<Q", 100 * 2**20 + 1) + b'{"t":{}}')
case("st_header_longer_than_file", struct.pack("<Q", 1000) + b'{"t":{"dtype":"F32"}}')
case("st_malformed_json", tf.safetensors([], header=None)[:8] + b"")  # replaced below
case("st_truncated_length", b"\x10\x00\x00")
good_st = tf.safetensors([F32x2])
cases.pop("st_malformed_json")


def sth(text, data=b"\0" * 8):
    """A safetensors file with this header text."""
    text = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(text)) + text + data


case("st_malformed_json", sth('{"t":{"dtype":"F32","shape":[2],'))
case("st_trailing_text", sth('{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} x'))
case("st_header_array", sth('{"t":[0,8]}'))
case("st_nul_in_header", sth('{"t":{"dtype":"F32",\0"shape":[2],"data_offsets":[0,8]}}'))
# --- safetensors: offsets
for label, offs, data in [("reversed", "[8,0]", 8), ("outside", "[0,8]", 4), ("outside_far", "[0,9007199254740991]", 8),
                          ("size_mismatch", "[0,12]", 12), ("not_array", '"0-8"', 8), ("three", "[0,4,8]", 8),
                          ("negative", "[-8,0]", 8), ("fraction", "[0,7.5]", 8),
                          ("2_64", "[0,18446744073709551616]", 8), ("strings", '["0","8"]', 8)]:
    case("st_offsets_" + label, sth('{"t":{"dtype":"F32","shape":[2],"data_offsets":%s}}' % offs, b"\0" * data))
# --- safetensors: shapes, data types, names, metadata
for label, shape in [("zero", "[2,0]"), ("9_dims", "[1,1,1,1,1,1,1,1,2]"), ("negative", "[-2]"),
                     ("overflow", "[4294967296,4294967296,2]"), ("not_array", "2")]:
    case("st_shape_" + label, sth('{"t":{"dtype":"F32","shape":%s,"data_offsets":[0,8]}}' % shape))
for label, dt in [("unknown", "Q8"), ("bool", "BOOL"), ("f8", "F8_E4M3"), ("f8_e5m2", "F8_E5M2"),
                  ("lowercase", "f32"), ("complex", "C64"), ("f4", "F4"), ("number", 4)]:
    dts = '"%s"' % dt if isinstance(dt, str) else str(dt)
    case("st_dtype_" + label, sth('{"t":{"dtype":%s,"shape":[2],"data_offsets":[0,8]}}' % dts))
case("st_duplicate_names", sth('{"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},'
                               '"t":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}}'))
# a NUL in a name is refused, never cut short (a\u0000b is not a)
case("st_name_nul", sth('{"a\\u0000b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'), "list")
case("st_metadata_key_nul", sth('{"__metadata__":{"k\\u0000":"v"},"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'))
case("st_nested_1001", sth('{"__metadata__":{"k":"v"},"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":' + "[" * 1001 + "]" * 1001 + "}}"))
case("st_missing_dtype", sth('{"t":{"shape":[2],"data_offsets":[0,8]}}'))
case("st_missing_offsets", sth('{"t":{"dtype":"F32","shape":[2]}}'))
case("st_tensor_not_object", sth('{"t":"F32"}'))
case("st_metadata_number", sth('{"__metadata__":{"epoch":3},"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'))
case("st_metadata_array", sth('{"__metadata__":[],"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'))
case("st_metadata_twice", sth('{"__metadata__":{},"__metadata__":{},"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'))
# --- safetensors: what lies between the tensors (list reports, the others refuse)
two = sth('{"a":{"dtype":"U8","shape":[6],"data_offsets":[0,6]},'
          '"b":{"dtype":"U8","shape":[6],"data_offsets":[4,10]}}', b"\0" * 10)
case("st_overlap_list", two, "list bad/tf_st_overlap_list.safetensors")
case("st_overlap_dump", two, "dump bad/tf_st_overlap_dump.safetensors:a")
gap = sth('{"a":{"dtype":"U8","shape":[4],"data_offsets":[2,6]},'
          '"b":{"dtype":"U8","shape":[2],"data_offsets":[8,10]}}', b"\0" * 12)
case("st_gaps_list", gap, "list bad/tf_st_gaps_list.safetensors")
case("st_gaps_list_json", gap, "list --json bad/tf_st_gaps_list_json.safetensors")
case("st_gaps_inspect", gap, "inspect bad/tf_st_gaps_inspect.safetensors:b")
# --- names
three = tf.safetensors([("a.b", "U8", (2,), b"\1\2"), ("c/d:0", "U8", (1,), b"\3"),
                        ("e", "U8", (1,), b"\4")])
case("st_name_missing", three, "dump bad/tf_st_name_missing.safetensors")
case("st_name_unknown", three, "dump bad/tf_st_name_unknown.safetensors:nope")
case("st_name_prefix", three, "dump bad/tf_st_name_prefix.safetensors:c/d")

for name in list(os.listdir(here)):
    if name.startswith("tf_"):
        os.remove(os.path.join(here, name))
for name in list(os.listdir(tests)):
    if name.startswith("tf_") and not name.startswith("tf_hand_"):
        os.remove(os.path.join(tests, name))
for name, (data, cmd) in sorted(cases.items()):
    ext = ".npy" if name.startswith("npy_") else ".safetensors"
    with open(os.path.join(here, "tf_" + name + ext), "wb") as f:
        f.write(data)
    if cmd in ("inspect", "dump", "list"):
        cmd = "%s bad/tf_%s%s" % (cmd, name, ext)
    with open(os.path.join(tests, "tf_" + name + ".sh"), "w") as f:
        f.write("$TL %s; echo exit $?\n" % cmd)
print(len(cases), "cases")
