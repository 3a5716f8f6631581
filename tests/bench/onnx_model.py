"""make bench's ONNX model (SPEC 20's speed targets): an ONNX model of about
MB megabytes of FLOAT 4096 x 1024 weights and their biases in one external
data file (write OUT MB); and the Python ways of the two jobs, the bench's
baselines: onnx.load, numpy_helper.to_array, numpy's cast to BFLOAT16 and a
safetensors file written from the arrays (bf16 IN OUT); onnx.load then
save_model with save_as_external_data (external IN OUT).

Usage: python3 onnx_model.py write OUT MB | bf16 IN OUT | external IN OUT
"""
import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

if sys.argv[1] == "write":
    n = max(1, int(sys.argv[3]) * (1 << 20) // (4096 * 1024 * 4))
    w = np.random.default_rng(0).standard_normal((4096, 1024), dtype=np.float32)
    inits = []
    for i in range(n):
        inits.append(numpy_helper.from_array(w, "layers.%d.weight" % i))
        inits.append(numpy_helper.from_array(np.zeros(4096, np.float32), "layers.%d.bias" % i))
    g = helper.make_graph([], "g", [], [], inits)
    m = helper.make_model(g)
    onnx.save(m, sys.argv[2], save_as_external_data=True, all_tensors_to_one_file=True,
              location=os.path.basename(sys.argv[2]) + ".data", size_threshold=1024)
elif sys.argv[1] == "bf16":
    m = onnx.load(sys.argv[2])
    header, pos, arrays = {}, 0, []
    for t in m.graph.initializer:
        a = numpy_helper.to_array(t).astype(np.float32)
        bits = a.view(np.uint32)
        b = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        header[t.name] = {"dtype": "BF16", "shape": list(a.shape),
                          "data_offsets": [pos, pos + b.nbytes]}
        pos += b.nbytes
        arrays.append(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(sys.argv[3], "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for b in arrays:
            f.write(b.tobytes())
else:
    m = onnx.load(sys.argv[2])
    onnx.save_model(m, sys.argv[3], save_as_external_data=True, all_tensors_to_one_file=True,
                    location=os.path.basename(sys.argv[3]) + ".data", size_threshold=1024)
