"""A synthetic GGUF model for make bench (SPEC 16's speed target), written
and quantized by ggml itself (tests/gguf/ggml.py): pairs of 4096 x 1024
matrices, one Q4_K and one Q8_0, up to about MB megabytes.  The matrices of
a type share their bytes (quantized once): the conversion reads them all
the same.

Usage: python3 gguf_model.py OUT.gguf MB
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gguf"))
import ggml  # noqa: E402

g = ggml.GGML()
x = np.random.default_rng(0).standard_normal(4096 * 1024).astype(np.float32)
q4 = g.quantize(g.type_id("Q4_K"), x, 4096)
q8 = g.quantize(g.type_id("Q8_0"), x, 4096)
pairs = max(1, int(sys.argv[2]) * (1 << 20) // (len(q4) + len(q8)))
tensors = []
for i in range(pairs):
    tensors.append(("blk.%d.attn_q.weight" % i, g.type_id("Q4_K"), [4096, 1024], q4))
    tensors.append(("blk.%d.ffn_down.weight" % i, g.type_id("Q8_0"), [4096, 1024], q8))
g.write(sys.argv[1], tensors, [("general.architecture", ggml.STR, "llama")])
