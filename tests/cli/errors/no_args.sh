$TL
