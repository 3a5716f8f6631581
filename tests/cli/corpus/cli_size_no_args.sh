$TL size
