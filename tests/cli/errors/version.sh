$TL --version | head -n 1
