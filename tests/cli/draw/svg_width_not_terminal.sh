# An SVG's width is chosen for the picture, not taken from the terminal
# (issue 46: at the default 80 columns it put 3 slots a row and left 12 of
# 20 rows out; COLUMNS=200 drew it whole).
D='{"dataType":"FLOAT32","sizes":[1,4,5,50],"strides":[1280,320,64,1]}'
COLUMNS=80 $TL draw "$D" -o a.svg; echo exit $?
COLUMNS=200 $TL draw "$D" -o b.svg; echo exit $?
cmp a.svg b.svg && echo "the same picture"
grep -c '<rect' a.svg
