$TL --version
