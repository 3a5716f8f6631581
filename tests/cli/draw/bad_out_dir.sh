mkdir pics
$TL draw -o pics examples/padded.json
echo "exit $?"
ls pics
