$TL convert
