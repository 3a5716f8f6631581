"""ggml itself, through ctypes: the oracle of the GGUF tests (SPEC 16).

libggml-base.so comes from the npm package @node-llama-cpp/linux-x64
(.ci/install-deps unpacks it into build/ggml/lib); GGML_LIB names another.
Everything a test expects of a GGUF file comes from here: ggml quantizes,
ggml writes the files the tool reads, ggml reads the files the tool writes,
and ggml's to_float gives the decoded values.
"""
import ctypes as C
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT = os.path.join(ROOT, "build", "ggml", "lib", "libggml-base.so")


def path():
    return os.environ.get("GGML_LIB", DEFAULT)


class Traits(C.Structure):
    _fields_ = [("type_name", C.c_char_p), ("blck_size", C.c_int64),
                ("blck_size_interleave", C.c_int64), ("type_size", C.c_size_t),
                ("is_quantized", C.c_bool), ("to_float", C.c_void_p),
                ("from_float_ref", C.c_void_p)]


class InitParams(C.Structure):
    _fields_ = [("mem_size", C.c_size_t), ("mem_buffer", C.c_void_p), ("no_alloc", C.c_bool)]


class GGUFInitParams(C.Structure):
    _fields_ = [("no_alloc", C.c_bool), ("ctx", C.c_void_p)]


TO_FLOAT = C.CFUNCTYPE(None, C.c_void_p, C.POINTER(C.c_float), C.c_int64)

# GGUF's value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)


class GGML:
    def __init__(self, lib=None):
        L = C.CDLL(lib or path())
        self.L = L
        L.ggml_type_name.restype = C.c_char_p
        L.ggml_type_name.argtypes = [C.c_int]
        L.ggml_blck_size.restype = C.c_int64
        L.ggml_blck_size.argtypes = [C.c_int]
        L.ggml_type_size.restype = C.c_size_t
        L.ggml_type_size.argtypes = [C.c_int]
        L.ggml_get_type_traits.restype = C.POINTER(Traits)
        L.ggml_get_type_traits.argtypes = [C.c_int]
        L.ggml_quantize_chunk.restype = C.c_size_t
        L.ggml_quantize_chunk.argtypes = [C.c_int, C.c_void_p, C.c_void_p, C.c_int64, C.c_int64,
                                          C.c_int64, C.c_void_p]
        L.ggml_quantize_requires_imatrix.restype = C.c_bool
        L.ggml_quantize_requires_imatrix.argtypes = [C.c_int]
        L.ggml_init.restype = C.c_void_p
        L.ggml_init.argtypes = [InitParams]
        L.ggml_free.argtypes = [C.c_void_p]
        L.ggml_new_tensor.restype = C.c_void_p
        L.ggml_new_tensor.argtypes = [C.c_void_p, C.c_int, C.c_int, C.POINTER(C.c_int64)]
        L.ggml_set_name.restype = C.c_void_p
        L.ggml_set_name.argtypes = [C.c_void_p, C.c_char_p]
        L.ggml_get_data.restype = C.c_void_p
        L.ggml_get_data.argtypes = [C.c_void_p]
        L.ggml_nbytes.restype = C.c_size_t
        L.ggml_nbytes.argtypes = [C.c_void_p]
        L.gguf_init_empty.restype = C.c_void_p
        L.gguf_init_from_file.restype = C.c_void_p
        L.gguf_init_from_file.argtypes = [C.c_char_p, GGUFInitParams]
        L.gguf_free.argtypes = [C.c_void_p]
        L.gguf_write_to_file.restype = C.c_bool
        L.gguf_write_to_file.argtypes = [C.c_void_p, C.c_char_p, C.c_bool]
        L.gguf_add_tensor.argtypes = [C.c_void_p, C.c_void_p]
        L.gguf_get_version.restype = C.c_uint32
        L.gguf_get_version.argtypes = [C.c_void_p]
        L.gguf_get_alignment.restype = C.c_size_t
        L.gguf_get_alignment.argtypes = [C.c_void_p]
        L.gguf_get_data_offset.restype = C.c_size_t
        L.gguf_get_data_offset.argtypes = [C.c_void_p]
        L.gguf_get_n_kv.restype = C.c_int64
        L.gguf_get_n_kv.argtypes = [C.c_void_p]
        L.gguf_get_key.restype = C.c_char_p
        L.gguf_get_key.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_kv_type.restype = C.c_int
        L.gguf_get_kv_type.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_arr_type.restype = C.c_int
        L.gguf_get_arr_type.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_arr_n.restype = C.c_size_t
        L.gguf_get_arr_n.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_arr_data.restype = C.c_void_p
        L.gguf_get_arr_data.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_arr_str.restype = C.c_char_p
        L.gguf_get_arr_str.argtypes = [C.c_void_p, C.c_int64, C.c_size_t]
        L.gguf_get_val_str.restype = C.c_char_p
        L.gguf_get_val_str.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_val_data.restype = C.c_void_p
        L.gguf_get_val_data.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_n_tensors.restype = C.c_int64
        L.gguf_get_n_tensors.argtypes = [C.c_void_p]
        L.gguf_get_tensor_name.restype = C.c_char_p
        L.gguf_get_tensor_name.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_tensor_type.restype = C.c_int
        L.gguf_get_tensor_type.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_tensor_offset.restype = C.c_size_t
        L.gguf_get_tensor_offset.argtypes = [C.c_void_p, C.c_int64]
        L.gguf_get_tensor_size.restype = C.c_size_t
        L.gguf_get_tensor_size.argtypes = [C.c_void_p, C.c_int64]
        for name, ct in (("u8", C.c_uint8), ("i8", C.c_int8), ("u16", C.c_uint16),
                         ("i16", C.c_int16), ("u32", C.c_uint32), ("i32", C.c_int32),
                         ("f32", C.c_float), ("bool", C.c_bool), ("u64", C.c_uint64),
                         ("i64", C.c_int64), ("f64", C.c_double)):
            f = getattr(L, "gguf_set_val_" + name)
            f.argtypes = [C.c_void_p, C.c_char_p, ct]
        L.gguf_set_val_str.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p]
        L.gguf_set_arr_data.argtypes = [C.c_void_p, C.c_char_p, C.c_int, C.c_void_p, C.c_size_t]
        L.gguf_set_arr_str.argtypes = [C.c_void_p, C.c_char_p, C.POINTER(C.c_char_p), C.c_size_t]
        self.names = {}
        # GGML_TYPE_COUNT of the pinned version (3.22.1's ggml): past it,
        # ggml_type_name reads outside its table
        for i in range(43):
            n = L.ggml_type_name(i)
            if n is None or not n.isascii() or b" " in n or n == b"DEPRECATED":
                continue
            if L.ggml_blck_size(i) <= 0:
                continue
            self.names[n.decode().upper()] = i

    def type_id(self, name):
        return self.names[name.upper()]

    def block(self, t):
        return self.L.ggml_blck_size(t), self.L.ggml_type_size(t)

    def quantize(self, t, values, n_per_row):
        """values (float32, rows of n_per_row) quantized by ggml: bytes."""
        x = np.ascontiguousarray(values, dtype=np.float32)
        nrows = x.size // n_per_row
        blck, size = self.block(t)
        out = np.zeros(nrows * (n_per_row // blck) * size + 64, dtype=np.uint8)
        n = self.L.ggml_quantize_chunk(t, x.ctypes.data, out.ctypes.data, 0, nrows, n_per_row,
                                       None)
        return out[:n].tobytes()

    def to_float(self, t, data, count):
        """ggml's own decoding of count elements of type t: float32 array."""
        tr = self.L.ggml_get_type_traits(t).contents
        if not tr.to_float:
            raise ValueError("ggml has no to_float for type %d" % t)
        src = np.frombuffer(data, dtype=np.uint8).copy()
        out = np.zeros(count, dtype=np.float32)
        TO_FLOAT(tr.to_float)(src.ctypes.data, out.ctypes.data_as(C.POINTER(C.c_float)), count)
        return out

    def has_to_float(self, t):
        return bool(self.L.ggml_get_type_traits(t).contents.to_float)

    def write(self, path, tensors, meta=()):
        """A GGUF file written by ggml: tensors is a list of (name, type id,
        ne (innermost first), raw bytes); meta a list of (key, kind, value)
        with kind a GGUF value type, or ("arr", item kind) for an array."""
        L = self.L
        g = L.gguf_init_empty()
        for key, kind, value in meta:
            k = key.encode()
            if isinstance(kind, tuple):
                ik = kind[1]
                if ik == STR:
                    arr = (C.c_char_p * len(value))(*[v.encode() for v in value])
                    L.gguf_set_arr_str(g, k, arr, len(value))
                else:
                    dt = {U8: np.uint8, I8: np.int8, U16: np.uint16, I16: np.int16,
                          U32: np.uint32, I32: np.int32, F32: np.float32, BOOL: np.bool_,
                          U64: np.uint64, I64: np.int64, F64: np.float64}[ik]
                    a = np.ascontiguousarray(np.array(value, dtype=dt))
                    L.gguf_set_arr_data(g, k, ik, a.ctypes.data, len(value))
            elif kind == STR:
                L.gguf_set_val_str(g, k, value.encode())
            else:
                name = {U8: "u8", I8: "i8", U16: "u16", I16: "i16", U32: "u32", I32: "i32",
                        F32: "f32", BOOL: "bool", U64: "u64", I64: "i64", F64: "f64"}[kind]
                getattr(L, "gguf_set_val_" + name)(g, k, value)
        size = sum(len(t[3]) for t in tensors) + 1024 * (len(tensors) + 1) + (1 << 20)
        ctx = L.ggml_init(InitParams(size, None, False))
        keep = []
        for name, t, ne, data in tensors:
            nes = (C.c_int64 * len(ne))(*ne)
            tensor = L.ggml_new_tensor(ctx, t, len(ne), nes)
            L.ggml_set_name(tensor, name.encode())
            assert L.ggml_nbytes(tensor) == len(data), (name, L.ggml_nbytes(tensor), len(data))
            C.memmove(L.ggml_get_data(tensor), data, len(data))
            L.gguf_add_tensor(g, tensor)
            keep.append(tensor)
        ok = L.gguf_write_to_file(g, path.encode(), False)
        L.gguf_free(g)
        L.ggml_free(ctx)
        if not ok:
            raise OSError("ggml could not write " + path)

    def read(self, path):
        """What ggml reads of a GGUF file: version, alignment, the metadata
        {key: (type, value)}, the tensors [(name, type, offset, size)] and
        the data section's start; None when ggml refuses the file."""
        L = self.L
        g = L.gguf_init_from_file(path.encode(), GGUFInitParams(True, None))
        if not g:
            return None
        meta = {}
        for i in range(L.gguf_get_n_kv(g)):
            key = L.gguf_get_key(g, i).decode()
            kt = L.gguf_get_kv_type(g, i)
            if kt == STR:
                meta[key] = (kt, L.gguf_get_val_str(g, i).decode())
            elif kt == ARR:
                at = L.gguf_get_arr_type(g, i)
                n = L.gguf_get_arr_n(g, i)
                if at == STR:
                    v = [L.gguf_get_arr_str(g, i, j).decode() for j in range(n)]
                else:
                    dt = {U8: C.c_uint8, I8: C.c_int8, U16: C.c_uint16, I16: C.c_int16,
                          U32: C.c_uint32, I32: C.c_int32, F32: C.c_float, BOOL: C.c_bool,
                          U64: C.c_uint64, I64: C.c_int64, F64: C.c_double}[at]
                    p = C.cast(L.gguf_get_arr_data(g, i), C.POINTER(dt))
                    v = [p[j] for j in range(n)]
                meta[key] = ((ARR, at), v)
            else:
                dt = {U8: C.c_uint8, I8: C.c_int8, U16: C.c_uint16, I16: C.c_int16,
                      U32: C.c_uint32, I32: C.c_int32, F32: C.c_float, BOOL: C.c_bool,
                      U64: C.c_uint64, I64: C.c_int64, F64: C.c_double}[kt]
                meta[key] = (kt, C.cast(L.gguf_get_val_data(g, i), C.POINTER(dt))[0])
        tensors = []
        for i in range(L.gguf_get_n_tensors(g)):
            tensors.append((L.gguf_get_tensor_name(g, i).decode(), L.gguf_get_tensor_type(g, i),
                            L.gguf_get_tensor_offset(g, i), L.gguf_get_tensor_size(g, i)))
        out = {"version": L.gguf_get_version(g), "alignment": L.gguf_get_alignment(g),
               "data": L.gguf_get_data_offset(g), "meta": meta, "tensors": tensors}
        L.gguf_free(g)
        return out
