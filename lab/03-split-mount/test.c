/* lab03 - graded tests for lab 03: fsopen() and bind(), the two halves of
 * mount(). Every test goes through the calls the lab builds, so each one
 * fails until they work. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <unistd.h>
#include "t.h"

static void fsopen_returns_a_directory_fd_on_a_new_fs(void)
{
    struct stat st, root;
    int fs;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK(fstat(fs, &st) == 0 && S_ISDIR(st.st_mode), "not a directory");
    CHECK(stat("/", &root) == 0 && st.st_dev != root.st_dev, "not a new filesystem");
    CHECK_ERR(fsopen("nosuchfs", -1, NULL), ENODEV);
    CHECK_ERR(fsopen("ramfs", 77, NULL), EBADF);
    close(fs);
    PASS();
}

static void a_new_fs_is_usable_before_it_is_attached(void)
{
    char buf[16] = "";
    int fs, f, io;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "note", S_IFREG, 0644, 0)) >= 0, "create through the fs fd");
    CHECK((io = ready(f, R_RDWR)) >= 0 && write(io, "unattached", 10) == 10, "write");
    CHECK(lseek(io, 0, SEEK_SET) == 0 && read(io, buf, 10) == 10 && !memcmp(buf, "unattached", 10),
          "read back");
    close(io);
    close(f);
    close(fs);
    PASS();
}

static void bind_attaches_the_fs_at_a_directory(void)
{
    char buf[1024];
    int fs, f;

    CHECK((fs = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((f = create(fs, "hello", S_IFREG, 0644, 0)) >= 0, "create");
    close(f);
    CHECK(mkdir("/tmp/l1a", 0755) == 0, "mkdir");
    CHECK(bind(fs, AT_CWD, "/tmp/l1a", 0) == 0, "bind");
    CHECK((f = walk(AT_CWD, "/tmp/l1a/hello", 0)) >= 0, "the file is not visible by path");
    close(f);
    CHECK(slurp("/proc/self/ns", buf, sizeof(buf)) > 0 && strstr(buf, "/tmp/l1a ramfs"),
          "/proc/self/ns does not list it:\n%s", buf);
    close(fs);
    PASS();
}

static void bind_requires_matching_types(void)
{
    int dir, file;

    CHECK((dir = fsopen("ramfs", -1, NULL)) >= 0, "fsopen");
    CHECK((file = create(AT_CWD, "/tmp/l1file", S_IFREG, 0644, 0)) >= 0, "create");
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/l1file", 0), ENOTDIR);
    CHECK_ERR(bind(file, AT_CWD, "/tmp", 0), EISDIR);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp/nowhere", 0), ENOENT);
    CHECK_ERR(bind(99, AT_CWD, "/tmp", 0), EBADF);
    CHECK_ERR(bind(dir, AT_CWD, "/tmp", 12345), EINVAL);
    close(dir);
    close(file);
    PASS();
}

static void bind_stacks_the_newest_on_top(void)
{
    int a = fsopen("ramfs", -1, NULL), b = fsopen("ramfs", -1, NULL), f, u;

    CHECK(a >= 0 && b >= 0, "fsopen");
    CHECK((f = create(a, "from_a", S_IFREG, 0644, 0)) >= 0, "create a");
    close(f);
    CHECK((f = create(b, "from_b", S_IFREG, 0644, 0)) >= 0, "create b");
    close(f);
    CHECK(mkdir("/tmp/l1s", 0755) == 0, "mkdir");
    CHECK(bind(a, AT_CWD, "/tmp/l1s", 0) == 0 && bind(b, AT_CWD, "/tmp/l1s", 0) == 0, "bind");
    CHECK((f = walk(AT_CWD, "/tmp/l1s/from_b", 0)) >= 0, "the newest is not on top");
    close(f);
    CHECK_ERR(walk(AT_CWD, "/tmp/l1s/from_a", 0), ENOENT);
    CHECK((u = unbind(AT_CWD, "/tmp/l1s")) >= 0, "unbind the top one");
    close(u);
    CHECK((f = walk(AT_CWD, "/tmp/l1s/from_a", 0)) >= 0, "the one below did not reappear");
    close(f);
    close(a);
    close(b);
    PASS();
}

static void bind_of_a_directory_is_a_bind_mount(void)
{
    int bin, f;

    CHECK((bin = walk(AT_CWD, "/bin", 0)) >= 0, "walk /bin");
    CHECK(mkdir("/tmp/l1bin", 0755) == 0 && bind(bin, AT_CWD, "/tmp/l1bin", 0) == 0, "bind");
    CHECK((f = walk(AT_CWD, "/tmp/l1bin/true", 0)) >= 0, "/bin/true not seen through the bind");
    close(f);
    close(bin);
    PASS();
}

static void mount_is_walk_fsopen_bind(void)
{
    int f;

    CHECK(mkdir("/tmp/l1m", 0755) == 0, "mkdir");
    CHECK(mount("ramfs", NULL, "/tmp/l1m", "") == 0, "mount");
    CHECK((f = create(AT_CWD, "/tmp/l1m/x", S_IFREG, 0644, 0)) >= 0, "create inside");
    close(f);
    CHECK(umount("/tmp/l1m") == 0, "umount");
    CHECK_ERR(walk(AT_CWD, "/tmp/l1m/x", 0), ENOENT);
    PASS();
}

int main(void)
{
    fsopen_returns_a_directory_fd_on_a_new_fs();
    a_new_fs_is_usable_before_it_is_attached();
    bind_attaches_the_fs_at_a_directory();
    bind_requires_matching_types();
    bind_stacks_the_newest_on_top();
    bind_of_a_directory_is_a_bind_mount();
    mount_is_walk_fsopen_bind();
    printf("lab03: done\n");
    return t_failures != 0;
}
