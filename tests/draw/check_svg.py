#!/usr/bin/env python3
"""check_svg.py - draw's SVG pictures, rendered by a real renderer.

For a set of descriptions (the reference pages' examples, broadcast,
overlap, a conversion, 8-D, an elided large tensor), `tensorlayout draw -o
X.svg` writes a picture; Python's XML parser must read it (an <svg> of
version 1.1 with a <title>), and rsvg-convert must render it.  Then every
cell the SVG says it drew is checked in the rendered pixels: an element's
cell has the colour of its logical position (Okabe-Ito's palette, by the
channel of an NCHW-family tensor, else the grid's row axis), a padding
cell the padding grey, in the file and on the screen.

Usage: check_svg.py path/to/tensorlayout
"""
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

PALETTE = [0xE69F00, 0x56B4E9, 0x009E73, 0xF0E442, 0x0072B2, 0xD55E00, 0xCC79A7, 0x999999]
PADDING = 0xD9D9D9
SVG = "{http://www.w3.org/2000/svg}"

CASES = [
    ["examples/padded.json"],
    ["examples/hw.json"],
    ["examples/wh.json"],
    ["examples/broadcast.json"],
    ["examples/overlap.json"],
    ["examples/nchw.json"],
    ["examples/nhwc.json"],
    ["examples/nchw.json", "--to", "NHWC"],
    ["examples/hw.json", "--to-desc", "examples/padded.json"],
    ["--type", "f32", "--sizes", "2,3,2,2,1,1,2,3"],
    ["--type", "f16", "--sizes", "1,16,20,30", "--layout", "NHWC"],
    ["--type", "f32", "--sizes", "1,3,4,4", "--strides", "0,1,24,3"],
    ["examples/model.gguf:blk.0.attn_q.weight"],
    ["examples/padded.json", "examples/padded.bin", "--values"],
    ["examples/int4_weight.json"],
    ["--type", "f32", "--sizes", "1,4,5,50", "--strides", "1280,320,64,1"],
    ["--type", "f16", "--sizes", "1,16,1,1"],
]


def png_pixels(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG: (width, height, rows)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
            depth, ctype, interlace = body[8], body[9], body[12]
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG kind"
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def colour_axis(sizes):
    if len(sizes) in (4, 5) and sizes[1] > 1:
        return 1
    return len(sizes) - 2 if len(sizes) >= 2 else 0


def main():
    tl = sys.argv[1]
    if not shutil.which("rsvg-convert"):
        print("skip: draw-svg (no rsvg-convert: apt-get install librsvg2-bin)")
        return 0
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tmp = tempfile.mkdtemp()
    failures, cells = [], 0
    for k, args in enumerate(CASES):
        svg, png = os.path.join(tmp, "%d.svg" % k), os.path.join(tmp, "%d.png" % k)
        r = subprocess.run([tl, "draw", "-o", svg] + args, cwd=root, capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%s: draw exited %d: %s" % (args, r.returncode, r.stderr))
            continue
        try:
            doc = ET.parse(svg).getroot()
        except ET.ParseError as e:
            failures.append("%s: not XML: %s" % (args, e))
            continue
        if doc.tag != SVG + "svg" or doc.get("version") != "1.1" or doc.find(SVG + "title") is None:
            failures.append("%s: not an SVG 1.1 document with a title" % args)
            continue
        r = subprocess.run(["rsvg-convert", svg, "-o", png], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%s: rsvg-convert: %s" % (args, r.stderr))
            continue
        width, height, bpp, rows = png_pixels(png)
        if (width, height) != (int(doc.get("width")), int(doc.get("height"))):
            failures.append("%s: rendered %dx%d" % (args, width, height))
        # the sizes, from the title text of each side: "...sizes 2,3, strides..."
        sizes, padded = None, False
        for t in doc.iter(SVG + "text"):
            if t.get("font-weight") == "bold" and t.text and ", sizes " in t.text:
                sizes = [int(v) for v in t.text.split(", sizes ")[1].split(", strides")[0].split(",")]
                padded = ": padded" in t.text
                break
        kinds = set()
        for rect in doc.iter(SVG + "rect"):
            if rect.get("class") != "cell" or rect.get("data-view") not in ("logical", "physical"):
                continue
            kind = rect.get("data-kind")
            kinds.add(kind)
            fill = int(rect.get("fill")[1:], 16)
            if kind == "padding":
                want = PADDING
            else:
                idx = [int(v) for v in rect.get("data-index").split(",")]
                want = PALETTE[idx[colour_axis(sizes)] % 8]
            x, y = int(rect.get("x")), int(rect.get("y"))
            w, h = int(rect.get("width")), int(rect.get("height"))
            cells += 1
            if fill != want:
                failures.append("%s: %s cell %s at %d,%d is #%06x in the file, not #%06x" %
                                (args, kind, rect.get("data-index"), x, y, fill, want))
                continue
            for px, py in ((x + 4, y + 4), (x + w - 5, y + h - 5)):
                p = rows[py][px * bpp:px * bpp + 3]
                got = (p[0] << 16) | (p[1] << 8) | p[2]
                if any(abs(((got >> s) & 255) - ((want >> s) & 255)) > 2 for s in (0, 8, 16)):
                    failures.append("%s: %s cell %s renders #%06x at %d,%d, not #%06x" %
                                    (args, kind, rect.get("data-index"), got, px, py, want))
                    break
        # the legend explains the marks drawn, and only those
        drawn = {r.get("data-kind") for r in doc.iter(SVG + "rect")
                 if r.get("class") == "cell" and r.get("data-view") == "physical"} - {"element"}
        told = {r.get("data-kind") for r in doc.iter(SVG + "rect")
                if r.get("class") == "cell" and r.get("data-view") == "legend"} - {"element"}
        if drawn != told:
            failures.append("%s: the legend explains %s, the picture draws %s" %
                            (args, sorted(told), sorted(drawn)))
        # a GGUF tensor of blocks: its stored view, each block's box and each
        # field's bar filled as the file says
        stored = [r for r in doc.iter(SVG + "rect") if r.get("class") in ("block", "field")]
        if ".gguf:" in args[0]:
            if not any(r.get("class") == "block" for r in stored) or \
                    not any(r.get("class") == "field" for r in stored):
                failures.append("%s: no block or no field drawn" % args)
            for rect in stored:
                want = int(rect.get("fill")[1:], 16)
                px, py = int(rect.get("x")) + 3, int(rect.get("y")) + 3
                p = rows[py][px * bpp:px * bpp + 3]
                got = (p[0] << 16) | (p[1] << 8) | p[2]
                cells += 1
                if any(abs(((got >> s) & 255) - ((want >> s) & 255)) > 2 for s in (0, 8, 16)):
                    failures.append("%s: %s %s renders #%06x, not #%06x" %
                                    (args, rect.get("class"), rect.get("data-block") or
                                     rect.get("data-field"), got, want))
        # a padded tensor's picture shows padding, however much is left out
        if padded and "padding" not in kinds:
            failures.append("%s: padded, but no padding cell drawn" % args)
        # axes of size 1 are not drawn as grids of one cell: a 1x16x1x1 bias
        # is one row of 16
        if sizes and sum(1 for v in sizes if v > 1) == 1:
            logical = [r for r in doc.iter(SVG + "rect")
                       if r.get("class") == "cell" and r.get("data-view") == "logical"]
            if len(logical) != max(sizes) or len({r.get("y") for r in logical}) != 1:
                failures.append("%s: %d logical cells on %d rows, not one row of %d" %
                                (args, len(logical), len({r.get("y") for r in logical}),
                                 max(sizes)))
    shutil.rmtree(tmp)
    for f in failures[:20]:
        print("FAIL " + f)
    print("draw-svg: %d pictures, %d cells checked, %d failures" % (len(CASES), cells, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
