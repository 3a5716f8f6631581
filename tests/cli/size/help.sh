$TL size --help
