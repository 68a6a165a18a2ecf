/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which load module holds an address, for the profile writer
 * (gmon_write.c): the live modules as dl_iterate_phdr() sees them, the
 * ones dlclose() took away (sp_gmon_module_gone(), gmon.h), or, in a
 * profile of another process (sp_gmon_set_target()), that process's.
 */
#ifndef LIBSPROFIL_GMON_MODULES_H
#define LIBSPROFIL_GMON_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The load module holding one address, as dl_iterate_phdr() sees it. */
struct sp_module {
	uintptr_t addr;			/* in: the address looked up */
	bool found;
	bool main;			/* the main executable */
	uintptr_t bias;			/* what its addresses are relative to */
	uintptr_t load_bias;		/* the runtime bias the file records */
	uintptr_t low, high;		/* runtime range of the module */
	const char *name;
	const void *build_id;
	size_t build_id_len;
};

/* The module of @addr into *@m; m->found false when there is none. */
void sp_module_find(uintptr_t addr, struct sp_module *m);

/*
 * sp_module_find() for many addresses, mostly in the same few modules:
 * @last remembers the previous answer (zeroed at first).
 */
void sp_module_find_cached(uintptr_t addr, struct sp_module *m,
			   struct sp_module *last);

/* The file a profile of another process goes to, or NULL. */
const char *sp_gmon_target_path(void);

/* The gone modules' lock across fork (gmon_write.c's, in its order). */
void sp_modules_fork_prepare(void);
void sp_modules_fork_parent(void);
void sp_modules_fork_child(void);

#endif /* LIBSPROFIL_GMON_MODULES_H */
