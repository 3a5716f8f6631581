# every command that takes DESC lists the options
for c in inspect size offset dump convert compare; do
    $TL $c --help | grep -c -e '--type=T' -e '--sizes=LIST' -e '--strides=LIST' -e '--layout=L' -e '--byte-offset=N'
done
