# libsprofil and its suites under the sanitizers (tests/stress/run-sanitized
# builds everything into $(BUILD)/asan or $(BUILD)/tsan and runs it there):
#
#   check-asan: ASan + UBSan (-fno-sanitize-recover: any undefined
#               behaviour aborts) + LeakSanitizer; the lib suite on the
#               signal and bpf backends, the -pg and stress suites on
#               signal
#   check-tsan: ThreadSanitizer; the lib, -pg and stress suites on bpf.
#               Not on signal: ThreadSanitizer defers an asynchronous
#               signal to its next interception point and hands the
#               handler that point's context, so every sample of the
#               signal backend would land in the wrong place by
#               construction (the sampling checks fail, not the code).
#
# Any report from any process fails (results/<name>-reports.tap).

ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
TSAN_FLAGS := -fsanitize=thread

.PHONY: check-asan check-tsan
check-asan:
	@tests/stress/run-sanitized asan $(BUILD) "$(ASAN_FLAGS)" \
		lib:signal lib:bpf bpf:bpf pg:signal stress:signal

check-tsan:
	@SAN_PRELOAD=1 tests/stress/run-sanitized tsan $(BUILD) "$(TSAN_FLAGS)" \
		lib:bpf pg:bpf stress:bpf
