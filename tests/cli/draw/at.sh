# --at centres the picture on an element (and says its offset)
COLUMNS=80 $TL draw --color never --at 0,200,30,40 --type f32 --sizes 1,256,56,56
