/* exec.h - replacing a process's program with an ELF file. */
#ifndef PROC_EXEC_H
#define PROC_EXEC_H

struct proc;
struct file;

#define ARG_MAX 32768   /* bytes of argv + envp strings */
#define MAXARG  64      /* entries in argv, and in envp */

/* Load f into p (argv/envp are kernel strings, NULL-terminated arrays).
 * On success p runs the new program on its next return to user mode; on
 * failure p is untouched. */
int exec_file(struct proc *p, struct file *f, const char *const *argv, const char *const *envp);
/* The same for a path (used to start init). */
int exec_path(struct proc *p, const char *path, const char *const *argv);
/* Free the shared program text no process maps; how many pages (pmm's
 * reclaim hook: main.c registers it). */
unsigned exec_text_reclaim(void);

#endif
