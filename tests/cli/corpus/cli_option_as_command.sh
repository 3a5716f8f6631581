$TL --json
