// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a profile file's samples count (gmon_event.h): its event record
 * (docs/gmon-format.md, tag 8) or CPU time, checked to be the same in
 * every file read together, and the report's unit it gives.
 */
#include <stdio.h>
#include <string.h>

#include <sprofil/events.h>
#include <sprofil/gmon_codec.h>
#include <sprofil/gmon_format.h>

#include "read/gmon_event.h"
#include "read/read.h"

/*
 * The event of an extension file (@c at its first record): its event
 * record's, or CPU time.  0, or -1 with the reason in @c.
 */
int gmon_file_event(struct gmf_cursor *c, struct gmf_event *ev)
{
	struct gmf_cursor at = *c, b;
	uint32_t tag;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "cpu-clock");
	while (gmf_record_next(&at, &tag, &b)) {
		if (tag != GMF_TAG_EVENT)
			continue;
		if (!gmf_event_get(&b, ev) || !spe_event(ev->type) ||
		    ev->type == SPROFIL_EVENT_CPU_CLOCK) {
			if (!b.failed)
				gmf_fail(&b, "event record of an unknown event %u (%s)",
					 ev->type, ev->name);
			c->failed = true;
			return -1;
		}
		break;
	}
	return 0;
}

/*
 * Samples of different events are not one quantity: no sum.  The first
 * file's event sets the report's unit: a count of its events, one
 * sample standing for its period of them.
 */
int gmon_event_check(struct profile *prof, struct gmf_cursor *c,
		       const struct gmf_event *ev)
{
	if (prof->event_files &&
	    (ev->type != prof->event_type ||
	     (ev->type && ev->period != prof->event_period))) {
		char was[64], is[64];

		spe_describe(was, sizeof(was), prof->event_type,
			     prof->event_period);
		spe_describe(is, sizeof(is), ev->type, ev->period);
		gmf_fail(c, "sampled on %s, not on %s as the profiles before it: samples of different events cannot be summed",
			 is, was);
		return -1;
	}
	prof->event_type = ev->type;
	prof->event_period = ev->type ? ev->period : 0;
	prof->event_files++;
	return 0;
}

/* A counted event's unit, once the file's histograms set time's. */
void gmon_event_unit(struct profile *prof)
{
	const struct spe_event *e = spe_event(prof->event_type);

	if (!prof->event_type)
		return;
	prof->hz = 1.0 / (double)prof->event_period;
	snprintf(prof->hist_dimension, sizeof(prof->hist_dimension), "%s",
		 e->column);
	prof->hist_dimension_abbrev = e->column[0];
}
