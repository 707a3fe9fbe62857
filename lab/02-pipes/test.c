/* lab02 - graded tests for lab 02: the pipe buffer behind pipe(), FIFOs
 * made by create(), and pipe ends bound into the namespace as named pipes. */
#include <fcntl.h>
#include <orthos.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

static void pipe_carries_bytes_in_order(void)
{
    char buf[64];
    int p[2];

    CHECK(pipe(p) == 0, "pipe");
    CHECK(write(p[1], "first ", 6) == 6 && write(p[1], "second", 6) == 6, "write");
    CHECK(read(p[0], buf, sizeof(buf)) == 12 && !memcmp(buf, "first second", 12), "read");
    close(p[0]);
    close(p[1]);
    PASS();
}

static void read_returns_eof_after_the_last_writer_closes(void)
{
    char c;
    int p[2], w2;

    CHECK(pipe(p) == 0 && (w2 = dup(p[1])) >= 0, "pipe");
    CHECK(write(p[1], "x", 1) == 1, "write");
    close(p[1]);
    CHECK(read(p[0], &c, 1) == 1 && c == 'x', "data before EOF");
    CHECK(fcntl(p[0], F_SETFL, R_NONBLOCK) == 0, "nonblock");
    CHECK_ERR(read(p[0], &c, 1), EAGAIN);       /* a writer (w2) is still there */
    close(w2);
    CHECK(read(p[0], &c, 1) == 0, "no EOF after the last writer left");
    close(p[0]);
    PASS();
}

static void write_with_no_reader_left_is_epipe(void)
{
    int p[2];

    CHECK(pipe(p) == 0, "pipe");
    close(p[0]);
    CHECK_ERR(write(p[1], "x", 1), EPIPE);
    close(p[1]);
    PASS();
}

static void a_fifo_without_a_writer_yet_reads_eagain_not_eof(void)
{
    int f, r, w;
    char c;

    CHECK((f = create(AT_CWD, "/tmp/l5fifo", S_IFIFO, 0644, 0)) >= 0, "create fifo");
    CHECK((r = ready(f, R_READ | R_NONBLOCK)) >= 0, "ready for read");
    CHECK_ERR(read(r, &c, 1), EAGAIN);
    CHECK((w = ready(f, R_WRITE)) >= 0 && write(w, "y", 1) == 1, "write");
    CHECK(read(r, &c, 1) == 1 && c == 'y', "read");
    close(w);
    CHECK(read(r, &c, 1) == 0, "EOF once the writer that came has gone");
    close(r);
    close(f);
    PASS();
}

static void a_pipe_bound_at_a_name_is_a_named_pipe(void)
{
    char buf[32] = "";
    int p[2], f, r, pid, status;

    CHECK(pipe(p) == 0, "pipe");
    CHECK((f = create(AT_CWD, "/tmp/l5np", S_IFREG, 0644, 0)) >= 0, "placeholder");
    close(f);
    CHECK(bind(p[0], AT_CWD, "/tmp/l5np", 0) == 0, "bind the read end");
    close(p[0]);
    close(p[1]);
    CHECK((r = open("/tmp/l5np", O_RDONLY)) >= 0, "open for reading");
    fflush(stdout);
    if ((pid = fork()) == 0) {          /* knows the pipe only by its name */
        int w = open("/tmp/l5np", O_WRONLY);
        _exit(w >= 0 && write(w, "through the name", 16) == 16 ? 0 : 1);
    }
    CHECK(waitpid(pid, &status, 0) == pid && status == 0, "writer");
    CHECK(read(r, buf, sizeof(buf)) == 16 && !memcmp(buf, "through the name", 16), "read");
    close(r);
    umount("/tmp/l5np");
    PASS();
}

static void a_megabyte_flows_through_a_4k_pipe(void)
{
    static char buf[3000];
    unsigned got = 0, crc = 0, want = 0, i;
    int p[2], pid, n, status;

    for (i = 0; i < sizeof(buf); i++)
        buf[i] = (char)(i * 13);
    for (i = 0; i < (1u << 20) / sizeof(buf); i++)
        want = crc32_update(want, buf, sizeof(buf));
    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        for (i = 0; i < (1u << 20) / sizeof(buf); i++)
            if (write(p[1], buf, sizeof(buf)) != sizeof(buf))
                _exit(1);
        _exit(0);
    }
    close(p[1]);
    {
        static char in[5000], acc[3000];
        unsigned fill = 0;
        while ((n = read(p[0], in, sizeof(in))) > 0) {
            int k;
            for (k = 0; k < n; k++) {
                acc[fill++] = in[k];
                if (fill == sizeof(acc)) {
                    crc = crc32_update(crc, acc, fill);
                    fill = 0;
                }
            }
            got += n;
        }
    }
    close(p[0]);
    CHECK(waitpid(pid, &status, 0) == pid && status == 0, "writer failed");
    CHECK(got == (1u << 20) / sizeof(buf) * sizeof(buf) && crc == want, "%u bytes, crc %08x/%08x",
          got, crc, want);
    PASS();
}

int main(void)
{
    pipe_carries_bytes_in_order();
    read_returns_eof_after_the_last_writer_closes();
    write_with_no_reader_left_is_epipe();
    a_fifo_without_a_writer_yet_reads_eagain_not_eof();
    a_pipe_bound_at_a_name_is_a_named_pipe();
    a_megabyte_flows_through_a_4k_pipe();
    printf("lab02: done\n");
    return t_failures != 0;
}
