TENSORLAYOUT_CALIBRATION=bad/calib_intel.txt $TL calibrate --show --json
