"""The PyTorch checkpoint tests (SPEC 17), with PyTorch itself as the
oracle: torch.save writes the checkpoints, torch.load of the source gives
the values expected of what the tool writes (read back by numpy, or by the
safetensors reader here, written from the format's published layout).  The
hostile pickles are made here byte by byte; none may run: the file their
payload would create never appears.

Usage: TL=/path/to/tensorlayout python3 tests/pytorch/test_pytorch.py [FILTER]
"""
import collections
import io
import json
import os
import pickle
import struct
import subprocess
import sys
import zipfile

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tensorfiles"))
import tensorfiles  # noqa: E402

TL = os.environ.get("TL", "build/tensorlayout")
TMP = None


tl = tensorfiles.tl


def path(name):
    return os.path.join(TMP, name)


read_safetensors = tensorfiles.read_safetensors


def as_numpy(t):
    """A tensor's values as numpy holds them (bfloat16 as its bits)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def flat(obj, prefix=""):
    """torch.load's tree as the tool names it: dotted names."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flat(v, prefix + ("." if prefix else "") + str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(flat(v, prefix + ("." if prefix else "") + str(i)))
    else:
        out[prefix] = obj
    return out


def checkpoint():
    """Every dtype torch has that the tool reads, views, ties, nesting."""
    g = torch.Generator().manual_seed(5)
    base = torch.randn(4, 6, generator=g)
    sd = collections.OrderedDict()
    sd["conv.weight"] = torch.randn(3, 2, 3, 3, generator=g)
    sd["conv.bias"] = torch.randn(3, generator=g).half()
    sd["lin.weight"] = base
    sd["lin.weight_t"] = base.t()                       # a transposed view
    sd["lin.slice"] = base[1:3, 2:5]                    # an offset, strided view
    sd["lin.every_other"] = base[:, ::2]
    sd["emb.weight"] = torch.randn(5, 4, generator=g).to(torch.bfloat16)
    sd["head.weight"] = sd["emb.weight"]                # tied
    sd["f64"] = torch.randn(2, 2, generator=g).double()
    for dt in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
        sd["i." + str(dt).split(".")[-1]] = (torch.arange(12) * 37 % 200 - 90).to(dt).reshape(3, 4)
    sd["mask"] = torch.tensor([[True, False, True], [False, False, True]])
    sd["mask_t"] = sd["mask"].t()                       # a strided bool view
    sd["scalar"] = torch.tensor(3.5)
    sd["empty"] = torch.zeros(0, 4)
    sd["param"] = torch.nn.Parameter(torch.ones(3))
    return {"model": sd, "optimizer": {"state": {0: {"step": torch.tensor(7.0),
                                                      "exp_avg": torch.randn(3, generator=g)}},
                                       "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999)}]},
            "epoch": 3, "name": "tiny"}


def test_convert_to_safetensors_and_npz():
    """Every tensor of a checkpoint into safetensors and into an .npz: the
    values torch.load gives, shapes logical (views, transposes, slices),
    tied weights written apart; values that are no tensor listed, not
    written."""
    ck = checkpoint()
    torch.save(ck, path("ck.pt"))
    src = {k: v for k, v in flat(torch.load(path("ck.pt"))).items()}
    p = tl("convert", path("ck.pt"), "-o", path("ck.safetensors"))
    assert b"not written" in p.stderr and b"share a storage" in p.stderr, p.stderr
    st = read_safetensors(path("ck.safetensors"))
    for name, v in src.items():
        if not torch.is_tensor(v):
            assert name not in st, name
            continue
        if v.numel() == 0:
            assert st[name][1].size == 0 and list(st[name][1].shape) == list(v.shape), name
            continue
        dtype, got = st[name]
        assert list(got.shape) == list(v.shape), (name, got.shape, v.shape)
        assert np.array_equal(got, as_numpy(v)), name
    # numpy has no bfloat16: the .npz without it (bool tensors, views of
    # them included, are numpy's bool)
    torch.save({k: v for k, v in flat(ck).items()
                if torch.is_tensor(v) and v.dtype != torch.bfloat16 and v.numel()},
               path("nobf.pt"))
    tl("convert", path("nobf.pt"), "-o", path("nobf.npz"))
    z = np.load(path("nobf.npz"))
    want = flat(torch.load(path("nobf.pt")))
    assert set(z.files) == set(want), (set(z.files) ^ set(want))
    for name, v in want.items():
        assert z[name].shape == tuple(v.shape) and np.array_equal(z[name], as_numpy(v)), name


def test_only_the_model_of_a_training_checkpoint():
    """SPEC 23: convert --only 'model.*' --drop '*.bias' of a training
    checkpoint (model, optimizer state, epoch) writes exactly the model's
    weights but the biases, each as torch has it."""
    torch.save(checkpoint(), path("train.pt"))
    out = path("model_only.safetensors")
    tl("convert", path("train.pt"), "--only", "model.*", "--drop", "*.bias", "-o", out)
    got = read_safetensors(out)
    want = {k: v for k, v in flat(torch.load(path("train.pt"))).items()
            if k.startswith("model.") and not k.endswith(".bias")}
    assert sorted(got) == sorted(want), sorted(set(got) ^ set(want))
    for k, t in want.items():
        assert np.array_equal(got[k][1], as_numpy(t)), k


def test_max_shard_size_of_one_file():
    """SPEC 23: convert FILE --max-shard-size SIZE -o OUTDIR/ writes one
    checkpoint as shards of at most SIZE bytes of tensors (a larger tensor
    alone) and the index naming them, as save_pretrained would; --only and
    --to-type apply on the way; every tensor is torch's."""
    torch.save(checkpoint(), path("big.pt"))
    out = path("sharded_one")
    tl("convert", path("big.pt"), "--only", "model.*", "--max-shard-size", "64", "-o", out + "/")
    index = json.load(open(os.path.join(out, "model.safetensors.index.json")))
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) > 1 and shards[0] == "model-00001-of-%05d.safetensors" % len(shards), shards
    want = {k: v for k, v in flat(torch.load(path("big.pt"))).items() if k.startswith("model.")}
    got = {}
    for s in shards:
        part = read_safetensors(os.path.join(out, s))
        total = sum(a.nbytes for _, a in part.values())
        assert total <= 64 or len(part) == 1, (s, total)
        for k in part:
            assert index["weight_map"][k] == s, k
        got.update(part)
    assert sorted(got) == sorted(want), sorted(set(got) ^ set(want))
    for k, t in want.items():
        assert np.array_equal(got[k][1], as_numpy(t)), k
    assert index["metadata"]["total_size"] == sum(a.nbytes for _, a in got.values())
    # all in one: one model.safetensors, no index
    one = path("sharded_all")
    tl("convert", path("big.pt"), "--only", "model.*", "--to-type", "FLOAT16",
       "--max-shard-size", "1GB", "-o", one + "/")
    assert os.listdir(one) == ["model.safetensors"], os.listdir(one)
    got = read_safetensors(os.path.join(one, "model.safetensors"))
    for k, t in want.items():
        want16 = t.to(torch.float16) if t.is_floating_point() else t
        assert np.array_equal(got[k][1], as_numpy(want16)), k


def test_list_views_and_values():
    """list --json: each tensor's storage, the ties and views sharing one;
    the values that are no tensor apart, in "values", with their Python type
    and text (SPEC 23); dump of a transposed and a sliced view gives
    torch's values."""
    torch.save(checkpoint(), path("l.pt"))
    doc = json.loads(tl("list", "--json", path("l.pt")).stdout)
    by = {t["name"]: t for t in doc["tensors"]}
    assert by["model.head.weight"]["storage"] == by["model.emb.weight"]["storage"]
    assert by["model.lin.weight_t"]["storage"] == by["model.lin.weight"]["storage"]
    values = {v["name"]: v for v in doc["values"]}
    assert not set(values) & set(by), set(values) & set(by)
    assert values["epoch"] == {"name": "epoch", "type": "int", "value": "3"}
    assert values["name"]["value"] == "'tiny'" and values["name"]["type"] == "str"
    assert values["optimizer.param_groups.0.lr"]["value"] == "0.001"
    src = flat(torch.load(path("l.pt")))
    for name in ("model.lin.weight_t", "model.lin.slice", "model.lin.every_other"):
        out = json.loads(tl("dump", "--json", path("l.pt") + ":" + name).stdout)
        vals = out["values"] if isinstance(out, dict) else out
        assert np.array_equal(np.array(vals, np.float32), src[name].numpy()), name


def test_tensors_the_tool_does_not_decode():
    """SPEC 23: a checkpoint with a quantized (qint8, _rebuild_qtensor), a
    sparse (_rebuild_sparse_tensor) and a transposed complex tensor lists
    them with their types and converts the rest, each as torch has it, with
    a note naming what was not written; a packed complex tensor is carried
    as its bytes.  torch.save(model) and a numpy array inside the pickle are
    told what to save instead; a program's global is still refused."""
    g = torch.Generator().manual_seed(3)
    sd = collections.OrderedDict()
    sd["w"] = torch.randn(2, 3, generator=g)
    sd["q"] = torch.quantize_per_tensor(torch.randn(4, generator=g), 0.1, 0, torch.qint8)
    sd["s"] = torch.randn(3, 3, generator=g).to_sparse()
    sd["c"] = torch.randn(2, 2, dtype=torch.complex64, generator=g)
    sd["c_t"] = sd["c"].t()
    sd["b"] = torch.randn(5, generator=g).half()
    torch.save(sd, path("odd.pt"))
    doc = json.loads(tl("list", "--json", path("odd.pt")).stdout)
    values = {v["name"]: v for v in doc["values"]}
    assert values["q"]["type"] == "qint8" and "(4,)" in values["q"]["value"], values
    assert values["s"]["type"] == "sparse_coo" and "(3, 3)" in values["s"]["value"], values
    assert values["c_t"]["type"] == "complex64", values
    tensors = {t["name"]: t for t in doc["tensors"]}
    assert tensors["c"]["dataType"] == "C64" and not tensors["c"]["decodable"], tensors["c"]
    out = path("odd.safetensors")
    p = tl("convert", path("odd.pt"), "-o", out)
    note = p.stderr.decode()
    assert "3 tensors the tool does not decode not written: 'q' (qint8), 's' (sparse_coo), " \
           "'c_t' (complex64)" in note, note
    b = open(out, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    h = json.loads(b[8:8 + n])
    assert sorted(k for k in h if k != "__metadata__") == ["b", "c", "w"], sorted(h)
    a, z = h["c"]["data_offsets"]
    assert h["c"]["dtype"] == "C64" and h["c"]["shape"] == [2, 2]
    assert np.array_equal(np.frombuffer(b[8 + n + a:8 + n + z], np.complex64).reshape(2, 2),
                          sd["c"].numpy())
    for k in ("w", "b"):
        a, z = h[k]["data_offsets"]
        want = sd[k].numpy()
        assert np.array_equal(np.frombuffer(b[8 + n + a:8 + n + z], want.dtype).reshape(
            want.shape), want), k
    # what to save instead
    torch.save(torch.nn.Linear(3, 2), path("whole_model.pt"))
    p = tl("list", path("whole_model.pt"), check=False)
    assert p.returncode == 4 and b"torch.save(model.state_dict())" in p.stderr, p.stderr
    torch.save({"w": torch.ones(2), "a": np.ones(3)}, path("with_numpy.pt"))
    p = tl("list", path("with_numpy.pt"), check=False)
    assert p.returncode == 4 and b"torch.from_numpy(a)" in p.stderr, p.stderr


def test_sharded_model_into_safetensors_shards():
    """pytorch_model.bin.index.json and its shards (torch.save'd) into a
    folder of safetensors shards and model.safetensors.index.json: the
    shards renamed, the weight map naming them, every tensor torch's; the
    model's other files copied."""
    d = path("sharded")
    os.makedirs(d)
    g = torch.Generator().manual_seed(9)
    a = {"enc.weight": torch.randn(4, 3, generator=g), "enc.bias": torch.randn(4, generator=g)}
    b = {"dec.weight": torch.randn(3, 4, generator=g).half()}
    b["dec.weight_t"] = b["dec.weight"].t()
    names = ["pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin"]
    torch.save(a, os.path.join(d, names[0]))
    torch.save(b, os.path.join(d, names[1]))
    wm = {k: names[0] for k in a}
    wm.update({k: names[1] for k in b})
    json.dump({"metadata": {"total_size": 0}, "weight_map": wm},
              open(os.path.join(d, "pytorch_model.bin.index.json"), "w"))
    open(os.path.join(d, "config.json"), "w").write('{"model_type": "x"}')
    out = path("sharded_out")
    tl("convert", os.path.join(d, "pytorch_model.bin.index.json"), "-o", out + "/")
    assert sorted(os.listdir(out)) == ["config.json", "model-00001-of-00002.safetensors",
                                       "model-00002-of-00002.safetensors",
                                       "model.safetensors.index.json"], os.listdir(out)
    index = json.load(open(os.path.join(out, "model.safetensors.index.json")))
    for name, src in list(a.items()) + list(b.items()):
        shard = index["weight_map"][name]
        assert shard == wm[name].replace("pytorch_", "").replace(".bin", ".safetensors")
        got = read_safetensors(os.path.join(out, shard))[name][1]
        assert np.array_equal(got, as_numpy(src)), name
    assert index["metadata"]["total_size"] == sum(v.numel() * v.element_size()
                                                  for v in list(a.values()) + list(b.values()))


def test_legacy_and_torchscript_refused():
    """A pre-1.6 pickle and a TorchScript archive: refused by name, exit 4."""
    torch.save({"w": torch.ones(2)}, path("old.pt"), _use_new_zipfile_serialization=False)
    p = tl("list", path("old.pt"), check=False)
    assert p.returncode == 4 and b"old format" in p.stderr, p
    m = torch.jit.script(torch.nn.Linear(2, 2))
    torch.jit.save(m, path("ts.pt"))
    p = tl("list", path("ts.pt"), check=False)
    assert p.returncode == 4 and b"TorchScript" in p.stderr, p


class Payload:
    def __init__(self, func, arg):
        self.func, self.arg = func, arg

    def __reduce__(self):
        return (self.func, (self.arg,))


def archive(pkl, storages=None, name="archive", deflate=False, deflate_pkl=False):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(name + "/data.pkl", pkl,
                   compress_type=zipfile.ZIP_DEFLATED if deflate_pkl else zipfile.ZIP_STORED)
        for k, data in (storages or {"0": bytes(64)}).items():
            z.writestr(name + "/data/" + k, data,
                       compress_type=zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
        z.writestr(name + "/version", "3\n")
    return buf.getvalue()


def hostile_cases(marker):
    """(name, file bytes, phrase of its one-line message)."""
    touch = "touch " + marker
    storage = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
               b"ctorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x64tQK\x00K\x04\x85"
               b"K\x01\x85\x89ccollections\nOrderedDict\n)RtR.")
    return [
        ("os_system", archive(b"cos\nsystem\n(X" + struct.pack("<I", len(touch)) + touch.encode()
                              + b"tR."), "os.system"),
        ("posix_system", archive(pickle.dumps(Payload(os.system, touch), protocol=2)), "system"),
        ("eval", archive(pickle.dumps(Payload(eval, "__import__('os').system('%s')" % touch),
                                      protocol=4)), "eval"),
        ("exec_p5", archive(pickle.dumps(Payload(exec, "open('%s','w')" % marker), protocol=5)),
         "exec"),
        ("utils_lookalike", archive(b"\x80\x02ctorch._utils\n_rebuild_tensor_v3\n)R."),
         "_rebuild_tensor_v3"),
        ("torch_load", archive(b"\x80\x02ctorch\nload\n)R."), "torch.load"),
        ("odd_module", archive(b"\x80\x02ctorch.nn.modules\nLinear\n)R."), "Linear"),
        ("stack_global", archive(b"\x80\x04\x8c\x02os\x8c\x06system\x93)R."), "os.system"),
        ("deep", archive(b"\x80\x02" + b"(" * 5000 + b"."), "deeper"),
        ("memo_huge", archive(b"\x80\x02Nr\xff\xff\xff\xff."), "memo"),
        ("memo_unwritten", archive(b"\x80\x02j\x05\x00\x00\x00."), "memo"),
        ("truncated", archive(storage[:40]), "truncated"),
        ("string_past_end", archive(b"\x80\x02X\xff\xff\xff\x7f"), "past its end"),
        ("storage_past_member", archive(storage, {"0": bytes(16)}), "holds 16 bytes"),
        ("view_past_storage", archive(storage.replace(b"K\x00K\x04\x85", b"K\x62K\x04\x85"),
                                      {"0": bytes(400)}), "reaches element"),
        ("no_member", archive(storage, {"7": bytes(400)}), "has no member"),
        ("protocol_1", archive(b"\x80\x01N."), "protocol 1"),
        ("newobj", archive(b"\x80\x02ccollections\nOrderedDict\n)\x81."), "opcode 0x81"),
        ("bad_opcode", archive(b"\x80\x02I1\n."), "opcode"),
        # what a file says is printed escaped: no terminal control, one line
        ("escape_module", archive(b"\x80\x02cos\x1b]0;OWNED\x07\nsystem\n)R."),
         "os\\x1b]0;OWNED\\x07.system"),
        ("newline_storage_key", archive(storage.replace(b"X\x01\x00\x00\x000", b"X\x03\x00\x00\x000\n1"),
                                        {"0": bytes(64)}), "0\\x0a1"),
    ]


def view(sizes, strides, offset=0):
    """A checkpoint {'w': a FLOAT32 view of storage '0' (12 elements)},
    its sizes, strides and offset as given: any integers, written as
    pickle's 8-byte LONG1."""
    def ints(xs):
        return b"(" + b"".join(b"\x8a\x08" + struct.pack("<q", x) for x in xs) + b"t"
    return (b"\x80\x02}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00"
            b"\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x0ctQ"
            + ints([offset]).strip(b"(t") + ints(sizes) + ints(strides)
            + b"\x89ccollections\nOrderedDict\n)RtRs.")


def test_hostile_views_leak_nothing():
    """Views whose sizes no file can hold, and empty views past or on a
    deflated storage (issue 73): refused in one line with exit 4, or carried
    as the nothing they hold; never a byte of the process's memory or past
    the input in the output."""
    cases = [
        ("broadcast_huge", archive(view([2 ** 63 - 1], [0])), "more than any file can hold"),
        ("empty_past_storage", archive(view([3, 0], [1, 1], offset=252)), "starts at element 252"),
    ]
    for name, data, says in cases:
        f = path("view_%s.pt" % name)
        open(f, "wb").write(data)
        for args in (["list", f], ["convert", f, "-o", "-", "--format", "safetensors"],
                     ["convert", f, "-o", path("v.safetensors")], ["dump", f + ":w"]):
            r = tl(*args, check=False)
            lines = r.stderr.decode().strip().split("\n")
            assert r.returncode == 4 and r.stdout == b"", (name, args, r.returncode, len(r.stdout))
            assert len(lines) == 1 and says in lines[0], (name, lines, says)
        assert not os.path.exists(path("v.safetensors"))
    # a view that spreads 4 bytes over 64 GB (or 128 MiB) is refused without
    # --allow-expand, which writes it whole
    for sizes in ([2 ** 17, 2 ** 17], [2 ** 12, 2 ** 13]):
        f = path("view_expand.pt")
        open(f, "wb").write(archive(view(sizes, [0, 0])))
        r = tl("convert", f, "-o", "-", "--format", "safetensors", check=False)
        assert r.returncode == 4 and r.stdout == b"" and b"--allow-expand" in r.stderr, r.stderr
    r = tl("convert", f, "-o", "-", "--format", "safetensors", "--allow-expand")
    n = struct.unpack("<Q", r.stdout[:8])[0]
    assert len(r.stdout) == 8 + n + 4 * 2 ** 25, len(r.stdout)
    # an empty view on a deflated storage: carried with no bytes, and torch
    # reads the output as the empty tensor it is
    f = path("view_empty_deflated.pt")
    open(f, "wb").write(archive(view([0], [1], offset=5), {"0": os.urandom(48) * 40}, deflate=True))
    r = tl("convert", f, "-o", "-", "--format", "safetensors")
    n = struct.unpack("<Q", r.stdout[:8])[0]
    head = json.loads(r.stdout[8:8 + n])
    assert len(r.stdout) == 8 + n and head["w"]["data_offsets"] == [0, 0], (len(r.stdout), head)
    tl("convert", f, "-o", path("empty.safetensors"))
    got = read_safetensors(path("empty.safetensors"))
    assert got["w"][1].shape == (0,), got


# Runs the tool from a small python (this one, having loaded torch, would
# lend its forked child its own peak) and prints the child's peak RSS.
PEAK = """import os, sys
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, use = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), use.ru_maxrss)
"""


def sanitized():
    """Whether TL is an ASan build, whose memory (redzones, a quarantine of
    what it frees) says nothing of the tool's."""
    with open(TL, "rb") as f:
        return b"__asan_init" in f.read()


def peak(*args):
    """(exit status, stderr, peak RSS in MiB) of one run of the tool (0
    under ASan: not measured)."""
    p = subprocess.run([sys.executable, "-c", PEAK, TL] + [str(a) for a in args],
                       capture_output=True)
    rc, kib = p.stdout.split()
    return int(rc), p.stderr, 0 if sanitized() else int(kib) / 1024


def shared_lists(levels):
    """{'w': L} where L(k) = [L(k-1), L(k-1)], each level one list the memo
    shares: 2**levels values once flattened, from a few bytes a level."""
    p = b"\x80\x02}X\x01\x00\x00\x00w]q\x00"
    for k in range(1, levels + 1):
        p += b"0]q" + bytes([k]) + b"(h" + bytes([k - 1]) + b"h" + bytes([k - 1]) + b"e"
    return p + b"s."


def test_hostile_work_is_bounded():
    """Small files that cost unbounded work (issue 73): a chain of shared
    lists, a deflated data.pkl of 100 MiB of one opcode, 20,000 storages
    looked up by name: each is refused, or read, in one line and bounded
    memory (peak RSS under 100 MiB)."""
    cases = [
        ("shared_lists_22", archive(shared_lists(22)), "flattens into more than"),
        ("shared_lists_40", archive(shared_lists(40)), "flattens into more than"),
        ("nones_100mib", archive(b"\x80\x02" + b"N" * ((100 << 20) - 8) + b".", deflate_pkl=True),
         "more than 16 times its size"),
        ("nones_1mib", archive(b"\x80\x02" + b"N" * (1 << 20) + b"."), "builds more than"),
        ("pickle_past_100mib", archive(b"\x80\x02" + b"N" * (100 << 20) + b".", deflate_pkl=True),
         "above the limit of 100 MiB"),
    ]
    for name, data, says in cases:
        f = path("work_%s.pt" % name)
        open(f, "wb").write(data)
        rc, err, mib = peak("list", f)
        lines = err.decode().strip().split("\n")
        assert rc == 4 and len(lines) == 1 and says in lines[0], (name, rc, lines)
        assert mib < 100, (name, mib)
    # 20,000 storages, each of one element, each viewed once: read whole,
    # the storages found by name in log time
    n = 20000
    pkl = b"\x80\x02}"
    storages = {}
    for i in range(n):
        key = str(i).encode()
        pkl += (b"X" + struct.pack("<I", len(b"t%d" % i)) + b"t%d" % i
                + b"ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
                + b"X" + struct.pack("<I", len(key)) + key + b"X\x03\x00\x00\x00cpuK\x01tQK\x00K\x01\x85K\x01\x85"
                + b"\x89ccollections\nOrderedDict\n)RtRs")
        storages[str(i)] = struct.pack("<f", i)
    f = path("work_many_storages.pt")
    open(f, "wb").write(archive(pkl + b".", storages))
    rc, err, mib = peak("list", f)
    assert rc == 0 and mib < 100, (rc, err[:200], mib)


def test_too_many_tensors():
    """A header of a million empty tensors (issue 73: 56 MB took 1.2 GB) is
    refused before a row is made, in one line and bounded memory, in each
    format that declares a count: safetensors, GGUF, and a pickle's rows;
    131,072 tensors, the most a file may hold, still list."""
    def st(n, meta=True):
        entry = '"t%d":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}'
        text = ("{" + ('"__metadata__":{"format":"pt"},' if meta else "")
                + ",".join(entry % i for i in range(n)) + "}").encode()
        return struct.pack("<Q", len(text)) + text
    gguf = b"GGUF" + struct.pack("<IQQ", 3, 200000, 0) + bytes(200000 * 32)
    ints = b"\x80\x02}" + b"".join(b"X" + struct.pack("<I", len(b"k%d" % i)) + b"k%d" % i
                                     + b"K\x01s" for i in range(140000)) + b"."
    cases = [("million.safetensors", st(1000000, meta=False), "declares 1000000 tensors"),
             ("limit_plus_one.safetensors", st(131073), "declares 131073 tensors"),
             ("many.gguf", gguf, "declares 200000 tensors"),
             ("many_leaves.pt", archive(ints), "declares 131073 tensors")]
    for name, data, says in cases:
        f = path(name)
        open(f, "wb").write(data)
        rc, err, mib = peak("list", f)
        lines = err.decode().strip().split("\n")
        assert rc == 4 and len(lines) == 1 and says in lines[0], (name, rc, lines)
        assert "split it into shards" in lines[0], lines
        assert mib < 100, (name, mib)
    f = path("limit.safetensors")
    open(f, "wb").write(st(131072))
    rc, err, mib = peak("list", f)
    assert rc == 0 and mib < 250, (rc, err[:200], mib)


def test_views_of_one_deflated_storage():
    """200 views of one deflated storage (issue 73: it is inflated once for
    all of them, not once each): every view's values as numpy slices them."""
    n, k = 200, 1024
    vals = np.arange(n * k, dtype=np.float32) * np.float32(0.5)
    pkl = b"\x80\x02}"
    for i in range(n):
        name = b"w%d" % i
        off = b"J" + struct.pack("<i", i * k)
        pkl += (b"X" + struct.pack("<I", len(name)) + name
                + b"ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
                + b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpuJ" + struct.pack("<i", n * k) + b"tQ"
                + off + b"M\x00\x04\x85K\x01\x85\x89ccollections\nOrderedDict\n)RtRs")
    f = path("views_deflated.pt")
    open(f, "wb").write(archive(pkl + b".", {"0": vals.tobytes()}, deflate=True))
    tl("convert", f, "-o", path("views.safetensors"))
    got = read_safetensors(path("views.safetensors"))
    assert len(got) == n
    for i in range(n):
        assert np.array_equal(got["w%d" % i][1], vals[i * k:(i + 1) * k]), i


def test_hostile_pickles_run_nothing():
    """Each hostile checkpoint: one line naming what it refuses, exit 4, for
    list, dump and convert; the file its payload would create never
    appears."""
    marker = path("PWNED")
    for name, data, says in hostile_cases(marker):
        f = path("bad_%s.pt" % name)
        open(f, "wb").write(data)
        for args in (["list", f], ["convert", f, "-o", path("bad.safetensors")]):
            r = tl(*args, check=False)
            lines = r.stderr.decode().strip().split("\n")
            assert r.returncode == 4, (name, args, r.returncode, r.stderr)
            assert len(lines) == 1 and says in lines[0], (name, lines, says)
        assert not os.path.exists(marker), name
        assert not os.path.exists(path("bad.safetensors")), name
    # the same payloads through python's own pickle would have run: the
    # test's marker is real
    pickle.loads(pickle.dumps(Payload(os.system, "touch " + marker), protocol=2))
    assert os.path.exists(marker)


def main():
    return tensorfiles.run_tests(globals(), "pytorch")


if __name__ == "__main__":
    sys.exit(main())
