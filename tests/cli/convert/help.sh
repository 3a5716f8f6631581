$TL convert --help
