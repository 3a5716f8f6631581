/*
 * tl_file.h - tensor files: the format table, the tensor table every reader fills, encodings and the one decode call, the writers' headers, sharded models.
 * Part of the core library's public interface; include tl.h for all of it.
 */
#ifndef TL_API_FILE_H
#define TL_API_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_desc.h"

/* ---- tensor files: the format table (format.c) ------------------------- */

/* The formats the tool tells apart.  Each is one file of the core and one
 * entry (struct tl_format_entry) of the table in format.c: adding a format
 * is writing its file and adding its entry there. */
enum tl_format {
    TL_FMT_JSON, TL_FMT_NPY, TL_FMT_SAFETENSORS, TL_FMT_NPZ, TL_FMT_GGUF, TL_FMT_PYTORCH,
    TL_FMT_ONNX,
    TL_FMT_RAW,                 /* bytes and nothing else: a description's DATA, an OUT */
    TL_FMT_COUNT
};

struct tl_file;
struct tl_whole_job;
struct tl_output;
struct tl_input;

/* How sure a format is that a file's first bytes are its own: 0 not at
 * all, TL_BID_FALLBACK for what anything else is taken for (JSON text),
 * up to TL_BID_CERTAIN for a magic number of its own. */
#define TL_BID_FALLBACK 1u
#define TL_BID_CERTAIN 100u

/* The first bytes sniffing looks at (fewer where the file is shorter). */
#define TL_SNIFF_BYTES 256

struct cJSON;
struct tl_file_tensor;
struct tl_format_entry {
    enum tl_format id;
    const char *name;            /* "npy": list --json's "format", --format's name */
    const char *label;           /* ".npy", "safetensors": as messages list it */
    const char *title;           /* what it is, for a format not read: "a GGUF file (llama.cpp)" */
    const char *endings;         /* the file name endings it claims, space separated */
    /* its bid on a file's first n bytes (n <= TL_SNIFF_BYTES) */
    unsigned (*bid)(const uint8_t *head, size_t n);
    /* reads a whole file of len bytes into f (tl_file_parse has zeroed it);
     * NULL: recognized, not read yet */
    int (*read)(const uint8_t *b, uint64_t len, struct tl_file *f, struct tl_error *err);
    unsigned writes;             /* convert -o writes it: its place in lists of output
                                  * formats (1 first: npy, safetensors, npz); 0: not */
    bool many;                   /* it holds several named tensors */
    /* One tensor d as a file of this format: its header (malloc'd) for
     * the tensor named name (a 0-d array when scalar; .npy's Fortran
     * order when fortran), the tensor's packed bytes to follow it; NULL
     * for a format with no header (raw).  @return 0, or a TL_E_* code
     * with err saying why d cannot be one. */
    int (*header)(const struct tl_desc *d, const char *name, bool scalar, bool fortran,
                  uint8_t **bytes, size_t *len, struct tl_error *err);
    /* A whole file's tensors as a file of this format (tl_io.h,
     * tl_whole_write); NULL: the format is not written whole. */
    int (*write)(struct tl_whole_job *j, const struct tl_output *out, struct tl_error *err);
    enum tl_dtype_spelling spelling;   /* how it spells type names */
    /* How list shows the format's tensors, where it differs from the
     * common table (name, dataType, sizes, begin, end, bytes): its type
     * column's header (NULL: "dataType"), fixed width (0: the longest
     * type's) and text of tensor t (NULL: the tool's type name); a column
     * of its own after sizes (NULL: none), at least column_width wide,
     * t's text in it into buf; and the keys of its own in t's list --json
     * object (cJSON), after "dataType" (NULL: none; false: out of
     * memory). */
    const char *type_header;
    int type_width;
    const char *(*type_text)(const struct tl_file_tensor *t);
    const char *column;
    int column_width;
    void (*column_text)(const struct tl_file_tensor *t, char *buf, size_t n);
    bool (*json_keys)(struct cJSON *o, const struct tl_file_tensor *t);
};

/* The table's entries in the order lists show them (i < TL_FMT_COUNT), or
 * NULL past its end; the entry of a format. */
const struct tl_format_entry *tl_format_at(size_t i);
const struct tl_format_entry *tl_format_entry(enum tl_format f);

/* The entry's name ("json", "npy", "safetensors", "npz", "gguf", "pytorch",
 * "raw"). */
const char *tl_format_name(enum tl_format f);

/* The formats convert writes: the one named name (any case), or NULL; the
 * one an output named path is written in, by its ending (any case), raw
 * when none claims it; their names in their order into buf, separated by
 * ", ", the last by " or " (@return buf). */
const struct tl_format_entry *tl_format_written(const char *name);
/* Whether entry e claims a file named path by its ending (any case), the
 * ending but (when not NULL) aside. */
bool tl_format_claims(const struct tl_format_entry *e, const char *path, const char *but);
const struct tl_format_entry *tl_format_for_path(const char *path);
const char *tl_format_write_list(char *buf, size_t n);

/* What an output named path would be taken for when its ending names a
 * format the tool does not write (".pt": "a PyTorch checkpoint", ".onnx",
 * ".h5", ".tflite", ".pb"...), or NULL; ".bin" is raw bytes when raw_bin
 * (the output of a description and its DATA), else a PyTorch model's. */
const char *tl_format_unwritten(const char *path, bool raw_bin);

/* The labels of the tensor file formats the tool reads, in table order,
 * into buf: separated by ", ", the last by last (", " or " or ").
 * @return buf. */
const char *tl_format_list(char *buf, size_t n, const char *last);

/* The type table's type of a data type as format f spells it ("F32",
 * "<f4", "FLOAT32").  @return 0, or TL_E_VALUE for a type the table lacks
 * (or a spelling the format does not have). */
int tl_format_dtype(enum tl_format f, const char *spelled, enum tl_dtype *dt);

/* What a file's first n bytes say it is: every format bids, the strongest
 * bid wins (the first in the table on a tie), so a file is never taken for
 * another format because a byte of it happens to match; JSON text is the
 * fallback.  TL_SNIFF_BYTES are enough to tell. */
enum tl_format tl_file_sniff(const uint8_t *head, size_t n);

/* The encodings a tensor's stored bytes may have, each one entry of the
 * decoders' table (src/copy/decode.c): TL_ENC_PLAIN, the bytes as they
 * are; TL_ENC_DEFLATE, raw deflate (an .npz member of
 * np.savez_compressed); TL_ENC_GGML, blocks of one of ggml's quantized
 * types (a GGUF tensor, SPEC 16), decoded to FLOAT32 as ggml does;
 * TL_ENC_VARINT, protocol buffer varints, one a value (an ONNX tensor's
 * int32_data, int64_data, uint64_data: SPEC 20), each the low bytes of its
 * value as the element (a byte of two values for a 4-bit type). */
enum tl_encoding { TL_ENC_PLAIN, TL_ENC_DEFLATE, TL_ENC_GGML, TL_ENC_VARINT, TL_ENC_COUNT };

/* "plain", "deflate", "ggml", "varint". */
const char *tl_encoding_name(enum tl_encoding e);

/* ---- ggml's types (ggml.c): GGUF's type numbers ------------------------- */

/* One of ggml's tensor types, by the number a GGUF file gives it: its
 * name as GGUF tools spell it ("Q4_K"), the elements of a block and its
 * bytes (1 and the element's size for a plain type), the plain type's
 * place in the type table (plain) or -1, and whether the tool decodes its
 * blocks (to FLOAT32, bit for bit as ggml's dequantization).  `parts`
 * says where a block's fields lie, for offset and inspect: "d:0:2:f16
 * qs:2:16:nibbles" (name:at:bytes:what, space separated). */
struct tl_ggml_type {
    const char *name;
    unsigned block, bytes;
    int plain;
    bool decodes;
    const char *parts;
};

/* ggml's type of number id, or NULL for a number that is no type (never
 * one, or one ggml removed). */
const struct tl_ggml_type *tl_ggml_type(uint32_t id);

/* The number of ggml's type that holds the plain type dt as it is, or
 * UINT32_MAX where ggml has none (unsigned, 4-bit, 8-bit float, bool). */
uint32_t tl_ggml_of_dtype(enum tl_dtype dt);

/* The type of that name (as tl_ggml_type spells it, any case), its number
 * in *id; NULL when there is none. */
const struct tl_ggml_type *tl_ggml_type_named(const char *name, uint32_t *id);

/* Where element j (< the type's block) of a block lies: each piece is a
 * field of the block (its name as ggml-common.h calls it: "qs", "qh",
 * "d", "scales", ...), the byte in the block and the bits in that byte
 * (bit, bits; 8 and 0 for a whole byte, bytes > 1 for a field of several:
 * an FP16 scale), and whether it holds the element's own bits or a scale
 * (or min) its value is multiplied by (or offset by).  TQ1_0's values are
 * base-3 digits: bit is then the digit, bits 0. */
#define TL_GGML_PIECES 6
struct tl_ggml_piece {
    const char *field;
    unsigned byte, bytes, bit, bits;
    bool scale;
};
struct tl_ggml_where {
    unsigned n;
    struct tl_ggml_piece p[TL_GGML_PIECES];
};

/* Fills *w for element j of a block of ggml's type number type (a block
 * type the tool decodes).  @return 0, or TL_E_VALUE. */
int tl_ggml_locate(uint32_t type, unsigned j, struct tl_ggml_where *w);

/* The names of the types the tool decodes, ", " between them, into buf.
 * @return buf. */
const char *tl_ggml_decoded_list(char *buf, size_t n);

/* One row of a file's tensor table.  desc has the file's shape as its
 * sizes (a 0-d array is sizes {1}), packed strides for the file's order
 * (C, or Fortran's), and fileOffset = begin; [begin, end) are its bytes in
 * the file.  A safetensors tensor the tool cannot decode (a dtype the type
 * table lacks, BOOL, F8_E4M3, C64 or one it does not know, or a 0 in its
 * shape) is a row all the same, not decodable: its name, dtype as spelled,
 * shape and bytes, and no desc (its bytes are checked against its shape
 * where the dtype's size is known). */
struct tl_file_tensor {
    char *name;                 /* NULL for a .npy file */
    char dtype[24];             /* its type as the file spells it ("<f4", "BF16") */
    bool decodable;             /* desc describes it: the tool can read its values */
    bool scalar;                /* a 0-d array (shape [] or ()): desc has sizes {1} */
    unsigned ndim;              /* its shape as the file writes it */
    uint64_t shape[TL_MAX_RANK];
    struct tl_desc desc;
    uint64_t begin, end;
    size_t order;               /* its place in the header */
    /* How its bytes are stored (SPEC 15): `stored_bytes` bytes at
     * stored_at in the file, which decode (tl_file_decode) to
     * `decoded_bytes` bytes, CRC-32 `decoded_crc` where the file gives one
     * (has_crc).  TL_ENC_PLAIN: the same bytes, read in place, and desc,
     * begin and end are in the file.  Any other encoding: decoded first,
     * desc's fileOffset is then in the decoded bytes, and begin, end are
     * the stored ones.  `wrapped`: the decoded bytes are a file of their
     * own (an .npz member's .npy, named NAME.npy: the row is named NAME); a
     * member that is no .npy file (dtype "") or an .npy the tool does not
     * read is a row not decodable, carried as it is. */
    enum tl_encoding encoding;
    bool wrapped, has_crc;
    /* A PyTorch checkpoint's row: the storage it is a view of (its key,
     * "0", in ARCHIVE/data/; "" elsewhere), and for a value that is no
     * tensor (a step count, a learning rate), its text: leaf is then not
     * NULL, dtype its Python type ("int", "str"), and it has no bytes. */
    char storage[16];
    char *leaf;
    /* A leaf that is a tensor the tool does not decode (a quantized or
     * sparse one, a complex view that is no packed run of bytes: SPEC 23):
     * listed with its type (dtype) and shape, not converted. */
    bool undecoded;
    /* A GGUF tensor's ggml type number (tl_ggml_type); its rows are
     * TL_ENC_GGML for a block type (decoded: FLOAT32 packed, fileOffset 0),
     * TL_ENC_PLAIN for a plain one. */
    uint32_t ggml_type;
    uint64_t stored_at, stored_bytes, decoded_bytes;
    uint32_t decoded_crc;
    /* An .npz member carried as it is: where its .npy data starts in its
     * decoded bytes, and whether the .npy is in Fortran order (0, false
     * when it is no .npy file). */
    uint64_t npy_data;
    bool npy_fortran;
    /* How the format says its bytes are stored, for list ("raw_data",
     * "int32_data", "external": an ONNX weight), or "".  elsewhere: the
     * file its bytes lie in when not this one (ONNX's external data), a
     * path relative to this file's folder that the reader checked stays
     * inside it (no '/' first, no '..'); begin, end and stored_at count
     * from that file's start, and the caller opens it.  NULL: this file. */
    char stored[16];
    char *elsewhere;
};

/* One entry of a file's metadata: safetensors' __metadata__ (key, value
 * as written), or a GGUF key/value pair: value is then the value as JSON
 * text (strings quoted, arrays in brackets), type GGUF's name of its type
 * ("u32", "str", "arr[str]"), count an array's items, and cut says value
 * holds only its first TL_META_SHOWN items (an array of more than
 * TL_META_WHOLE). */
#define TL_META_WHOLE 1024
#define TL_META_SHOWN 8
struct tl_file_meta {
    char *key, *value;
    char type[16];
    uint64_t count;
    bool cut;
};

/* What lies between a safetensors file's tensors, in file order: bytes of
 * [from, to) that two tensors share (a, b: their indices), or that no
 * tensor owns (a: the tensor before them, b: the one after; SIZE_MAX for
 * the header or the end of the file). */
enum tl_file_problem_kind { TL_FP_OVERLAP, TL_FP_GAP };
struct tl_file_problem {
    enum tl_file_problem_kind kind;
    size_t a, b;
    uint64_t from, to;
};

struct tl_file {
    enum tl_format format;
    bool named;                         /* its tensors have names, and it may hold several */
    bool gaps_ok;                       /* bytes between tensors are not a problem (a map) */
    unsigned version;                   /* .npy major version, GGUF's version */
    uint64_t alignment;                 /* GGUF's general.alignment (32 unless it says) */
    uint64_t meta_at, meta_len;         /* GGUF: where its key/value pairs lie, as written */
    uint64_t data_start;                /* where the header ends */
    size_t count;
    struct tl_file_tensor *tensors;     /* in file order: by begin, then header order */
    size_t nmeta;
    struct tl_file_meta *meta;          /* safetensors __metadata__, in header order */
    size_t nproblems;
    struct tl_file_problem *problems;
    /* The bytes it was parsed from (tl_file_parse sets it), and the
     * quantization config that tells how its group-quantized weights are
     * stored (SPEC 21; the caller sets it, from a config.json beside the
     * file or --quant), NULL to recognize them by names and shapes. */
    const uint8_t *bytes;
    const struct tl_quant *quant;
};

/* Parses a whole .npy or safetensors file of len bytes (SPEC section 6):
 * headers checked strictly, every number before it is used, nothing read
 * past len; each tensor's bytes lie inside the file.  err->key names the
 * header key, prefixed with "tensor 'NAME': " for a safetensors tensor.
 * @return 0 (free with tl_file_free), or a TL_E_* code with err filled and
 * nothing to free. */
int tl_file_parse(const uint8_t *bytes, uint64_t len, struct tl_file *f, struct tl_error *err);
void tl_file_free(struct tl_file *f);

/* The tensor of that name, or NULL. */
const struct tl_file_tensor *tl_file_find(const struct tl_file *f, const char *name);

/* Whether the tool can read the values of t: @return 0, or TL_E_VALUE with
 * err saying why not (its type, or a 0 in its shape). */
int tl_file_tensor_decodable(const struct tl_file_tensor *t, struct tl_error *err);

/* A name two of f's tensors share (the first such in the names' order),
 * NULL when each is its own; *nomem is set when it could not look.  Each
 * reader refuses such a file in its own words. */
const char *tl_file_name_twice(const struct tl_file *f, bool *nomem);

/* Names looked up in log time (a model's tens of thousands of tensors):
 * n name fields (char * or const char *), the first at `first`, each
 * stride bytes after the last (a table's name field, or an array of
 * names: stride sizeof (char *)); NULL names left out.  tl_name_find
 * gives the field holding name, or NULL.  @return 0, or TL_E_NOMEM. */
struct tl_name_index {
    const char *const **at;             /* the fields, sorted by name */
    size_t n;
};
int tl_name_index(struct tl_name_index *ix, const void *first, size_t n, size_t stride);
const char *const *tl_name_find(const struct tl_name_index *ix, const char *name);
void tl_name_index_free(struct tl_name_index *ix);
/* Whether name ends in suffix after at least one character of its own;
 * *stem (when not NULL) gets the length before the suffix. */
bool tl_name_ends(const char *name, const char *suffix, size_t *stem);

/* Puts f's tensors in file order (by begin, then header order) and lists
 * what lies between them from data_start on (problems): bytes two tensors
 * share, and bytes no tensor owns, up to len (TL_NO_DATA: up to the last
 * tensor).  @return 0, or TL_E_NOMEM. */
int tl_file_order(struct tl_file *f, uint64_t len);

/* Parses a JSON description, or a buffer map {"tensors": [{"name": ...,
 * description keys ...}, ...]} (SPEC section 14), into a tensor table: a
 * lone description is one unnamed row (named false), a map one row per
 * entry, named, in file order.  Each row's [begin, end) is its buffer in
 * the data file: fileOffset + byteOffset up to the larger of the
 * elements' bytes and the total.  Overlaps and gaps between the rows are
 * listed (tl_file_order with TL_NO_DATA); in a map, gaps are what lies
 * between buffers (alignment), not problems (gaps_ok).  err->key is
 * prefixed with "tensors[i]." for an entry.  @return 0 (free with
 * tl_file_free), or a TL_E_* code with err filled. */
int tl_desc_table_parse_json(const char *text, size_t len, struct tl_file *f,
                             struct tl_error *err);

/* Says which logical axis each of the description's dimensions is:
 * dimension i becomes axis axes[i] (its size and stride move there), as
 * `--axes NHWC` does for a file of shape (N,H,W,C).  @return 0, or
 * TL_E_VALUE when axes is not a permutation. */
int tl_desc_assign_axes(struct tl_desc *d, const unsigned *axes, struct tl_error *err);

/* The one way to a tensor's decoded bytes, whatever its encoding: row t
 * of a table parsed from the file's len bytes at file, its stored bytes
 * decoded in pieces put(ctx, bytes, n); a put that returns non-zero stops
 * it (that value is returned).  Never decodes past decoded_bytes; the
 * decoded bytes must be exactly that many, with decoded_crc where has_crc.
 * @return 0, put's value, or TL_E_VALUE / TL_E_RANGE / TL_E_NOMEM with err
 * filled. */
typedef int (*tl_put_fn)(void *ctx, const uint8_t *bytes, size_t n);
int tl_file_decode(const uint8_t *file, uint64_t len, const struct tl_file_tensor *t,
                   tl_put_fn put, void *ctx, struct tl_error *err);

/* A piece of t's stored bytes that decodes alone, so that a caller can
 * read them in pieces (into memory of its own) and decode each with
 * tl_file_decode: *part becomes the row of the piece that starts `from`
 * bytes into them, whole blocks of at most max bytes (one block at least),
 * as if stored at file position 0.  @return the piece's stored bytes; 0
 * where t does not cut so (only a ggml row does, and only one whose sizes
 * agree: tl_file_decode then says what is wrong) or nothing is left. */
uint64_t tl_file_piece(const struct tl_file_tensor *t, uint64_t from, uint64_t max,
                       struct tl_file_tensor *part);

/* Inflates t's raw deflate stream (inflate.c): its first `want` decoded
 * bytes, or (whole) all of them, which must be exactly decoded_bytes (with
 * decoded_crc where has_crc); each piece goes to put.  npz.c peeks at a
 * deflated member's .npy header with it, tl_file_decode inflates it. */
int tl_inflate(const uint8_t *zip, const struct tl_file_tensor *t, uint64_t want, bool whole,
               tl_put_fn put, void *ctx, struct tl_error *err);

/* Writing an .npz (SPEC section 10), as np.savez does: stored members, each
 * a local header (zip64, the sizes known, its CRC-32 in the data
 * descriptor after it, as the zip format wants: the local header says 0),
 * its .npy bytes, a data descriptor; then the
 * central directory with zip64 end records.  tl_zip_local writes a local
 * header (at most TL_ZIP_LOCAL_MAX bytes: a name of at most
 * TL_ZIP_NAME_MAX bytes) and tl_zip_descriptor a descriptor
 * (TL_ZIP_DESCRIPTOR bytes); each returns its length.  tl_zip_directory
 * makes the directory of entries e[0 .. n), starting at archive offset at.
 * @return 0 with *out (free it) and *len, or TL_E_NOMEM with err filled. */
#define TL_ZIP_NAME_MAX 1023
#define TL_ZIP_LOCAL_MAX (30 + TL_ZIP_NAME_MAX + 20)
#define TL_ZIP_DESCRIPTOR 24
struct tl_zip_entry {
    const char *name;
    uint64_t bytes, at;                 /* the member's size; its local header's offset */
    uint32_t crc;
};
size_t tl_zip_local(const char *name, uint8_t *buf);
size_t tl_zip_descriptor(uint32_t crc, uint64_t bytes, uint8_t *buf);
int tl_zip_directory(const struct tl_zip_entry *e, size_t n, uint64_t at, uint8_t **out,
                     size_t *len, struct tl_error *err);

/* One tensor of a GGUF file to write: its name (at most TL_GGUF_NAME_MAX
 * bytes, as ggml reads them), ggml type, and dimensions innermost first
 * (GGUF's ne[], the logical sizes reversed; 1 to 4 of them). */
#define TL_GGUF_NAME_MAX 63
struct tl_gguf_entry {
    const char *name;
    uint32_t type;
    unsigned ndim;
    uint64_t ne[4];
};

/* Writes a GGUF header (version 3, little-endian) for tensors e[0 .. n)
 * laid out in that order, each at a multiple of alignment (a power of two,
 * 32 unless the key/value pairs say otherwise: general.alignment), with
 * the nkv key/value pairs kv[0 .. kv_len) written as they are (a GGUF
 * input's own, tl_file's meta_at and meta_len); the header is padded to
 * the alignment, so the data starts at *len.  offsets[i] gets tensor i's
 * offset from there, bytes[i] its size (a row must be whole blocks).
 * @return 0 with *out (free it) and *len, or TL_E_VALUE (a type that is
 * none, a name too long, a bad shape) / TL_E_NOMEM with err filled. */
int tl_gguf_header(const struct tl_gguf_entry *e, size_t n, const uint8_t *kv, size_t kv_len,
                   uint64_t nkv, uint64_t alignment, uint8_t **out, size_t *len,
                   uint64_t *offsets, uint64_t *bytes, struct tl_error *err);

/* ---- scaled tensors (scaled.c, SPEC 18) ------------------------------- */

/* A weight stored with scales beside it, found by its companion's name:
 * DeepSeek's block FP8 (W FLOAT8E4M3 [O, I] and W_scale_inv FLOAT32
 * [ceil(O/128), ceil(I/128)]), gpt-oss's MXFP4 (W_blocks UINT8
 * [..., G, 16] and W_scales UINT8 [..., G]).  weight and scale are rows of
 * the table (for MXFP4, weight is W_blocks); name is W.  scale_file, when
 * not NULL, is the file the scale's bytes lie in (a sharded model's other
 * shard: its row's begin counts from there); NULL, the weight's.
 *
 * A group-quantized weight (SPEC 21, grouped.c) has more companions:
 * weight is its packed INT32 codes (GPTQ's and AWQ's P.qweight,
 * compressed-tensors' P.weight_packed), scale its scales, extra[] its zero
 * points, GPTQ's g_idx and compressed-tensors' weight_shape (SIZE_MAX
 * where it has none; extra_file[] as scale_file).  Its logical tensor is
 * [out, in]: element (o, i) is (code - zero) x scale of group g(i) (i /
 * group, or g_idx[i]) of row o, code and zero `bits` wide. */
enum tl_scaled_kind { TL_SCALED_FP8_BLOCK, TL_SCALED_MXFP4, TL_SCALED_GPTQ, TL_SCALED_AWQ,
                      TL_SCALED_PACKED };
enum { TL_PART_ZEROS, TL_PART_GIDX, TL_PART_SHAPE, TL_SCALED_EXTRA };
struct tl_scaled {
    enum tl_scaled_kind kind;
    size_t weight, scale;
    char name[512];
    const uint8_t *scale_file;
    size_t extra[TL_SCALED_EXTRA];
    const uint8_t *extra_file[TL_SCALED_EXTRA];
    unsigned bits;                      /* group-quantized: 2, 3, 4 or 8 */
    uint64_t out, in, group;            /* group: values of a row a scale covers */
    int zero;                           /* no zero points: every zero is this */
    bool plus1;                         /* GPTQ v1: a zero point is stored less 1 */
};

/* The rows of a pair's parts into rows (weight, scale, then the extras it
 * has): @return how many. */
size_t tl_scaled_parts(const struct tl_scaled *p, size_t rows[2 + TL_SCALED_EXTRA]);

/* Whether f has a row a group-quantized weight's packed codes could be
 * (a name ending in qweight or weight_packed): only then is a config
 * worth reading for it. */
bool tl_grouped_candidates(const struct tl_file *f);

/* A quantization config (SPEC 21): config.json's quantization_config, or
 * --quant's scheme alone (bits and group 0: from the shapes).  For
 * compressed-tensors, its config groups (each a list of targets: module
 * names, "re:" regular expressions, or class names such as "Linear", which
 * match every module) and the modules it ignores. */
enum tl_quant_method { TL_QUANT_AUTO, TL_QUANT_NONE, TL_QUANT_GPTQ, TL_QUANT_AWQ, TL_QUANT_CT };
struct tl_quant_target {
    char *text;
    void *re;                           /* a "re:" pattern, compiled once (a regex_t) */
};
struct tl_quant_group {
    unsigned bits;
    int64_t group;                      /* -1: a row is one group (per channel) */
    bool sym;
    struct tl_quant_target *targets;
    size_t ntargets;
};
struct tl_quant {
    enum tl_quant_method method;
    unsigned bits;
    int64_t group;
    bool v2;                            /* GPTQ: zero points as stored (gptq_v2) */
    struct tl_quant_group *groups;
    size_t ngroups;
    struct tl_quant_target *ignore;
    size_t nignore;
};

/* Reads config.json's text (len bytes) into q: its quantization_config's
 * method and parameters.  @return 0 (free with tl_quant_free; method
 * TL_QUANT_AUTO when it has no quantization_config), or TL_E_VALUE naming
 * the key that is not what it should be (a method the tool does not read
 * is TL_QUANT_NONE: its tensors are then left as they are). */
int tl_quant_parse(const char *text, size_t len, struct tl_quant *q, struct tl_error *err);
void tl_quant_free(struct tl_quant *q);

/* The name of a scheme (gptq, awq, compressed-tensors) and of a scaled
 * weight's kind ("GPTQ", "AWQ", "pack-quantized", "FP8 blocks", "MXFP4"). */
enum tl_quant_method tl_quant_named(const char *name);
const char *tl_scaled_kind_name(enum tl_scaled_kind kind);

/* Whether name is a part a decoding conversion writes no more (SPEC 18,
 * 21, 23): a scale or a group's part decoded into its weight (W_scale_inv,
 * W_scales, P.qweight, P.qzeros, P.weight_packed, ...), or MXFP4's
 * W_blocks, written as W. */
bool tl_scaled_part_name(const char *name);

/* Every pair of f, in table order.  @return 0 with *out (free it) and *n,
 * or TL_E_VALUE naming a companion of the wrong type or shape, or
 * TL_E_NOMEM. */
int tl_scaled_find(const struct tl_file *f, struct tl_scaled **out, size_t *n,
                   struct tl_error *err);

/* The role of each of a table's count rows among pairs[0 .. n): *weight_of
 * (to free) the pair whose weight it is, or NULL; *scale (to free)
 * whether it is a pair's scale.  @return 0, or TL_E_NOMEM. */
int tl_scaled_roles(size_t count, const struct tl_scaled *pairs, size_t n,
                    const struct tl_scaled ***weight_of, bool **scale);

/* The decoded tensor's logical sizes (MXFP4: the blocks' with G x 32). */
void tl_scaled_shape(const struct tl_file *f, const struct tl_scaled *p, unsigned *rank,
                     uint64_t *sizes);

/* Values first .. first + count (row-major) of the decoded tensor, as
 * FLOAT32, from the file's bytes (both tensors stored plain), exactly: FP8
 * and FP4 values are exact in FLOAT32, each product one rounding (none for
 * MXFP4's powers of two but at the edges of FLOAT32's range); with the
 * CPU's kernels (src/copy/decode.c).  @return 0, or TL_E_VALUE. */
int tl_scaled_decode(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                     uint64_t first, uint64_t count, float *out);

/* The same values as type dt (a type of 8 bits or more) at out: each
 * FLOAT32 value converted as tl_convert_value() converts it (to
 * BFLOAT16, the FLOAT32 product rounded once more, as DeepSeek's
 * reference casts it), a few thousand at a time through a buffer that
 * stays in the first-level cache (block FP8 to BFLOAT16 by a table of
 * each block's 256 results where the CPU can look them up, straight into
 * out); an output of 8 MiB or more is written with streaming stores.
 * cache, when not NULL, keeps what one call works out for the next ones on
 * the same pair (*cache NULL before the first; tl_scaled_cache_free()
 * after the last): a caller decoding a pair a piece at a time passes it.
 * @return 0, TL_E_VALUE, or TL_E_NOMEM. */
struct tl_scaled_cache;
int tl_scaled_decode_as(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                        uint64_t first, uint64_t count, enum tl_dtype dt, void *out,
                        struct tl_scaled_cache **cache);
void tl_scaled_cache_free(struct tl_scaled_cache *cache);

/* A group-quantized weight's checks that read values (grouped.c): g_idx
 * inside its groups, weight_shape saying [out, in], INT8 zero points
 * inside the bits.  file is the weight's file (each part's own where
 * scale_file or extra_file says).  @return 0, or TL_E_VALUE naming the
 * weight. */
int tl_grouped_check(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                     struct tl_error *err);

/* The ggml block type a group-quantized weight takes in a GGUF OUT when
 * `requested` (Q4_0 2, Q4_1 3, Q8_0 8) is asked, and whether its codes
 * repack into it without requantizing (*lossless): 4-bit groups of a
 * multiple of 32 values in input order whose scales FLOAT16 holds exactly
 * become Q4_0 when every zero point is 8, else Q4_1 (its offset, -zero x
 * scale, rounded to FLOAT16); codes of fewer than 8 bits, or of 8 with
 * every zero point 128, become Q8_0.  Otherwise the type requested,
 * requantized from the decoded values. */
uint32_t tl_grouped_gguf_type(const uint8_t *file, const struct tl_file *f,
                              const struct tl_scaled *p, uint32_t requested, bool *lossless);

/* Row o's blocks of ggml type gtype (from tl_grouped_gguf_type, lossless)
 * at out: in / 32 blocks; *offset_error grows to the largest Q4_1 offset
 * rounding error met; tile as tl_grouped_decode's.  @return 0, or
 * TL_E_NOMEM.  (src/copy/grouped.c) */
struct tl_grouped_tile;
int tl_grouped_blocks(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                      uint32_t gtype, uint64_t o, uint8_t *out, double *offset_error,
                      struct tl_grouped_tile *tile);

/* Where element (o, i) of a group-quantized weight lies (SPEC 21): its
 * group; the packed word holding its code (row, column of the packed
 * tensor, its byte offset in its file) and the code's lowest bit in it
 * (a code may run into the next word: 3 bits); its scale's element and
 * byte offset; its zero point's word and bit, or zero_row UINT64_MAX when
 * the weight has none (every zero point `zero`). */
struct tl_grouped_place {
    uint64_t group;
    uint64_t word_row, word_col, word_at;
    unsigned bit;
    uint64_t scale_row, scale_col, scale_at;
    uint64_t zero_row, zero_col, zero_at;
    unsigned zero_bit;
};
void tl_grouped_where(const struct tl_file *f, const uint8_t *file, const struct tl_scaled *p,
                      uint64_t o, uint64_t i, struct tl_grouped_place *w);

/* Whether its inputs are reordered (act-order: a g_idx other than i /
 * group). */
bool tl_grouped_act_order(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p);

/* Its decoded values first .. first + count (src/copy/grouped.c;
 * tl_scaled_decode calls it): FLOAT32, or BFLOAT16 with bf16 (each value
 * rounded as tl_float_to_bfloat() rounds it; with stream, most of them
 * written with non-temporal stores, which the caller fences after its
 * last call: for an output larger than the caches).  GPTQ's and AWQ's rows are
 * stored as columns and gathered for several rows at once into tile, kept
 * from call to call: zeroed before the first, tl_grouped_tile_free()
 * after the last.  @return 0, or TL_E_NOMEM (no tile).  And the helpers
 * it shares with grouped.c: element k of an integer part of type dt at
 * `at` (sign-extended), the zero point of group g of row o, and AWQ's
 * order: the nibble of its word holding column 8j + c is tl_awq_place[c]. */
struct tl_grouped_tile {
    const struct tl_scaled *p;
    uint64_t o0;
    unsigned rows;
    uint8_t *buf;
    uint64_t cap;
    const struct tl_scaled *looked;     /* the weight whose g_idx was looked at */
    bool in_order;                      /* its g_idx is i / group: not read again */
    /* every group's FLOAT32 scale and zero point of the rows from t0, row
     * by row (row t0 + j's at j * groups) */
    const struct tl_scaled *tp;
    uint64_t t0, groups, tcap;
    float *scales;
    int32_t *zeros;
};
int tl_grouped_decode(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                      uint64_t first, uint64_t count, void *out, bool bf16, bool stream,
                      struct tl_grouped_tile *tile);
void tl_grouped_tile_free(struct tl_grouped_tile *t);
extern const uint8_t tl_awq_place[8];
uint64_t tl_grouped_read(const uint8_t *at, enum tl_dtype dt, uint64_t k);
/* Scale k of a FLOAT16, BFLOAT16 or FLOAT32 part at sb, and code k of a
 * stream of bits-wide codes at s (little-endian words, low bits first). */
float tl_grouped_scale(const uint8_t *sb, enum tl_dtype dt, uint64_t k);
unsigned tl_grouped_code(const uint8_t *s, unsigned bits, uint64_t k);
int tl_grouped_zero(const uint8_t *file, const struct tl_file *f, const struct tl_scaled *p,
                    uint64_t g, uint64_t o);

/* The views of several files' tables (a sharded model's shards) that
 * pair scaled weights across them (scaled.c): f[k] holds file k's rows
 * but the scales a weight of another file takes, and the scales its own
 * weights take from other files; row_file[k][i] is the bytes of the file
 * view k's row i lies in, NULL for file k's own (set a pair's scale_file
 * from it).  The rows are the files' own: the files outlive the views.
 * @return 0 (free with tl_scaled_views_free), or tl_scaled_find's error
 * / TL_E_NOMEM with nothing to free. */
struct tl_scaled_views {
    struct tl_file *f;
    const uint8_t ***row_file;
    size_t nfiles, npairs;
};
int tl_scaled_views(const struct tl_file *files, const uint8_t *const *bytes, size_t nfiles,
                    struct tl_scaled_views *v, struct tl_error *err);
void tl_scaled_views_free(struct tl_scaled_views *v);
/* Whether the views pair a group-quantized weight (SPEC 21: decoded, so a
 * converted folder's config.json loses its quantization_config). */
bool tl_scaled_views_grouped(const struct tl_scaled_views *vs);

/* ---- sharded safetensors models (shards.c) ------------------------------ */

/* A shard index (model.safetensors.index.json, SPEC section 10): the shards'
 * file names (relative to the index's folder, in order of first mention),
 * and for each tensor of the weight map its name and its shard. */
struct tl_shard_index {
    size_t nshards;
    char **shards;
    size_t count;
    char **names;
    size_t *shard;
};

/* Whether JSON text names a "weight_map" (so is taken for a shard index). */
bool tl_shard_index_looks(const char *text, size_t len);

/* Parses a shard index: a JSON object whose "weight_map" maps each tensor
 * name to a shard's file name that stays in the index's folder (relative,
 * no '..'), and whose "metadata", if any, is an object.  @return 0 (free
 * with tl_shard_index_free), or a TL_E_* code with err filled. */
int tl_shard_index_parse(const char *text, size_t len, struct tl_shard_index *x,
                         struct tl_error *err);
void tl_shard_index_free(struct tl_shard_index *x);

/* The index text again with metadata.total_size set to total_size (other
 * metadata and the weight map kept).  @return 0 with *out (free it), or
 * TL_E_JSON / TL_E_NOMEM with err filled. */
int tl_shard_index_write(const char *text, size_t len, uint64_t total_size, char **out,
                         struct tl_error *err);
/* The same, with each shard x->shards[k] named renamed[k] in the weight
 * map (a PyTorch model's .bin shards converted into .safetensors ones). */
int tl_shard_index_write_renamed(const char *text, size_t len, uint64_t total_size,
                                 const struct tl_shard_index *x, char *const *renamed,
                                 char **out, struct tl_error *err);
/* The same with a new weight map: tensor names[i] in shard files[i], in
 * that order (a model re-sharded, SPEC 19). */
int tl_shard_index_write_map(const char *text, size_t len, uint64_t total_size,
                             const char *const *names, const char *const *files, size_t n,
                             char **out, struct tl_error *err);

/* A file of a model's folder by its name: weights (a tensor file by its
 * ending, as the format table lists them, or another index), a file a
 * loader reads beside them (config.json, the tokenizer's and processors'
 * files: what makes a converted folder loadable, SPEC 23), or other. */
enum tl_folder_file { TL_FOLDER_WEIGHTS, TL_FOLDER_LOADER, TL_FOLDER_OTHER };
enum tl_folder_file tl_folder_file(const char *name);
/* config.json's text without its quantization_config (SPEC 21: the
 * weights written are decoded; a loader that read it would look for the
 * packed parts), printed with a newline into *out (free it).  @return 0,
 * TL_E_JSON (no JSON object) or TL_E_NOMEM with err filled. */
int tl_config_unquantized(const char *text, size_t len, char **out, struct tl_error *err);
/* The name a shard gets converted into safetensors: a PyTorch shard's
 * (pytorch_model-00001-of-00002.bin) as model-00001-of-00002.safetensors,
 * any other its own.  @return whether it was renamed. */
bool tl_shard_safetensors_name(const char *shard, char *out, size_t n);
/* The same of an index's name: pytorch_model.bin.index.json into buf as
 * model.safetensors.index.json; any other is returned as it is. */
const char *tl_index_safetensors_name(const char *name, char *buf, size_t n);

/* Every shard files[k] (x's shards, read) holds what the index x gives it,
 * and nothing else (a checkpoint's leaves aside).  Shards as a conversion
 * wrote them (converted) may lack the parts decoded into their weights
 * and what left_out(ctx, name) says the rules left out (NULL: nothing),
 * and hold MXFP4's W or a group-quantized P.weight where the index names
 * W_blocks or P's parts.  @return 0, TL_E_VALUE naming the tensor and the
 * shard, or TL_E_NOMEM. */
int tl_shards_check(const struct tl_shard_index *x, const struct tl_file *files, bool converted,
                    bool (*left_out)(const void *ctx, const char *name), const void *ctx,
                    struct tl_error *err);

/* A model re-sharded (SPEC 10): the tensors of files[0 .. nfiles) in file
 * and table order, into shards of at most max bytes of tensors each (a
 * tensor larger than max alone in one), named as Hugging Face's
 * save_pretrained names them: PREFIX-00001-of-00003.safetensors, or
 * PREFIX.safetensors alone (and no index) when one shard holds them all,
 * PREFIX the index's name without ".index.json" and ".safetensors" or
 * ".bin".  at[i] (n of them) places the i-th tensor; total is their bytes. */
struct tl_reshard {
    struct tl_reshard_at {
        size_t file, tensor;            /* in the files read */
        size_t out;                     /* the shard written */
    } *at;
    size_t n, nout;
    uint64_t total;
    char prefix[256];
};
/* @return 0, or TL_E_NOMEM (nothing to free). */
int tl_reshard_plan(const struct tl_file *files, size_t nfiles, uint64_t max,
                    const char *index_name, struct tl_reshard *r);
void tl_reshard_free(struct tl_reshard *r);
/* The name of written shard j, and of the index ("" when there is none). */
void tl_reshard_name(const struct tl_reshard *r, size_t j, char *buf, size_t n);
void tl_reshard_index_name(const struct tl_reshard *r, char *buf, size_t n);
/* Shard j's safetensors header (*out, to free, *len bytes): its tensors as
 * they are, with the __metadata__ of the first file read that holds one of
 * them, less the key drop (or NULL); *bytes, its tensors' bytes after the
 * header.  @return 0, or TL_E_VALUE / TL_E_NOMEM with err filled. */
int tl_reshard_header(const struct tl_reshard *r, const struct tl_file *files, size_t j,
                      const char *drop, uint8_t **out, size_t *len, uint64_t *bytes,
                      struct tl_error *err);

/* Writes the .npy header (version 1.0 unless it needs 2.0; the data starts
 * at a multiple of 64) for a packed description with byteOffset 0: the
 * array's shape is the sizes in memory order, outermost first, C order.
 * With buf NULL, only sets *len to the header's size.  @return 0 with *len
 * set, or TL_E_VALUE (a type numpy lacks, not packed, byteOffset not 0) or
 * TL_E_RANGE (cap too small) with err filled. */
int tl_npy_header(const struct tl_desc *d, uint8_t *buf, size_t cap, size_t *len,
                  struct tl_error *err);
/* The same, with how: TL_NPY_SCALAR writes a 0-d array (shape ()) of d's
 * sizes {1}; TL_NPY_FORTRAN writes a d packed in Fortran's order (its axes
 * reversed) as fortran_order True with its sizes as the shape, as numpy
 * saves such an array. */
#define TL_NPY_SCALAR 1u
#define TL_NPY_FORTRAN 2u
int tl_npy_header_as(const struct tl_desc *d, unsigned how, uint8_t *buf, size_t cap,
                     size_t *len, struct tl_error *err);
/* The same for an array the type table cannot describe, in C order: its
 * descr as numpy spells it ("<c8") and its shape (ndim 0: shape ()). */
int tl_npy_header_raw(const char *descr, const uint64_t *shape, unsigned ndim, uint8_t *buf,
                      size_t cap, size_t *len, struct tl_error *err);

/* One tensor of a safetensors file to write: its dtype, its shape as the
 * file gives it (the sizes in memory order), and its bytes. */
struct tl_st_entry {
    const char *name;
    enum tl_dtype dtype;
    const char *st;                     /* a dtype the table lacks, as spelled; else NULL */
    unsigned rank;                      /* 0: a 0-d tensor, shape [] */
    uint64_t shape[TL_MAX_RANK];
    uint64_t bytes;
};

/* The bits per element of a safetensors dtype: the type table's, or those
 * of the dtypes the reference knows and the table lacks (BOOL, F8_*, F6_*,
 * F4, C64); 0 for a dtype it does not know. */
unsigned tl_safetensors_bits(const char *name);

/* Writes a safetensors header (SPEC section 9) for tensors t[0 .. n) laid
 * out contiguously in that order (the caller orders them: the reference
 * writer sorts by element size, largest first, then by name), with the
 * __metadata__ entries first (with "format": "pt" unless they name a
 * format, as loaders require): the 8-byte length, then the JSON padded with
 * spaces to a multiple of 8, so the data starts on 8 bytes.  @return 0
 * with *out (free it) and *len, or TL_E_VALUE (a type safetensors lacks,
 * the name __metadata__) / TL_E_NOMEM with err filled. */
int tl_safetensors_header(const struct tl_st_entry *t, size_t n, const struct tl_file_meta *meta,
                          size_t nmeta, uint8_t **out, size_t *len, struct tl_error *err);

/* ---- a whole file's conversion planned (whole.c; SPEC 9, 19) ------------ */

/* One tensor of a whole file's conversion: where it comes from and what it
 * becomes. */
struct tl_whole_item {
    const struct tl_file_tensor *t;
    struct tl_desc dst;                 /* fileOffset set once the header is known */
    bool layout, type;                  /* what the rules change */
    bool retyped;                       /* an empty tensor (a 0 in its shape) of a type
                                         * the table has, whose type changes: dst.dtype */
    uint64_t bytes, offset;             /* in OUT's data section */
    bool written;                       /* --only and --drop keep it */
    bool chosen;                        /* --select and --exclude let the rules change it */
    bool quantize;                      /* into a GGUF OUT: quantized (Q8_0, Q4_0) */
    bool raw;                           /* into a GGUF OUT: its stored bytes as they are */
    uint32_t gtype;                     /* into a GGUF OUT: its ggml type */
    const struct tl_scaled *pair;       /* a scaled weight, decoded (SPEC 18) */
    bool repack;                        /* into a GGUF OUT: a group-quantized weight's
                                         * codes repacked into gtype's blocks (SPEC 21) */
    double offset_error;                /* repacked to Q4_1: the largest error of an
                                         * offset rounded to FLOAT16 */
    uint64_t overflow;                  /* its values that became +-Inf (SPEC 19) */
    bool cross;                         /* carried as it is into the other format: an .npz
                                         * member's .npy data (no header) into safetensors */
    const struct tl_input *in;          /* the file its bytes lie in when not the job's (t's
                                         * elsewhere: ONNX's external data), or NULL */
};

#define TL_WHOLE_MAX_GLOBS 64

/* The rules: a --to layout a rank, the globs that choose the tensors they
 * change (at most TL_WHOLE_MAX_GLOBS each), the source's format and OUT's,
 * whether a broadcast view may spread its bytes, and for each row of the
 * file the scaled pair it decodes (or NULL; pair_of NULL for none). */
struct tl_whole_rules {
    const char *const *to;
    int nto;
    const char *const *select, *const *exclude;
    int nselect, nexclude;
    const char *const *only, *const *drop;     /* the tensors written: --only, --drop */
    int nonly, ndrop;
    enum tl_format from, into;
    bool allow_expand;
    const struct tl_scaled *const *pair_of;
};

/* Which rules changed something, over one file or several (the shards of
 * a model). */
struct tl_rule_use {
    bool sel[TL_WHOLE_MAX_GLOBS], exc[TL_WHOLE_MAX_GLOBS];
    bool only[TL_WHOLE_MAX_GLOBS], drop[TL_WHOLE_MAX_GLOBS];
    bool layout, type;
    bool to[TL_MAX_RANK];               /* each --to changed a tensor */
};

/* Applies the rules to every tensor of f into it[0 .. f->count), to_type
 * (NULL: none) the floating tensors' new type, noting in u which rules
 * changed something.  @return 0, or TL_E_VALUE / TL_E_RANGE with err
 * saying which tensor cannot be written (bytes that are not what its type
 * and shape say, more than a file holds, a broadcast view spread more
 * than 64 times without allow_expand). */
int tl_whole_plan(const struct tl_whole_rules *w, const struct tl_file *f,
                  struct tl_whole_item *it, const enum tl_dtype *to_type, struct tl_rule_use *u,
                  struct tl_error *err);


/* The other format's spelling of a type carried as it is (SPEC 19: types
 * both formats have cross): the crossing table's (C64, '<c8'), or the type
 * table's for a type it has (an empty tensor's); NULL when none. */
const char *tl_whole_carried_as(const struct tl_file_tensor *t, enum tl_format from, bool to_npy);

/* The shape an item is written with: its sizes in memory order, or as the
 * file had it for a tensor carried as it is.  @return the rank. */
unsigned tl_whole_item_shape(const struct tl_whole_item *x, uint64_t *shape);

/* What a whole conversion leaves out of a file (SPEC 17): the rows that
 * are no tensor (a checkpoint's step count: leaves), the tensors the tool
 * does not decode (undecoded), each counted with the rows of the first
 * TL_WHOLE_NAMED; and whether two views share a storage (tied weights,
 * written as tensors of their own). */
#define TL_WHOLE_NAMED 3
struct tl_whole_scan {
    size_t leaves, undecoded;
    size_t leaf_row[TL_WHOLE_NAMED], undecoded_row[TL_WHOLE_NAMED];
    bool shared;
};
/* @return 0, or TL_E_NOMEM. */
int tl_whole_scan(const struct tl_file *f, struct tl_whole_scan *s);

/* What a file with scaled pairs, leaves or shared storages is converted
 * from (SPEC 17, 18): a view of its rows without the leaves and the pairs'
 * scales, each pair's weight as the decoded FLOAT32 tensor W (its name
 * owned by the view), pair_of[i] the pair of row i of the view (or NULL),
 * as tl_whole_rules takes it.  The view's rows point into f, which must
 * outlive it.  @return 0, or TL_E_NOMEM (nothing to free). */
struct tl_whole_view {
    struct tl_file file;
    struct tl_file_tensor *kept;
    const struct tl_scaled **pair_of;
    char **made;
    size_t nmade;
};
int tl_whole_view(const struct tl_file *f, const struct tl_scaled *pairs, size_t npairs,
                  struct tl_whole_view *v);
void tl_whole_view_free(struct tl_whole_view *v);

/* A whole file's items written as a safetensors file's tensors
 * (safetensors.c): e[i], the header entry of item i, and its offset in the
 * data section, in the order given; an .npz member carried as it is goes
 * across as its .npy data (cross); *data_bytes the data section's size.
 * @return 0, or TL_E_VALUE naming a tensor safetensors cannot carry (a
 * GGUF type not decoded, a member with no safetensors form). */
int tl_safetensors_items(struct tl_whole_item *it, size_t n, enum tl_format from,
                         struct tl_st_entry *e, uint64_t *data_bytes, struct tl_error *err);

/* A whole file's items as the members of an .npz archive (npz.c): member
 * i named names[i] (the tensor's name and ".npy"), its .npy header npy[i]
 * of nlen[i] bytes (NULL for a member carried whole), its zip entry e[i]
 * (bytes, where its local header starts); end, where the central directory
 * starts.  @return 0 (free with tl_npz_layout_free), or TL_E_VALUE naming
 * a tensor no .npy member can hold, or TL_E_NOMEM, with nothing to free. */
struct tl_npz_layout {
    struct tl_zip_entry *e;
    char **names;
    uint8_t **npy;
    size_t *nlen;
    size_t n;
    uint64_t end;
};
int tl_npz_layout(const struct tl_whole_item *it, size_t n, enum tl_format from,
                  struct tl_npz_layout *l, struct tl_error *err);
void tl_npz_layout_free(struct tl_npz_layout *l);

/* A whole file's items as a GGUF file's tensors (gguf.c): each item's
 * ggml type (a block type's tensor kept as it is: raw) and e[i], its
 * header entry (ne[] its sizes in memory order, reversed).  @return 0, or
 * TL_E_VALUE naming a tensor GGUF cannot hold (no GGUF type, more than 4
 * dimensions). */
int tl_gguf_items(struct tl_whole_item *it, size_t n, struct tl_gguf_entry *e,
                  struct tl_error *err);

/* Marks the items quantized to ggml type quant (UINT32_MAX: none), as
 * llama.cpp quantizes a model (SPEC 23): the chosen floating tensors of two
 * or more dimensions whose rows are whole blocks of 32 and of another type;
 * a 1-D one (a norm, a bias) stays FLOAT32, made so when it is not.  A
 * group-quantized weight of paired (the file the items' pairs are of, or
 * NULL) gets the block type its codes repack into (SPEC 21).  *already
 * counts the tensors already of another block type that would be
 * requantized (*first names one).  @return how many are quantized. */
size_t tl_gguf_mark_quantized(struct tl_whole_item *it, size_t n, uint32_t quant,
                              const struct tl_file *paired, size_t *already, const char **first);

#endif
