$TL --help
