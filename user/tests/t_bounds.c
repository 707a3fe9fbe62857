/* t_bounds.c - limits that one process must not be able to push onto the
 * others (ATTACK2.md, findings 7-10 and 12): a huge ramfs directory must
 * not make one getdents or getcwd hold the CPU for seconds; running out
 * of memory in a copy-on-write fault kills the biggest process, not the
 * one that faulted; a background job cannot set the console's mode; a
 * file offset never passes 2^31 - 1; a writer asleep on a FIFO that is
 * revoked gets EIO. `t_bounds NAME` runs only the tests whose name
 * contains NAME. */
#include "t.h"

/* Finding 7. Listing a directory of N entries must cost about N steps,
 * not N^2/2: compared with making it (each new name is checked against
 * every name there, N^2/2 comparisons), listing all of it and naming the
 * oldest subdirectory (getcwd) must be much quicker. Measured against
 * each other in one guest, so a slow or loaded machine slows both. A
 * quadratic listing or getcwd takes about a sixth of the making time (the
 * kmutant ramfs_readdir_from_the_head: 100 ms against 620), a linear one
 * under the clock's 10 ms; the bound is a 15th, and the quickest of
 * LISTINGS tries counts, so that a stall of a loaded host (40 ms, seen
 * once with one try and a bound of a 25th) fails nothing. */
#define NENTRIES 6000
#define LISTINGS 3

static void a_huge_ramfs_directory_lists_and_names_in_linear_time(void)
{
    static char buf[4096];
    unsigned t0, t_make, t_list = ~0u, t_cwd = ~0u, t;
    int fs = fsopen("ramfs", -1, ""), f, d, i, got, n, k, cwd0 = walk(AT_CWD, ".", 0);
    char name[32], where[64];

    CHECK(fs >= 0 && cwd0 >= 0, "fsopen");
    close(create(fs, "first", S_IFDIR, 0755, 0)); /* the oldest: the last in the list */
    f = create(fs, "f", S_IFREG, 0644, 0);
    t0 = uptime_ms();
    for (i = 0; i < NENTRIES; i++) {
        snprintf(name, sizeof(name), "entry%d", i);
        CHECK(linkat(f, fs, name) == 0, "link %s", name);
    }
    t_make = uptime_ms() - t0;
    d = ready(fs, R_READ);
    for (k = 0; k < LISTINGS; k++) {
        CHECK(lseek(d, 0, SEEK_SET) == 0, "rewind");
        n = 0;
        t0 = uptime_ms();
        while ((got = getdents(d, buf, sizeof(buf))) > 0)
            for (i = 0; i < got; i += ((struct dirent *)(buf + i))->d_reclen)
                n++;
        t = uptime_ms() - t0;
        t_list = t < t_list ? t : t_list;
        CHECK(n == NENTRIES + 4, "listed %d entries, want %d", n, NENTRIES + 4);
    }
    f = walk(fs, "first", 0);
    fchdir(f);
    for (k = 0; k < LISTINGS; k++) {
        t0 = uptime_ms();
        got = getcwd(where, sizeof(where)) != NULL;
        t = uptime_ms() - t0;
        t_cwd = t < t_cwd ? t : t_cwd;
        CHECK(got && strcmp(where, "?/first") == 0, "getcwd gave %s", got ? where : "nothing");
    }
    fchdir(cwd0);
    printf("t_bounds: %d entries: made in %u ms, listed in %u ms, getcwd in %u ms\n", NENTRIES,
           t_make, t_list, t_cwd);
    CHECK(t_list * 15 <= t_make, "listing took %u ms, making %u ms", t_list, t_make);
    CHECK(t_cwd * 15 <= t_make, "getcwd took %u ms, making %u ms", t_cwd, t_make);
    close(f);
    close(d);
    close(fs);
    close(cwd0);
    PASS();
}

/* Finding 8. A process that hits out-of-memory in a copy-on-write fault
 * is not killed for it when another holds most of the memory: that one
 * is (init was killed this way, and the system with it). */
#define COWPAGES 64
static volatile char cow[COWPAGES * 4096]; /* volatile: every store happens */

static int fault_while_memory_is_gone(void)
{
    int ready_p[2], hold[2], sharer, eater, st, i;
    char c;

    for (i = 0; i < COWPAGES; i++)
        cow[i * 4096] = 1;              /* our own pages... */
    pipe(hold);
    if ((sharer = fork()) == 0) {       /* ...shared, copy-on-write, with a child */
        close(hold[1]);
        read(hold[0], &c, 1);
        _exit(0);
    }
    pipe(ready_p);
    if ((eater = fork()) == 0) {        /* takes every page but a few */
        errno = 0;                      /* its own copy of what it writes, first */
        close(hold[1]);
        while (sbrk(64 * 4096) != (void *)-1)
            ;
        while (sbrk(4096) != (void *)-1)
            ;
        sbrk(-16 * 4096);               /* fewer than we need for our copies */
        close(ready_p[1]);              /* "ready": a close needs no memory */
        read(hold[0], &c, 1);           /* until killed */
        _exit(0);
    }
    close(ready_p[1]);
    read(ready_p[0], &c, 1);            /* end of file: the eater is full */
    if (waitpid(eater, &st, WNOHANG) != 0)
        return 4;                       /* the eater died before it had eaten */
    for (i = 0; i < COWPAGES; i++)
        cow[i * 4096] = 2;              /* a copy each: more than there is */
    waitpid(eater, &st, 0);
    close(hold[1]);
    waitpid(sharer, NULL, 0);
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 3;
}

static void out_of_memory_in_a_cow_fault_kills_the_biggest_process(void)
{
    int code = in_child(fault_while_memory_is_gone);

    CHECK(code == 0, "the faulting process ended with %d (0: lived on, and the eater was killed)",
          code);
    PASS();
}

/* Finding 9. A background process cannot set the console's mode under
 * the foreground job (fcntl(2), F_SETTTY). */
static int background_sets_raw(void)
{
    int p = walk(AT_CWD, "/dev/console", 0), con = ready(p, R_READ), pid, st, r;

    if (con < 0)
        return 10;
    setpgid(0, 0);
    tcsetpgrp(getpid());                /* we are the job in front */
    if ((pid = fork()) == 0) {
        setpgid(0, 0);                  /* a background job */
        errno = 0;
        r = fcntl(con, F_SETTTY, TTY_RAW);
        _exit(r == -1 && errno == EPERM ? 0 : 1);
    }
    waitpid(pid, &st, 0);
    r = !WIFEXITED(st) || WEXITSTATUS(st) != 0 ? 1 : fcntl(con, F_GETTTY, 0) != 0 ? 2 : 0;
    if (r == 0 && (fcntl(con, F_SETTTY, TTY_RAW) != 0 || fcntl(con, F_GETTTY, 0) != TTY_RAW))
        r = 3;                          /* the job in front may */
    fcntl(con, F_SETTTY, 0);
    tcsetpgrp(0);
    return r;
}

static void a_background_job_cannot_make_the_console_raw(void)
{
    int code = in_child(background_sets_raw);

    CHECK(code != 1, "the background F_SETTTY(TTY_RAW) was not refused with EPERM");
    CHECK(code != 2, "the foreground job sees raw input it did not ask for");
    CHECK(code == 0, "code %d", code);
    PASS();
}

/* Finding 10. Writes stop at OFF_MAX (2^31 - 1), the last position lseek
 * can return: cut short there, then EFBIG. On ext2, whose block map
 * reaches further. */
static void a_write_never_moves_the_offset_past_2g(void)
{
    int img, src, fs, p, fd;
    struct stat st;

    CHECK(copyfile("/etc/sample.ext2", "/tmp/bounds.img") == 0, "copy");
    img = walk(AT_CWD, "/tmp/bounds.img", 0);
    src = ready(img, R_RDWR);
    CHECK((fs = fsopen("ext2", src, "")) >= 0, "fsopen");
    CHECK((p = create(fs, "big", S_IFREG, 0644, 0)) >= 0 && (fd = ready(p, R_RDWR)) >= 0, "create");
    CHECK(lseek(fd, 0x7FFFFFF0, SEEK_SET) == 0x7FFFFFF0, "lseek");
    CHECK(write(fd, "0123456789abcdef0123456789abcdef", 32) == 15, "the write was not cut short");
    CHECK(lseek(fd, 0, SEEK_CUR) == 0x7FFFFFFF, "offset after the write");
    CHECK_ERR(write(fd, "more", 4), EFBIG);
    CHECK(fstat(fd, &st) == 0 && st.st_size == 0x7FFFFFFF, "size 0x%x", (unsigned)st.st_size);
    CHECK(lseek(fd, 0, SEEK_END) == 0x7FFFFFFF, "lseek SEEK_END");
    close(fd);
    close(p);
    unlinkat(fs, "big", 0);
    close(fs);
    close(src);
    close(img);
    unlinkat(AT_CWD, "/tmp/bounds.img", 0);
    PASS();
}

/* Finding 12 (write(2) said EINTR): a writer asleep on a full FIFO whose
 * filesystem is revoked wakes with EIO. */
static void a_writer_asleep_on_a_revoked_fifo_gets_eio(void)
{
    static char big[65536];             /* a FIFO's whole buffer (PIPE_SIZE, kernel/fs/pipe.c) */
    int fs = fsopen("ramfs", -1, ""), f, r, w, pid, st;

    close(create(fs, "fifo", S_IFIFO, 0644, 0));
    f = walk(fs, "fifo", 0);
    r = ready(f, R_READ);
    w = ready(f, R_WRITE);
    CHECK(r >= 0 && w >= 0 && write(w, big, sizeof(big)) == sizeof(big), "fill the fifo");
    if ((pid = fork()) == 0) {
        errno = 0;
        _exit(write(w, "x", 1) == -1 && errno == EIO ? 0 : 1);
    }
    wait_until_sleeping(pid, 2000);
    CHECK(revoke(fs) == 0, "revoke");
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the writer did not get EIO (status 0x%x)", st);
    close(r);
    close(w);
    close(f);
    close(fs);
    PASS();
}

int main(int argc, char *argv[])
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(a_huge_ramfs_directory_lists_and_names_in_linear_time);
    T_RUN(a_write_never_moves_the_offset_past_2g);
    T_RUN(a_background_job_cannot_make_the_console_raw);
    T_RUN(a_writer_asleep_on_a_revoked_fifo_gets_eio);
    T_RUN(out_of_memory_in_a_cow_fault_kills_the_biggest_process);
    printf("t_bounds: done\n");
    return t_failures != 0;
}
