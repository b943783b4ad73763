/*
 * privs.c - dropping root privileges (see privs.h).
 *
 * Order matters: the supplementary groups and the group first (only root
 * may change them), the user last; then setuid(0) must fail, or the drop
 * did not happen.
 */
#define _DEFAULT_SOURCE
#include "privs.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROOT_UID 0

int roce_privs_user_exists(const char *user)
{
    return getpwnam(user) != NULL;
}

int roce_privs_drop(const char *user, char *err, size_t errlen)
{
    if (getuid() != ROOT_UID && geteuid() != ROOT_UID)
        return 0;
    errno = 0;
    const struct passwd *pw = getpwnam(user);
    if (pw == NULL) {
        snprintf(err, errlen, "unknown user '%s'", user);
        return -1;
    }
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    if (initgroups(user, gid) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        snprintf(err, errlen, "cannot become user '%s': %s", user, strerror(errno));
        return -1;
    }
    if (uid != ROOT_UID && setuid(ROOT_UID) == 0) {
        snprintf(err, errlen, "root privileges could not be dropped");
        return -1;
    }
    return 0;
}
