$TL help inspect
