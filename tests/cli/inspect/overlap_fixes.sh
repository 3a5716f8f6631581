# SPEC 19: the overlap note changes only the stride that breaks the nesting
# and keeps every stride that was right; several fits are listed, the
# padded-W case among them; strides that look like byte counts get a note,
# exit unchanged (a DirectML developer's first hour, issue 46).
for s in '[100352,1,56,32]' '[100352,1,1792,1]' '[100352,56,56,1]' '[114688,1,64,32]'; do
    $TL inspect "{\"dataType\":\"FLOAT16\",\"sizes\":[2,32,56,56],\"strides\":$s}" > /dev/null; echo exit $?
done
# a batch of 1 (issue 76): N's stride 114688 = 56 x 2048 implies W padded to
# 64, listed first, beside the packed 1792
$TL inspect '{"DataType":"FLOAT16","Sizes":[1,32,56,56],"Strides":[114688,1,64,32]}' > /dev/null; echo exit $?
# the suggestion of the first, inspected: packed, 401 KB
$TL inspect '{"dataType":"FLOAT16","sizes":[2,32,56,56],"strides":[100352,1,1792,32]}' | grep -E '^(status|minimumImplied)'
$TL inspect '{"dataType":"FLOAT32","sizes":[2,3,4],"strides":[48,16,4]}' | tail -n 1; echo exit $?
$TL inspect --json '{"dataType":"FLOAT32","sizes":[2,3,4],"strides":[48,16,4]}' | grep notes
# packed element strides, a padded layout in bytes that is not packed, UINT8: no note
$TL inspect '{"dataType":"FLOAT32","sizes":[2,3,4],"strides":[12,4,1]}' > /dev/null
$TL inspect '{"dataType":"FLOAT32","sizes":[2,3,4],"strides":[64,16,4]}' > /dev/null
$TL inspect '{"dataType":"UINT8","sizes":[2,3,4],"strides":[12,4,1]}' > /dev/null; echo exit $?
