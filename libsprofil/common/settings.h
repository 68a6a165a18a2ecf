/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's settings: its environment variables (docs/backends.md,
 * docs/gmon-format.md, docs/record.md) as the process had them when the
 * library loaded.  Every reader asks here, never getenv(): a program may
 * define getenv() itself, and bash does (its getenv() consults the
 * shell's variables, which a setenv() before main() brings up empty), so
 * under `sprofil record --backend signal` every bash process found no
 * SPROFIL_BACKEND and loaded the BPF program.  A copy taken once also
 * means a later setenv() by the program changes nothing the library
 * reads, and no read races with one.
 */
#ifndef LIBSPROFIL_SETTINGS_H
#define LIBSPROFIL_SETTINGS_H

/*
 * The value of @name ("SPROFIL_..." or one of the few other names
 * settings.c lists) as the environment held it when the library loaded
 * (the first occurrence, as getenv() takes), or NULL if it was unset.
 * The string stays valid and unchanged for the life of the process.
 */
const char *sp_setting(const char *name);

/*
 * sp_setting(), but NULL in a setuid, setgid or capability-raising
 * program (AT_SECURE), as secure_getenv() returns.
 */
const char *sp_setting_secure(const char *name);

#endif /* LIBSPROFIL_SETTINGS_H */
