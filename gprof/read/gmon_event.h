/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event of the profiles read (gmon_event.c): each file's, the same
 * in all, and the unit of the report it gives.
 */
#ifndef GPROF_GMON_EVENT_H
#define GPROF_GMON_EVENT_H

#include <sprofil/gmon_codec.h>

struct profile;

/*
 * The event of an extension file (@c at its first record): its event
 * record's, or CPU time.  0, or -1 with the reason in @c.
 */
int gmon_file_event(struct gmf_cursor *c, struct gmf_event *ev);
/*
 * @ev, the event of the file being read, against the files before it:
 * 0, or -1 with the reason in @c (different events are not summed).
 */
int gmon_event_check(struct profile *prof, struct gmf_cursor *c,
		     const struct gmf_event *ev);
/* A counted event's unit, once the file's histograms set time's. */
void gmon_event_unit(struct profile *prof);

#endif /* GPROF_GMON_EVENT_H */
