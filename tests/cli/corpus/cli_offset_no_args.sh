$TL offset
