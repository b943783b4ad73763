/*
 * privs.c - giving up privileges (see privs.h).
 *
 * Order matters: the bounding set first (dropping from it needs
 * CAP_SETPCAP, which root loses at setuid), then the supplementary groups
 * and the group (only root may change them), the user last; setuid(0)
 * must then fail, or the drop did not happen. setuid to a non-zero uid
 * clears the permitted and effective sets (and with them the ambient one)
 * but not the inheritable set: capset empties what is left. glibc applies
 * setuid and setgid to every thread; the bounding set, capset and
 * NO_NEW_PRIVS are per thread, hence "before any other thread starts".
 */
#define _GNU_SOURCE
#include "privs.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROOT_UID      0
#define CAP_PROBE_MAX 1024u /* far beyond any kernel's last capability */

int roce_privs_user_exists(const char *user)
{
    return getpwnam(user) != NULL;
}

const char *roce_privs_default_user(void)
{
    if (roce_privs_user_exists(ROCE_PRIVS_SYSTEM_USER))
        return ROCE_PRIVS_SYSTEM_USER;
    if (roce_privs_user_exists(ROCE_PRIVS_FALLBACK_USER))
        return ROCE_PRIVS_FALLBACK_USER;
    return NULL;
}

/* The highest capability number the kernel knows (PR_CAPBSET_READ fails
 * with EINVAL past it). */
static unsigned last_cap(void)
{
    unsigned c = 0;
    while (c + 1 < CAP_PROBE_MAX && prctl(PR_CAPBSET_READ, (unsigned long)(c + 1), 0, 0, 0) >= 0)
        c++;
    return c;
}

/* Drop every capability from the bounding set (PR_CAPBSET_DROP refuses
 * without CAP_SETPCAP: what is left is counted afterwards). */
static void empty_bounding_set(unsigned last)
{
    for (unsigned c = 0; c <= last; c++)
        if (prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0) == 1)
            (void)prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0);
}

/* Count what is left in the bounding set. */
static unsigned bounding_count(unsigned last)
{
    unsigned n = 0;
    for (unsigned c = 0; c <= last; c++)
        n += prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0) == 1;
    return n;
}

/* Empty the permitted, effective and inheritable sets and the ambient
 * one (dropping is always allowed). 0, or -1 with errno set. */
static int empty_capabilities(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    /* EINVAL: a kernel without ambient capabilities (before 4.3) has none */
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return -1;
    return (int)syscall(SYS_capset, &hdr, data);
}

/* Become USER (pw): groups, group, uid; root must be gone afterwards. 0,
 * or -1 with err set. */
static int become(const char *user, const struct passwd *pw, char *err, size_t errlen)
{
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    if (initgroups(user, gid) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        snprintf(err, errlen, "cannot become user '%s': %s", user, strerror(errno));
        return -1;
    }
    if (uid != ROOT_UID && (setuid(ROOT_UID) == 0 || seteuid(ROOT_UID) == 0)) {
        snprintf(err, errlen, "root privileges could not be dropped");
        return -1;
    }
    return 0;
}

int roce_privs_drop(const char *user, struct roce_privs_state *st, char *err, size_t errlen)
{
    const unsigned last = last_cap();
    int keep_root = 0;
    const struct passwd *pw =
        NULL; /* the user to become (getpwnam's: no other lookup until then) */
    memset(st, 0, sizeof st[0]);
    st->was_root = getuid() == ROOT_UID || geteuid() == ROOT_UID;
    if (st->was_root && user != NULL) {
        errno = 0;
        pw = getpwnam(user);
        if (pw == NULL) {
            snprintf(err, errlen, "unknown user '%s'", user);
            return -1;
        }
        keep_root = pw->pw_uid == ROOT_UID; /* -Z root: explicit, warned about */
    }
    if (!keep_root) /* while CAP_SETPCAP may still be held */
        empty_bounding_set(last);
    if (pw != NULL && become(user, pw, err, errlen) != 0)
        return -1;
    if (!keep_root && empty_capabilities() != 0) {
        snprintf(err, errlen, "cannot give up capabilities: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
        snprintf(err, errlen, "cannot set NO_NEW_PRIVS: %s", strerror(errno));
        return -1;
    }
    st->uid = geteuid();
    st->bounding_kept = bounding_count(last);
    const struct passwd *now = getpwuid(st->uid);
    snprintf(st->user, sizeof st->user, "%s", now != NULL ? now->pw_name : "");
    return 0;
}
