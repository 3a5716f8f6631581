# a calibration whose memcpy ran slower on 2 threads than on 1 (make bench's,
# on a 2-CPU Intel guest while another program held a CPU) says so
TENSORLAYOUT_CALIBRATION=bad/calib_disturbed.txt $TL calibrate --show | sed -n '4,5p'
# one whose second thread doubled memcpy's speed does not
TENSORLAYOUT_CALIBRATION=bad/calib_intel.txt $TL calibrate --show | grep -c '^disturbed' || true
