$TL -
