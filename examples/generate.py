#!/usr/bin/env python3
"""Writes the example descriptions' data files.  The .bin files are committed;
run this only to regenerate them (python3 examples/generate.py)."""
import json
import math
import os
import struct
import sys
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "tensorfiles"))
import tensorfiles  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))


def write(name, fmt, values):
    with open(os.path.join(here, name), "wb") as f:
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


# The reference pages' letters A..L stand for 1..12 here.
write("hw.bin", "f", [1, 2, 3, 4, 5, 6])                  # A B C / D E F, row-major
write("wh.bin", "f", [1, 4, 2, 5, 3, 6])                  # A D B E C F, column-major
write("dhw.bin", "f", list(range(1, 13)))                 # A..L, DHW
write("broadcast.bin", "f", [1, 2, 3])                    # A B C, height-stride 0
write("padded.bin", "f", [1, 2, 3, 0, 0, 4, 5, 6, 0, 0])  # A B C x x D E F x x
write("overlap.bin", "f", [1, 2, 3, 4, 5])                # 3x3 with strides 1,1
write("nchw.bin", "f", list(range(15)))                   # {1,1,3,5}, NCHW
write("nhwc.bin", "f", list(range(15)))                   # {1,1,3,5}, NHWC: same bytes, C = 1
# DxDispatch: FLOAT16 1x2x2x3 stored NHWC
nhwc = []
for h in range(2):
    for w in range(3):
        for c in range(2):
            nhwc.append(c * 100 + h * 10 + w + 0.5)
write("dxdispatch.bin", "e", nhwc)
# A realistic image: FLOAT32 NCHW 1x3x32x48, a smooth colour gradient in [0,1].
img = []
for c in range(3):
    for y in range(32):
        for x in range(48):
            img.append(round(0.5 + 0.5 * math.sin((x + 2 * y) / 9.0 + 2.1 * c), 3))
write("image.bin", "f", img)

# Tensor files.  An NCHW FLOAT32 .npy of shape (1, 2, 2, 3) holding 0..11, as
# np.save writes it; a Fortran-order INT16 (2, 3) .npy of [[1,2,3],[4,5,6]];
# a safetensors file of three tensors (FLOAT32, FLOAT16 and BFLOAT16) whose
# names hold '.', '/' and ':'.
with open(os.path.join(here, "nchw.npy"), "wb") as f:
    f.write(tensorfiles.npy_header("<f4", (1, 2, 2, 3)))
    f.write(struct.pack("<12f", *range(12)))
with open(os.path.join(here, "fortran.npy"), "wb") as f:
    f.write(tensorfiles.npy_header("<i2", (2, 3), fortran=True))
    f.write(struct.pack("<6h", 1, 4, 2, 5, 3, 6))     # column by column
with open(os.path.join(here, "model.safetensors"), "wb") as f:
    f.write(tensorfiles.safetensors([
        ("conv.weight", "F32", (2, 1, 2, 2), struct.pack("<8f", *[0.5 * i for i in range(8)])),
        ("conv.bias", "F16", (2,), struct.pack("<2e", 0.25, -1.5)),
        ("embed/table:0", "BF16", (2, 3), tensorfiles.bf16([1, 2, 3, 0.1, -0.5, 100])),
    ], metadata={"format": "pt", "source": "examples/generate.py"}))

# compare: a FLOAT32 NCHW reference (1, 3, 4, 5) as numpy saves it, and a
# GPU readback of it: FLOAT16, NHWC, each row of 5 pixels x 3 channels padded
# from 15 to 16 elements, with one element wrong (at [0,2,3,4]).
ref = [round(0.1 * (c * 20 + h * 5 + w) - 1.0, 3) for c in range(3) for h in range(4) for w in range(5)]
with open(os.path.join(here, "reference.npy"), "wb") as f:
    f.write(tensorfiles.npy_header("<f4", (1, 3, 4, 5)))
    f.write(struct.pack("<60f", *ref))
readback = [0.0] * (4 * 16)
for c in range(3):
    for h in range(4):
        for w in range(5):
            v = ref[c * 20 + h * 5 + w]
            if (c, h, w) == (2, 3, 4):
                v = 9.5
            readback[h * 16 + w * 3 + c] = v
write("readback.bin", "e", readback)

# A buffer map (readback_map.json): one readback resource holding an
# operator's FLOAT16 1x16x7x7 input (NHWC), its FLOAT32 bias and a UINT8
# mask, bound at 256-byte aligned offsets; the mask's binding is 256 bytes.
buf = bytearray(2304)
buf[0:1568] = struct.pack("<784e", *[(c * 49 + h * 7 + w) / 8
                                    for h in range(7) for w in range(7) for c in range(16)])
buf[1792:1856] = struct.pack("<16f", *[0.5 * i - 2 for i in range(16)])
buf[2048:2097] = bytes(i % 2 for i in range(49))
with open(os.path.join(here, "readback_map.bin"), "wb") as f:
    f.write(bytes(buf))

# A checkpoint as real ones are: tensors of types the tool does not decode
# (BOOL, F8_E4M3, C64) and with no elements beside the ones it converts.
with open(os.path.join(here, "mixed.safetensors"), "wb") as f:
    f.write(tensorfiles.safetensors([
        ("conv.weight", "F32", (2, 2, 1, 2), struct.pack("<8f", *[0.25 * i for i in range(8)])),
        ("attn.mask", "BOOL", (2, 3), bytes([1, 0, 1, 1, 1, 0])),
        ("proj.weight_fp8", "F8_E4M3", (4,), bytes([0x38, 0x40, 0x44, 0x48])),
        ("freqs", "C64", (1,), struct.pack("<2f", 1.0, -1.0)),
        ("empty.buffer", "F32", (0, 4), b""),
        ("step", "I64", (), struct.pack("<q", 1000)),
    ], metadata={"format": "pt"}))

# A sharded model as published ones are: two safetensors shards and the
# index that maps each tensor to its shard (model.safetensors.index.json).
shards = {
    "model-00001-of-00002.safetensors": [
        ("conv1.weight", "F32", (8, 3, 3, 3), [math.sin(i) for i in range(216)]),
        ("conv1.bias", "F32", (8,), [0.125 * i - 0.5 for i in range(8)])],
    "model-00002-of-00002.safetensors": [
        ("fc.weight", "F32", (10, 8), [math.cos(i) / 4 for i in range(80)]),
        ("steps", "I64", (1,), [5])]}
weight_map, total = {}, 0
os.makedirs(os.path.join(here, "sharded"), exist_ok=True)
for shard, tensors in shards.items():
    items = []
    for name, dtype, shape, vals in tensors:
        data = struct.pack("<%d%s" % (len(vals), "q" if dtype == "I64" else "f"), *vals)
        items.append((name, dtype, shape, data))
        weight_map[name] = shard
        total += len(data)
    with open(os.path.join(here, "sharded", shard), "wb") as f:
        f.write(tensorfiles.safetensors(items))
with open(os.path.join(here, "sharded", "model.safetensors.index.json"), "w") as f:
    f.write(json.dumps({"metadata": {"total_size": total, "format": "pt"},
                        "weight_map": weight_map}, indent=2) + "\n")

# An .npz as np.savez writes it: a zip of stored .npy members, one per
# array, named NAME.npy.
with zipfile.ZipFile(os.path.join(here, "weights.npz"), "w") as z:
    for name, descr, shape, fmt, vals in [
            ("conv.weight", "<f4", (4, 2, 3, 3), "f", [((i * 7) % 11) / 8 - 0.5 for i in range(72)]),
            ("conv.bias", "<f4", (4,), "f", [0.5, -0.25, 0.0, 1.0]),
            ("step", "<i8", (), "q", [1000])]:
        member = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
        z.writestr(member, tensorfiles.npy_header(descr, shape) +
                   struct.pack("<%d%s" % (len(vals), fmt), *vals))


def nibbles(values):
    """4-bit values packed two a byte, the lower index in the low nibble."""
    vals = [v & 15 for v in values] + [0] * (len(values) % 2)
    return bytes(vals[i] | vals[i + 1] << 4 for i in range(0, len(vals), 2))


# DirectML's UINT4 packing example: 1,2,3,4,5 is the bytes 0x21 0x43 0x05.
with open(os.path.join(here, "uint4.bin"), "wb") as f:
    f.write(nibbles([1, 2, 3, 4, 5]))
# A 3 x 5 INT4 weight, row-major: -8..-4, -3..1, 2..5 and 7.
with open(os.path.join(here, "int4_weight.bin"), "wb") as f:
    f.write(nibbles([-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 7]))


# Scaled weights (SPEC 18): a DeepSeek-style FP8 E4M3 weight with its
# 128 x 128 block scales, and a gpt-oss-style MXFP4 pair (blocks of 32 FP4
# values two a byte, low nibble first, and E8M0 exponents).
with open(os.path.join(here, "scaled.safetensors"), "wb") as f:
    e4m3 = bytes([0x38, 0x40, 0x44, 0x48, 0xB8, 0xC0, 0x30, 0x00])    # 1 2 3 4 -1 -2 0.5 0
    blocks = bytes((i % 16) | ((15 - i % 16) << 4) for i in range(32))
    f.write(tensorfiles.safetensors([
        ("attn.q.weight", "F8_E4M3", (2, 4), e4m3),
        ("attn.q.weight_scale_inv", "F32", (1, 1), struct.pack("<f", 0.25)),
        ("mlp.down_blocks", "U8", (2, 1, 16), blocks),
        ("mlp.down_scales", "U8", (2, 1), bytes([127, 128])),
    ]))


# A group-quantized model (SPEC 21) as AutoGPTQ writes one: a folder with
# config.json's quantization_config and a GPTQ 4-bit symmetric weight [8, 64]
# in groups of 32: qweight INT32 [8, 8] (each column the codes of one
# output row, 8 a word, low nibble first), qzeros (each stored as 8 - 1),
# FLOAT16 scales [2, 8], g_idx; and a FLOAT16 norm beside it.
def gptq_model():
    d = os.path.join(here, "gptq")
    os.makedirs(d, exist_ok=True)
    out_f, in_f = 8, 64
    code = [[(3 * o + 5 * i) % 16 for i in range(in_f)] for o in range(out_f)]
    qweight = b"".join(struct.pack("<I", sum(code[o][8 * r + j] << (4 * j) for j in range(8)))
                       for r in range(in_f // 8) for o in range(out_f))
    qzeros = struct.pack("<2I", 0x77777777, 0x77777777)
    scales = b"".join(struct.pack("<e", (1 + o + 8 * g) / 64) for g in range(2) for o in range(out_f))
    g_idx = b"".join(struct.pack("<i", i // 32) for i in range(in_f))
    with open(os.path.join(d, "model.safetensors"), "wb") as f:
        f.write(tensorfiles.safetensors([
            ("layers.0.mlp.up_proj.qweight", "I32", (8, 8), qweight),
            ("layers.0.mlp.up_proj.qzeros", "I32", (2, 1), qzeros),
            ("layers.0.mlp.up_proj.scales", "F16", (2, 8), scales),
            ("layers.0.mlp.up_proj.g_idx", "I32", (64,), g_idx),
            ("layers.0.norm.weight", "F16", (64,), struct.pack("<64e", *([1.0] * 64))),
        ]))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"architectures": ["LlamaForCausalLM"],
                   "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32,
                                           "desc_act": False, "sym": True}}, f, indent=2)
        f.write("\n")


gptq_model()


# A small llama.cpp model, written and quantized by ggml itself (its library
# from the npm package @node-llama-cpp/linux-x64, which .ci/install-deps
# unpacks into build/ggml/lib): a Q4_K and a Q6_K weight, a Q8_0 embedding, an
# F32 norm, and metadata of several types.  Skipped, keeping the committed
# file, where that library is not installed.
def gguf_model():
    sys.path.insert(0, os.path.join(here, "..", "tests", "gguf"))
    try:
        import numpy as np
        import ggml
        g = ggml.GGML()
    except (ImportError, OSError) as e:
        print("model.gguf kept (ggml not loaded: %s)" % e)
        return

    def wave(n, k):
        return np.sin(np.arange(n, dtype=np.float64) * (0.37 + k * 0.11)).astype(np.float32) * 0.1

    tensors = []
    for name, tname, ne, k in [("token_embd.weight", "Q8_0", [256, 6], 1),
                               ("blk.0.attn_q.weight", "Q4_K", [256, 4], 2),
                               ("blk.0.ffn_down.weight", "Q6_K", [256, 2], 3),
                               ("output_norm.weight", "F32", [256], 4)]:
        t = g.type_id(tname)
        vals = wave(int(np.prod(ne)), k)
        data = vals.tobytes() if tname == "F32" else g.quantize(t, vals, ne[0])
        tensors.append((name, t, ne, data))
    meta = [("general.architecture", ggml.STR, "llama"),
            ("general.name", ggml.STR, "tiny example"),
            ("llama.context_length", ggml.U32, 128),
            ("llama.rope.freq_base", ggml.F32, 10000.0),
            ("tokenizer.ggml.tokens", ("arr", ggml.STR), ["<s>", "</s>"] +
             ["tok%d" % i for i in range(38)])]
    g.write(os.path.join(here, "model.gguf"), tensors, meta)


gguf_model()


# A small PyTorch checkpoint, written by torch.save itself (Debian's
# python3-torch): a state dict with a transposed view and a tied weight,
# and values that are no tensor.  Skipped, keeping the committed file,
# where torch is not installed.
def torch_checkpoint():
    try:
        import torch
    except ImportError as e:
        print("checkpoint.pt kept (torch not loaded: %s)" % e)
        return
    w = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 4
    sd = {"encoder.weight": w, "encoder.bias": torch.tensor([0.5, -0.5, 0.25]).half(),
          "decoder.weight": w.t(), "embed.weight": torch.arange(6).reshape(2, 3).to(torch.bfloat16)}
    sd["lm_head.weight"] = sd["embed.weight"]
    torch.save({"model": sd, "epoch": 3, "lr": 0.001}, os.path.join(here, "checkpoint.pt"))
    # tensors the tool lists and does not decode: quantized, sparse, a
    # transposed complex view; a packed complex one is carried as C64
    odd = {"weight": w, "quantized": torch.quantize_per_tensor(w[0], 0.25, 0, torch.qint8),
           "sparse": torch.eye(3).to_sparse(),
           "rotary": torch.tensor([[1 + 2j, 3 - 1j], [0.5j, -1]], dtype=torch.complex64)}
    odd["rotary_t"] = odd["rotary"].t()
    torch.save(odd, os.path.join(here, "undecoded.pt"))


torch_checkpoint()


# A small ONNX model, written by onnx itself (Debian's python3-onnx): a
# convolution whose OIHW weight and bias lie in an external data file
# (model.onnx.data, as onnx.save writes large weights), a Constant node's
# INT64 shape in int64_data, and an If whose branches each hold a weight.
# Skipped, keeping the committed files, where onnx is not installed.
def onnx_model():
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as e:
        print("model.onnx kept (onnx not loaded: %s)" % e)
        return
    w = numpy_helper.from_array((np.arange(8 * 3 * 3 * 3, dtype=np.float32) / 64).reshape(8, 3, 3, 3),
                                "conv.weight")
    b = numpy_helper.from_array(np.linspace(-1, 1, 8, dtype=np.float32), "conv.bias")
    shape = helper.make_node("Constant", [], ["shape"], name="flat",
                             value=helper.make_tensor("v", TensorProto.INT64, [2], [1, -1]))
    conv = helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["y"], pads=[1, 1, 1, 1])
    reshape = helper.make_node("Reshape", ["y", "shape"], ["z"])

    def branch(name, value):
        t = helper.make_tensor("scale", TensorProto.FLOAT16, [1], np.array([value], np.float16))
        return helper.make_graph([], name, [], [helper.make_tensor_value_info("scale", TensorProto.FLOAT16, [1])], [t])
    pick = helper.make_node("If", ["use_half"], ["scale"], name="pick",
                            then_branch=branch("then", 0.5), else_branch=branch("else", 1.0))
    g = helper.make_graph([shape, conv, reshape, pick], "small_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8]),
                           helper.make_tensor_value_info("use_half", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 512]),
                           helper.make_tensor_value_info("scale", TensorProto.FLOAT16, [1])],
                          [w, b])
    m = helper.make_model(g, producer_name="examples/generate.py",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.metadata_props.append(onnx.StringStringEntryProto(key="license", value="MIT"))
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(here, "model.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=16)


onnx_model()
