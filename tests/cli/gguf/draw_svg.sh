# draw of a GGUF tensor of blocks as SVG: after the layout, the stored view,
# a box a block (the first four, the last four) and a block's fields.
out=$(mktemp -d)
$TL draw examples/model.gguf:blk.0.attn_q.weight -o "$out/q.svg"; echo exit $?
grep -o 'stored view: [^<]*' "$out/q.svg"
grep -o 'class="block" data-block="[0-9]*"' "$out/q.svg"
grep -o 'class="field" data-field="[a-z]*"' "$out/q.svg"
grep -c '<text[^>]*>bytes 2624..2768</text>' "$out/q.svg"
rm -r "$out"
