# In a terminal too narrow for a padded row (24 slots, 18 fit in 100
# columns), the physical view still starts each row on a line of its own:
# 12 slots a line, two lines a row (issue 76; they drifted before).
COLUMNS=100 $TL draw '{"dataType":"FLOAT32","sizes":[4,20],"strides":[24,1]}'; echo exit $?
