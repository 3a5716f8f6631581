# tensorlayout - GNU make, no configure step.
#
#   make              build build/tensorlayout
#   make test         every test, then all of them again under ASan + UBSan
#   make install      the binary, the man page and libtensorlayout (.so, .a,
#                     headers, tensorlayout.pc); PREFIX=/usr/local DESTDIR= honoured
#   make help         the targets

CC      ?= cc
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
LIBDIR  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
INSTALL ?= install

# Project flags, kept apart from the user's CFLAGS.
TL_INC    = -Isrc/core -Isrc/copy
TL_CFLAGS = $(TL_INC) -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wundef -ffp-contract=off
TL_LIBS   = -lcjson -largtable2 -lzip -lz -lm -pthread
LIB_LIBS  = -lcjson -lzip -lz -lm -pthread        # the library's own (tensorlayout.pc.in)

ifeq ($(WERROR),1)
TL_CFLAGS += -Werror
endif

ifeq ($(SANITIZE),1)
BUILD    ?= build/san
TL_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TL_LDFLAGS += -fsanitize=address,undefined
else ifeq ($(SANITIZE),thread)
BUILD    ?= build/tsan
TL_CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
TL_LDFLAGS += -fsanitize=thread
else ifeq ($(TRACE),1)
# the trace build: which functions each command-line test reaches
# (tests/cli/trace.c, tests/cli/trace.py)
BUILD    ?= build/trace
TL_CFLAGS += -finstrument-functions -fno-pie
TL_LDFLAGS += -no-pie
TRACE_OBJ = $(BUILD)/tests/cli/trace.o
else
BUILD    ?= build
endif

# Kernel files: the scalar one everywhere, the x86-64 ones on x86-64.  Each
# kern_<isa>.c gets its ISA's flags and nothing else; everything else is
# built for the baseline.
MACHINE := $(shell $(CC) -dumpmachine)
ISA_SRC  = src/copy/kern_scalar.c
ifneq ($(findstring x86_64,$(MACHINE)),)
ISA_SRC += src/copy/kern_sse2.c src/copy/kern_avx2.c src/copy/kern_avx512.c src/copy/dequant_avx2.c \
           src/copy/dequant_avx512.c
endif
ifneq ($(findstring aarch64,$(MACHINE)),)
ISA_SRC += src/copy/kern_neon.c src/copy/dequant_neon.c
endif
$(BUILD)/src/copy/kern_sse2.o:   ISAFLAGS = -msse2
$(BUILD)/src/copy/kern_avx2.o:   ISAFLAGS = -mavx2 -mf16c
$(BUILD)/src/copy/dequant_avx2.o: ISAFLAGS = -mavx2 -mf16c
$(BUILD)/src/copy/kern_avx512.o: ISAFLAGS = -mavx512f -mavx512bw -mavx512vl
$(BUILD)/src/copy/dequant_avx512.o: ISAFLAGS = -mavx512f -mavx512bw -mavx512vl -mf16c

COPY_SRC = src/copy/calib.c src/copy/calib_measure.c src/copy/calib_text.c src/copy/cpu.c src/copy/plan.c src/copy/pool.c src/copy/ref.c src/copy/compare.c src/copy/dequant.c src/copy/decode.c src/copy/grouped.c $(ISA_SRC)
CORE_SRC = $(wildcard src/core/*.c) $(COPY_SRC)
CLI_SRC  = $(wildcard src/cli/*.c) $(wildcard src/draw/*.c)
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libtl.a
BIN      = $(BUILD)/tensorlayout

UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT_BIN = $(BUILD)/test_unit
DIFF_BIN = $(BUILD)/copy_diff

.PHONY: test-kernel-reach test-json test-bins trace-bins job-plain job-san-rest job-san-cli job-trace job-neon job-tsan test-trace test-exhaustive all bench sweep fuzz fuzz-replay test check test-once test-lib test-unit test-diff test-interrupt test-tsan test-neon test-cli test-interop test-gguf test-pytorch test-onnx test-quant test-fp8 test-draw test-valgrind test-docs test-man test-install lib install uninstall clean help

all: $(BIN)  ## build build/tensorlayout

$(BUILD)/%.o: %.c $(wildcard src/*/*.h tests/*/*.h) | $(BUILD)/dirs
	$(CC) $(CFLAGS) $(TL_CFLAGS) $(ISAFLAGS) $(PICFLAGS) -pthread -c $< -o $@

$(BUILD)/dirs: Makefile
	mkdir -p $(BUILD)/src/core $(BUILD)/src/copy $(BUILD)/src/cli $(BUILD)/src/draw $(BUILD)/tests/unit \
	         $(BUILD)/tests/diff $(BUILD)/tests/bench $(BUILD)/tests/cli
	touch $@

$(LIB): $(CORE_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB) $(TRACE_OBJ)
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(TRACE_OBJ) $(TL_LIBS)

$(UNIT_BIN): $(UNIT_SRC:%.c=$(BUILD)/%.o) $(LIB)
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(TL_LIBS)

# make test runs the jobs below TEST_JOBS at a time (default: the online
# CPUs), each taken by the first CPU that is free, so no CPU idles while
# another has a queue.  They are listed longest first, as measured on a
# 2-vCPU AMD EPYC (Zen 5) guest.  Each test's output is printed whole when it
# ends (make -O); test fails when any job does, after the others have run
# (-k), and ends with a table of the jobs and the slowest tests by wall time
# (tests/times.sh).  The plain, ASan and trace builds' test binaries are made
# first, so that no two jobs build the same file (ThreadSanitizer's and the
# NEON cross-build are made by their own jobs, the only ones that use them).
#
# What runs where: every command-line test runs plainly and under ASan +
# UBSan under the binary's own SIMD choice; under each other ceiling, the
# tests whose data passes through a copy kernel; under valgrind, the tests
# that run the tool as another user or in a namespace and the fewest others
# that together reach every function the suite reaches.  Those two lists
# are not written by hand: the trace build records what each test reaches
# (make test-trace; tests/cli/trace.py says how).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TIMES = $(abspath build/times)
# the TENSORLAYOUT_SIMD ceilings the command-line suite runs under (one that
# this CPU or build does not have says skip); 'default' is the binary's own
# choice, which runs every test; a ceiling runs the kernel tests
CLI_PASSES = default scalar sse2 avx2 avx512 neon
TEST_JOBS_LIST = job-neon job-trace job-san-rest job-plain job-san-cli job-valgrind-0 job-valgrind-1 \
                 job-tsan
test: ## every test; again under ASan + UBSan; each SIMD ceiling; valgrind (TEST_JOBS=N at once)
	@rm -rf $(TIMES) && mkdir -p $(TIMES)
	+@sh tests/timed.sh $(TIMES) build $(MAKE) -j$(TEST_JOBS) WERROR=1 test-bins
	+@sh tests/timed.sh $(TIMES) build-asan $(MAKE) -j$(TEST_JOBS) WERROR=1 SANITIZE=1 test-bins
	+@sh tests/timed.sh $(TIMES) build-trace $(MAKE) -j$(TEST_JOBS) WERROR=1 TRACE=1 SANITIZE= trace-bins
	@$(MAKE) --no-print-directory -k -O -j$(TEST_JOBS) $(TEST_JOBS_LIST); rc=$$?; \
	sh tests/times.sh $(TIMES); \
	if [ $$rc -eq 0 ]; then echo "make test: every job passed"; else echo "make test: a job failed"; fi; \
	exit $$rc

JOB = sh tests/timed.sh $(TIMES) $@ $(MAKE) TL_TIMES=$(TIMES)/tests
# the plain build's tests
job-plain: job-trace
	+@$(JOB) test-once WERROR=1
# the ASan + UBSan build's: the command-line suite, then all the rest
job-san-cli: job-trace
	+@$(JOB) test-cli WERROR=1 SANITIZE=1
job-san-rest:
	+@$(JOB) $(TEST_ONCE_REST) WERROR=1 SANITIZE=1
job-trace:
	+@$(JOB) test-trace TRACE=1 SANITIZE=
job-valgrind-%: job-trace
	+@$(JOB) test-valgrind TL_SHARD=$*/2
job-neon:
	+@$(JOB) test-neon
job-tsan:
	+@$(JOB) test-tsan

# The edit loop's check, in a few minutes: the build, the unit tests, a
# bounded differential run (TL_ITERS=CHECK_ITERS cases a kernel), the
# command-line suite once, plainly.
CHECK_ITERS ?= 200
EXHAUSTIVE_ITERS ?= 30000
check: $(BIN) $(INJECT) $(BATCH) $(UNIT_BIN) $(DIFF_BIN)  ## the edit loop: build, unit, a bounded differential run, the CLI suite once
	$(UNIT_BIN)
	TL_ITERS=$(CHECK_ITERS) $(DIFF_BIN)
	@$(MAKE) --no-print-directory test-cli CLI_PASS=default

# What make test runs at reduced counts, at full count: the unit tests'
# randomized checks ten times as long (TL_UNIT_FULL=1), the differential
# test with ten times the cases, the interrupt test with 1000 runs.
test-exhaustive: $(UNIT_BIN) $(DIFF_BIN) $(BIN)  ## the randomized tests at full count (tens of minutes)
	TL_UNIT_FULL=1 $(UNIT_BIN)
	TL_ITERS=$(EXHAUSTIVE_ITERS) $(DIFF_BIN)
	@$(MAKE) --no-print-directory test-interrupt INTERRUPT_RUNS=1000

TEST_ONCE_REST = test-lib test-install test-unit test-diff test-interrupt test-interop test-gguf test-pytorch test-onnx test-quant test-fp8 \
                 test-draw test-docs test-man test-json
test-once: test-cli $(TEST_ONCE_REST)

# SPEC 15: the library prints nothing, reads no environment variable and
# opens no file (the command line reads the calibration's cache and /proc
# and hands them in): none of its objects calls a function that would.
LIB_FORBIDDEN = f?open(64)?|openat(64)?|fdopen|freopen|getenv|secure_getenv|(__)?(v?f?printf|printf_chk|fprintf_chk|vfprintf_chk)|puts|fputs|putchar|fputc|fwrite|perror|stdout|stderr|exit|system|popen|opendir
test-lib: $(LIB)  ## the library prints nothing, reads no environment, opens no file
	@bad=$$(nm -u $(LIB) | awk '{ print $$2 }' | grep -E '^($(LIB_FORBIDDEN))$$' | sort -u | tr '\n' ' '); \
	if [ -n "$$bad" ]; then echo "library: calls $$bad(SPEC 15: it prints nothing, reads no environment, opens no file)"; exit 1; fi; \
	echo "library: prints nothing, reads no environment variable, opens no file"
	@bad=$$(grep -lE '^struct tl_(copy_plan|finder|kernels) \{' src/core/tl*.h | tr '\n' ' '); \
	if [ -n "$$bad" ]; then echo "library: $$bad defines a plan, finder or kernel table (SPEC 15: internals stay private)"; exit 1; fi; \
	echo "library: its public headers keep the plan, the finder and the kernel tables opaque"
	@sh tests/longest.sh 80 src/cli/*.c

test-unit: $(UNIT_BIN)  ## unit and oracle tests of the core
	$(UNIT_BIN)

$(DIFF_BIN): $(BUILD)/tests/diff/copy_diff.o $(LIB)
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(TL_LIBS)

# oneDNN's reorder is make bench's peer where Debian's libdnnl-dev is
# installed (optional: the bench says skip without it)
PEER_DNNL := $(shell test -f /usr/include/oneapi/dnnl/dnnl.h && echo 1)
ifeq ($(PEER_DNNL),1)
$(BUILD)/tests/bench/peer.o: TL_CFLAGS += -DTL_PEER_DNNL
BENCH_LIBS = -ldnnl -lgomp
endif

$(BUILD)/bench: $(BUILD)/tests/bench/bench.o $(BUILD)/tests/bench/timing.o \
                $(BUILD)/tests/bench/peer.o $(LIB)
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(TL_LIBS) $(BENCH_LIBS)

$(BUILD)/sweep: $(BUILD)/tests/bench/sweep.o $(BUILD)/tests/bench/timing.o $(LIB)
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(TL_LIBS)

bench: $(BUILD)/bench $(BIN)  ## speed of every case and ISA, as ratios to memcpy (BENCH_JSON=FILE, BENCH_CASE=NAME, BENCH_CALIBRATION=off|FILE)
	$(BUILD)/bench $(abspath $(BIN))

sweep: $(BUILD)/sweep  ## remeasure the copy engine's fixed choices (ARGS=threads|stores|kernels ...)
	$(BUILD)/sweep $(ARGS)

test-diff: $(DIFF_BIN)  ## every kernel and ISA against the scalar reference
	$(DIFF_BIN)

# The copies that split over threads, under ThreadSanitizer: 4-bit
# destinations (two nibbles a byte, each a read-modify-write) with odd
# sizes and strides, every ISA, the thread floor lowered so that small
# copies split too.
test-tsan:  ## the threaded copies under ThreadSanitizer
	$(MAKE) SANITIZE=thread WERROR=1 build/tsan/copy_diff
	TSAN_OPTIONS=halt_on_error=1 TL_ONLY=threads build/tsan/copy_diff

# The command-line suite runs once as it is, then once more under each
# TENSORLAYOUT_SIMD value this CPU supports, against the same expectations.
# NEON on an x86-64 host: the differential test and the copy engine,
# cross-built for AArch64 and run under qemu-user (.ci/install-deps installs
# both when it can).  On AArch64 itself, test-diff covers NEON natively.
CROSS_CC ?= aarch64-linux-gnu-gcc
QEMU     ?= qemu-aarch64
NEON_SRC  = src/core/desc.c src/core/classify.c src/core/find.c src/core/dtype.c src/core/error.c \
            src/core/convert.c src/core/value_text.c \
            src/copy/calib.c src/copy/calib_measure.c src/copy/cpu.c src/copy/plan.c src/copy/pool.c src/copy/ref.c \
            src/copy/compare.c src/copy/kern_scalar.c src/copy/kern_neon.c src/copy/dequant.c \
            src/copy/dequant_neon.c \
            src/core/ggml.c tests/diff/copy_diff.c

test-neon:  ## the NEON kernels, cross-built for AArch64 and run under qemu
	@if command -v $(CROSS_CC) >/dev/null 2>&1 && command -v $(QEMU) >/dev/null 2>&1; then \
	    mkdir -p $(BUILD) && \
	    $(CROSS_CC) -O2 $(filter-out -fsanitize% -fno-sanitize%,$(TL_CFLAGS)) -DTL_NO_ZLIB -pthread -static \
	        $(NEON_SRC) -o $(BUILD)/copy_diff_neon -lm && \
	    TL_ITERS=1000 $(QEMU) $(BUILD)/copy_diff_neon; \
	else \
	    echo "skip: neon (no $(CROSS_CC) or $(QEMU) here; .ci/install-deps installs them)"; \
	fi

# The fault injector of tests/cli/fault (LD_PRELOAD), never sanitized.
INJECT = $(BUILD)/inject.so
$(INJECT): tests/fault/inject.c | $(BUILD)/dirs
	$(CC) -O2 -shared -fPIC -Wall -Wextra $< -o $@ -ldl

# The command-line suite's batch driver (tests/cli/batch.c): many command
# lines in one process, as the tool runs each.
BATCH = $(BUILD)/tl_batch
$(BATCH): $(BUILD)/tests/cli/batch.o $(filter-out $(BUILD)/src/cli/main.o,$(CLI_OBJ)) $(LIB) $(TRACE_OBJ)
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(TL_LIBS)

# the binaries the tests of this BUILD run (make test makes them first)
test-bins: $(BIN) $(INJECT) $(BATCH) $(UNIT_BIN) $(DIFF_BIN)

# The command-line suite runs once as it is, then once more under each
# TENSORLAYOUT_SIMD value this CPU supports, against the same expectations:
# every test as it is, the kernel tests (build/trace/lists/kernel-tests,
# made by test-trace when missing) under a ceiling.
CLI_ENV = TL=$(abspath $(BIN)) TL_BATCH=$(abspath $(BATCH)) TL_INJECT_LIB=$(abspath $(INJECT)) \
          ASAN_OPTIONS=verify_asan_link_order=0 $(if $(TL_TIMES),TL_TIMES=$(TL_TIMES))
TRACE_LISTS = build/trace/lists
# CLI_PASS=WORDS runs only those passes ('default', or a ceiling).
CLI_PASS ?=
test-cli: $(BIN) $(INJECT) $(BATCH)  ## command-line tests (exact stdout, stderr, exit status): all, then the kernel tests per SIMD ceiling
	@sup=" $$($(BIN) --version | sed -n 's/.*(supported: \(.*\))/\1/p') "; \
	for pass in $(or $(CLI_PASS),default $$sup); do \
	    if [ "$$pass" = default ]; then TL_LABEL=cli$(if $(filter 1,$(SANITIZE)),-asan) $(CLI_ENV) sh tests/cli/run.sh || exit 1; continue; fi; \
	    case "$$sup" in *" $$pass "*) ;; \
	    *) echo "skip: cli-$$pass (not supported by this CPU or build)"; continue ;; esac; \
	    [ -f $(TRACE_LISTS)/kernel-tests ] || $(MAKE) --no-print-directory TRACE=1 SANITIZE= test-trace || exit 1; \
	    echo "TENSORLAYOUT_SIMD=$$pass: the $$(wc -l < $(TRACE_LISTS)/kernel-tests) kernel tests"; \
	    TENSORLAYOUT_SIMD=$$pass TL_LABEL=cli$(if $(filter 1,$(SANITIZE)),-asan)-$$pass TL_LIST=$(abspath $(TRACE_LISTS)/kernel-tests) \
	        $(CLI_ENV) sh tests/cli/run.sh || exit 1; \
	done

# The trace build (TRACE=1) runs the whole suite, recording the functions
# each test reaches, and writes the lists of kernel tests and valgrind tests
# (tests/cli/trace.py).
trace-bins: $(BIN) $(BATCH) $(INJECT)
test-trace:  ## the command-line suite in the trace build; writes the kernel and valgrind lists
	@$(MAKE) --no-print-directory TRACE=1 SANITIZE= trace-bins
	@rm -rf build/trace/t build/trace/times && mkdir -p build/trace/t
	@TL_TRACE_DIR=$(abspath build/trace/t) TL_LABEL=cli-trace \
	    TL=$(abspath build/trace/tensorlayout) TL_BATCH=$(abspath build/trace/tl_batch) \
	    TL_INJECT_LIB=$(abspath build/trace/inject.so) TL_TIMES=$(abspath build/trace/times) \
	    sh tests/cli/run.sh
	@python3 tests/cli/trace.py tests/cli build/trace/t $(TRACE_LISTS) build/trace/times

# The proof that the kernel tests are enough: under each ceiling this CPU
# supports, the trace build runs the whole suite and the kernel tests alone,
# and the kernel functions each reaches must be the same (not part of make
# test: it runs the suite once more per ceiling).
test-kernel-reach:  ## under each SIMD ceiling, the kernel tests reach every kernel the whole suite reaches
	@$(MAKE) --no-print-directory TRACE=1 SANITIZE= trace-bins
	@[ -f $(TRACE_LISTS)/kernel-tests ] || $(MAKE) --no-print-directory TRACE=1 SANITIZE= test-trace
	@sup=" $$(build/trace/tensorlayout --version | sed -n 's/.*(supported: \(.*\))/\1/p') "; rc=0; \
	for pass in $$sup; do \
	    for part in all kernel; do \
	        rm -rf build/trace/reach-$$part && mkdir -p build/trace/reach-$$part; \
	        TENSORLAYOUT_SIMD=$$pass TL_TRACE_DIR=$(abspath build/trace)/reach-$$part TL_LABEL=reach-$$pass-$$part \
	            TL_LIST=$$([ $$part = kernel ] && echo $(abspath $(TRACE_LISTS)/kernel-tests)) \
	            TL=$(abspath build/trace/tensorlayout) TL_BATCH=$(abspath build/trace/tl_batch) \
	            TL_INJECT_LIB=$(abspath build/trace/inject.so) sh tests/cli/run.sh | tail -n 1; \
	        python3 tests/cli/trace.py --kernels build/trace/reach-$$part > build/trace/reach-$$pass-$$part.txt; \
	    done; \
	    if cmp -s build/trace/reach-$$pass-all.txt build/trace/reach-$$pass-kernel.txt; then \
	        echo "$$pass: the kernel tests reach the $$(wc -l < build/trace/reach-$$pass-all.txt) kernel functions the whole suite reaches"; \
	    else echo "$$pass: kernels the whole suite reaches and the kernel tests do not:"; \
	        comm -23 build/trace/reach-$$pass-all.txt build/trace/reach-$$pass-kernel.txt; rc=1; fi; \
	done; exit $$rc

# Under valgrind (memcheck): the valgrind tests of the trace's lists, or
# the tests whose names contain one of CLI_FILTER's words.
CLI_FILTER ?=
TL_SHARD ?=
comma := ,
test-valgrind: $(BIN) $(INJECT) $(BATCH)  ## command-line tests under valgrind --error-exitcode (TL_SHARD=K/N: a share)
	@if ! command -v valgrind >/dev/null 2>&1; then echo "skip: valgrind (not installed)"; exit 0; fi; \
	if [ -z "$(CLI_FILTER)" ] && [ ! -f $(TRACE_LISTS)/valgrind-tests ]; then \
	    $(MAKE) --no-print-directory TRACE=1 SANITIZE= test-trace || exit 1; fi; \
	$(if $(CLI_FILTER),,TL_LIST=$(abspath $(TRACE_LISTS)/valgrind-tests)) TL_SHARD=$(TL_SHARD) \
	    TL_LABEL=cli-valgrind$(if $(TL_SHARD),-$(subst /,-of-,$(subst $(comma),+,$(TL_SHARD)))) \
	    TL_EXEC_PREFIX="valgrind -q --error-exitcode=99" $(CLI_ENV) sh tests/cli/run.sh $(CLI_FILTER)

# Conversions (one tensor, whole files, a sharded model written by several
# threads) ended by SIGINT, SIGTERM or SIGHUP at random moments: nothing
# may be left behind.  INTERRUPT_RUNS runs, a new random schedule each time
# (the seed is printed: INTERRUPT_SEED=N repeats one).
INTERRUPT_RUNS ?= 320
INTERRUPT_SEED ?=
test-interrupt: $(BIN)  ## conversions interrupted at random moments leave nothing behind
	TL_LABEL=interrupt$(if $(filter 1,$(SANITIZE)),-asan) TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/interrupt.sh $(INTERRUPT_RUNS) $(INTERRUPT_SEED)

# Every --json output of the command-line suite through a strict JSON parser
# (tests/cli/json_check.sh, Python's json with NaN and Infinity refused): the
# tests whose text names --json, each command line that takes it.
test-json: $(BIN) $(INJECT) $(BATCH)  ## every --json output of the command-line tests, parsed as strict JSON
	@list=$$(mktemp) && bad=$$(mktemp) && cd tests/cli && grep -l -e '--json' */*.sh > $$list; cd $(CURDIR); \
	TL_LIST=$$list TL_JSON_BAD=$$bad TL_LABEL=cli-json TL_EXEC_PREFIX="sh $(abspath tests/cli/json_check.sh)" \
	    $(CLI_ENV) sh tests/cli/run.sh; rc=$$?; \
	if [ -s $$bad ]; then echo "json: not strict JSON:"; cat $$bad; rc=1; \
	else echo "json: every --json output of $$(wc -l < $$list) tests is strict JSON"; fi; \
	rm -f $$list $$bad; exit $$rc

test-interop: $(BIN)  ## numpy reads what the tool writes and writes what it reads
	TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/interop/run.sh

test-gguf: $(BIN)  ## GGUF files: ggml writes, quantizes and decodes; the tool must agree bit for bit
	TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/gguf/run.sh

test-pytorch: $(BIN)  ## PyTorch checkpoints: torch writes them and reads what the tool writes; hostile pickles run nothing
	TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/pytorch/run.sh

test-onnx: $(BIN)  ## ONNX models: onnx writes them and numpy_helper gives every value; ONNX's own test data read whole; hostile models refused
	TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/onnx/run.sh

test-quant: $(BIN)  ## group-quantized weights (GPTQ, AWQ, compressed-tensors): torch's reference dequantization, ggml's to_float of the GGUF repack
	TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/quant/run.sh

test-fp8: $(BIN)  ## the 8-bit float types against OCP's formulas: every code, and the nearest code of FLOAT32 values
	TL=$(abspath $(BIN)) ASAN_OPTIONS=verify_asan_link_order=0 sh tests/fp8/run.sh

test-docs: $(BIN)  ## the examples of the man page and README, run and compared
	TL=$(abspath $(BIN)) sh tests/docs.sh

test-draw: $(BIN)  ## draw's SVG pictures: parsed as XML, rendered by rsvg-convert, cells checked
	python3 tests/draw/check_svg.py $(abspath $(BIN))

test-man:  ## the man page renders without warnings
	@out=$$(groff -man -ww -z man/tensorlayout.1 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; echo "man page: ok"

# Fuzzers (libFuzzer; clang and Debian's libclang-rt-14-dev), with ASan and
# UBSan, built apart in build/fuzz.
#   make fuzz            each fuzzer FUZZ_TIME seconds on its corpus in
#                        tests/fuzz/corpus (which grows as it finds new paths),
#                        on inputs of at most FUZZ_MAX_LEN bytes
#   make fuzz-replay     each fuzzer once over every input of its whole
#                        corpus, at any length: the regression test CI runs
# A long campaign: one fuzzer or all, for hours, on every core, e.g.
#   make fuzz FUZZERS=fuzz_desc FUZZ_TIME=28800 FUZZ_ARGS=-fork=$(nproc)
# (-fork keeps going past a crash and writes each finding into build/fuzz/);
# then copy what is new in the corpus into git, minimised with
#   build/fuzz/fuzz_desc -merge=1 tests/fuzz/corpus/desc NEWDIR
# Every fuzzer runs thousands of inputs a second: its invariant checks have
# work bounds (see each harness), so the executions go to the parsers.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 20
FUZZ_TIMEOUT ?= 10
FUZZ_MAX_LEN ?= 4096
FUZZ_ARGS  ?=
FUZZ_DIR    = build/fuzz
FUZZ_FLAGS  = $(TL_INC) -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -pthread -ffp-contract=off \
              -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
              -fsanitize-coverage-ignorelist=tests/fuzz/coverage-ignore.txt
FUZZ_LIB    = $(CORE_SRC:%.c=$(FUZZ_DIR)/%.o)
FUZZ_CLI    = $(filter-out $(FUZZ_DIR)/src/cli/main.o,$(CLI_SRC:%.c=$(FUZZ_DIR)/%.o))
FUZZERS     = fuzz_desc fuzz_dump fuzz_copy fuzz_tensorfile fuzz_convert fuzz_npz fuzz_calib fuzz_gguf fuzz_pickle fuzz_onnx fuzz_quant

$(FUZZ_DIR)/src/copy/kern_sse2.o:   ISAFLAGS = -msse2
$(FUZZ_DIR)/src/copy/kern_avx2.o:   ISAFLAGS = -mavx2 -mf16c
$(FUZZ_DIR)/src/copy/dequant_avx2.o: ISAFLAGS = -mavx2 -mf16c
$(FUZZ_DIR)/src/copy/kern_avx512.o: ISAFLAGS = -mavx512f -mavx512bw -mavx512vl
$(FUZZ_DIR)/src/copy/dequant_avx512.o: ISAFLAGS = -mavx512f -mavx512bw -mavx512vl -mf16c

$(FUZZ_DIR)/%.o: %.c $(wildcard src/*/*.h) tests/fuzz/coverage-ignore.txt
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(ISAFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_desc: $(FUZZ_DIR)/tests/fuzz/fuzz_desc.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_copy: $(FUZZ_DIR)/tests/fuzz/fuzz_copy.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_dump: $(FUZZ_DIR)/tests/fuzz/fuzz_dump.o $(FUZZ_CLI) $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_tensorfile: $(FUZZ_DIR)/tests/fuzz/fuzz_tensorfile.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_convert: $(FUZZ_DIR)/tests/fuzz/fuzz_convert.o $(FUZZ_CLI) $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_npz: $(FUZZ_DIR)/tests/fuzz/fuzz_npz.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_calib: $(FUZZ_DIR)/tests/fuzz/fuzz_calib.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_gguf: $(FUZZ_DIR)/tests/fuzz/fuzz_gguf.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_pickle: $(FUZZ_DIR)/tests/fuzz/fuzz_pickle.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_onnx: $(FUZZ_DIR)/tests/fuzz/fuzz_onnx.o $(FUZZ_LIB)
$(FUZZ_DIR)/fuzz_quant: $(FUZZ_DIR)/tests/fuzz/fuzz_quant.o $(FUZZ_LIB)
$(addprefix $(FUZZ_DIR)/,$(FUZZERS)):
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -pthread $^ -o $@ $(TL_LIBS)

fuzz: $(addprefix $(FUZZ_DIR)/,$(FUZZERS))  ## build the fuzzers and run each FUZZ_TIME seconds on its corpus
	@for f in $(FUZZERS); do \
	    c=tests/fuzz/corpus/$${f#fuzz_}; mkdir -p $$c; \
	    echo "$$f: $(FUZZ_TIME) s on $$c"; \
	    if $(FUZZ_DIR)/$$f -max_total_time=$(FUZZ_TIME) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=4096 \
	           -max_len=$(FUZZ_MAX_LEN) -close_fd_mask=2 -artifact_prefix=$(FUZZ_DIR)/ \
	           -print_final_stats=1 $(FUZZ_ARGS) $$c > $(FUZZ_DIR)/$$f.log 2>&1; then \
	        grep -E "^stat::(number_of_executed_units|average_exec_per_sec)" $(FUZZ_DIR)/$$f.log | \
	            tr -s ' \n' ' '; echo; \
	    else \
	        grep -E "ERROR|SUMMARY|invariant|differs|Test unit written" $(FUZZ_DIR)/$$f.log; exit 1; \
	    fi; \
	done

fuzz-replay: $(addprefix $(FUZZ_DIR)/,$(FUZZERS))  ## run each fuzzer once on every input of its whole corpus
	@for f in $(FUZZERS); do \
	    c=tests/fuzz/corpus/$${f#fuzz_}; \
	    if find $$c -type f | sort | xargs -r $(FUZZ_DIR)/$$f -timeout=$(FUZZ_TIMEOUT) \
	           -rss_limit_mb=4096 -close_fd_mask=3 -artifact_prefix=$(FUZZ_DIR)/ \
	           > $(FUZZ_DIR)/$$f.replay.log 2>&1; then \
	        awk -v f=$$f 'BEGIN { max = -1 } /^Executed / { n++; if ($$(NF-1) > max) { max = $$(NF-1); slow = $$2 } } \
	            END { printf "%s: %d inputs, the slowest %d ms (%s)\n", f, n, max, slow }' \
	            $(FUZZ_DIR)/$$f.replay.log; \
	    else \
	        grep -E "ERROR|SUMMARY|invariant|differs|Running:" $(FUZZ_DIR)/$$f.replay.log | tail -n 5; \
	        exit 1; \
	    fi; \
	done

# ---- the library as a product (SPEC 22) -----------------------------------
# libtensorlayout.so (soname libtensorlayout.so.1) and libtensorlayout.a, of
# the core's objects (built -fPIC, at no cost to the binary that links them
# statically); the .so exports just the functions the public headers
# declare (a version script made from them).
SO_MAJOR  = 1
SO_VER    = 1.0.0
PUBLIC_H  = src/core/tensorlayout.h src/core/tl_types.h src/core/tl_desc.h src/copy/tl_copy.h \
            src/copy/tl_compare.h src/core/tl_model.h
PIC_DIR   = $(BUILD)/pic
SHLIB     = $(BUILD)/libtensorlayout.so.$(SO_VER)
STLIB     = $(BUILD)/libtensorlayout.a
$(CORE_OBJ): PICFLAGS = -fPIC

$(PIC_DIR)/exports.map: $(PUBLIC_H)
	@mkdir -p $(dir $@)
	{ echo 'TENSORLAYOUT_$(SO_MAJOR) {'; echo '  global:'; \
	  grep -hv 'static inline' $(PUBLIC_H) | sed -n 's/^[a-z].*[ *]\(tl_[a-z0-9_]*\)(.*/    \1;/p' | sort -u; \
	  echo '  local: *;'; echo '};'; } > $@

$(SHLIB): $(CORE_OBJ) $(PIC_DIR)/exports.map
	$(CC) $(CFLAGS) $(TL_LDFLAGS) $(LDFLAGS) -shared -Wl,-soname,libtensorlayout.so.$(SO_MAJOR) \
	    -Wl,--version-script=$(PIC_DIR)/exports.map -o $@ $(CORE_OBJ) $(LIB_LIBS)

$(STLIB): $(CORE_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

lib: $(SHLIB) $(STLIB)  ## build libtensorlayout.so and libtensorlayout.a

install: $(BIN) $(SHLIB) $(STLIB)  ## install the binary, the man page and the library (headers, .so, .a, .pc)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(INCLUDEDIR)/tensorlayout
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/tensorlayout
	$(INSTALL) -m 644 man/tensorlayout.1 $(DESTDIR)$(MANDIR)/man1/tensorlayout.1
	$(INSTALL) -m 644 $(PUBLIC_H) $(DESTDIR)$(INCLUDEDIR)/tensorlayout/
	$(INSTALL) -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libtensorlayout.so.$(SO_VER)
	ln -sf libtensorlayout.so.$(SO_VER) $(DESTDIR)$(LIBDIR)/libtensorlayout.so.$(SO_MAJOR)
	ln -sf libtensorlayout.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libtensorlayout.so
	$(INSTALL) -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/libtensorlayout.a
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(SO_VER)|' tensorlayout.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/tensorlayout.pc

uninstall:  ## remove what install put in place
	rm -f $(DESTDIR)$(BINDIR)/tensorlayout $(DESTDIR)$(MANDIR)/man1/tensorlayout.1
	rm -f $(DESTDIR)$(LIBDIR)/libtensorlayout.so.$(SO_VER) $(DESTDIR)$(LIBDIR)/libtensorlayout.so.$(SO_MAJOR) \
	    $(DESTDIR)$(LIBDIR)/libtensorlayout.so $(DESTDIR)$(LIBDIR)/libtensorlayout.a \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/tensorlayout.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/tensorlayout

# SPEC 22: installed into a scratch prefix, the example program is built
# against it with pkg-config (shared and static), run on model files, and
# its output checked against numpy and torch (tests/install/).
STAGE = $(abspath $(BUILD)/stage)
test-install:  ## install into a scratch prefix; build and run examples/convert_model.c against it
	@rm -rf $(STAGE) && $(MAKE) --no-print-directory -s install PREFIX=$(STAGE) >/dev/null
	@PKG_CONFIG_PATH=$(STAGE)/lib/pkgconfig; export PKG_CONFIG_PATH; \
	$(CC) -std=c11 -Wall -Wextra -Werror $(TL_LDFLAGS) examples/convert_model.c $$(pkg-config --cflags --libs tensorlayout) \
	    -o $(BUILD)/convert_model && \
	$(CC) -std=c11 -Wall -Wextra -Werror $(TL_LDFLAGS) examples/convert_model.c \
	    $$(pkg-config --static --cflags --libs tensorlayout | sed 's/-ltensorlayout/-l:libtensorlayout.a/') \
	    -o $(BUILD)/convert_model_static && \
	LD_LIBRARY_PATH=$(STAGE)/lib TL_STAGE=$(STAGE) TL_EXAMPLE=$(abspath $(BUILD)/convert_model) \
	    TL_EXAMPLE_STATIC=$(abspath $(BUILD)/convert_model_static) TL=$(abspath $(BIN)) \
	    sh tests/install/run.sh

clean:  ## remove build outputs
	rm -rf build

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14
