# External data that would be read outside the model's folder, or past its
# file's end, is refused with one line naming the model and the weight, exit
# 4, before anything is read; nothing is written (SPEC 20).  The models are
# examples/model.onnx with its location rewritten (same length).
mkdir in && cp examples/model.onnx.data in/
printf 'outside' > secret.dat
ln -s ../secret.dat in/linkx.onnx.data
sed 's/model\.onnx\.data/..\/secret.onnx./' examples/model.onnx > in/dotdot.onnx
sed 's/model\.onnx\.data/linkx\.onnx\.data/' examples/model.onnx > in/link.onnx
head -c 100 examples/model.onnx.data > in/short.onnx.data
sed 's/model\.onnx\.data/short\.onnx\.data/' examples/model.onnx > in/short.onnx
for m in dotdot link short; do
    $TL list in/$m.onnx; echo exit $?
    $TL convert in/$m.onnx -o out.npz; echo exit $?
done
ls out.npz 2>/dev/null
head -c 300 examples/model.onnx > in/cut.onnx
$TL list in/cut.onnx; echo exit $?
