$TL help dump inspect
