/* t_cover.c - the kernel's error paths and checks that `make coverage`
 * found no test reaching (doc/coverage.md; doc/decisions.md, "Coverage"):
 * each test goes where the report said nothing went, and asserts what
 * the kernel answers there. */
#include "t.h"
#include <dirent.h>
#include <sys/stat.h>

/* ramfs and procfs are made from nothing (ramfs_mount, procfs_mount), and
 * srv only from a channel's end (srv_fsopen): any other source is refused. */
static void fsopen_refuses_a_source_of_the_wrong_kind(void)
{
    int fd, p[2];

    CHECK((fd = open("/etc/motd", O_RDONLY)) >= 0, "open /etc/motd");
    CHECK_ERR(fsopen("ramfs", fd, NULL), EINVAL);
    CHECK_ERR(fsopen("procfs", fd, NULL), EINVAL);
    close(fd);
    CHECK(pipe(p) == 0, "pipe");
    CHECK_ERR(fsopen("srv", p[0], NULL), ENOTBLK);
    close(p[0]);
    close(p[1]);
    PASS();
}

/* namei.c vfs_link: a directory that is gone (open still) takes no name. */
static void a_removed_directory_takes_no_link(void)
{
    int dir, f;

    CHECK(mkdir("/tmp/cv_gone", 0755) == 0, "mkdir");
    CHECK((dir = walk(AT_CWD, "/tmp/cv_gone", 0)) >= 0, "walk");
    CHECK(put_file("/tmp/cv_file", "x") == 0 && (f = walk(AT_CWD, "/tmp/cv_file", 0)) >= 0,
          "make a file");
    CHECK(rmdir("/tmp/cv_gone") == 0, "rmdir");
    CHECK_ERR(linkat(f, dir, "name"), ENOENT);
    CHECK_ERR(create(dir, "name", S_IFREG, 0644, 0), ENOENT);
    close(dir);
    close(f);
    unlink("/tmp/cv_file");
    PASS();
}

/* ramfs.c ramfs_rename: a directory replaces only an empty one. */
static void a_directory_replaces_only_an_empty_one(void)
{
    CHECK(mkdir("/tmp/cv_d1", 0755) == 0 && mkdir("/tmp/cv_d2", 0755) == 0 &&
              put_file("/tmp/cv_d2/f", "x") == 0,
          "setup");
    CHECK_ERR(renameat(AT_CWD, "/tmp/cv_d1", AT_CWD, "/tmp/cv_d2", 0), ENOTEMPTY);
    CHECK(walk(AT_CWD, "/tmp/cv_d2/f", 0) >= 0, "the full directory lost its file");
    CHECK(unlink("/tmp/cv_d2/f") == 0, "unlink");
    CHECK(renameat(AT_CWD, "/tmp/cv_d1", AT_CWD, "/tmp/cv_d2", 0) == 0, "over an empty one");
    CHECK_ERR(walk(AT_CWD, "/tmp/cv_d1", 0), ENOENT);
    rmdir("/tmp/cv_d2");
    PASS();
}

/* ramfs.c ramfs_write and ramfs_read: bytes between the old end and a
 * write past it read as zeros, also where the file once held others;
 * a length given by ftruncate reads as zeros. */
static void a_hole_in_a_ramfs_file_reads_as_zeros(void)
{
    char buf[64], want[51];
    int fd, i;

    CHECK((fd = open("/tmp/cv_hole", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0, "open");
    memset(buf, 'A', sizeof(buf));
    CHECK(write(fd, buf, 40) == 40, "write 40");
    CHECK(ftruncate(fd, 10) == 0, "ftruncate 10");
    CHECK(lseek(fd, 50, SEEK_SET) == 50 && write(fd, "B", 1) == 1, "write at 50");
    memset(want, 0, sizeof(want));
    memset(want, 'A', 10);
    want[50] = 'B';
    CHECK(lseek(fd, 0, SEEK_SET) == 0 && read_full(fd, buf, sizeof(buf)) == 51, "read back");
    for (i = 0; i < 51; i++)
        CHECK(buf[i] == want[i], "byte %d is %d, want %d", i, buf[i], want[i]);
    close(fd);
    CHECK((fd = open("/tmp/cv_hole2", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0, "open 2");
    CHECK(ftruncate(fd, 30) == 0, "ftruncate 30");
    memset(buf, 'x', sizeof(buf));
    CHECK(read_full(fd, buf, sizeof(buf)) == 30, "read 30");
    for (i = 0; i < 30; i++)
        CHECK(buf[i] == 0, "byte %d of a new length is %d", i, buf[i]);
    close(fd);
    unlink("/tmp/cv_hole");
    unlink("/tmp/cv_hole2");
    PASS();
}

/* procfs.c procfs_readdir: a process's directory lists its files. */
static void a_process_directory_lists_its_files(void)
{
    static const char *want[] = { ".", "..", "status", "fd", "ns" };
    int seen = 0, n = 0, i;
    struct dirent *e;
    DIR *d;

    CHECK((d = opendir("/proc/self")) != NULL, "opendir /proc/self");
    while ((e = readdir(d))) {
        n++;
        for (i = 0; i < 5; i++)
            if (strcmp(e->d_name, want[i]) == 0)
                seen |= 1 << i;
    }
    closedir(d);
    CHECK(n == 5 && seen == 31, "%d entries, seen mask %x", n, seen);
    PASS();
}

/* namei.c may_replace: renaming a name onto another name of the same node
 * is nothing to do, and both names stay (POSIX rename). */
static void rename_onto_a_link_of_itself_keeps_both(void)
{
    int f;

    CHECK(put_file("/tmp/cv_one", "1") == 0 && (f = walk(AT_CWD, "/tmp/cv_one", 0)) >= 0, "setup");
    CHECK(linkat(f, AT_CWD, "/tmp/cv_two") == 0, "link");
    CHECK(renameat(AT_CWD, "/tmp/cv_one", AT_CWD, "/tmp/cv_two", 0) == 0, "rename: errno %d",
          errno);
    CHECK(walk(AT_CWD, "/tmp/cv_one", 0) >= 0 && walk(AT_CWD, "/tmp/cv_two", 0) >= 0,
          "a name went");
    close(f);
    unlink("/tmp/cv_one");
    unlink("/tmp/cv_two");
    PASS();
}

/* namei.c may_replace: a name something is attached on is not replaced. */
static void rename_onto_an_attachment_is_ebusy(void)
{
    int d;

    CHECK(mkdir("/tmp/cv_mp", 0755) == 0 && mkdir("/tmp/cv_src", 0755) == 0 &&
              mkdir("/tmp/cv_what", 0755) == 0,
          "setup");
    CHECK((d = walk(AT_CWD, "/tmp/cv_what", 0)) >= 0 && bind(d, AT_CWD, "/tmp/cv_mp", 0) == 0,
          "bind");
    CHECK_ERR(renameat(AT_CWD, "/tmp/cv_src", AT_CWD, "/tmp/cv_mp", 0), EBUSY);
    CHECK(walk(AT_CWD, "/tmp/cv_src", 0) >= 0, "the source went");
    close(d);
    CHECK((d = unbind(AT_CWD, "/tmp/cv_mp")) >= 0, "unbind");
    close(d);
    rmdir("/tmp/cv_mp");
    rmdir("/tmp/cv_src");
    rmdir("/tmp/cv_what");
    PASS();
}

/* namespace.c union_place: a union holds at most MAX_UNION (16) members,
 * the directory itself and 15 bound after it. */
static void a_union_takes_at_most_16_members(void)
{
    char name[32];
    int i, d, made = 0, err = 0;

    CHECK(mkdir("/tmp/cv_u", 0755) == 0, "mkdir");
    for (i = 0; i < 20; i++) {
        snprintf(name, sizeof(name), "/tmp/cv_u%d", i);
        CHECK(mkdir(name, 0755) == 0 && (d = walk(AT_CWD, name, 0)) >= 0, "mkdir %s", name);
        errno = 0;
        if (bind(d, AT_CWD, "/tmp/cv_u", BIND_AFTER) < 0) {
            err = errno;
            close(d);
            break;
        }
        made++;
        close(d);
    }
    CHECK(made == 15 && err == ENOSPC, "%d members bound, then errno %d", made, err);
    for (i = 0; i <= made; i++) {
        if ((d = unbind(AT_CWD, "/tmp/cv_u")) >= 0)
            close(d);
    }
    for (i = 0; i <= made; i++) {
        snprintf(name, sizeof(name), "/tmp/cv_u%d", i);
        rmdir(name);
    }
    CHECK(rmdir("/tmp/cv_u") == 0, "the union did not come apart: errno %d", errno);
    PASS();
}

/* file.c file_kind: a path fd on a symlink itself shows as "lnk". */
static void a_path_fd_on_a_symlink_shows_as_lnk(void)
{
    char text[1024], want[16];
    int fd;

    CHECK(symlink("/etc", "/tmp/cv_ln") == 0, "symlink");
    CHECK((fd = walk(AT_CWD, "/tmp/cv_ln", WALK_NOFOLLOW)) >= 0, "walk nofollow");
    CHECK(slurp("/proc/self/fd", text, sizeof(text)) > 0, "read /proc/self/fd");
    snprintf(want, sizeof(want), "\n%d lnk ", fd);
    CHECK(strstr(text, want) != NULL, "no line '%d lnk' in:\n%s", fd, text);
    close(fd);
    unlink("/tmp/cv_ln");
    PASS();
}

/* sysproc.c sys_setpgid: a negative group is EINVAL. */
static void setpgid_to_a_negative_group_is_einval(void)
{
    CHECK_ERR(setpgid(0, -1), EINVAL);
    CHECK_ERR(setpgid(getpid(), -5), EINVAL);
    PASS();
}

int main(int argc, char **argv)
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(fsopen_refuses_a_source_of_the_wrong_kind);
    T_RUN(a_removed_directory_takes_no_link);
    T_RUN(a_directory_replaces_only_an_empty_one);
    T_RUN(a_hole_in_a_ramfs_file_reads_as_zeros);
    T_RUN(a_process_directory_lists_its_files);
    T_RUN(rename_onto_a_link_of_itself_keeps_both);
    T_RUN(rename_onto_an_attachment_is_ebusy);
    T_RUN(a_union_takes_at_most_16_members);
    T_RUN(a_path_fd_on_a_symlink_shows_as_lnk);
    T_RUN(setpgid_to_a_negative_group_is_einval);
    printf("t_cover: done\n");
    return t_failures != 0;
}
