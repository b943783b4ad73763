/*
 * privs.h - `-Z USER`: give up root once the capture is open, as tcpdump
 * does. The capture handle stays usable; everything opened afterwards
 * (the -w files, the Prometheus file, -o) is opened as USER.
 */
#ifndef ROCE_PRIVS_H
#define ROCE_PRIVS_H

#include <stddef.h>

/* Whether the user exists (checked when the options are read). */
int roce_privs_user_exists(const char *user);

/* When running as root (real or effective uid 0): switch the groups to
 * USER's (initgroups, setgid) and then the user (setuid), and make sure
 * root cannot be regained. Not root: nothing to give up, returns 0.
 * 0, or -1 with the reason in err. */
int roce_privs_drop(const char *user, char *err, size_t errlen);

#endif
