/* pivot - make the filesystem attached at newroot the root, with the old
 * root attached at putold inside it (pivot_root(3): walk + unbind +
 * fchroot + fchdir + bind). The namespace change is shared with the
 * processes that share the namespace; the new root and cwd are this
 * process's, so a command given after the two paths is run inside. */
#include <err.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
    if (argc < 3)
        usage("newroot putold [command [arg ...]]");
    if (pivot_root(argv[1], argv[2]) < 0)
        err(1, "pivot_root(%s, %s)", argv[1], argv[2]);    /* either may be at fault */
    if (argc > 3) {
        keepstdio();
        execvp(argv[3], argv + 3);
        err(127, "%s", argv[3]);
    }
    return 0;
}
