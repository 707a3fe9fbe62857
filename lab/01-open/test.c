/* lab01 - graded tests for lab 01: open() rebuilt in the C library from
 * walk, create, ready, ftruncate and fcntl. */
#include <fcntl.h>
#include <orthos.h>
#include <unistd.h>
#include "lab.h"

static int make(const char *path, const char *text)
{
    int p = create(AT_CWD, path, S_IFREG, 0644, 0), io;

    if (p < 0 || (io = ready(p, R_WRITE)) < 0)
        return -1;
    write(io, text, strlen(text));
    close(io);
    close(p);
    return 0;
}

static void open_reads_an_existing_file(void)
{
    char buf[16] = "";
    int fd;

    CHECK(make("/tmp/l4a", "contents") == 0, "setup");
    CHECK((fd = open("/tmp/l4a", O_RDONLY)) >= 0, "open");
    CHECK(read(fd, buf, sizeof(buf)) == 8 && !strcmp(buf, "contents"), "read '%s'", buf);
    CHECK_ERR(write(fd, "x", 1), EBADF);
    close(fd);
    CHECK_ERR(open("/tmp/l4-none", O_RDONLY), ENOENT);
    PASS();
}

static void o_creat_o_excl_refuses_an_existing_name(void)
{
    int fd;
    struct stat st;

    CHECK((fd = open("/tmp/l4b", O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0, "create");
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600, "mode %o",
          st.st_mode);
    close(fd);
    CHECK_ERR(open("/tmp/l4b", O_WRONLY | O_CREAT | O_EXCL, 0600), EEXIST);
    CHECK_ERR(open("/tmp/l4ro", O_WRONLY | O_CREAT | O_EXCL, 0444), EACCES);
    CHECK_ERR(walk(AT_CWD, "/tmp/l4ro", 0), ENOENT);    /* a failed open leaves nothing */
    PASS();
}

static void o_creat_without_o_excl_opens_the_existing_file_untouched(void)
{
    char buf[16] = "";
    int fd;

    CHECK(make("/tmp/l4c", "keep") == 0, "setup");
    CHECK((fd = open("/tmp/l4c", O_RDWR | O_CREAT, 0644)) >= 0, "open");
    CHECK(read(fd, buf, sizeof(buf)) == 4 && !strcmp(buf, "keep"), "contents changed: '%s'", buf);
    close(fd);
    PASS();
}

static void o_trunc_empties_the_file(void)
{
    struct stat st;
    int fd;

    CHECK(make("/tmp/l4d", "0123456789") == 0, "setup");
    CHECK((fd = open("/tmp/l4d", O_WRONLY | O_TRUNC)) >= 0, "open");
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "size %u after O_TRUNC", st.st_size);
    close(fd);
    CHECK((fd = open("/dev/null", O_WRONLY | O_TRUNC)) >= 0, "O_TRUNC on a device must work");
    close(fd);
    PASS();
}

static void o_directory_refuses_a_file(void)
{
    int fd;

    CHECK(make("/tmp/l4e", "x") == 0, "setup");
    CHECK_ERR(open("/tmp/l4e", O_RDONLY | O_DIRECTORY), ENOTDIR);
    CHECK((fd = open("/tmp", O_RDONLY | O_DIRECTORY)) >= 0, "a directory");
    close(fd);
    CHECK_ERR(open("/tmp", O_WRONLY), EISDIR);
    PASS();
}

static void o_append_writes_at_the_end(void)
{
    char buf[16] = "";
    int fd;

    CHECK(make("/tmp/l4f", "abc") == 0, "setup");
    CHECK((fd = open("/tmp/l4f", O_WRONLY | O_APPEND)) >= 0, "open");
    CHECK(write(fd, "def", 3) == 3, "write");
    close(fd);
    CHECK((fd = open("/tmp/l4f", O_RDONLY)) >= 0 && read(fd, buf, sizeof(buf)) == 6 &&
          !strcmp(buf, "abcdef"), "got '%s'", buf);
    close(fd);
    PASS();
}

static void open_returns_the_lowest_free_fd(void)
{
    int a, b, c;

    CHECK((a = open("/tmp/l4f", O_RDONLY)) >= 0 && (b = open("/tmp/l4f", O_RDONLY)) > a, "open");
    close(a);
    CHECK((c = open("/tmp/l4f", O_RDONLY)) == a, "got fd %d, but %d was free", c, a);
    close(b);
    close(c);
    PASS();
}

static void o_nonblock_and_the_access_mode_reach_the_fd(void)
{
    int fd;

    CHECK((fd = open("/tmp/l4f", O_RDWR | O_NONBLOCK)) >= 0, "open");
    CHECK(fcntl(fd, F_GETFL, 0) == (R_RDWR | R_NONBLOCK), "F_GETFL %x", fcntl(fd, F_GETFL, 0));
    close(fd);
    CHECK_ERR(open("/tmp/l4f", O_ACCMODE), EINVAL);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(open_reads_an_existing_file),
    LAB_TEST(o_creat_o_excl_refuses_an_existing_name),
    LAB_TEST(o_creat_without_o_excl_opens_the_existing_file_untouched),
    LAB_TEST(o_trunc_empties_the_file),
    LAB_TEST(o_directory_refuses_a_file),
    LAB_TEST(o_append_writes_at_the_end),
    LAB_TEST(open_returns_the_lowest_free_fd),
    LAB_TEST(o_nonblock_and_the_access_mode_reach_the_fd),
};

int main(int argc, char **argv)
{
    return lab_main("lab01", tests, sizeof(tests) / sizeof(tests[0]), argc, argv);
}
