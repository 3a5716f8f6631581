$TL size - < /dev/null
