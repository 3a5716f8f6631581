"""Synthetic scaled-weight models for make bench (SPEC 18's speed targets),
written by numpy as safetensors, about MB megabytes of weights:

  fp8    DeepSeek's layout: W FLOAT8E4M3 [4096, 8192] beside W_scale_inv
         FLOAT32 [32, 64], codes from normal values (no NaN code)
  mxfp4  gpt-oss's layout: W_blocks UINT8 [32, 2048, 16] beside W_scales
         UINT8 [32, 2048], exponents around 2^0
  gptq   GPTQ 4-bit, groups of 128 (SPEC 21): qweight INT32 [512, 4096]
         (a [4096, 4096] weight), qzeros, FLOAT16 scales, g_idx
  awq    AWQ GEMM 4-bit, groups of 128: qweight INT32 [4096, 512]
  ct     compressed-tensors pack-quantized 4-bit symmetric, groups of 128:
         weight_packed INT32 [4096, 512], BFLOAT16 weight_scale

Usage: python3 scaled_model.py OUT fp8|mxfp4|gptq|awq|ct MB
"""
import json
import sys

import numpy as np

out, kind, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(0)
tensors = []
if kind == "fp8":
    w = rng.integers(0, 256, size=(4096, 8192), dtype=np.uint8)
    w[(w & 0x7f) == 0x7f] ^= 1                         # no NaN code
    s = (rng.random((32, 64), dtype=np.float32) + 0.5) / 448
    n = max(1, mb * (1 << 20) // w.size)
    for i in range(n):
        tensors.append(("model.layers.%d.mlp.down_proj.weight" % i, "F8_E4M3", w))
        tensors.append(("model.layers.%d.mlp.down_proj.weight_scale_inv" % i, "F32", s))
elif kind in ("gptq", "awq", "ct"):
    codes = rng.integers(-2 ** 31, 2 ** 31, size=(512, 4096), dtype=np.int64).astype(np.int32)
    zeros = np.full((32, 512), 0x77777777, dtype=np.int32)
    scales = ((rng.random((32, 4096), dtype=np.float32) + 0.5) / 64).astype(np.float16)
    n = max(1, mb * (1 << 20) // codes.nbytes)
    for i in range(n):
        p = "model.layers.%d.mlp.down_proj." % i
        if kind == "gptq":
            tensors += [(p + "qweight", "I32", codes), (p + "qzeros", "I32", zeros),
                        (p + "scales", "F16", scales),
                        (p + "g_idx", "I32", np.arange(4096, dtype=np.int32) // 128)]
        elif kind == "awq":
            tensors += [(p + "qweight", "I32", codes.reshape(4096, 512)),
                        (p + "qzeros", "I32", zeros), (p + "scales", "F16", scales)]
        else:
            bf = (scales.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            tensors += [(p + "weight_packed", "I32", codes.reshape(4096, 512)),
                        (p + "weight_scale", "BF16", bf.reshape(32, 4096).T.copy()),
                        (p + "weight_shape", "I64", np.array([4096, 4096], dtype=np.int64))]
else:
    b = rng.integers(0, 256, size=(32, 2048, 16), dtype=np.uint8)
    s = rng.integers(120, 134, size=(32, 2048), dtype=np.uint8)
    n = max(1, mb * (1 << 20) // b.size)
    for i in range(n):
        tensors.append(("model.layers.%d.mlp.experts.down_proj_blocks" % i, "U8", b))
        tensors.append(("model.layers.%d.mlp.experts.down_proj_scales" % i, "U8", s))
header, pos = {}, 0
for name, dt, a in tensors:
    header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [pos, pos + a.nbytes]}
    pos += a.nbytes
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(out, "wb") as f:
    f.write(len(h).to_bytes(8, "little") + h)
    for _, _, a in tensors:
        f.write(a.tobytes())
