$TL calibrate --show --quick; echo "exit $?"
$TL calibrate extra; echo "exit $?"
$TL calibrate --fast; echo "exit $?"
