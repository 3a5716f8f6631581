# TENSORLAYOUT_NOTES=off silences every note, and nothing else (SPEC 19):
# a data file longer than its tensor, a compare across axes of size 1, an
# overlap's suggested fix; an error still says what is wrong.
D='{"dataType":"UINT8","sizes":[1,4],"strides":[4,1]}'
for v in on off; do
  echo "TENSORLAYOUT_NOTES=$v"
  TENSORLAYOUT_NOTES=$v $TL dump "$D" examples/image.bin 2>&1 >/dev/null; echo "exit $?"
  TENSORLAYOUT_NOTES=$v $TL compare '{"dataType":"UINT8","sizes":[4]}' examples/image.bin "$D" examples/image.bin 2>&1 >/dev/null; echo "exit $?"
  TENSORLAYOUT_NOTES=$v $TL inspect '{"dataType":"FLOAT16","sizes":[2,32,56,56],"strides":[100352,1,56,32]}' 2>&1 >/dev/null; echo "exit $?"
  TENSORLAYOUT_NOTES=$v $TL dump '{"dataType":"UINT8","sizes":[0]}' examples/image.bin 2>&1 >/dev/null; echo "exit $?"
done
