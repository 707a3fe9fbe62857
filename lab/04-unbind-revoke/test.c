/* lab04 - graded tests for lab 04: unbind() returns an fd on what it
 * detached, and revoke() forcibly unmounts a filesystem even after it was
 * lazily detached - the step Linux's umount -l cannot take back. */
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>
#include "t.h"

/* A ramfs with one file, attached at dir. */
static int attach_new(const char *dir)
{
    int fs = fsopen("ramfs", -1, NULL), f;

    if (fs < 0 || mkdir(dir, 0755) < 0 || bind(fs, AT_CWD, dir, 0) < 0)
        return -1;
    if ((f = create(fs, "file", S_IFREG, 0644, 0)) >= 0)
        close(f);
    close(fs);
    return 0;
}

static void unbind_returns_an_fd_on_what_was_attached(void)
{
    struct stat st;
    int u, f;

    CHECK(attach_new("/tmp/l2a") == 0, "setup");
    CHECK((u = unbind(AT_CWD, "/tmp/l2a")) >= 0, "unbind");
    CHECK(fstat(u, &st) == 0 && S_ISDIR(st.st_mode), "not a directory fd");
    CHECK((f = walk(u, "file", 0)) >= 0, "the fd does not reach the detached fs");
    close(f);
    CHECK_ERR(walk(AT_CWD, "/tmp/l2a/file", 0), ENOENT);
    close(u);
    PASS();
}

static void files_open_inside_keep_working_after_unbind(void)
{
    char buf[8];
    int io, u;

    CHECK(attach_new("/tmp/l2b") == 0, "setup");
    CHECK((io = open("/tmp/l2b/file", O_RDWR)) >= 0, "open");
    CHECK((u = unbind(AT_CWD, "/tmp/l2b")) >= 0, "unbind");
    CHECK(write(io, "lazy", 4) == 4 && lseek(io, 0, SEEK_SET) == 0 && read(io, buf, 4) == 4 &&
          !memcmp(buf, "lazy", 4), "an open file stopped working");
    close(io);
    close(u);
    PASS();
}

static void unbind_plus_bind_is_a_move(void)
{
    int u, f;

    CHECK(attach_new("/tmp/l2c") == 0 && mkdir("/tmp/l2d", 0755) == 0, "setup");
    CHECK((u = unbind(AT_CWD, "/tmp/l2c")) >= 0 && bind(u, AT_CWD, "/tmp/l2d", 0) == 0, "move");
    CHECK((f = walk(AT_CWD, "/tmp/l2d/file", 0)) >= 0, "not at the new place");
    close(f);
    CHECK_ERR(walk(AT_CWD, "/tmp/l2c/file", 0), ENOENT);
    close(u);
    PASS();
}

static void unbind_of_a_plain_directory_is_einval(void)
{
    CHECK(mkdir("/tmp/l2plain", 0755) == 0, "mkdir");
    CHECK_ERR(unbind(AT_CWD, "/tmp/l2plain"), EINVAL);
    CHECK_ERR(unbind(AT_CWD, "/tmp/l2none"), ENOENT);
    PASS();
}

static void revoke_fails_every_other_fd_with_eio(void)
{
    int io, dir, u;
    char c;

    CHECK(attach_new("/tmp/l2e") == 0 && mkdir("/tmp/l2e/sub", 0755) == 0, "setup");
    CHECK((io = open("/tmp/l2e/file", O_RDWR)) >= 0 && (dir = walk(AT_CWD, "/tmp/l2e/sub", 0)) >= 0,
          "open");
    CHECK((u = walk(AT_CWD, "/tmp/l2e", 0)) >= 0, "walk");
    CHECK(revoke(u) == 0, "revoke an attached fs");
    CHECK_ERR(read(io, &c, 1), EIO);
    CHECK_ERR(write(io, "x", 1), EIO);
    CHECK_ERR(walk(dir, "..", 0) < 0 ? -1 : walk(dir, "y", 0), EIO);
    CHECK_ERR(walk(AT_CWD, "/tmp/l2e/file", 0), ENOENT);     /* detached as well */
    CHECK(close(io) == 0 && close(dir) == 0 && close(u) == 0, "close must still work");
    PASS();
}

static void revoke_works_on_a_detached_fs(void)
{
    int io, u;
    char c;

    CHECK(attach_new("/tmp/l2f") == 0, "setup");
    CHECK((io = open("/tmp/l2f/file", O_RDWR)) >= 0, "open");
    CHECK((u = unbind(AT_CWD, "/tmp/l2f")) >= 0, "lazy detach");
    CHECK(revoke(u) == 0, "revoke after the lazy detach");
    CHECK_ERR(read(io, &c, 1), EIO);
    CHECK_ERR(revoke(u), EIO);
    close(io);
    close(u);
    PASS();
}

static void revoke_releases_the_filesystem(void)
{
    static char big[4096];
    unsigned before, after;
    int io, u, i;

    CHECK(attach_new("/tmp/l2g") == 0, "setup");
    CHECK((io = open("/tmp/l2g/file", O_WRONLY)) >= 0, "open");
    for (i = 0; i < 100; i++)
        CHECK(write(io, big, sizeof(big)) == sizeof(big), "fill");
    CHECK((u = unbind(AT_CWD, "/tmp/l2g")) >= 0, "unbind");
    before = free_pages();
    CHECK(revoke(u) == 0, "revoke");
    close(io);
    close(u);
    after = free_pages();
    CHECK(after >= before + 100, "%u free pages before, %u after: the fs was not released",
          before, after);
    PASS();
}

int main(void)
{
    unbind_returns_an_fd_on_what_was_attached();
    files_open_inside_keep_working_after_unbind();
    unbind_plus_bind_is_a_move();
    unbind_of_a_plain_directory_is_einval();
    revoke_fails_every_other_fd_with_eio();
    revoke_works_on_a_detached_fs();
    revoke_releases_the_filesystem();
    printf("lab04: done\n");
    return t_failures != 0;
}
