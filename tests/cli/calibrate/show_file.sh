# a calibration named by TENSORLAYOUT_CALIBRATION is used whichever
# machine it describes: here the Intel guest of issue 37
TENSORLAYOUT_CALIBRATION=bad/calib_intel.txt $TL calibrate --show
