# a large tensor is cut with ellipses, and a line says what was left out
COLUMNS=80 $TL draw --color never --type f32 --sizes 1,256,56,56 --layout NHWC
