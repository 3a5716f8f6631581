$TL --version extra | head -n 1
