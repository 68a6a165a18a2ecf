// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of libsprofil/common/settings.c, the copy of the environment the
 * library reads its settings from.  The copy is taken when the program
 * loads, so the program runs itself again with an environment of its
 * own making (execve()), then checks what sp_setting() answers: getenv()'s
 * first occurrence, empty values, values holding '=', names that prefix
 * others; and that neither setenv() nor a rewrite of the environment's
 * strings in place (setproctitle()'s way) changes an answer, even from
 * threads racing with setenv().
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/settings.h"

#define ROLE	"settings-test"

static char *const test_env[] = {
	"SPROFIL_HZ=1000",
	"SPROFIL_HZ=2000",		/* getenv() takes the first */
	"SPROFIL_HZX=prefixed",
	"SPROFIL_EMPTY=",
	"SPROFIL_EQ=a=b",
	"GMON_OUT_PREFIX=pfx",
	"OTHER=not ours",
	NULL,
};

static void answers_as_getenv_on_the_initial_environment(void **state)
{
	(void)state;
	assert_string_equal(sp_setting("SPROFIL_HZ"), "1000");
	assert_string_equal(sp_setting("SPROFIL_HZX"), "prefixed");
	assert_string_equal(sp_setting("SPROFIL_EMPTY"), "");
	assert_string_equal(sp_setting("SPROFIL_EQ"), "a=b");
	assert_null(sp_setting("SPROFIL_H"));
	assert_null(sp_setting("SPROFIL_BACKEND"));
	assert_string_equal(sp_setting("GMON_OUT_PREFIX"), "pfx");
	assert_null(sp_setting("GPROFDIR"));
	/* Not setuid: the secure lookup answers the same. */
	assert_string_equal(sp_setting_secure("GMON_OUT_PREFIX"), "pfx");
}

static void setenv_and_rewrites_change_nothing(void **state)
{
	extern char **environ;
	char **e;

	(void)state;
	assert_int_equal(setenv("SPROFIL_HZ", "9", 1), 0);
	assert_int_equal(setenv("SPROFIL_BACKEND", "bpf", 1), 0);
	assert_int_equal(unsetenv("GMON_OUT_PREFIX"), 0);
	for (e = environ; *e; e++)
		if (!strncmp(*e, "SPROFIL_EQ=", 11))
			memset(*e + 11, 'x', strlen(*e + 11));
	assert_string_equal(sp_setting("SPROFIL_HZ"), "1000");
	assert_null(sp_setting("SPROFIL_BACKEND"));
	assert_string_equal(sp_setting("GMON_OUT_PREFIX"), "pfx");
	assert_string_equal(sp_setting("SPROFIL_EQ"), "a=b");
}

static void *reader(void *arg)
{
	int i, bad = 0;

	(void)arg;
	for (i = 0; i < 200000; i++)
		bad += strcmp(sp_setting("SPROFIL_HZX"), "prefixed") != 0;
	return (void *)(intptr_t)bad;
}

static void readers_race_with_setenv(void **state)
{
	pthread_t t[2];
	void *bad;
	int i;

	(void)state;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reader, NULL), 0);
	for (i = 0; i < 20000; i++)
		setenv("SPROFIL_HZX", i & 1 ? "odd" : "even", 1);
	for (i = 0; i < 2; i++) {
		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_int_equal((intptr_t)bad, 0);
	}
}

/* A variable settings.c does not copy is a bug of the library: abort. */
static void an_unknown_name_aborts(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(2);	/* its one line is expected */
		sp_setting("PATH");
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answers_as_getenv_on_the_initial_environment),
		cmocka_unit_test(setenv_and_rewrites_change_nothing),
		cmocka_unit_test(readers_race_with_setenv),
		cmocka_unit_test(an_unknown_name_aborts),
	};
	char *self_argv[] = { argv[0], ROLE, NULL };
	const char *out = getenv("CMOCKA_MESSAGE_OUTPUT");
	char *env[sizeof(test_env) / sizeof(*test_env) + 1];
	char out_var[64] = "CMOCKA_MESSAGE_OUTPUT=";
	size_t i, n = 0;

	if (argc == 2 && !strcmp(argv[1], ROLE))
		return cmocka_run_group_tests(tests, NULL, NULL);
	/* This environment, and the output format run-tap asked for. */
	for (i = 0; test_env[i]; i++)
		env[n++] = test_env[i];
	if (out && strlen(out) < sizeof(out_var) - strlen(out_var)) {
		strcat(out_var, out);
		env[n++] = out_var;
	}
	env[n] = NULL;
	execve("/proc/self/exe", self_argv, env);
	return 127;
}
