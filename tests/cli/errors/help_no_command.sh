$TL help
