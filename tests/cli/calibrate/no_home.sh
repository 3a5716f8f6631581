env -u HOME -u XDG_CACHE_HOME $TL calibrate --quick; echo "exit $?"
env -u HOME -u XDG_CACHE_HOME $TL calibrate --show | head -n 1
