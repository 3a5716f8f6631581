"""make bench's PyTorch checkpoint (SPEC 17's speed target): torch.save of a
state dict of about MB megabytes of FLOAT32 4096 x 1024 matrices and their
biases (write OUT MB); and the Python way to convert it, torch.load then a
safetensors file written from its tensors (python3 torch_model.py convert
IN OUT), the bench's baseline.

Usage: python3 torch_model.py write OUT MB | convert IN OUT
"""
import json
import struct
import sys

import torch

if sys.argv[1] == "write":
    n = max(1, int(sys.argv[3]) * (1 << 20) // (4096 * 1024 * 4))
    g = torch.Generator().manual_seed(0)
    w = torch.randn(4096, 1024, generator=g)
    sd = {}
    for i in range(n):
        sd["layers.%d.weight" % i] = w.clone()
        sd["layers.%d.bias" % i] = torch.zeros(4096)
    torch.save(sd, sys.argv[2])
else:
    sd = torch.load(sys.argv[2])
    header, pos = {}, 0
    for k, v in sd.items():
        header[k] = {"dtype": "F32", "shape": list(v.shape),
                     "data_offsets": [pos, pos + v.numel() * 4]}
        pos += v.numel() * 4
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(sys.argv[3], "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for v in sd.values():
            f.write(v.contiguous().numpy().tobytes())
