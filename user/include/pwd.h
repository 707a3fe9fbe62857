/* pwd.h - the user database, /etc/passwd: one line per user,
 * name:password:uid:gid:comment:home:shell (the password field is unused:
 * Orthos has no passwords; see login(1) in doc/decisions.md). Also the
 * group database, /etc/group: name:password:gid:members. user/lib/pwd.c. */
#ifndef _PWD_H
#define _PWD_H

struct passwd {
    char *pw_name;
    int pw_uid;
    int pw_gid;
    char *pw_dir;
    char *pw_shell;
};

struct group {
    char *gr_name;
    int gr_gid;
};

/* Each returns a static entry, overwritten by the next call on the same
 * database (a passwd entry outlives a group lookup, and back), or NULL
 * if there is none or the file cannot be read. */
struct passwd *getpwnam(const char *name);
struct passwd *getpwuid(int uid);
struct group *getgrnam(const char *name);
struct group *getgrgid(int gid);

/* Orthos: act for pw from now on, for good: setgid, setuid, and with
 * fresh_ns a namespace of its own (unshare after setuid, so that pw owns
 * it), HOME and USER set. The steps login(1) and runas(1) share. 0 or -1. */
int become_user(const struct passwd *pw, int fresh_ns);

#endif
