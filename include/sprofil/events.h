/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The events sprofil samples on (include/uapi/linux/sprofil.h's
 * SPROFIL_EVENT_*), defined once for the module and the library (which
 * open their perf counters), `sprofil record -e` (which checks the name)
 * and the analyzer (which prints the unit): their names, as perf spells
 * them, their perf type and config, and the words a report counts them
 * in.
 */
#ifndef SPROFIL_EVENTS_H
#define SPROFIL_EVENTS_H

#if defined(__KERNEL__)
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#endif
#include <linux/sprofil.h>

struct spe_event {
	const char *name;	/* -e NAME, SPROFIL_EVENT=NAME */
	__u32 perf_type;	/* PERF_TYPE_* */
	__u64 perf_config;	/* PERF_COUNT_* */
	/* Counted by a hardware counter (none on a VM without a PMU). */
	bool pmu;
	/*
	 * Happens in kernel mode (the scheduler): counting it needs
	 * kernel-mode counting, and a sample is charged to the PC the
	 * thread returns to in user mode.
	 */
	bool kernel;
	const char *unit;	/* one occurrence: "page fault" */
	const char *units;	/* several: "page faults" */
	const char *column;	/* a report column's head, 8 at most */
};

/* Indexed by SPROFIL_EVENT_*. */
static const struct spe_event spe_events[SPROFIL_EVENT_MAX + 1] = {
	[SPROFIL_EVENT_CPU_CLOCK] = {
		"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		false, false, "second", "seconds", "seconds" },
	[SPROFIL_EVENT_PAGE_FAULTS] = {
		"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
		false, false, "page fault", "page faults", "faults" },
	[SPROFIL_EVENT_MINOR_FAULTS] = {
		"minor-faults", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_PAGE_FAULTS_MIN,
		false, false, "minor fault", "minor faults", "faults" },
	[SPROFIL_EVENT_MAJOR_FAULTS] = {
		"major-faults", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_PAGE_FAULTS_MAJ,
		false, false, "major fault", "major faults", "faults" },
	[SPROFIL_EVENT_CONTEXT_SWITCHES] = {
		"context-switches", PERF_TYPE_SOFTWARE,
		PERF_COUNT_SW_CONTEXT_SWITCHES,
		false, true, "context switch", "context switches",
		"switches" },
	[SPROFIL_EVENT_CYCLES] = {
		"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		true, false, "cycle", "cycles", "cycles" },
	[SPROFIL_EVENT_INSTRUCTIONS] = {
		"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
		true, false, "instruction", "instructions", "instrs" },
	[SPROFIL_EVENT_CACHE_MISSES] = {
		"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
		true, false, "cache miss", "cache misses", "misses" },
	[SPROFIL_EVENT_BRANCH_MISSES] = {
		"branch-misses", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_BRANCH_MISSES,
		true, false, "branch miss", "branch misses", "misses" },
};

/* The SPROFIL_EVENT_* of @name (perf's spelling), or -1. */
static inline int spe_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i <= SPROFIL_EVENT_MAX; i++)
		if (!strcmp(name, spe_events[i].name))
			return (int)i;
	/* perf's aliases of the default. */
	if (!strcmp(name, "task-clock") || !strcmp(name, "cpu"))
		return SPROFIL_EVENT_CPU_CLOCK;
	return -1;
}

/* The event @type, or NULL if there is no such. */
static inline const struct spe_event *spe_event(__u32 type)
{
	return type <= SPROFIL_EVENT_MAX ? &spe_events[type] : NULL;
}

/*
 * What samples of event @type every @period count, for a message that
 * refuses to sum two kinds: "CPU time", "page-faults, one sample per 1".
 */
static inline void spe_describe(char *buf, size_t size, __u32 type,
				__u64 period)
{
	const struct spe_event *e = spe_event(type);

	if (!type)
		snprintf(buf, size, "CPU time");
	else if (e)
		snprintf(buf, size, "%s, one sample per %llu", e->name,
			 (unsigned long long)period);
	else
		snprintf(buf, size, "event %u", type);
}

#endif /* SPROFIL_EVENTS_H */
