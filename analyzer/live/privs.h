/*
 * privs.h - giving up privileges once the capture is open, as tcpdump's
 * -Z does, and by default: started as root, the monitor becomes the user
 * of -Z, or without -Z the package's system user `rocescope` when it
 * exists, else `nobody`; only an explicit `-Z root` (or any user of uid 0)
 * keeps root. The capture handle and the --listen socket stay usable;
 * everything opened afterwards (the -w files, the Prometheus file, -o) is
 * opened as the user. The system call filter that follows is sandbox.h's.
 */
#ifndef ROCE_PRIVS_H
#define ROCE_PRIVS_H

#include <stddef.h>
#include <sys/types.h>

#define ROCE_PRIVS_SYSTEM_USER   "rocescope" /* the package's (analyzer/deploy/debian/postinst) */
#define ROCE_PRIVS_FALLBACK_USER "nobody"
#define ROCE_PRIVS_NAME_LEN      64

/* Whether the user exists (checked when the options are read). */
int roce_privs_user_exists(const char *user);

/* The user to become when -Z is not given: ROCE_PRIVS_SYSTEM_USER when it
 * exists, else ROCE_PRIVS_FALLBACK_USER when it exists, else NULL. */
const char *roce_privs_default_user(void);

/* What roce_privs_drop did, for the start-up line and the tests. */
struct roce_privs_state {
    int was_root;                   /* started with real or effective uid 0 */
    uid_t uid;                      /* the uid now */
    char user[ROCE_PRIVS_NAME_LEN]; /* its name ("" when it has none) */
    unsigned bounding_kept;         /* capabilities left in the bounding set */
};

/* Give up what the monitor no longer needs once its capture and --listen
 * socket are open, in this order, on the calling thread (call it before
 * any other thread starts: the bounding set is per thread):
 *  - unless USER is of uid 0: every capability dropped from the bounding
 *    set (PR_CAPBSET_DROP, which needs CAP_SETPCAP: without it, as in a
 *    service whose own bounding set lacks it or when not started as root,
 *    what remains is counted in bounding_kept);
 *  - started as root: USER's groups (initgroups, setgid) and uid (setuid),
 *    and setuid(0) must then fail;
 *  - always: the ambient set cleared and the permitted, effective and
 *    inheritable sets emptied (a binary given file capabilities, run by a
 *    user, holds none afterwards), unless USER is of uid 0 (root kept, by
 *    an explicit choice: its capabilities stay);
 *  - always: NO_NEW_PRIVS (no execve can gain privileges again).
 * USER NULL: nothing to become (not started as root). 0, or -1 with the
 * reason in err (the caller stops: exit status 1). */
int roce_privs_drop(const char *user, struct roce_privs_state *st, char *err, size_t errlen);

#endif
