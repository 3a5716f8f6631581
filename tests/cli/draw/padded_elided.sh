# A padded tensor too large to draw whole still shows padding (issue 46:
# the 1,4,5,50 / 1280,320,64,1 picture showed no padding slot, only the
# title said padded): the row of the first padding slot stays in view.
COLUMNS=80 $TL draw --color never '{"dataType":"FLOAT32","sizes":[1,4,5,50],"strides":[1280,320,64,1]}' | sed -n '/^physical/,$p'
# padding the head rows show already: nothing moved
COLUMNS=80 $TL draw --color never --type u8 --sizes 1,1,40,6 --strides 400,400,10,1 | sed -n '/^physical/,$p'
