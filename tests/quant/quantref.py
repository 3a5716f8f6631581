"""The published reference packing and dequantization of the group-quantized
schemes (SPEC 21), written with torch from the schemes' own code, the oracle
of the tests: nothing here comes from the tool.

- GPTQ: AutoGPTQ's QuantLinear.pack (auto_gptq/nn_modules/qlinear/
  qlinear_cuda_old.py) writes qweight [in*bits/32, out] by packing 32/bits
  rows of the integer weight into one, row j - i at bits*(j - i) (3 bits:
  a stream of 10 + 1 values across three words), and qzeros [G, out*bits/32]
  the same way along out from zeros - 1; its forward's dequantization
  shifts each word right by wf = [0, bits, 2*bits, ...], masks, adds 1 to
  the zeros (v1; GPTQModel's gptq_v2 stores them as they are) and computes
  scales[g_idx] * (weight - zeros[g_idx]).
- AWQ GEMM: AutoAWQ's WQLinear_GEMM.from_linear packs column
  8*col + order_map[i] into nibble i of qweight[:, col] with order_map =
  [0, 2, 4, 6, 1, 3, 5, 7]; awq/utils/packing_utils.py's unpack_awq,
  reverse_awq_order (AWQ_REVERSE_ORDER = [0, 4, 1, 5, 2, 6, 3, 7]) and
  dequantize_gemm compute (iweight - izeros) * scales per group.
- compressed-tensors pack-quantized: compressors/quantized_compressors/
  pack_quantized.py's pack_to_int32 (values plus 2^(bits-1), packed along
  the last dimension, or along the first for the zero point: packed_dim=0)
  and unpack_from_int32, and quantization/lifecycle's dequantize:
  (x_q - zero_point) * scale per group.
"""
import numpy as np
import torch

AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]
AWQ_REVERSE_ORDER = [0, 4, 1, 5, 2, 6, 3, 7]


def quantize(w, bits, group, sym, g_idx=None):
    """Integer codes, zeros and scales of a float weight w [out, in]: the
    min-max quantizer of the GPTQ/AWQ papers (codes 0 .. 2^bits - 1, a
    symmetric one centred on 2^(bits-1)). @return (intweight [in, out] int,
    zeros [G, out] int, scales [G, out] float16, g_idx [in] int)."""
    out_f, in_f = w.shape
    if g_idx is None:
        g_idx = torch.arange(in_f) // group
    G = int(g_idx.max()) + 1
    maxq = 2 ** bits - 1
    scales = torch.zeros(G, out_f, dtype=torch.float16)
    zeros = torch.zeros(G, out_f, dtype=torch.int32)
    for g in range(G):
        cols = w[:, g_idx == g]
        lo, hi = cols.min(1).values.clamp(max=0), cols.max(1).values.clamp(min=0)
        if sym:
            hi = torch.maximum(lo.abs(), hi)
            s = (2 * hi / maxq).clamp(min=1e-5)
            z = torch.full((out_f,), (maxq + 1) // 2, dtype=torch.int32)
        else:
            s = ((hi - lo) / maxq).clamp(min=1e-5)
            z = torch.round(-lo / s).to(torch.int32).clamp(0, maxq)
        scales[g] = s.to(torch.float16)
        zeros[g] = z
    sc = scales.float()[g_idx].T            # [out, in]
    q = torch.round(w / sc + zeros[g_idx].T).clamp(0, maxq).to(torch.int32)
    return q.T.contiguous(), zeros, scales, g_idx.to(torch.int32)


def _pack_rows(v, bits):
    """AutoGPTQ's row packing: v [n, m] unsigned codes -> [n*bits/32, m]
    int32, a stream of bits-wide codes down each column."""
    n, m = v.shape
    v = v.to(torch.int64)
    bitpos = torch.arange(n, dtype=torch.int64) * bits
    out = torch.zeros((n * bits + 31) // 32, m, dtype=torch.int64)
    for j in range(n):
        word, sh = int(bitpos[j]) // 32, int(bitpos[j]) % 32
        out[word] |= (v[j] << sh) & 0xFFFFFFFF
        if sh + bits > 32:
            out[word + 1] |= v[j] >> (32 - sh)
    return (out & 0xFFFFFFFF).to(torch.int64).numpy().astype(np.uint32).view(np.int32)


def gptq_pack(intweight, zeros, bits, v2=False):
    """qweight, qzeros (int32 numpy) as AutoGPTQ's pack writes them (v1:
    zeros - 1, a zero of 0 kept to its bits: stored 2^bits - 1)."""
    qweight = _pack_rows(intweight, bits)
    z = zeros if v2 else (zeros - 1) & (2 ** bits - 1)
    qzeros = _pack_rows(z.T.contiguous(), bits).T.copy()
    return qweight, qzeros


def _unpack_rows(q, bits, n):
    """The reverse: [words, m] int32 -> [n, m] codes."""
    u = torch.from_numpy(q.view(np.uint32).astype(np.int64))
    out = torch.zeros(n, u.shape[1], dtype=torch.int64)
    for j in range(n):
        word, sh = j * bits // 32, j * bits % 32
        v = u[word] >> sh
        if sh + bits > 32:
            v = v | (u[word + 1] << (32 - sh))
        out[j] = v & (2 ** bits - 1)
    return out


def gptq_dequant(qweight, qzeros, scales, g_idx, bits, v2=False):
    """AutoGPTQ's dequantization: [out, in] float32 (exact products)."""
    n_in = qweight.shape[0] * 32 // bits
    if bits in (2, 4, 8):                   # the wf shifts of its forward
        wf = torch.arange(0, 32, bits, dtype=torch.int32)
        qw = torch.from_numpy(qweight)
        weight = torch.bitwise_right_shift(qw.unsqueeze(1).expand(-1, 32 // bits, -1),
                                           wf.unsqueeze(-1)) & (2 ** bits - 1)
        weight = weight.reshape(n_in, -1).to(torch.int64)
        qz = torch.from_numpy(qzeros)
        zeros = torch.bitwise_right_shift(qz.unsqueeze(2).expand(-1, -1, 32 // bits),
                                          wf.unsqueeze(0)).to(torch.int64)
        zeros = zeros.reshape(qz.shape[0], -1)
    else:
        weight = _unpack_rows(qweight, bits, n_in)
        zeros = _unpack_rows(np.ascontiguousarray(qzeros.T), bits, scales.shape[1]).T
    zeros = zeros & (2 ** bits - 1)         # masked, then the v1 "+ 1" (15 becomes 16)
    if not v2:
        zeros = zeros + 1
    zeros = zeros[:, :scales.shape[1]]
    g = torch.as_tensor(g_idx, dtype=torch.int64)
    w = scales.float()[g] * (weight - zeros[g]).float()
    return w.T.contiguous()


def awq_pack(intweight, zeros):
    """qweight [in, out/8], qzeros [G, out/8] as AutoAWQ's from_linear."""
    def pack(v):
        n, m = v.shape
        out = torch.zeros(n, m // 8, dtype=torch.int64)
        for col in range(m // 8):
            for i in range(8):
                out[:, col] |= v[:, col * 8 + AWQ_ORDER[i]].to(torch.int64) << (i * 4)
        return out.numpy().astype(np.uint32).view(np.int32)
    return pack(intweight), pack(zeros)


def awq_dequant(qweight, qzeros, scales, group):
    """AutoAWQ's unpack_awq, reverse_awq_order and dequantize_gemm."""
    shifts = torch.arange(0, 32, 4)
    def unpack(q):
        t = torch.from_numpy(q)
        iw = torch.bitwise_right_shift(t[:, :, None], shifts[None, None, :]).to(torch.int8)
        iw = iw.view(iw.shape[0], -1)
        order = torch.arange(iw.shape[-1]).view(-1, 8)[:, AWQ_REVERSE_ORDER].view(-1)
        return torch.bitwise_and(iw[:, order], 0xF).to(torch.int64)
    iweight, izeros = unpack(qweight), unpack(qzeros)
    izeros = izeros.repeat_interleave(group, dim=0)
    sc = scales.float().repeat_interleave(group, dim=0)
    return ((iweight - izeros).float() * sc).T.contiguous()


def pack_to_int32(value, bits, packed_dim=1):
    """compressed-tensors' pack_to_int32 of signed int8 values."""
    offset = 1 << (bits - 1)
    v = (value.to(torch.int32) + offset).to(torch.int64)
    if packed_dim == 0:
        v = v.T
    rows, cols = v.shape
    pf = 32 // bits
    padded = -(-cols // pf) * pf
    v = torch.nn.functional.pad(v, (0, padded - cols))
    v = v.reshape(rows, padded // pf, pf)
    packed = (v << (torch.arange(pf) * bits)).sum(2) & 0xFFFFFFFF
    packed = packed.numpy().astype(np.uint32).view(np.int32)
    return packed.T.copy() if packed_dim == 0 else packed


def unpack_from_int32(value, bits, shape, packed_dim=1):
    """compressed-tensors' unpack_from_int32: signed int8 values."""
    t = torch.from_numpy(np.ascontiguousarray(value))
    pf = 32 // bits
    mask = (1 << bits) - 1
    if packed_dim == 1:
        u = torch.zeros(t.shape[0], t.shape[1] * pf, dtype=torch.int32)
        for i in range(pf):
            u[:, i::pf] = (t >> (bits * i)) & mask
        u = u[:, :shape[1]]
    else:
        u = torch.zeros(t.shape[0] * pf, t.shape[1], dtype=torch.int32)
        for i in range(pf):
            u[i::pf, :] = (t >> (bits * i)) & mask
        u = u[:shape[0], :]
    return (u - (2 ** bits) // 2).to(torch.int8)


def ct_quantize(w, bits, group, sym, scale_dtype=torch.bfloat16):
    """compressed-tensors' int quantization of w [out, in], by group
    (group = in: per channel): q int8, scale [out, G], zero_point int8."""
    out_f, in_f = w.shape
    G = in_f // group
    wg = w.reshape(out_f, G, group)
    qmin, qmax = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    lo, hi = wg.min(2).values.clamp(max=0), wg.max(2).values.clamp(min=0)
    if sym:
        s = (torch.maximum(lo.abs(), hi) / ((qmax - qmin) / 2)).clamp(min=1e-5)
        zp = torch.zeros(out_f, G, dtype=torch.int8)
    else:
        s = ((hi - lo) / (qmax - qmin)).clamp(min=1e-5)
        zp = torch.round(qmin - lo / s).clamp(qmin, qmax).to(torch.int8)
    s = s.to(scale_dtype)
    q = torch.round(wg / s.float()[:, :, None] + zp[:, :, None].float()).clamp(qmin, qmax)
    return q.reshape(out_f, in_f).to(torch.int8), s, zp


def ct_dequant(q, scale, zp, group, out_dtype=torch.float32):
    """compressed-tensors' dequantize: (x_q - zero_point) * scale, computed
    in the scale's type (then widened) unless out_dtype is FLOAT32."""
    sc = scale.repeat_interleave(group, dim=1)
    z = zp.repeat_interleave(group, dim=1)
    if out_dtype == torch.float32:
        return (q.to(torch.float32) - z.to(torch.float32)) * sc.to(torch.float32)
    return (q.to(sc.dtype) - z.to(sc.dtype)) * sc
