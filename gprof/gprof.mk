# gmon-dump: prints GNU gmon.out and the sprofil extension (the tests'
# reader of profiles GNU gprof cannot read).
$(BUILD)/gprof/gmon-dump: gprof/gmon_dump.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<
