# a changed, cut, other-version or foreign file: a warning naming it and
# what is wrong, then the built-in rules; the command itself still works
for f in calib_changed calib_cut calib_version calib_not calib_missing; do
    TENSORLAYOUT_CALIBRATION=bad/$f.txt $TL size examples/nchw.json
    echo "exit $?"
done
