$TL compare --help
