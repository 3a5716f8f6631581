# A name holding a NUL (\u0000) is refused where it is written, never cut
# short to the name before it.
$TL list '{"tensors":[{"name":"a\u0000b","dataType":"FLOAT32","sizes":[2]}]}'; echo exit $?
