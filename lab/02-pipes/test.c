/* lab02 - graded tests for lab 02: the pipe buffer behind pipe() and the
 * FIFOs made by create() (mkfifo): pipe_read and pipe_write.
 *
 * On the lab's course branch Lab 01 (open) is done and every later lab is a
 * stub, so these tests use pipe, create, walk, ready, open, fork and kill,
 * never bind, fsopen or revoke. Anything that could block forever runs in a
 * child that the test waits for with a deadline (wait_child_ms), so a
 * missing wakeup costs the test, not the whole run. */
#include <fcntl.h>
#include <orthos.h>
#include <signal.h>
#include <unistd.h>
#include "lab.h"
#include "array_size.h"

#define PIPE_SIZE 65536       /* kernel/fs/pipe.c */

/* The bytes queued in a pipe, counted by draining it without blocking
 * (rfd is made non-blocking); they are thrown away. */
static int drain(int rfd)
{
    char buf[512];
    int n, total = 0;

    fcntl(rfd, F_SETFL, R_NONBLOCK);
    while ((n = read(rfd, buf, sizeof(buf))) > 0)
        total += n;
    return total;
}

/* A call on fd that must fail with EAGAIN at once: a read of one byte
 * (buf NULL), or a write of n bytes from buf. It runs in a child, so a
 * call that waits instead costs three seconds, not the test. */
static int says_eagain(int fd, const void *buf, int n)
{
    int pid, status, r;
    char c;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        r = buf ? write(fd, buf, n) : read(fd, &c, 1);
        _exit(r == -1 && errno == EAGAIN ? 0 : 1);
    }
    return pid > 0 && wait_child_ms(pid, 3000, &status) && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

static void pipe_carries_bytes_in_order(void)
{
    char buf[64] = "";
    int p[2], n;

    CHECK(pipe(p) == 0, "pipe");
    CHECK(write(p[1], "first ", 6) == 6 && write(p[1], "second", 6) == 6, "write");
    CHECK(read(p[0], buf, 3) == 3 && !memcmp(buf, "fir", 3), "a short read: '%.3s'", buf);
    CHECK(read(p[0], buf, 9) == 9 && !memcmp(buf, "st second", 9), "the rest: '%.9s'", buf);
    CHECK(write(p[1], "x", 1) == 1 && read(p[0], buf, 1) == 1 && buf[0] == 'x', "once more");
    /* a write of nothing succeeds with 0: it is not a failure, nor a wait */
    n = (int)write(p[1], buf, 0);
    CHECK(n == 0, "write of 0 bytes gave %d, errno %d: want 0", n, errno);
    CHECK(write(p[1], "y", 1) == 1 && read(p[0], buf, 2) == 1 && buf[0] == 'y',
          "the 0-byte write put something in");
    /* nor on a full pipe: it needs no room, so it neither waits nor says EAGAIN */
    {
        static char full[PIPE_SIZE];
        int pid, status;

        CHECK(write(p[1], full, sizeof(full)) == sizeof(full), "fill the pipe");
        CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "nonblock");
        n = (int)write(p[1], buf, 0);
        CHECK(n == 0,
              "a non-blocking write of 0 bytes into a full pipe gave %d, errno %d: "
              "want 0",
              n, errno);
        CHECK(fcntl(p[1], F_SETFL, 0) == 0, "blocking");
        fflush(stdout);
        if ((pid = fork()) == 0)
            _exit(write(p[1], buf, 0) == 0 ? 0 : 1);
        CHECK(pid > 0 && wait_child_ms(pid, 5000, &status),
              "a blocking write of 0 bytes into a full pipe waited (5 s): it needs no room");
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a blocking write of 0 bytes into a full pipe did not give 0");
        CHECK(drain(p[0]) == PIPE_SIZE, "the full pipe's bytes");
    }
    close(p[0]);
    close(p[1]);
    PASS();
}

static int read_100(void)
{
    char buf[100];
    int p[2];

    if (pipe(p) < 0 || write(p[1], "abc", 3) != 3)
        return 1;
    return read(p[0], buf, sizeof(buf)) == 3 && !memcmp(buf, "abc", 3) ? 0 : 2;
}

/* read(100) with 3 bytes queued returns those 3 at once: a read never waits
 * for more than is there (the writer is still open, so no EOF will come). */
static void read_returns_what_is_there_without_waiting_for_more(void)
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(read_100());
    CHECK(pid > 0, "fork");
    CHECK(wait_child_ms(pid, 5000, &status), "read(fd, buf, 100) with 3 bytes queued is still "
                                             "waiting after 5 s");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read gave the wrong bytes (%x)", status);
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
    CHECK(says_eagain(p[0], NULL, 0), "an empty pipe with a writer left (a dup) must say "
                                      "EAGAIN to a non-blocking read");
    close(w2);
    CHECK(read(p[0], &c, 1) == 0, "no EOF after the last writer left");
    CHECK(read(p[0], &c, 1) == 0, "EOF is not repeated");
    close(p[0]);
    PASS();
}

static int p_reader[2];

/* Reads once from p_reader: 0 if it got "hello", 1 if EOF, 2 otherwise. */
static int read_once(void)
{
    char buf[16];
    int n;

    close(p_reader[1]);
    n = read(p_reader[0], buf, sizeof(buf));
    return n == 5 && !memcmp(buf, "hello", 5) ? 0 : n == 0 ? 1 : 2;
}

/* Reads one byte from p_reader: 0 if it got one, 1 if EOF, 2 otherwise. */
static int read_one(void)
{
    char c;
    int n;

    close(p_reader[1]);
    n = read(p_reader[0], &c, 1);
    return n == 1 ? 0 : n == 0 ? 1 : 2;
}

#define BIGGER (PIPE_SIZE + 100)

/* Reads BIGGER bytes from p_reader, however they come: 0 if all came. */
static int read_bigger(void)
{
    static char buf[BIGGER];

    close(p_reader[1]);
    return read_full(p_reader[0], buf, sizeof(buf)) == sizeof(buf) ? 0 : 1;
}

/* Writes BIGGER bytes into p_reader in one write: 0 if all went in. */
static int write_bigger(void)
{
    static char buf[BIGGER];

    close(p_reader[0]);
    return write(p_reader[1], buf, sizeof(buf)) == sizeof(buf) ? 0 : 1;
}

/* Two readers asleep on an empty pipe, one byte written: one gets it; the
 * other, woken too, finds the pipe empty again and must wait on (a writer
 * is still there: that is not end of file) until the next byte. */
static const char *two_readers_one_byte(void)
{
    int pid[2], got = -1, status = 0, t, other, i;

    if (pipe(p_reader) < 0)
        return "pipe";
    fflush(stdout);
    for (i = 0; i < 2; i++)
        if ((pid[i] = fork()) == 0)
            _exit(read_one());
    if (pid[0] < 0 || pid[1] < 0 || !wait_until_sleeping(pid[0], 5000) ||
        !wait_until_sleeping(pid[1], 5000))
        return "two readers did not both block on an empty pipe";
    if (write(p_reader[1], "a", 1) != 1)
        return "write";
    for (t = 0; t <= 5000 && got < 0; t += 10) {
        for (i = 0; i < 2 && got < 0; i++)
            if (waitpid(pid[i], &status, WNOHANG) == pid[i])
                got = i;
        sleep_ms(10);
    }
    if (got < 0)
        return "neither sleeping reader woke for the byte written";
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "the first reader to finish did not get the byte";
    other = pid[1 - got];
    if (!wait_until_sleeping(other, 5000))
        return "the other reader, woken with nothing left to read, did not wait again "
               "(did it return 0, end of file, while a writer was still open?)";
    if (write(p_reader[1], "b", 1) != 1)
        return "write";
    if (!wait_child_ms(other, 5000, &status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "the other reader did not get the second byte";
    close(p_reader[0]);
    close(p_reader[1]);
    return NULL;
}

/* A reader asleep in read wakes when a writer writes, and when the last
 * writer leaves; also for a write bigger than the pipe, which must wake
 * it before waiting for room; and two readers woken for one byte: the
 * one that finds nothing goes back to sleep. */
static void a_blocked_reader_wakes_for_data_and_for_eof(void)
{
    const char *why;
    int rd, wr, st_rd = -1, st_wr = -1;
    int pid, status;

    CHECK(pipe(p_reader) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(read_once());
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "the reader did not block on an empty pipe");
    CHECK(write(p_reader[1], "hello", 5) == 5, "write");
    CHECK(wait_child_ms(pid, 5000, &status), "the blocked reader did not wake for the data");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the blocked reader did not get 'hello'"
          " (status %x)",
          status);
    if ((pid = fork()) == 0)
        _exit(read_once());
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "the reader did not block again");
    close(p_reader[1]);
    CHECK(wait_child_ms(pid, 5000, &status), "the blocked reader did not wake when the last "
                                             "writer closed");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "the reader did not see EOF (status %x)",
          status);
    close(p_reader[0]);
    /* a write bigger than the pipe fills it, then must wake the sleeping reader before it
     * waits for room: otherwise each waits for the other for ever */
    CHECK(pipe(p_reader) == 0, "pipe");
    fflush(stdout);
    if ((rd = fork()) == 0)
        _exit(read_bigger());
    CHECK(rd > 0 && wait_until_sleeping(rd, 5000), "the reader did not block on an empty pipe");
    if ((wr = fork()) == 0)
        _exit(write_bigger());
    CHECK(wr > 0, "fork");
    close(p_reader[0]);
    close(p_reader[1]);
    wait_child_ms(wr, 5000, &st_wr);
    wait_child_ms(rd, 5000, &st_rd);
    CHECK(st_wr == 0 && st_rd == 0,
          "a %d-byte write to a pipe with a sleeping reader did not get through within 5 s "
          "(writer status %x, reader %x): a writer that must wait for room wakes the readers "
          "first",
          BIGGER, st_wr, st_rd);
    CHECK(!(why = two_readers_one_byte()), "%s", why);
    PASS();
}

static void write_with_no_reader_left_is_epipe(void)
{
    static char big[PIPE_SIZE + 4096];
    int p[2], res[2], r[3] = { 0, 0, 0 }, pid, status, got;
    char buf[100];

    CHECK(pipe(p) == 0, "pipe");
    close(p[0]);
    CHECK_ERR(write(p[1], "x", 1), EPIPE);
    close(p[1]);
    /* a full pipe whose reader has gone: EPIPE wins over "no room" (EAGAIN) */
    CHECK(pipe(p) == 0 && write(p[1], big, PIPE_SIZE) == PIPE_SIZE, "fill");
    close(p[0]);
    CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "nonblock");
    CHECK_ERR(write(p[1], "x", 1), EPIPE);
    close(p[1]);
    /* a writer blocked on a full pipe: the count so far once the reader goes */
    CHECK(pipe(p) == 0 && pipe(res) == 0, "pipe");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        r[0] = write(p[1], big, sizeof(big));
        r[1] = write(p[1], "x", 1);
        r[2] = errno;
        write(res[1], r, sizeof(r));
        _exit(0);
    }
    close(p[1]);
    close(res[1]);
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "the writer did not block on a full pipe");
    got = read(p[0], buf, sizeof(buf));
    CHECK(wait_until_sleeping(pid, 5000), "the writer did not block again");
    close(p[0]);
    CHECK(wait_child_ms(pid, 5000, &status), "the blocked writer did not wake when the reader "
                                             "left");
    CHECK(read_full(res[0], r, sizeof(r)) == sizeof(r), "no report from the writer");
    CHECK(got == sizeof(buf), "read %d", got);
    CHECK(r[0] >= PIPE_SIZE && r[0] < (int)sizeof(big),
          "the blocked write returned %d, want "
          "the count it wrote (at least %d, less than %d)",
          r[0], PIPE_SIZE, (int)sizeof(big));
    CHECK(r[1] == -1 && r[2] == EPIPE, "the next write gave %d errno %d, want EPIPE", r[1], r[2]);
    PASS();
}

static void a_fifo_without_a_writer_yet_is_empty_not_at_eof(void)
{
    int f, r, w, pid, status;
    char c, buf[16];

    CHECK((f = create(AT_CWD, "/tmp/l2fifo", S_IFIFO, 0644, 0)) >= 0, "create fifo");
    CHECK((r = ready(f, R_READ | R_NONBLOCK)) >= 0, "ready for read");
    CHECK(says_eagain(r, NULL, 0), "a FIFO with no writer yet must say EAGAIN to a non-blocking "
                                   "read");
    CHECK(fcntl(r, F_SETFL, 0) == 0, "blocking");
    fflush(stdout);
    if ((pid = fork()) == 0)            /* a blocking reader waits for the writer */
        _exit(read(r, &c, 1) == 1 && c == 'y' ? 0 : 1);
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "a blocking read with no writer yet did "
                                                     "not wait (EOF?)");
    CHECK((w = open("/tmp/l2fifo", O_WRONLY)) >= 0 && write(w, "y", 1) == 1, "write");
    CHECK(wait_child_ms(pid, 5000, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the waiting reader did not get the byte");
    close(w);
    CHECK(read(r, &c, 1) == 0, "EOF once the writer that came has gone");
    close(r);
    /* both sides gone: the next conversation starts afresh */
    CHECK((r = ready(f, R_READ | R_NONBLOCK)) >= 0, "ready again");
    CHECK(says_eagain(r, NULL, 0), "once every reader and writer has gone the FIFO starts "
                                   "again: EAGAIN, not EOF");
    close(r);
    /* a writer that comes first writes into the buffer: no reader yet is not EPIPE */
    CHECK((w = ready(f, R_WRITE)) >= 0, "ready for writing, no reader yet");
    CHECK(write(w, "early", 5) == 5, "a write before any reader came gave errno %d", errno);
    CHECK((r = ready(f, R_READ)) >= 0 && read(r, buf, sizeof(buf)) == 5 && !memcmp(buf, "early", 5),
          "the reader that came later did not get 'early'");
    close(w);
    close(r);
    close(f);
    PASS();
}

/* PIPE_SIZE - 96 bytes queued leave room for 96: a 200-byte write must
 * not put in part of itself. */
static void a_small_write_is_all_or_nothing(void)
{
    static char fill[PIPE_SIZE - 96], rec[200];
    int p[2], pid, status, n;
    char buf[300];

    memset(fill, 'f', sizeof(fill));
    memset(rec, 'r', sizeof(rec));
    CHECK(pipe(p) == 0 && write(p[1], fill, sizeof(fill)) == sizeof(fill), "fill");
    CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "nonblock");
    CHECK(says_eagain(p[1], rec, sizeof(rec)), "a non-blocking 200-byte write with room for "
                                               "96 must say EAGAIN");
    CHECK((n = drain(p[0])) == sizeof(fill),
          "%d bytes queued after a refused 200-byte write, "
          "want %d: part of it went in",
          n, (int)sizeof(fill));
    /* blocking: it waits for room for all 200 bytes */
    CHECK(fcntl(p[1], F_SETFL, 0) == 0 && fcntl(p[0], F_SETFL, 0) == 0, "blocking");
    CHECK(write(p[1], fill, sizeof(fill)) == sizeof(fill), "fill");
    fflush(stdout);
    if ((pid = fork()) == 0)
        _exit(write(p[1], rec, sizeof(rec)) == sizeof(rec) ? 0 : 1);
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "a 200-byte write into 96 bytes of room "
                                                     "did not wait");
    CHECK(read(p[0], buf, 100) == 100, "read 100");    /* room for 196: still not enough */
    CHECK(wait_until_sleeping(pid, 5000), "the writer went on with room for 196 bytes of 200");
    CHECK(read(p[0], buf, sizeof(buf)) == sizeof(buf), "read 300");
    CHECK(wait_child_ms(pid, 5000, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the 200-byte write did not complete once there was room");
    close(p[1]);
    {
        static char rest[PIPE_SIZE];
        int k = read_full(p[0], rest, sizeof(rest)), i, first = -1;
        for (i = 0; i < k && first < 0; i++)
            if (rest[i] == 'r')
                first = i;
        CHECK(first >= 0 && k - first == (int)sizeof(rec),
              "the record is not in one piece at the"
              " end (%d bytes from its first byte)",
              first < 0 ? -1 : k - first);
    }
    close(p[0]);
    /* every size up to PIPE_SIZE, not only the records above: 30000 bytes into 29999 of room */
    {
        static char part[PIPE_SIZE - 29999], big[30000];
        CHECK(pipe(p) == 0 && write(p[1], part, sizeof(part)) == sizeof(part), "setup");
        CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "nonblock");
        CHECK(says_eagain(p[1], big, sizeof(big)),
              "a non-blocking 30000-byte write with room for 29999 must say EAGAIN: every "
              "write of at most PIPE_SIZE bytes is atomic, whatever its size");
        CHECK((n = drain(p[0])) == sizeof(part),
              "%d bytes queued after a refused 30000-byte write, want %d: part of it went in", n,
              (int)sizeof(part));
        close(p[0]);
        close(p[1]);
    }
    /* at most PIPE_SIZE includes PIPE_SIZE: PIPE_SIZE bytes with room for one less: whole or not */
    {
        static char whole[PIPE_SIZE];
        CHECK(pipe(p) == 0 && write(p[1], "x", 1) == 1, "setup");
        CHECK(fcntl(p[1], F_SETFL, R_NONBLOCK) == 0, "nonblock");
        CHECK(says_eagain(p[1], whole, sizeof(whole)),
              "a non-blocking %d-byte write with room for %d must say EAGAIN", PIPE_SIZE,
              PIPE_SIZE - 1);
        CHECK((n = drain(p[0])) == 1, "%d bytes queued after a refused %d-byte write, want 1", n,
              PIPE_SIZE);
        close(p[0]);
        close(p[1]);
    }
    PASS();
}

#define WRITERS 8
#define RECORDS 200
#define RECLEN  64

/* Byte k of writer w's record seq: the writer in the top 3 bits. */
static unsigned char record_byte(int w, int seq, int k)
{
    int v = k == 0 ? seq & 31 : k == 1 ? seq >> 5 : (seq + k) & 31;

    return (unsigned char)(w << 5 | v);
}

/* Eight writers' 64-byte records through one pipe: none is ever split. */
static void eight_writers_records_never_interleave(void)
{
    static unsigned char buf[1500];
    unsigned char rec[RECLEN];
    int p[2], gate[2], pids[WRITERS], got[WRITERS], w, s, k, i, n, total = 0, bad = -1;
    int cur = 0, split = 0, ok = 0, status;
    char c;

    CHECK(pipe(p) == 0 && pipe(gate) == 0, "pipe");
    fflush(stdout);
    for (w = 0; w < WRITERS; w++) {
        if ((pids[w] = fork()) == 0) {
            close(p[0]);
            close(gate[1]);
            read(gate[0], &c, 1); /* all start together */
            for (s = 0; s < RECORDS; s++) {
                for (k = 0; k < RECLEN; k++)
                    rec[k] = record_byte(w, s, k);
                if (write(p[1], rec, RECLEN) != RECLEN)
                    _exit(1);
            }
            _exit(0);
        }
    }
    close(p[1]);
    close(gate[1]);
    close(gate[0]);
    memset(got, 0, sizeof(got));
    for (k = 0; (n = read(p[0], buf, 100 + k % 1400)) > 0; k += 97) {
        sched_yield(); /* let writers in while the pipe is part full */
        for (i = 0; i < n; i++, total++) {
            w = buf[i] >> 5;
            if (bad < 0 && (got[w] >= RECORDS * RECLEN ||
                            buf[i] != record_byte(w, got[w] / RECLEN, got[w] % RECLEN)))
                bad = total;
            if (w != cur && got[cur] % RECLEN)
                split++;
            cur = w;
            got[w]++;
        }
    }
    close(p[0]);
    for (w = 0; w < WRITERS; w++)
        ok += pids[w] > 0 && wait_child_ms(pids[w], 5000, &status) && status == 0;
    CHECK(ok == WRITERS, "%d of %d writers finished cleanly", ok, WRITERS);
    CHECK(total == WRITERS * RECORDS * RECLEN, "read %d bytes, want %d", total,
          WRITERS * RECORDS * RECLEN);
    CHECK(bad < 0, "byte %d is out of its writer's order", bad);
    CHECK(split == 0, "%d of %d 64-byte writes were split by another writer", split,
          WRITERS * RECORDS);
    PASS();
}

/* Two writers waiting for room on a full pipe sleep until a reader makes
 * room. A writer that woke its own side (&p->writers) before sleeping
 * would wake the other, which wakes it back: each look would find one of
 * them runnable, for ever. The writers close their read end, so if the
 * test stops early its exit is the last reader leaving (EPIPE frees them). */
static void writers_waiting_for_room_stay_asleep(void)
{
    static char fill[PIPE_SIZE];
    int p[2], w[2], i, k, awake = 0, ok = 0, status;
    char buf[160];

    CHECK(pipe(p) == 0 && write(p[1], fill, sizeof(fill)) == sizeof(fill), "fill");
    fflush(stdout);
    for (i = 0; i < 2; i++) {
        if ((w[i] = fork()) == 0) {
            close(p[0]);
            _exit(write(p[1], "x", 1) == 1 ? 0 : 1);
        }
    }
    CHECK(w[0] > 0 && w[1] > 0, "fork");
    CHECK(wait_until_sleeping(w[0], 5000) && wait_until_sleeping(w[1], 5000),
          "the two writers are not both asleep on the full pipe after 5 s: each must sleep "
          "until a reader makes room (did one wake the writers before sleeping?)");
    for (k = 0; k < 50; k++) { /* 100 looks over half a second */
        for (i = 0; i < 2; i++)
            awake += strcmp(proc_state(w[i], buf, sizeof(buf)), "sleeping") != 0;
        sleep_ms(10);
    }
    CHECK(awake == 0,
          "%d of 100 looks found a writer that waits for room not asleep: a "
          "writer must sleep until a reader makes room (did it wake the writers?)",
          awake);
    CHECK(read(p[0], fill, sizeof(fill)) == sizeof(fill), "read");
    for (i = 0; i < 2; i++)
        ok += wait_child_ms(w[i], 5000, &status) && status == 0;
    CHECK(ok == 2, "%d of 2 writers finished once there was room", ok);
    close(p[0]);
    close(p[1]);
    PASS();
}

/* A writer that waits for room is woken by the read that makes it: a read
 * of 10 bytes lets a 10-byte write into a full pipe finish (the reader may
 * not save its wakeups up until much more room is free). */
static void a_read_that_makes_room_wakes_a_waiting_writer(void)
{
    static char fill[PIPE_SIZE];
    int p[2], pid, status;
    char buf[10];

    CHECK(pipe(p) == 0 && write(p[1], fill, sizeof(fill)) == sizeof(fill), "fill");
    fflush(stdout);
    if ((pid = fork()) == 0) {
        close(p[0]);
        _exit(write(p[1], "0123456789", 10) == 10 ? 0 : 1);
    }
    CHECK(pid > 0 && wait_until_sleeping(pid, 5000), "the writer did not wait on a full pipe");
    CHECK(read(p[0], buf, sizeof(buf)) == sizeof(buf), "read 10");
    CHECK(wait_child_ms(pid, 3000, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the writer waiting for 10 bytes of room did not finish within 3 s of a read that "
          "made them: a read that takes bytes out must wake the writers");
    close(p[0]);
    close(p[1]);
    PASS();
}

static void nonblocking_reads_and_writes_never_wait(void)
{
    static char big[3 * PIPE_SIZE];
    int p[2], n;

    CHECK(pipe(p) == 0, "pipe");
    CHECK(fcntl(p[0], F_SETFL, R_NONBLOCK) == 0 && fcntl(p[1], F_SETFL, R_NONBLOCK) == 0,
          "nonblock");
    CHECK(says_eagain(p[0], NULL, 0), "read of an empty pipe");
    CHECK((n = write(p[1], big, sizeof(big))) == PIPE_SIZE,
          "a large non-blocking write into "
          "an empty pipe gave %d, want the %d that fit",
          n, PIPE_SIZE);
    CHECK(says_eagain(p[1], "x", 1), "a write of 1 byte into a full pipe");
    CHECK(says_eagain(p[1], big, sizeof(big)), "a large write into a full pipe");
    CHECK(drain(p[0]) == PIPE_SIZE, "drain");
    CHECK(says_eagain(p[0], NULL, 0), "read of a drained pipe");
    close(p[0]);
    close(p[1]);
    PASS();
}

static const int wsizes[] = { 1, 7, 4095, 4096, 4097, 513, 10007, 3, 65537, 100 };
static const int rsizes[] = { 1000, 1, 4096, 333, 8192, 65536, 7 };
static unsigned char mib[65537];

/* Byte i of every write in the megabyte test. */
static void fill_mib(void)
{
    int i;

    for (i = 0; i < (int)sizeof(mib); i++)
        mib[i] = (unsigned char)(i * 13 + (i >> 9));
}

/* Writes 1 MiB into fd in the odd sizes of wsizes; its CRC-32 if crc. */
static int write_mib(int fd, unsigned *crc)
{
    int i, n, left;

    for (i = 0, left = 1 << 20; left > 0; i++, left -= n) {
        n = wsizes[i % 10] < left ? wsizes[i % 10] : left;
        if (crc)
            *crc = crc32_update(*crc, mib, n);
        else if (write(fd, mib, n) != n)
            return 1;
    }
    return 0;
}

/* 1 MiB in odd-sized writes and reads: both sides block and wake over and
 * over, and every byte arrives once, in order. Writer and reader are both
 * children, so that a lost wakeup costs only this test. */
static void a_megabyte_flows_through_a_pipe(void)
{
    static unsigned char in[65536];
    unsigned crc = 0, want = 0, total = 0;
    int p[2], wr, rd, st_wr = -1, st_rd = -1, n, i, ok_rd, ok_wr;

    fill_mib();
    write_mib(-1, &want);
    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    if ((wr = fork()) == 0) {
        close(p[0]);
        _exit(write_mib(p[1], NULL));
    }
    if ((rd = fork()) == 0) {
        close(p[1]);
        for (i = 0; (n = read(p[0], in, rsizes[i % 7])) > 0; i++) {
            crc = crc32_update(crc, in, n);
            total += n;
        }
        _exit(n < 0 ? 3 : total != 1u << 20 ? 4 : crc != want ? 5 : 0);
    }
    close(p[0]);
    close(p[1]);
    CHECK(wr > 0 && rd > 0, "fork");
    ok_rd = wait_child_ms(rd, 10000, &st_rd);
    ok_wr = wait_child_ms(wr, 5000, &st_wr);
    CHECK(ok_rd && ok_wr, "still running after 10 s: %s%s", ok_rd ? "" : "the reader ",
          ok_wr ? "" : "the writer");
    CHECK(st_wr == 0, "the writer failed (status %x)", st_wr);
    CHECK(WIFEXITED(st_rd) && WEXITSTATUS(st_rd) == 0, "the reader: %s (status %x)",
          WEXITSTATUS(st_rd) == 3   ? "read failed"
          : WEXITSTATUS(st_rd) == 4 ? "not 1 MiB"
                                    : "wrong bytes (CRC-32)",
          st_rd);
    PASS();
}

/* kill reaches a process asleep in read and one asleep in write. */
static void kill_ends_a_process_blocked_in_read_or_write(void)
{
    static char big[2 * PIPE_SIZE];
    int empty[2], full[2], rd, wr, st_rd = 0, st_wr = 0, ok_rd, ok_wr;
    char c;

    CHECK(pipe(empty) == 0 && pipe(full) == 0, "pipe");
    fflush(stdout);
    if ((rd = fork()) == 0) {
        read(empty[0], &c, 1); /* the parent keeps the write end: blocks */
        _exit(0);
    }
    if ((wr = fork()) == 0) {
        write(full[1], big, sizeof(big)); /* nobody reads: blocks at PIPE_SIZE */
        _exit(0);
    }
    CHECK(rd > 0 && wr > 0, "fork");
    CHECK(wait_until_sleeping(rd, 5000) && wait_until_sleeping(wr, 5000), "they did not block");
    kill(rd, SIGTERM);
    kill(wr, SIGTERM);
    ok_rd = wait_child_ms(rd, 3000, &st_rd);
    ok_wr = wait_child_ms(wr, 3000, &st_wr);
    CHECK(ok_rd && WIFSIGNALED(st_rd) && WTERMSIG(st_rd) == SIGTERM,
          "the reader blocked in read did not die of the kill");
    CHECK(ok_wr && WIFSIGNALED(st_wr) && WTERMSIG(st_wr) == SIGTERM,
          "the writer blocked in write did not die of the kill");
    PASS();
}

static int many_pipes(void)
{
    char buf[PIPE_SIZE];
    int i, p[2], f, r, w;

    for (i = 0; i < 50; i++) {
        if (pipe(p) < 0 || write(p[1], buf, sizeof(buf)) != sizeof(buf) ||
            read(p[0], buf, 100) != 100)
            return 1;
        close(p[0]);
        close(p[1]);
    }
    if ((f = create(AT_CWD, "/tmp/l2leak", S_IFIFO, 0644, 0)) < 0 || (r = ready(f, R_READ)) < 0 ||
        (w = ready(f, R_WRITE)) < 0 || write(w, buf, 10) != 10)
        return 2;
    close(r);
    close(w);
    close(f);
    return unlink("/tmp/l2leak") == 0 ? 0 : 3;
}

static void pipes_give_back_every_page_and_fd(void)
{
    int fds0 = open_fds(), code, lost;

    lost = pages_lost_in_child(many_pipes, &code);
    CHECK(code == 0, "the child failed at step %d", code);
    CHECK(lost == 0, "%d pages lost to 50 pipes and a FIFO", lost);
    CHECK(open_fds() == fds0, "fds %d, before %d", open_fds(), fds0);
    PASS();
}

static const struct lab_test tests[] = {
    LAB_TEST(pipe_carries_bytes_in_order),
    LAB_TEST(read_returns_what_is_there_without_waiting_for_more),
    LAB_TEST(read_returns_eof_after_the_last_writer_closes),
    LAB_TEST(a_blocked_reader_wakes_for_data_and_for_eof),
    LAB_TEST(write_with_no_reader_left_is_epipe),
    LAB_TEST(a_fifo_without_a_writer_yet_is_empty_not_at_eof),
    LAB_TEST(a_small_write_is_all_or_nothing),
    LAB_TEST(eight_writers_records_never_interleave),
    LAB_TEST(writers_waiting_for_room_stay_asleep),
    LAB_TEST(a_read_that_makes_room_wakes_a_waiting_writer),
    LAB_TEST(nonblocking_reads_and_writes_never_wait),
    LAB_TEST(a_megabyte_flows_through_a_pipe),
    LAB_TEST(kill_ends_a_process_blocked_in_read_or_write),
    LAB_TEST(pipes_give_back_every_page_and_fd),
};

int main(int argc, char **argv)
{
    return lab_main("lab02", tests, ARRAY_SIZE(tests), argc, argv);
}
