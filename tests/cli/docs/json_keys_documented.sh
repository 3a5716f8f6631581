# Every key a command's --json prints is in the man page (SPEC 19: JSON for
# programs), over each kind of document: a missing key is printed, and the
# test fails until the man page says what it is.
man=$(dirname "$(readlink examples)")/man/tensorlayout.1
{
    $TL inspect --json examples/padded.json examples/padded.bin --padding
    $TL inspect --json examples/overlap.json
    $TL inspect --json '{"dataType":"FLOAT32","sizes":[2,3,4],"strides":[48,16,4]}'
    $TL size --json examples/nchw.json
    $TL offset --json examples/nchw.json 0,1,0,1
    $TL offset --json examples/nchw.json --byte 4
    $TL offset --json examples/uint4.json --byte 1
    $TL offset --json examples/readback_map.json --byte 1800
    $TL strides --json --sizes 1,2,3,4 --layout NHWC
    $TL dump --json examples/nchw.json examples/nchw.bin
    $TL dump --json --physical examples/padded.json examples/padded.bin
    $TL dump --json --stats examples/nchw.npy
    $TL list --json examples/model.safetensors
    $TL list --json examples/mixed.safetensors
    $TL list --json examples/weights.npz
    $TL list --json examples/model.gguf
    $TL list --json examples/checkpoint.pt
    $TL list --json examples/scaled.safetensors
    $TL inspect --json examples/model.gguf:blk.0.attn_q.weight
    $TL offset --json examples/model.gguf:blk.0.attn_q.weight 1,5
    $TL offset --json examples/model.gguf:blk.0.attn_q.weight --byte 2645
    $TL convert --json examples/model.gguf -o x.safetensors
    $TL list --json examples/readback_map.json examples/readback_map.bin
    $TL list --json examples/sharded/model.safetensors.index.json
    $TL compare --json examples/nchw.npy examples/nchw.npy
    $TL compare --json examples/hw.json examples/hw.bin examples/dhw.json examples/dhw.bin
    $TL compare --json examples/nchw.json examples/nchw.bin examples/nhwc.json examples/nhwc.bin
    $TL compare --json examples/weights.npz examples/weights.npz
    $TL convert --json examples/nchw.json examples/nchw.bin --to NHWC -o x.bin
    $TL convert --json examples/model.safetensors --to-type F16 -o x.safetensors
    $TL convert --json examples/sharded/model.safetensors.index.json --to-type F16 -o m/
    $TL calibrate --show --json
} 2>/dev/null | grep -o '"[A-Za-z_][A-Za-z0-9_]*":' | sort -u | tr -d '":' > keys.txt
n=0
while read -r k; do
    n=$((n + 1))
    # as the man page names a key: quoted in a document's outline, or as a
    # word in bold (.B key, .BR key ,)
    grep -q -e "\\\\(dq$k\\\\(dq" -e "^\\.BR\\{0,1\\} $k\\( \\|,\\|\$\\)" "$man" ||
        echo "--json key '$k' is not in the man page"
done < keys.txt
[ "$n" -gt 60 ] && echo "every --json key is in the man page"
