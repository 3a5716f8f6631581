/*
 * svg.c - a picture as one self-contained SVG 1.1 document: for each side,
 * a title (dataType, sizes, strides, status), the logical view as grids of
 * cells and the physical view as rows of slots, each cell a rectangle
 * filled with its logical position's colour (padding grey, a shared slot
 * dashed, an overlapping one outlined in black) and labelled; a legend.
 *
 * Every cell's rectangle carries class "cell" and data-view ("logical" or
 * "physical"), data-kind and, for an element, data-index: what a reader
 * of the file (or a test) needs to find a cell again.
 */
#include <stdlib.h>
#include <string.h>

#include "draw.h"

#define MARGIN 16
#define CELL_H 22
#define GAP 4                       /* between cells */
#define HEAD 18                     /* a line of text */
#define CHAR_W 7                    /* a label's character, at 12 px */
#define INDEX_W 28                  /* the row indices' column */
#define BYTE_GAP 8                  /* more between two bytes' 4-bit slots */

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}

static int cell_w(int label_width)
{
    int w = label_width * CHAR_W + 10;
    return w < 28 ? 28 : w;
}

/* Dark fills take white labels. */
static const char *ink(uint32_t rgb)
{
    unsigned r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    return r * 299 + g * 587 + b * 114 < 128000 ? "#ffffff" : "#000000";
}

static bool gap_before(const struct draw_pick *p, unsigned i)
{
    return i > 0 && p->v[i] != p->v[i - 1] + 1;
}

/* Columns of a row of picks, counting an ellipsis cell per gap. */
static unsigned slots_of(const struct draw_pick *p)
{
    unsigned n = p->n;
    for (unsigned i = 1; i < p->n; i++)
        n += gap_before(p, i);
    return n;
}

static void text(FILE *f, int x, int y, int size, const char *weight, const char *fill,
                 const char *anchor, const char *s)
{
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
            "font-size=\"%d\"%s%s%s fill=\"%s\" text-anchor=\"%s\">", x, y, size,
            weight ? " font-weight=\"" : "", weight ? weight : "", weight ? "\"" : "", fill,
            anchor);
    xml_text(f, s);
    fputs("</text>\n", f);
}

static void rect_cell(FILE *f, int x, int y, int w, const struct draw_cell *c, const char *view,
                      const char *index)
{
    const char *kind = c->kind == DRAW_ELEMENT ? "element" : c->kind == DRAW_PADDING ? "padding"
                     : c->kind == DRAW_SHARED ? "shared" : c->kind == DRAW_OVERLAP ? "overlap"
                     : "unknown";
    uint32_t rgb = c->colour >= 0 ? draw_palette[c->colour] : DRAW_PADDING_RGB;
    fprintf(f, "<rect class=\"cell\" data-view=\"%s\" data-kind=\"%s\"", view, kind);
    if (index)
        fprintf(f, " data-index=\"%s\"", index);
    fprintf(f, " x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"", x, y, w, CELL_H,
            (unsigned)rgb);
    if (c->kind == DRAW_SHARED)
        fputs(" stroke=\"#000000\" stroke-width=\"1\" stroke-dasharray=\"3,2\"", f);
    else if (c->kind == DRAW_OVERLAP || c->kind == DRAW_UNKNOWN || c->at)
        fprintf(f, " stroke=\"#000000\" stroke-width=\"%d\"", c->at ? 3 : 2);
    if (c->at)
        fputs(" data-at=\"yes\"", f);
    fputs("/>\n", f);
    if (c->label[0])
        text(f, x + w / 2, y + 15, 12, NULL, ink(rgb), "middle", c->label);
}

/* The width of a side's picture. */
static int side_width(const struct draw_model *m)
{
    const struct draw_logical *l = &m->logical;
    const struct draw_physical *p = &m->physical;
    int lw = INDEX_W + (int)slots_of(&l->cols) * (cell_w(l->cell_width) + GAP);
    int pw = INDEX_W + 16 + (int)p->per * (cell_w(p->cell_width) + GAP) +
             (p->nibbles ? (int)p->per / 2 * BYTE_GAP : 0);
    int w = lw > pw ? lw : pw;
    return w < 600 ? 600 : w;
}

static int draw_side(FILE *f, const struct draw_model *m, int y0, const char *role)
{
    const struct draw_side *s = m->side;
    const struct tl_desc *d = s->d;
    const struct draw_logical *l = &m->logical;
    const struct draw_physical *p = &m->physical;
    char line[512], idx_s[TL_MAX_RANK * 21];
    int n = snprintf(line, sizeof line, "%s%s: %s, sizes ", role, s->name,
                     tl_dtype_name(d->dtype));
    for (unsigned a = 0; a < d->rank && n < (int)sizeof line; a++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%llu", a ? "," : "",
                      (unsigned long long)d->sizes[a]);
    n += snprintf(line + n, sizeof line - (size_t)n, ", strides ");
    for (unsigned a = 0; a < d->rank && n < (int)sizeof line; a++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%llu", a ? "," : "",
                      (unsigned long long)d->strides[a]);
    snprintf(line + n, sizeof line - (size_t)n, ": %s", tl_status_name(s->info->status));
    int y = y0 + HEAD;
    text(f, MARGIN, y, 14, "bold", "#000000", "start", line);
    y += 8;
    /* the logical view */
    char row[24], col[24];
    draw_axis_name(m->side, l->col_axis, col, sizeof col);
    if (l->row_axis >= 0) {
        draw_axis_name(m->side, (unsigned)l->row_axis, row, sizeof row);
        snprintf(line, sizeof line, "logical view: rows %s, columns %s", row, col);
    } else {
        snprintf(line, sizeof line, "logical view: %s", col);
    }
    y += HEAD;
    text(f, MARGIN, y, 12, "bold", "#333333", "start", line);
    int cw = cell_w(l->cell_width);
    const struct draw_cell *c = l->cells;
    uint64_t idx[TL_MAX_RANK] = { 0 };
    for (unsigned g = 0; g < l->grids.n; g++) {
        if (gap_before(&l->grids, g)) {
            y += HEAD;
            text(f, MARGIN, y, 12, NULL, "#333333", "start", "\xe2\x80\xa6");
        }
        draw_grid_index(l, d, l->grids.v[g], idx);
        draw_grid_title(l, d, l->grids.v[g], line, sizeof line);
        if (line[0]) {
            y += HEAD;
            text(f, MARGIN, y, 12, NULL, "#333333", "start", line);
        }
        /* column indices */
        y += HEAD;
        int x = MARGIN + INDEX_W;
        for (unsigned k = 0; k < l->cols.n; k++) {
            if (gap_before(&l->cols, k))
                x += cw + GAP;
            char v[24];
            snprintf(v, sizeof v, "%llu", (unsigned long long)l->cols.v[k]);
            text(f, x + cw / 2, y - 4, 10, NULL, "#666666", "middle", v);
            x += cw + GAP;
        }
        for (unsigned r = 0; r < l->rows.n; r++) {
            if (gap_before(&l->rows, r)) {
                text(f, MARGIN, y + 15, 12, NULL, "#333333", "start", "\xe2\x80\xa6");
                y += CELL_H + GAP;
            }
            if (l->row_axis >= 0)
                idx[l->row_axis] = l->rows.v[r];
            char v[24];
            snprintf(v, sizeof v, "%llu", (unsigned long long)(l->row_axis >= 0 ? l->rows.v[r]
                                                                                 : 0));
            if (l->row_axis >= 0)
                text(f, MARGIN + INDEX_W - 6, y + 15, 10, NULL, "#666666", "end", v);
            x = MARGIN + INDEX_W;
            for (unsigned k = 0; k < l->cols.n; k++, c++) {
                if (gap_before(&l->cols, k)) {
                    text(f, x + cw / 2, y + 15, 12, NULL, "#333333", "middle", "\xe2\x80\xa6");
                    x += cw + GAP;
                }
                idx[l->col_axis] = l->cols.v[k];
                draw_index_text(idx, d->rank, idx_s, sizeof idx_s);
                rect_cell(f, x, y, cw, c, "logical", idx_s);
                x += cw + GAP;
            }
            y += CELL_H + GAP;
        }
        y += 8;
    }
    /* the physical view */
    snprintf(line, sizeof line, "physical view: slots 0..%llu in buffer order%s, %llu a row%s",
             (unsigned long long)(p->span - 1),
             p->nibbles ? " (two a byte, low nibble first)" : "", (unsigned long long)p->per,
             p->values ? ", each slot its value" : "");
    y += HEAD;
    text(f, MARGIN, y, 12, "bold", "#333333", "start", line);
    y += 4;
    cw = cell_w(p->cell_width);
    for (unsigned r = 0; r < p->rows.n; r++) {
        if (gap_before(&p->rows, r)) {
            text(f, MARGIN, y + 15, 12, NULL, "#333333", "start", "\xe2\x80\xa6");
            y += CELL_H + GAP;
        }
        char v[24];
        snprintf(v, sizeof v, "%llu", (unsigned long long)(p->rows.v[r] * p->per));
        text(f, MARGIN + INDEX_W + 10, y + 15, 10, NULL, "#666666", "end", v);
        int x = MARGIN + INDEX_W + 16;
        for (uint64_t k = 0; k < p->per; k++) {
            const struct draw_cell *pc = &p->cells[r * p->per + k];
            if (!pc->label[0])
                break;
            /* an element's slot carries its (first) owner's index */
            bool owned = pc->kind != DRAW_PADDING && pc->kind != DRAW_UNKNOWN;
            rect_cell(f, x, y, cw, pc, "physical", owned ? pc->index : NULL);
            x += cw + GAP + (p->nibbles && k % 2 ? BYTE_GAP : 0);
        }
        y += CELL_H + GAP;
    }
    return y + 12;
}

static int legend(FILE *f, const struct draw_model *m, unsigned kinds, int y)
{
    const struct tl_desc *d = m->side->d;
    char name[24], line[64];
    draw_axis_name(m->side, m->logical.colour_axis, name, sizeof name);
    y += HEAD;
    text(f, MARGIN, y, 12, "bold", "#333333", "start", "legend");
    y += 6;
    int x = MARGIN;
    uint64_t n = d->sizes[m->logical.colour_axis];
    for (uint64_t i = 0; i < n && i < DRAW_COLOURS; i++) {
        struct draw_cell c = { .kind = DRAW_ELEMENT, .colour = (int)i };
        snprintf(c.label, sizeof c.label, "%s=%llu", name, (unsigned long long)i);
        int w = cell_w((int)strlen(c.label));
        rect_cell(f, x, y, w, &c, "legend", NULL);
        x += w + GAP;
    }
    if (n > DRAW_COLOURS) {
        snprintf(line, sizeof line, "(the colours repeat every %d)", DRAW_COLOURS);
        text(f, x + 4, y + 15, 12, NULL, "#333333", "start", line);
    }
    y += CELL_H + GAP;
    x = MARGIN;
    static const struct { enum draw_kind kind; const char *label, *text; } marks[] = {
        { DRAW_PADDING, "\xc2\xb7", "padding: no element's slot" },
        { DRAW_SHARED, "I*N", "the slot of N elements, shared through broadcast (dashed)" },
        { DRAW_OVERLAP, "I!N", "the slot of N elements that overlap (outlined)" },
        { DRAW_UNKNOWN, "?", "a slot whose owners were not searched out (too many paths)" },
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        if (!(kinds & 1u << marks[i].kind))      /* only the marks drawn */
            continue;
        struct draw_cell c = { .kind = marks[i].kind, .colour = marks[i].kind == DRAW_PADDING ? -1
                                                                                            : 7 };
        snprintf(c.label, sizeof c.label, "%s", marks[i].label);
        rect_cell(f, x, y, 34, &c, "legend", NULL);
        snprintf(line, sizeof line, "%s", marks[i].text);
        text(f, x + 42, y + 15, 12, NULL, "#333333", "start", line);
        y += CELL_H + GAP;
    }
    return y - GAP + MARGIN;
}

/* A tensor's blocks (draw.h): the first four and the last four in file
 * order, each a box naming its bytes in the file and the elements it
 * holds, then one block's bytes as a bar of its fields, each as wide as
 * its bytes (class "block" with data-block, class "field" with
 * data-field).  @return the y below it; *width grows to hold it. */
#define BLOCK_W 168
static int svg_blocks(FILE *f, const struct draw_blocks *b, int y, int *width)
{
    char line[160];
    y += HEAD;
    snprintf(line, sizeof line, "stored view: %s, %llu block%s of %u elements in %u bytes, file "
             "bytes %llu..%llu", b->type, (unsigned long long)b->count, b->count == 1 ? "" : "s",
             b->block, b->bytes, (unsigned long long)b->at,
             (unsigned long long)(b->at + b->count * b->bytes));
    text(f, MARGIN, y, 13, "bold", "#000000", "start", line);
    y += 8;
    int x = MARGIN, h = 3 * HEAD + 6;
    for (uint64_t k = 0; k < b->count; k++) {
        if (b->count > 8 && k == 4) {
            text(f, x + 12, y + h / 2 + 5, 16, NULL, "#333333", "middle", "\u2026");
            x += 24 + GAP;
            k = b->count - 4;
        }
        uint32_t rgb = draw_palette[k % DRAW_COLOURS];
        fprintf(f, "<rect class=\"block\" data-block=\"%llu\" x=\"%d\" y=\"%d\" width=\"%d\" "
                "height=\"%d\" fill=\"#%06x\"/>\n", (unsigned long long)k, x, y, BLOCK_W, h,
                (unsigned)rgb);
        snprintf(line, sizeof line, "block %llu", (unsigned long long)k);
        text(f, x + 8, y + HEAD, 12, "bold", ink(rgb), "start", line);
        snprintf(line, sizeof line, "bytes %llu..%llu", (unsigned long long)(b->at + k * b->bytes),
                 (unsigned long long)(b->at + (k + 1) * b->bytes));
        text(f, x + 8, y + 2 * HEAD, 12, NULL, ink(rgb), "start", line);
        snprintf(line, sizeof line, "elements %llu..%llu", (unsigned long long)(k * b->block),
                 (unsigned long long)((k + 1) * b->block - 1));
        text(f, x + 8, y + 3 * HEAD, 12, NULL, ink(rgb), "start", line);
        x += BLOCK_W + GAP;
    }
    if (x + MARGIN > *width)
        *width = x + MARGIN;
    y += h + HEAD;
    text(f, MARGIN, y, 12, NULL, "#333333", "start", "a block's bytes, by field:");
    y += 6;
    /* a byte's width: the whole block in about 900 px, 3 to 24 px a byte */
    int px = 900 / (int)b->bytes;
    px = px < 3 ? 3 : px > 24 ? 24 : px;
    x = MARGIN;
    const char *p = b->parts;
    char name[16], what[16];
    unsigned at, len, i = 0;
    while (draw_next_field(&p, name, sizeof name, &at, &len, what, sizeof what)) {
        snprintf(line, sizeof line, "%s %u..%u %s", name, at, at + len - 1, what);
        int w = (int)len * px, need = (int)strlen(line) * CHAR_W + 10;
        if (w < need)
            w = need;
        uint32_t rgb = draw_palette[i++ % DRAW_COLOURS];
        fputs("<rect class=\"field\" data-field=\"", f);
        xml_text(f, name);
        fprintf(f, "\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%06x\"/>\n", x, y,
                w, CELL_H, (unsigned)rgb);
        text(f, x + w / 2, y + 15, 12, NULL, ink(rgb), "middle", line);
        x += w + GAP;
    }
    if (x + MARGIN > *width)
        *width = x + MARGIN;
    return y + CELL_H + 12;
}

int draw_svg(FILE *f, const struct draw_side *src, const struct draw_side *dst,
             const struct draw_opts *o)
{
    struct draw_model m[2];
    int n = dst ? 2 : 1, width = 0, blocks_width = 0;
    const struct draw_side *sides[2] = { src, dst };
    for (int i = 0; i < n; i++) {
        int rc = draw_model_build(&m[i], sides[i], o);
        if (rc) {
            while (i-- > 0)
                draw_model_free(&m[i]);
            return rc;
        }
        int w = side_width(&m[i]);
        if (w > width)
            width = w;
    }
    /* the body first, to know how tall it is */
    char *body = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&body, &len);
    int y = MARGIN;
    if (b) {
        for (int i = 0; i < n; i++)
            y = draw_side(b, &m[i], y, dst ? (i ? "destination " : "source ") : "");
        y = legend(b, &m[0], draw_kinds(&m[0]) | (n > 1 ? draw_kinds(&m[1]) : 0), y);
        if (src->blocks)
            y = svg_blocks(b, src->blocks, y, &blocks_width);
        fclose(b);
    }
    for (int i = 0; i < n; i++)
        draw_model_free(&m[i]);
    if (!b || !body) {
        free(body);
        return TL_E_NOMEM;
    }
    width += 2 * MARGIN;
    if (blocks_width > width)
        width = blocks_width;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\">\n<title>", width, y, width, y);
    xml_text(f, src->name);
    fputs(": a tensor layout drawn by tensorlayout</title>\n", f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, y);
    fwrite(body, 1, len, f);
    fputs("</svg>\n", f);
    free(body);
    return 0;
}
