$TL inspect --help
