# the reference pages' examples with --color always: the same colour for an
# element in both views (by row; by channel for NCHW-family tensors)
for d in hw wh broadcast overlap nchw nhwc; do
    $TL draw --color always examples/$d.json
    echo
done
$TL draw --color always examples/nchw.npy --to NHWC
