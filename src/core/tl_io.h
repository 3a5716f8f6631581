/*
 * tl_io.h - what the library reads from and writes to, both the caller's:
 * an input file's image (struct tl_input) and an output (struct
 * tl_output, a sink of operations); the writer that builds a file's bytes
 * through the copy engine in windows, on threads (writer.c); whole-file
 * conversion (whole_write.c).  The library opens no file: the caller opens
 * and maps them, and hands in what the writer calls.
 *
 * The library's own header, not installed: the command line is its user.
 *
 * Failures: a function returns 0; TL_E_IO when one of the caller's
 * operations failed (the operation said why); or another TL_E_* code with
 * err filled, and the writer's `blame` naming the file the message is of.
 */
#ifndef TL_IO_H
#define TL_IO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tl_file.h"

/* ---- an input (io.c) ------------------------------------------------------ */

/* Memory of the library's own that an input's bytes are read into
 * (tl_input_read), kept from one read to the next; {NULL, 0} is empty. */
struct tl_buf {
    uint8_t *p;
    size_t cap;
};
void tl_buf_free(struct tl_buf *buf);

/* Room for bytes made by the library and read back (a deflated member
 * inflated): the caller's, where memory should not grow with a tensor (a
 * temporary file mapped).  bytes holds size bytes, writable. */
struct tl_scratch {
    uint8_t *bytes;
    uint64_t size;
};

struct tl_input {
    const char *name;             /* for messages */
    const uint8_t *bytes;         /* the file's image */
    uint64_t size;
    int fd;                       /* a regular file the caller opened (pread, copy_file_range),
                                   * or -1 */
    bool mapped;                  /* bytes is a mapping: pages read may be handed back */
    /* room for n bytes: 0, or -1 after the caller said why; NULL: memory
     * of the library's own */
    int (*scratch)(void *ctx, uint64_t n, struct tl_scratch *s);
    void (*scratch_free)(void *ctx, struct tl_scratch *s);
    void *ctx;
};

/* n bytes (rounded up to whole 2 MiB) on a 2 MiB boundary, with
 * transparent huge pages asked for where the system has them: the memory
 * of windows and buffers, whose pages are new to the process and touched
 * first by the copy (8 MiB in 4 KiB pages measured 2.9-4.5 ms, in huge
 * pages 0.8-1.6 ms, against a 60 ms conversion of 103 MB).  free() frees
 * it. */
uint8_t *tl_huge_alloc(size_t n);

/* Reads bytes [at, at + n) of in's file into buf (grown to hold them)
 * with pread(): the kernel copies them from its page cache, where reading
 * them through the mapping costs a fault and a page-table walk a page.
 * @return buf->p, or NULL where in has no file descriptor (a stream, a
 * member) or the read failed: the caller then reads in->bytes. */
const uint8_t *tl_input_read(const struct tl_input *in, uint64_t at, uint64_t n,
                             struct tl_buf *buf);

/* Hands the whole pages of in's bytes [lo, hi) back to the kernel: read,
 * not needed again (memory does not grow with the file). */
void tl_input_done_with(const struct tl_input *in, uint64_t lo, uint64_t hi);

/* The bytes of tensor t of in decoded whole (a deflated member
 * inflated, ggml blocks as FLOAT32) into s, the caller's scratch where it
 * gives one.  @return 0, TL_E_IO (the caller said why), or a TL_E_* code
 * with err filled (key: "member 'NAME': KEY"). */
int tl_input_inflate(const struct tl_input *in, const struct tl_file_tensor *t,
                     struct tl_scratch *s, struct tl_error *err);
void tl_input_inflated_free(const struct tl_input *in, struct tl_scratch *s);

/* Puts "WHAT 'NAME'" before err's key ("tensor 'w': blocks"): the part of
 * a file a failure is of. */
void tl_error_about(struct tl_error *err, const char *what, const char *name);

/* ---- one streaming reader of a tensor's decoded bytes (values.c) ---------- */

/* The decoded bytes of tensor t of in (its image: plain, the file's own;
 * encoded, t->decoded_bytes of them, t->desc describing them), read a
 * window at a time: ggml blocks decode only the blocks asked for, in any
 * order; a deflated member is inflated once into in's scratch room. */
struct tl_values;
int tl_values_open(const struct tl_input *in, const struct tl_file_tensor *t,
                   struct tl_values **v, struct tl_error *err);
/* The same of scaled pair p of f (SPEC 18, 21: its weight decoded with its
 * scales and zero points, FLOAT32 of tl_scaled_shape's sizes, row-major),
 * f's bytes in->bytes and p's companions in other files where p says:
 * values decoded a window at a time from any value on.  f's rows move into
 * the reader (f is left empty); p is copied.  @return 0, or TL_E_NOMEM. */
struct tl_scaled;
int tl_values_open_scaled(const struct tl_input *in, struct tl_file *f,
                          const struct tl_scaled *p, struct tl_values **v, struct tl_error *err);
void tl_values_close(struct tl_values *v);
/* The image's size in bytes. */
uint64_t tl_values_size(const struct tl_values *v);
/* Image bytes [at, at + n), valid until the next call; NULL (err filled)
 * past the image or where its blocks do not decode. */
const uint8_t *tl_values_at(struct tl_values *v, uint64_t at, uint64_t n, struct tl_error *err);

/* tl_compare (tl_compare.h) of a and b, either of whose image is read
 * through a reader (av, bv; NULL: a_file, b_file in place): a slab of
 * rows of the first axis at a time, the report the same as tl_compare's
 * of the whole. */
struct tl_compare_opts;
struct tl_compare_result;
int tl_compare_values(const struct tl_desc *a, const uint8_t *a_file, struct tl_values *av,
                      const struct tl_desc *b, const uint8_t *b_file, struct tl_values *bv,
                      const struct tl_compare_opts *o, struct tl_compare_result *r,
                      struct tl_error *err);

/* ---- an output ------------------------------------------------------------- */

/* Where the writer writes, the caller's.  Each operation returns 0, or
 * -1 after saying why (once, whichever thread failed first). */
struct tl_output {
    const char *name;             /* for messages */
    void *ctx;
    /* n bytes at the current end */
    int (*write)(void *ctx, const void *p, uint64_t n);
    /* a regular file (seekable), which these serve; NULL for a stream */
    bool seekable;
    int fd;                       /* its descriptor, for copy_file_range; or -1 */
    int (*write_at)(void *ctx, const void *p, uint64_t n, uint64_t at);
    int (*resize)(void *ctx, uint64_t size);        /* to the file's whole size */
    int (*seek)(void *ctx, uint64_t pos);
    /* bytes [at, at + n) writable at *p, at once (a mapping, or for a
     * stream memory written out by done when keep) */
    int (*region)(void *ctx, uint64_t at, uint64_t n, uint8_t **p);
    int (*region_done)(void *ctx, uint64_t at, uint64_t n, uint8_t *p, bool keep);
    /* bytes written so far of total, and the tensor being written (NULL:
     * none); called from several threads at once; may be NULL */
    void (*progress)(void *ctx, uint64_t done, uint64_t total, const char *label);
};

/* ---- the writer (writer.c) ------------------------------------------------ */

/* Several threads' progress, as one. */
struct tl_writer_shared {
    _Atomic uint64_t done;
    const char *_Atomic label;          /* the tensor a fork began last */
};

struct tl_writer {
    const struct tl_output *out;
    bool at;                  /* a fork: writes at pos (write_at), not at the end */
    struct tl_writer_shared *shared;    /* a fork's progress, with the others' */
    uint64_t pos, total;      /* bytes written; bytes it will have */
    unsigned threads;
    const char *label;        /* the tensor being written, or NULL */
    uint8_t *win[2];          /* the windows tensors are built in */
    size_t cap;
    struct tl_buf stage;      /* the input's bytes a window is built from */
    bool crc_on;              /* crc is the CRC-32 of the bytes written since it was set */
    uint32_t crc;
    uint64_t overflow;        /* values of the last tensor written that became +-Inf in its
                                 conversion to a narrower float type (SPEC 19) */
    const char *blame;        /* after a failure: the file its message is of */
};

/* A writer of total bytes into out on `threads` threads (0: as many as
 * the copy engine takes).  tl_writer_free() frees its memory. */
void tl_writer_init(struct tl_writer *w, const struct tl_output *out, uint64_t total,
                    unsigned threads);
void tl_writer_free(struct tl_writer *w);

/* Names the tensor being written on the progress (NULL: none). */
void tl_writer_label(struct tl_writer *w, const char *name);

/* Writes n bytes as they are. */
int tl_writer_put(struct tl_writer *w, const void *p, uint64_t n, struct tl_error *err);

/* Several threads writing tensors of one seekable output at once: after
 * tl_writer_presize() (the output takes its total size, so that no write
 * of one thread cuts another's), each thread writes through a fork of the
 * writer (its own windows, one thread, writing at the positions it is
 * told with tl_writer_seek, its progress added to `shared`'s) and releases
 * it; then the writer itself goes on at any position and finishes.  Only
 * tensors that tl_writer_windowed() says go through windows are written by
 * forks (the others map a part of the output, one at a time). */
int tl_writer_presize(struct tl_writer *w);
void tl_writer_fork(const struct tl_writer *w, struct tl_writer *fork,
                    struct tl_writer_shared *shared);
int tl_writer_seek(struct tl_writer *w, uint64_t pos);
bool tl_writer_windowed(const struct tl_desc *src, const struct tl_desc *d);

/* Writes the .npy file that the .npz member t of the archive zip holds, as
 * it is (inflated when deflated). */
int tl_writer_member(struct tl_writer *w, const struct tl_input *zip,
                     const struct tl_file_tensor *t, struct tl_error *err);

/* Writes the tensor src (in the image src_file) as the destination d,
 * whose byteOffset is a position at or after what was written: zero bytes
 * up to it, d's elements, then up to output position end (d's slots after
 * byteOffset hold fill, a value of d's type, when it is not NULL).  Values
 * that do not fit d's type are clamped: the caller checks them first.  in
 * (or NULL) is the input whose image src_file is: windows are built from
 * its bytes read, and a tensor whose bytes go out as they are, in one run,
 * is copied file to file. */
int tl_writer_tensor(struct tl_writer *w, const struct tl_desc *src, const uint8_t *src_file,
                     const struct tl_input *in, const struct tl_desc *d, uint64_t end,
                     const uint8_t *fill, struct tl_error *err);

/* Writes bytes [at, at + n) of in as they are: inside the kernel where
 * both are regular files (copy_file_range), else from in's image. */
int tl_writer_carry(struct tl_writer *w, const struct tl_input *in, uint64_t at, uint64_t n,
                    struct tl_error *err);

/* Writes an encoded tensor t of in (a GGUF block type: FLOAT32 once
 * decoded) as d, packed in t's own order from the current position, of a
 * floating type: decoded a piece at a time and each piece converted on
 * its way out, never decoded whole. */
int tl_writer_decoded(struct tl_writer *w, const struct tl_input *in,
                      const struct tl_file_tensor *t, const struct tl_desc *d,
                      struct tl_error *err);

/* Writes count values of type dt (of 8 bits or more) that fill(ctx,
 * first, n, dt, out) makes, values first .. first + n at out, a piece at
 * a time, from the current position. */
int tl_writer_floats(struct tl_writer *w, enum tl_dtype dt, uint64_t count,
                     int (*fill)(void *ctx, uint64_t first, uint64_t n, enum tl_dtype dt,
                                 void *out),
                     void *ctx, struct tl_error *err);

/* ---- jobs on the library's threads (whole_write.c) ------------------------- */

/* Runs job(ctx, who, k) once for every k < n, on at most `threads` threads
 * of the copy engine's pool (the caller one of them; who < threads names
 * the thread, for state of its own), each taking the next k: one pool for
 * the engine's copies, a whole file's tensors and a model's shards. */
void tl_jobs_run(unsigned threads, size_t n, void (*job)(void *ctx, unsigned who, size_t k),
                 void *ctx);

/* ---- whole-file conversion (whole_write.c, each format's file) ------------ */

/* A whole file's tensors written into a file of another format (SPEC 9),
 * as tl_whole_plan planned them: the format's entry writes the header and
 * then each tensor, converted through the copy engine, decoded, carried as
 * it is or quantized, on the job's threads where the format lets several
 * write at once. */
struct tl_whole_job {
    const struct tl_file *f;            /* the file the rows are of (its format, metadata) */
    const struct tl_file *paired;       /* the file the items' scaled pairs index, or NULL */
    const struct tl_input *in;          /* f's bytes */
    struct tl_whole_item *it;           /* the tensors written, in the order written */
    size_t n;
    const struct tl_file_meta *meta;    /* a safetensors output's __metadata__ */
    size_t nmeta;
    unsigned threads;
    const char *out_name;               /* for messages */
    /* what the writing did */
    uint64_t written;                   /* the output's bytes */
    size_t carried;                     /* tensors carried as they are (not decodable) */
    const char *blame;                  /* after a failure: the file its message is of */
};

/* Writes j's tensors as a file of format `into` through out (its entry's
 * `write`).  @return 0, TL_E_IO (out said why), or a TL_E_* code with err
 * filled and j->blame naming the file. */
int tl_whole_write(struct tl_whole_job *j, enum tl_format into, const struct tl_output *out,
                   struct tl_error *err);

/* What the formats' writers share (whole_write.c).  A deflated member
 * inflated once for every tensor that reads it in turn (the views of a
 * PyTorch storage lie together in file order): each writer keeps one. */
struct tl_inflated {
    const uint8_t *file;                /* the input it was inflated from, or NULL */
    uint64_t at, n;                     /* the member's stored bytes */
    struct tl_scratch s;
};
void tl_inflated_free(const struct tl_input *in, struct tl_inflated *c);

/* The bytes tensor t is read from: in's, or for a deflated member the
 * member inflated, kept in *cache. */
int tl_whole_source(const struct tl_input *in, const struct tl_file_tensor *t,
                    struct tl_inflated *cache, const uint8_t **bytes, struct tl_error *err);

/* Writes item x's bytes, up to output position end: converted through the
 * copy engine into its destination, decoded, or carried as they are. */
int tl_whole_put(struct tl_writer *w, const struct tl_whole_job *j, struct tl_whole_item *x,
                 uint64_t end, struct tl_inflated *cache, struct tl_error *err);

/* Writes j's items whose places are known (hlen + offset) on w's threads,
 * the caller one of them, where w's output is seekable and there are two
 * to write; *done[i] says which were written (all but those that map a part
 * of the output: the caller writes them after, at their places).  *done is
 * NULL when none were: write them all in order. */
int tl_whole_crew(struct tl_writer *w, const struct tl_whole_job *j, uint64_t hlen, bool **done,
                  struct tl_writer_shared *shared, struct tl_error *err);

/* ---- an ONNX model rewritten (onnx.c, SPEC 20) ---------------------------- */

/* The model f (its bytes `model`) written anew: with external, every
 * weight of at least threshold bytes moved into one data file (each at a
 * multiple of TL_ONNX_ALIGN, named `location` in the model), the others
 * kept as they are, but for those already in an external file, which come
 * in as raw_data; without, every weight in an external file brought in as
 * raw_data (refused when the model would pass protocol buffers' 2 GiB).
 * Everything else is carried byte for byte.  row_in[k] is the input of row
 * k's external file (rows with elsewhere), NULL for the others.  The data
 * file is written first through data (NULL without external), then the
 * model through model. */
#define TL_ONNX_ALIGN 4096u
#define TL_ONNX_MAX ((UINT64_C(1) << 31) - 1)
struct tl_onnx_rewrite {
    const struct tl_file *f;
    const struct tl_input *model;
    const struct tl_input *const *row_in;
    bool external;
    uint64_t threshold;
    const char *location;
    /* what it did */
    uint64_t model_bytes, data_bytes;
    size_t moved, brought;
};
int tl_onnx_rewrite(struct tl_onnx_rewrite *job, struct tl_writer *model, struct tl_writer *data,
                    struct tl_error *err);

#endif
