/* turns.h - did other processes run while an attack's call ran? Shared
 * by t_attack9 and t_attack10: the student's side (as_student), and S, a
 * second process that counts its turns during the attacker's own window,
 * so that the verdict (ran_along) depends on the kernel, not on how fast
 * or busy the host is. Include after "t.h". */
#ifndef USER_TESTS_TURNS_H
#define USER_TESTS_TURNS_H

#define STUDENT 1000
#ifndef TURNS_WHO
#define TURNS_WHO "turns"                 /* the program, in stop_counter's line */
#endif

/* Run fn as the student, in a namespace of its own, in a child: its exit
 * code (0: fine), or 100 + the signal that killed it. */
static int as_student(int (*fn)(void))
{
    int pid, status;

    fflush(stdout);
    if ((pid = fork()) == 0) {
        if (setgid(STUDENT) < 0 || setuid(STUDENT) < 0 || unshare() < 0)
            _exit(90);
        _exit(fn());
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static int ctl[2], res[2];

/* S: a second process that counts its turns (one sched_yield each)
 * between the words "s" and "e" on ctl; after "e" come the milliseconds
 * the attacker's window lasted, by the attacker's clock (S cannot time
 * it: a kernel that holds the CPU lets S see "s" only once "e" is there
 * too). stop_counter reads both. */
static int start_counter(void)
{
    int s;
    char c;

    if (pipe(ctl) < 0 || pipe(res) < 0)
        return -1;
    if ((s = fork()) == 0) {
        int got[2] = { 0, 0 };
        size_t have = 0;

        fcntl(ctl[0], F_SETFL, R_NONBLOCK);
        while (read(ctl[0], &c, 1) != 1)
            sched_yield();
        while (read(ctl[0], &c, 1) != 1) {
            got[0]++;
            sched_yield();
        }
        while (have < sizeof(got[1])) {
            ssize_t n = read(ctl[0], (char *)&got[1] + have, sizeof(got[1]) - have);
            if (n > 0)
                have += n;
            else
                sched_yield();
        }
        write(res[1], got, sizeof(got));
        _exit(0);
    }
    return s;
}

/* The attacker's side: "s" to S, and the clock's reading; then "e" and
 * how long it was. The parent ends a window the attacker could not
 * (it failed first) with end_window's bytes for 0 ms. */
static unsigned window_t0;

static void begin_window(void)
{
    write(ctl[1], "s", 1);
    window_t0 = uptime_ms();
}

static void end_window(void)
{
    char e[1 + sizeof(int)] = "e";
    int ms = (int)(uptime_ms() - window_t0);

    memcpy(e + 1, &ms, sizeof(ms));
    write(ctl[1], e, sizeof(e));
}

#define NO_WINDOW "se\0\0\0\0"              /* "s", "e", 0 ms */

/* S's turns, and in *ms how long the attacker's window was. */
static int stop_counter(int s, int *ms)
{
    int got[2] = { -1, 0 };

    if (read(res[0], got, sizeof(got)) != sizeof(got))
        got[0] = -1;
    printf("%s: S had %d turns in %d ms\n", TURNS_WHO, got[0], got[1]);
    waitpid(s, NULL, 0);
    close(ctl[0]), close(ctl[1]), close(res[0]), close(res[1]);
    *ms = got[1];
    return got[0];
}

/* Did S run all along? A slice is one tick (10 ms) and S yields at
 * once, so a kernel that lets others run gives S about a turn a slice;
 * one that holds the CPU gives it one turn or none however long the call
 * ran. Asked: a turn per 4 slices, and 2 at least once the call took 8
 * slices or more - so neither a fast machine (a short call) nor a slow
 * one (a long call) changes the verdict, only the kernel does. */
static int ran_along(int turns, int ms)
{
    return turns >= 0 && turns * 40 >= ms && (ms < 80 || turns >= 2);
}

/* Run attack as the student while S counts its turns: the attack's exit
 * code (0: fine), S's turns in *turns and the attack's window in *ms. */
static int count_turns_during(int (*attack)(void), int *turns, int *ms)
{
    int s, code;

    *turns = -1, *ms = 0;
    if ((s = start_counter()) <= 0)
        return -1;
    if ((code = as_student(attack)) != 0)
        write(ctl[1], NO_WINDOW, 6);
    *turns = stop_counter(s, ms);
    return code;
}

#endif
