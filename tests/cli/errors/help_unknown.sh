$TL help frobnicate
