/* r2race.c - a system call asleep inside ext2 while another process
 * changes what it works on (ATTACK2.md, findings 1-4). ext2 lets one
 * process at a time into an instance and yields in long walks, so a call
 * on an ext2 node may sleep; a "hog" that looks a missing name up in a
 * directory of a few hundred blocks keeps the instance entered (and
 * yielding) nearly all the time, so that the call under test sleeps
 * there. Each test repeats its race a fixed number of rounds; on the old
 * kernel each of them panicked (a use after free, found by the heap
 * checker) or hung within those rounds. `r2race NAME` runs only the tests
 * whose name contains NAME. Booted by tools/test.py's robust2 block (its
 * rounds take longer than a t_*.c suite's time limit under load). */
#include "t.h"

#define BASE  "/tmp/race_base.img"
#define LINKS 900 /* long names: a directory of about 225 blocks */

/* The base image, made once: /etc/sample.ext2 with directory d holding
 * LINKS long names (hard links to one file), and an empty directory x. */
static int make_base(void)
{
    static int made;
    char name[256];
    int img, src, fs, d, f, i;

    if (made)
        return 0;
    if (copyfile("/etc/sample.ext2", BASE) < 0 || (img = walk(AT_CWD, BASE, 0)) < 0 ||
        (src = ready(img, R_RDWR)) < 0 || (fs = fsopen("ext2", src, "")) < 0)
        return -1;
    close(src);
    close(img);
    if ((d = create(fs, "d", S_IFDIR, 0755, 0)) < 0 || (f = create(d, "f", S_IFREG, 0644, 0)) < 0)
        return -1;
    memset(name, 'n', 240);
    for (i = 0; i < LINKS; i++) {
        snprintf(name + 240, 16, "%d", i);
        if (linkat(f, d, name) < 0)
            return -1;
    }
    close(f);
    close(d);
    close(create(fs, "x", S_IFDIR, 0755, 0));
    close(fs);                          /* synced and released */
    made = 1;
    return 0;
}

/* A fresh instance on a copy of the base image at `img`: its root fd. */
static int fresh_instance(const char *img)
{
    int p, src, fs;

    if (make_base() < 0 || copyfile(BASE, img) < 0 || (p = walk(AT_CWD, img, 0)) < 0)
        return -1;
    src = ready(p, R_RDWR);
    close(p);
    if (src < 0)
        return -1;
    fs = fsopen("ext2", src, "");
    close(src);
    return fs;
}

/* A child that keeps the instance entered until killed. */
static int start_hog(int fs)
{
    int pid = fork();

    if (pid == 0)
        for (;;)
            walk(fs, "d/nosuchname", 0);
    return pid;
}

static void stop(int pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Finding 1: an exiting process let go of its fds while /proc/<pid>/fd
 * read them (the last close of an unlinked ext2 file sleeps). */
static void victim(int fs, int round, int go, int hold)
{
    char name[32];
    int i, p, fd;

    if ((p = walk(AT_CWD, "/tmp/race_low", 0)) < 0)
        _exit(3);
    for (i = 0; i < 16; i++)            /* ramfs files, closed before the ext2 one */
        if (ready(p, R_READ) < 0)
            _exit(3);
    close(p);
    snprintf(name, sizeof(name), "v%d", round);
    if ((p = create(fs, name, S_IFREG, 0644, 0)) < 0 || (fd = ready(p, R_RDWR)) < 0)
        _exit(4);
    write(fd, "x", 1);
    dup2(fd, OPEN_MAX - 1);
    close(fd);
    close(p);
    unlinkat(fs, name, 0);              /* the last fd is its last reference */
    write(go, "g", 1);
    for (;;)
        read(hold, &i, 1);
}

static void proc_fd_can_be_read_while_its_process_exits(void)
{
    int fs = fresh_instance("/tmp/race1.img"), hog, r, reads = 0, killed = 0;
    char path[32];
    static char buf[2048];

    CHECK(fs >= 0 && put_file("/tmp/race_low", "low") == 0, "setup");
    hog = start_hog(fs);
    for (r = 0; r < 40; r++) {
        int go[2], hold[2], pid, st = 0, fd, p = 0;
        char c;
        pipe(go);
        pipe(hold);
        if ((pid = fork()) == 0) {
            close(go[0]);
            victim(fs, r, go[1], hold[0]);
        }
        close(go[1]);
        close(hold[0]);
        read(go[0], &c, 1);
        close(go[0]);
        snprintf(path, sizeof(path), "/proc/%d/fd", pid);
        kill(pid, SIGKILL);
        sched_yield();
        for (;;) {                      /* read its fd list while it dies */
            if ((p = walk(AT_CWD, path, 0)) < 0)
                break;
            fd = ready(p, R_READ);
            close(p);
            reads += read(fd, buf, sizeof(buf)) >= 0;
            close(fd);
            if (waitpid(pid, &st, WNOHANG) == pid)
                break;
        }
        if (p < 0)
            waitpid(pid, &st, 0);
        killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
        close(hold[1]);
    }
    stop(hog);
    close(fs);
    unlinkat(AT_CWD, "/tmp/race1.img", 0);
    unlinkat(AT_CWD, "/tmp/race_low", 0);
    CHECK(killed == 40, "only %d of 40 victims were set up and killed", killed);
    CHECK(reads > 0, "never read /proc/<pid>/fd");
    PASS();
}

/* Finding 2: ftruncate asleep in ext2 while a sharer of the fd table
 * closes its fd, the file's last reference. */
static void a_sharer_closing_the_fd_does_not_free_the_file_under_a_call(void)
{
    int fs = fresh_instance("/tmp/race2.img"), hog, r, bad = 0;
    static char data[8192];

    CHECK(fs >= 0, "setup");
    hog = start_hog(fs);
    for (r = 0; r < 30; r++) {
        char name[16], c;
        int go[2], p, fd, pid, st;
        snprintf(name, sizeof(name), "t%d", r);
        CHECK((p = create(fs, name, S_IFREG, 0644, 0)) >= 0 && (fd = ready(p, R_RDWR)) >= 0,
              "create %s", name);
        close(p);
        write(fd, data, sizeof(data));
        pipe(go);
        if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
            read(go[0], &c, 1);
            /* asleep behind the hog; EBADF if the close came first */
            _exit(ftruncate(fd, 0) == 0 || errno == EBADF ? 0 : 1);
        }
        write(go[1], "g", 1);
        sched_yield();
        close(fd);                      /* the last reference, while it sleeps */
        waitpid(pid, &st, 0);
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        close(go[0]);
        close(go[1]);
        unlinkat(fs, name, 0);
    }
    stop(hog);
    close(fs);
    unlinkat(AT_CWD, "/tmp/race2.img", 0);
    CHECK(bad == 0, "%d of 30 ftruncates failed", bad);
    PASS();
}

/* Finding 2, fd_room: create() asleep in ext2 while a sharer fills the fd
 * table. create must either make the name and return its fd, or refuse
 * (EMFILE) before making anything - never make it and then say EMFILE. */
static void create_keeps_its_fd_slot_while_a_sharer_fills_the_table(void)
{
    int fs = fresh_instance("/tmp/race3.img"), hog, r, broken = 0, made = 0;

    CHECK(fs >= 0, "setup");
    hog = start_hog(fs);
    for (r = 0; r < 20; r++) {
        char name[16], c;
        int go[2], pid, st, fd, p, extra[OPEN_MAX], n = 0, i;
        snprintf(name, sizeof(name), "c%d", r);
        pipe(go);
        if ((pid = rfork(RFORK_SHAREFDS)) == 0) {
            read(go[0], &c, 1);
            fd = create(fs, name, S_IFREG, 0644, 0);   /* asleep behind the hog */
            _exit(fd >= 0 ? 0 : errno == EMFILE ? 1 : 2);
        }
        write(go[1], "g", 1);
        sched_yield();                  /* it enters create and sleeps in ext2 */
        while (n < OPEN_MAX && (extra[n] = dup(fs)) >= 0)
            n++;                        /* fill every slot not promised to it */
        waitpid(pid, &st, 0);
        for (i = 0; i < n; i++)
            close(extra[i]);
        for (i = 3; i < OPEN_MAX; i++)  /* and what the child left us */
            if (i != fs && i != go[0] && i != go[1])
                close(i);
        p = walk(fs, name, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && p >= 0)
            broken++;                   /* EMFILE, yet the name was made */
        made += WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (p >= 0) {
            close(p);
            unlinkat(fs, name, 0);
        }
        close(go[0]);
        close(go[1]);
    }
    stop(hog);
    close(fs);
    unlinkat(AT_CWD, "/tmp/race3.img", 0);
    CHECK(broken == 0, "%d of 20 creates said EMFILE after making the name", broken);
    CHECK(made > 0, "no create succeeded");
    PASS();
}

/* Finding 3: sync(2) asleep in an instance whose last user closes it. */
static void sync_survives_the_last_close_of_an_instance(void)
{
    int r, bad = 0;

    for (r = 0; r < 12; r++) {
        int go[2], fs = fresh_instance("/tmp/race4.img"), holder, syncer, st;
        char c;
        CHECK(fs >= 0, "setup, round %d", r);
        pipe(go);
        if ((syncer = fork()) == 0) {
            close(fs);                  /* only the holder keeps the instance */
            read(go[0], &c, 1);
            sync();                     /* asleep in ext2_sync behind the holder */
            _exit(0);
        }
        if ((holder = fork()) == 0) {
            write(go[1], "g", 1);
            walk(fs, "d/nosuchname", 0);    /* the syncer runs when this yields */
            close(fs);                  /* the last reference */
            _exit(0);
        }
        close(fs);
        close(go[0]);
        close(go[1]);
        waitpid(holder, &st, 0);
        waitpid(syncer, &st, 0);        /* a hang here: the guest's timeout */
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    unlinkat(AT_CWD, "/tmp/race4.img", 0);
    CHECK(bad == 0, "%d syncs did not end well", bad);
    PASS();
}

/* Finding 4: /proc/self/ns names an attachment (asleep in ext2) that a
 * sharer of the namespace unbinds meanwhile. */
static void proc_ns_can_be_read_while_a_sharer_unbinds(void)
{
    int pid0, st0;

    fflush(stdout);
    if ((pid0 = fork()) == 0) {         /* a namespace of its own, then shared */
        int fs, hog, r, got = 0;
        static char buf[4096];
        unshare();
        fs = fresh_instance("/tmp/race5.img");
        mkdir("/tmp/race5", 0755);
        if (fs < 0 || bind(fs, AT_CWD, "/tmp/race5", 0) < 0)
            _exit(2);
        hog = start_hog(fs);
        for (r = 0; r < 60; r++) {
            int go[2], pid, ram = fsopen("ramfs", -1, ""), p, nsfd, xfd;
            char c;
            bind(ram, AT_CWD, "/tmp/race5/x", 0);
            close(ram);
            xfd = walk(AT_CWD, "/tmp/race5/x", 0);
            pipe(go);
            if ((pid = fork()) == 0) {  /* unbinds without waiting for ext2 */
                read(go[0], &c, 1);
                close(unbind(xfd, "."));
                close(xfd);             /* the attachment's last reference */
                _exit(0);
            }
            close(xfd);
            write(go[1], "g", 1);
            p = walk(AT_CWD, "/proc/self/ns", 0);
            nsfd = ready(p, R_READ);
            close(p);
            got += read(nsfd, buf, sizeof(buf)) > 0; /* asleep naming /tmp/race5/x */
            close(nsfd);
            waitpid(pid, NULL, 0);
            close(go[0]);
            close(go[1]);
        }
        stop(hog);
        close(unbind(AT_CWD, "/tmp/race5"));
        close(fs);
        _exit(got == 60 ? 0 : 1);
    }
    waitpid(pid0, &st0, 0);
    unlinkat(AT_CWD, "/tmp/race5.img", 0);
    unlinkat(AT_CWD, "/tmp/race5", UNLINK_DIR);
    CHECK(WIFEXITED(st0) && WEXITSTATUS(st0) == 0, "the reader ended with status 0x%x", st0);
    PASS();
}

int main(int argc, char *argv[])
{
    t_only = argc > 1 ? argv[1] : NULL;
    T_RUN(proc_fd_can_be_read_while_its_process_exits);
    T_RUN(a_sharer_closing_the_fd_does_not_free_the_file_under_a_call);
    T_RUN(create_keeps_its_fd_slot_while_a_sharer_fills_the_table);
    T_RUN(sync_survives_the_last_close_of_an_instance);
    T_RUN(proc_ns_can_be_read_while_a_sharer_unbinds);
    unlinkat(AT_CWD, BASE, 0);
    printf("r2race: done\n");
    return t_failures != 0;
}
