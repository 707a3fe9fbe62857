/* sys/mount.h - the Unix mount calls, rebuilt in user space from the
 * split primitives (user/lib/mount.c): mount = walk + ready + fsopen +
 * bind, umount = unbind + close, pivot_root = walk + unbind + fchroot +
 * fchdir + bind. */
#ifndef _SYS_MOUNT_H
#define _SYS_MOUNT_H

int mount(const char *type, const char *dev, const char *dir, const char *opts);
int umount(const char *dir);
int pivot_root(const char *new_root, const char *put_old);

/* Plan 9's bind options (-b, -a, -c, -r, -n) as bind(2) flags: for the
 * bind program and the shell's builtin. The index of the first operand,
 * or -1 (errno EINVAL). */
int bind_options(int argc, char *const argv[], int *flags);
#define BIND_OPTIONS "[-a|-b] [-c] [-r] [-n]"

#endif
