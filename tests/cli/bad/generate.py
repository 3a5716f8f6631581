#!/usr/bin/env python3
"""Writes the generated part of the bad-input corpus: tests/cli/bad/gen_*.json
and one test tests/cli/corpus/NAME.sh each (run `UPDATE=1 make test-cli` after,
and review the expectations).  The files are committed; CI does not run this."""
import os

here = os.path.dirname(os.path.abspath(__file__))
tests = os.path.join(here, "..", "corpus")
os.makedirs(tests, exist_ok=True)
cases = {}


def case(name, text):
    cases[name] = text


base = '"dataType": "FLOAT32", "sizes": [2, 3]'
wrong = {"true": "true", "false": "false", "object": "{}", "emptyarray": "[]",
         "string": '"x"', "fraction": "1.5", "negative": "-1", "huge": "1e300",
         "above2_64": "18446744073709551616", "neg_zero_frac": "-0.5"}
# every wrong value for every optional key
for key in ["strides", "layout", "broadcast", "totalTensorSizeInBytes",
            "guaranteedBaseOffsetAlignment", "flags", "dimensionCount", "byteOffset"]:
    for label, value in wrong.items():
        if key in ("layout", "broadcast") and label == "string":
            continue                 # a string is a valid form there
        if key == "broadcast" and label == "emptyarray":
            continue                 # no axes broadcast: valid
        if key == "flags" and label == "emptyarray":
            continue                 # no flags: valid
        case("gen_%s_%s" % (key, label), "{%s, \"%s\": %s}\n" % (base, key, value))
# required keys: wrong values
for label, value in list(wrong.items()) + [("null", "null")]:
    case("gen_dataType_%s" % label, '{"dataType": %s, "sizes": [2, 3]}\n' % value)
    if label not in ("emptyarray",):
        case("gen_sizes_%s" % label, '{"dataType": "FLOAT32", "sizes": %s}\n' % value)
for label, value in [("true", "true"), ("null", "null"), ("nested", "[1]"), ("object", "{}"),
                     ("string", '"2"'), ("huge", "1e300"), ("above2_64", "18446744073709551615")]:
    case("gen_sizes_entry_%s" % label, '{"dataType": "FLOAT32", "sizes": [2, %s]}\n' % value)
    case("gen_strides_entry_%s" % label,
         '{"dataType": "FLOAT32", "sizes": [2, 3], "strides": [3, %s]}\n' % value)
# data type names
for label, value in [("empty", '""'), ("space", '"FLOAT 32"'), ("prefix_only", '"DML_TENSOR_DATA_TYPE_"'),
                     ("float8", '"FLOAT8E4M3"'), ("lower_unknown", '"float128"'), ("int2", '"INT2"')]:
    case("gen_dtype_%s" % label, '{"dataType": %s, "sizes": [2]}\n' % value)
# spans and offsets near 2^64
case("gen_span_near_2_64", '{"dataType": "UINT8", "sizes": [2049, 2], "strides": [9007199254740992, 1]}\n')
case("gen_span_bytes_near_2_64", '{"dataType": "UINT16", "sizes": [1025], "strides": [9007199254740992]}\n')
case("gen_count_near_2_64", '{"dataType": "UINT8", "sizes": [65536, 65536, 65536, 65536]}\n')
case("gen_total_plus_offset", '{"dataType": "UINT8", "sizes": [1], "totalTensorSizeInBytes": 9007199254740992, '
     '"byteOffset": 9007199254740992}\n')
case("gen_layout_strides_overflow", '{"dataType": "UINT8", "sizes": [4294967296, 4294967296, 4294967296], '
     '"layout": "WHD"}\n')
# truncated at every step
full = '{"dataType": "FLOAT32", "sizes": [2, 3], "strides": [3, 1]}'
for n in [1, 5, 12, 13, 24, 25, 34, 36, 39, 47, 55, 58]:
    case("gen_truncated_%02d" % n, full[:n])
# malformed JSON
for label, text in [("single_quotes", "{'dataType': 'FLOAT32', 'sizes': [2]}"),
                    ("trailing_comma_object", '{"dataType": "FLOAT32", "sizes": [2],}'),
                    ("comment", '{"dataType": "FLOAT32", /* c */ "sizes": [2]}'),
                    ("nan_literal", '{"dataType": "FLOAT32", "sizes": [NaN]}'),
                    ("unquoted_key", '{dataType: "FLOAT32", "sizes": [2]}'),
                    ("leading_plus", '{"dataType": "FLOAT32", "sizes": [+2]}'),
                    ("hex_number", '{"dataType": "FLOAT32", "sizes": [0x2]}'),
                    ("missing_value", '{"dataType": "FLOAT32", "sizes": }'),
                    ("two_objects", '{"dataType": "FLOAT32", "sizes": [2]}{}'),
                    ("bare_string", '"FLOAT32"'),
                    ("bare_number", "42"),
                    ("null_document", "null"),
                    ("unterminated_string", '{"dataType": "FLOAT32, "sizes": [2]}'),
                    ("bad_escape", '{"dataType": "FLOAT\\q32", "sizes": [2]}')]:
    case("gen_malformed_%s" % label, text + "\n")
# encodings and bytes
cases["gen_utf8_bom"] = b'\xef\xbb\xbf{"dataType": "FLOAT32", "sizes": [2]}\n'
cases["gen_utf16"] = '{"dataType": "FLOAT32", "sizes": [2]}\n'.encode("utf-16")
cases["gen_nul_byte"] = b'{"dataType": "FLOAT32",\x00 "sizes": [2]}\n'
cases["gen_binary"] = bytes(range(256))
cases["gen_non_utf8_key"] = b'{"dataType": "FLOAT32", "sizes": [2], "\xc3\x28\xff": 1}\n'
# nesting and size
case("gen_deep_in_key", '{"dataType": "FLOAT32", "sizes": ' + "[" * 40 + "]" * 40 + "}\n")
case("gen_deep_objects", '{"a": ' * 50 + "1" + "}" * 50 + "\n")
cases["gen_whitespace_2mib"] = b" " * (2 << 20)
cases["gen_whitespace_then_desc"] = b" \n\t" * 300000 + b'{"dataType": "UINT8", "sizes": [2]}'
# wrapper forms
case("gen_wrapper_desc_null", '{"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": null}\n')
case("gen_wrapper_type_number", '{"Type": 1, "Desc": {"DataType": "FLOAT32", "Sizes": [2]}}\n')
case("gen_wrapper_twice", '{"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"Type": "DML_TENSOR_TYPE_BUFFER", '
     '"Desc": {"DataType": "FLOAT32", "Sizes": [2]}}}\n')
case("gen_wrapper_no_type", '{"Desc": {"DataType": "FLOAT32", "Sizes": [2]}}\n')

for name, text in cases.items():
    data = text if isinstance(text, bytes) else text.encode()
    with open(os.path.join(here, name + ".json"), "wb") as f:
        f.write(data)
    with open(os.path.join(tests, name + ".sh"), "w") as f:
        f.write("$TL inspect bad/%s.json\n" % name)
print(len(cases), "cases")
