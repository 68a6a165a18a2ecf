# libsprofil and its suites under the sanitizers (tests/stress/run-sanitized
# builds everything into $(BUILD)/asan or $(BUILD)/tsan and runs it there):
#
#   check-asan: ASan + UBSan (-fno-sanitize-recover: any undefined
#               behaviour aborts) + LeakSanitizer; the lib suite on the
#               signal and bpf backends, tests/bpf, the -pg suite on
#               signal (in make check); check-asan-stress: the stress
#               suite on signal
#   check-tsan: ThreadSanitizer; the lib, -pg and stress suites on bpf
#               (in make check, ~10 min on a loaded host).
#
# Any report from any process fails (results/<name>-reports.tap).
#
# Why ThreadSanitizer runs on bpf, with threads.o, backend_signal.o and
# signal_callers.o not instrumented:
#  - its runtime comes first among a program's libraries, so its
#    pthread_create calls libsprofil's (threads.c), which starts the new
#    thread in sp_thread_main before ThreadSanitizer's own start routine
#    has set the thread up: instrumented, that code crashes in
#    __tsan_func_entry.  Left plain, it only calls intercepted functions,
#    which ThreadSanitizer passes straight through for a thread it does
#    not know yet; no backend's per-thread set-up runs there under it;
#  - it delivers an asynchronous signal at its next interception point,
#    with that point's context, so every sample of the signal backend
#    would be filed at the wrong PC: its checks would fail by
#    construction, not because of the code.  On bpf the kernel samples,
#    while mcount, the dump thread, fork and exec handling, dlopen
#    tracking and the front end's locking run instrumented.

ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
TSAN_FLAGS := -fsanitize=thread

ifneq ($(SAN_UNINSTRUMENTED),)
$(addprefix $(BUILD)/libsprofil/,$(SAN_UNINSTRUMENTED)): \
	CFLAGS += -fno-sanitize=all
endif

.PHONY: check-asan check-asan-stress check-tsan
# make check runs check-asan (the lib, bpf and -pg suites, ~4 min); the
# stress suite under ASan takes ~8 min more (docs/stress.md).
check-asan:
	@BUILD_JOBS=$(BUILD_JOBS) tests/stress/run-sanitized asan $(BUILD) "$(ASAN_FLAGS)" \
		lib:signal lib:bpf bpf:bpf pg:signal

check-asan-stress:
	@BUILD_JOBS=$(BUILD_JOBS) tests/stress/run-sanitized asan $(BUILD) "$(ASAN_FLAGS)" \
		stress:signal

check-tsan:
	@SAN_UNINSTRUMENTED="interpose/threads.o backends/backend_signal.o \
		backends/signal_callers.o backends/unwind_load.o" \
		BUILD_JOBS=$(BUILD_JOBS) tests/stress/run-sanitized tsan $(BUILD) "$(TSAN_FLAGS)" \
		lib:bpf pg:bpf stress:bpf
