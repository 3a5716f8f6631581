/*
 * draw.h - pictures of a layout (SPEC section 11): what `tensorlayout
 * draw` shows, in a terminal (text.c) and as SVG (svg.c), from one model
 * (model.c) of the cells drawn.
 *
 * The model asks the core for every offset and owner (tl_desc_elem, the
 * owner finder, the classification): it computes the cells it draws and
 * no others, so a picture costs what it shows, never what the tensor
 * holds.  It knows nothing of the command line; the renderers know
 * nothing of layouts.
 */
#ifndef TL_DRAW_H
#define TL_DRAW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/tl.h"

/* A tensor stored in blocks (a GGUF block type, SPEC 16), drawn after
 * its views: its blocks in file order, each one's bytes in the file and
 * the elements it holds, then the fields of a block. */
struct draw_blocks {
    const char *type;               /* ggml's name: "Q8_0" */
    unsigned block, bytes;          /* elements and bytes a block */
    uint64_t count, at;             /* blocks; where the first one starts in the file */
    const char *parts;              /* its fields, "name:at:len:what ..." (ggml.c) */
};

/* One tensor to draw: its description, its terms, and its data file's
 * bytes (the values, with --values; NULL: offsets are drawn). */
struct draw_side {
    const char *name;               /* for the title */
    const struct tl_desc *d;
    const struct tl_info *info;
    const uint8_t *file;
    const char *axes;               /* a name a character, one per axis (a digit: the axis's
                                       position), or NULL: DirectML's letters */
    const struct draw_blocks *blocks;   /* its stored blocks, or NULL */
};

/* The fields of a block, one at a time: reads the next one of *parts
 * ("name:at:len:what ...") into name, at, len and what and advances;
 * @return false after the last. */
bool draw_next_field(const char **parts, char *name, size_t nn, unsigned *at, unsigned *len,
                     char *what, size_t wn);

struct draw_opts {
    unsigned width;                 /* characters a line may hold */
    bool color;                     /* ANSI colour (text) */
    bool values;                    /* cells show values (the sides have files) */
    bool at_given;                  /* the window is centred on at */
    uint64_t at[TL_MAX_RANK];
};

/* Up to DRAW_PICK indices of [0, total) drawn on one axis, ascending; the
 * others are left out (an ellipsis stands between two that are not
 * consecutive). */
#define DRAW_PICK 512
struct draw_pick {
    uint64_t total;
    unsigned n;
    uint64_t v[DRAW_PICK];
};

enum draw_kind {
    DRAW_ELEMENT,                   /* one element's slot */
    DRAW_PADDING,                   /* no element's */
    DRAW_SHARED,                    /* several elements' through broadcast */
    DRAW_OVERLAP,                   /* several elements' beyond broadcast */
    DRAW_UNKNOWN                    /* the owner search stopped first */
};

struct draw_cell {
    enum draw_kind kind;
    int colour;                     /* palette index; -1: none (padding) */
    uint64_t owners;                /* elements of the slot (physical view) */
    bool more;                      /* owners is a lower bound */
    bool at;                        /* --at's element, or its slot */
    char label[64];
    char index[48];                 /* physical view: its (first) owner's index, "1,0,2" */
};

/* The logical view: rows and columns the two innermost axes longer than
 * one (one row when only one is: a 1x16x1x1 bias is a row of 16), one
 * grid per index of the other axes, the outer ones. */
struct draw_logical {
    unsigned rank;
    int row_axis;                   /* -1: one row */
    unsigned col_axis, colour_axis;
    unsigned outer_n, outer[TL_MAX_RANK];   /* the other axes, outermost first */
    uint64_t outer_count;           /* grids in all */
    struct draw_pick grids, rows, cols;
    struct draw_cell *cells;        /* grids.n x rows.n x cols.n */
    int cell_width;
};

/* The physical view: the buffer's slots in offset order, `per` a row. */
struct draw_physical {
    uint64_t span, per;
    struct draw_pick rows;          /* row r holds slots r*per .. */
    struct draw_cell *cells;        /* rows.n x per (slots past span: kind PADDING, label "") */
    int cell_width;
    uint64_t shared_by;             /* elements per slot through broadcast (1: none) */
    bool values;                    /* labels are the slots' values (--values), not indices */
    bool nibbles;                   /* 4-bit slots, two a byte: rows hold whole bytes */
};

struct draw_model {
    const struct draw_side *side;
    struct draw_logical logical;
    struct draw_physical physical;
};

/* Builds the model of side's picture for lines of o->width characters
 * (the text renderer's measure; svg uses the same cells).  @return 0, or
 * TL_E_NOMEM. */
int draw_model_build(struct draw_model *m, const struct draw_side *side,
                     const struct draw_opts *o);
void draw_model_free(struct draw_model *m);

/* The kinds of the slots a model's physical view draws, a bit each (1 <<
 * DRAW_PADDING, ...): the marks its legend explains. */
unsigned draw_kinds(const struct draw_model *m);

/* The palette: 8 colours told apart by colour-blind readers (Okabe and
 * Ito), as 0xRRGGBB; a logical position's colour is palette[i % 8]. */
#define DRAW_COLOURS 8
extern const uint32_t draw_palette[DRAW_COLOURS];
#define DRAW_PADDING_RGB 0xd9d9d9u

/* An index as "1,0,2" into buf; the index of grid g's outer axes into
 * idx (its rows and columns 0); grid g's title, "[0,:,2,:]", into buf
 * (empty when the tensor has no axis but its rows and columns); the
 * decimal digits of v. */
void draw_index_text(const uint64_t *idx, unsigned rank, char *buf, size_t n);
void draw_grid_index(const struct draw_logical *l, const struct tl_desc *d, uint64_t g,
                     uint64_t *idx);
void draw_grid_title(const struct draw_logical *l, const struct tl_desc *d, uint64_t g,
                     char *buf, size_t n);
int draw_digits(uint64_t v);

/* The name of axis a of a side's tensor: the side's own ("O"), DirectML's
 * ("H"), or "axis 2" (by position, and DirectML's past rank 5). */
void draw_axis_name(const struct draw_side *s, unsigned a, char *buf, size_t n);

/* Writes the picture of src (and of dst, its conversion, when not NULL:
 * the same logical positions, the same colours) as text or as an SVG
 * document.  @return 0, or TL_E_NOMEM. */
int draw_text(FILE *f, const struct draw_side *src, const struct draw_side *dst,
              const struct draw_opts *o);
int draw_svg(FILE *f, const struct draw_side *src, const struct draw_side *dst,
             const struct draw_opts *o);

#endif
