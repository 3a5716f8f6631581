# a cache folder that cannot be made: exit 3 before measuring anything
XDG_CACHE_HOME=/proc/no/such $TL calibrate --quick; echo "exit $?"
