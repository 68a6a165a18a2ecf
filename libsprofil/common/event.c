// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the sessions sample (backend.h's struct sp_event): the event
 * SPROFIL_EVENT names and its period SPROFIL_EVENT_PERIOD, or those of
 * sprofil_event(); and the one test of whether a perf counter of it
 * opens here, with the one line that says why not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sprofil/events.h>

#include "backends/backend.h"
#include "common/settings.h"

/* The names, for the message that refuses another. */
static void sp_event_names(char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i <= SPROFIL_EVENT_MAX && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i ? ", " : "", spe_events[i].name);
}

int sp_event_parse(const char *name, uint64_t period, struct sp_event *ev)
{
	int type = name && *name ? spe_lookup(name) : SPROFIL_EVENT_CPU_CLOCK;

	if (type < 0)
		return -EINVAL;
	/* The clock's period is SPROFIL_HZ's, in ns. */
	if (type == SPROFIL_EVENT_CPU_CLOCK && period)
		return -EINVAL;
	ev->type = (uint32_t)type;
	ev->period = type == SPROFIL_EVENT_CPU_CLOCK ? 0 : period ? period : 1;
	return 0;
}

void sp_event_from_settings(struct sp_event *ev)
{
	const char *name = sp_setting("SPROFIL_EVENT");
	const char *p = sp_setting("SPROFIL_EVENT_PERIOD");
	char names[256], *end;
	uint64_t period = 0;

	if (p && *p) {
		errno = 0;
		period = strtoull(p, &end, 10);
		if (errno || *end || !period) {
			fprintf(stderr, "libsprofil: SPROFIL_EVENT_PERIOD=%s is not a count of events: sampling does not start\n",
				p);
			ev->type = SP_EVENT_BAD;
			return;
		}
	}
	if (!sp_event_parse(name, period, ev))
		return;
	sp_event_names(names, sizeof(names));
	if (name && spe_lookup(name) == SPROFIL_EVENT_CPU_CLOCK)
		fprintf(stderr, "libsprofil: SPROFIL_EVENT_PERIOD with %s: its period is SPROFIL_HZ's; sampling does not start\n",
			name);
	else
		fprintf(stderr, "libsprofil: SPROFIL_EVENT=%s is not one of %s: sampling does not start\n",
			name, names);
	/* Never CPU time instead: a start fails, saying so above. */
	ev->type = SP_EVENT_BAD;
}

static int sp_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

void sp_event_attr(const struct sp_event *ev, struct perf_event_attr *attr)
{
	const struct spe_event *e = spe_event(ev->type);

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = e->perf_type;
	attr->config = e->perf_config;
	attr->sample_period = ev->period;
	attr->disabled = 1;
	attr->exclude_hv = 1;
	/* A user-mode event is charged where it happened, in user mode. */
	attr->exclude_kernel = !e->kernel;
}

int sp_event_check(const struct sp_event *ev, bool kernel, char *why,
		   size_t size)
{
	const struct spe_event *e = spe_event(ev->type);
	struct perf_event_attr attr;
	int fd, err;

	if (ev->type == SP_EVENT_BAD) {
		snprintf(why, size, "SPROFIL_EVENT names no event (see the line above)");
		return -EINVAL;
	}
	if (!e) {
		snprintf(why, size, "no such event (%u)", ev->type);
		return -EINVAL;
	}
	sp_event_attr(ev, &attr);
	if (kernel)
		attr.exclude_kernel = 0;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = errno;
	if (e->pmu && (err == ENOENT || err == ENODEV || err == EOPNOTSUPP))
		snprintf(why, size, "%s needs a hardware counter (PMU), and this machine has none: perf_event_open: %s",
			 e->name, strerror(err));
	else if (err == EACCES || err == EPERM)
		snprintf(why, size, "%s: perf_event_paranoid is %d: counting it %sneeds %s (perf_event_open: %s)",
			 e->name, sp_paranoid(),
			 !attr.exclude_kernel ? "in kernel mode " : "",
			 !attr.exclude_kernel ?
			 "perf_event_paranoid <= 1 or CAP_PERFMON" :
			 "perf_event_paranoid <= 2 or CAP_PERFMON",
			 strerror(err));
	else
		snprintf(why, size, "no %s counter: perf_event_open: %s",
			 e->name, strerror(err));
	return -err;
}
