# off: the built-in rules (their sizes follow the machine's L3: only the
# source line is the same everywhere)
TENSORLAYOUT_CALIBRATION=off $TL calibrate --show | head -n 1
