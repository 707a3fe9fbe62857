/* env.c - the environment. environ starts as the envp array exec put on
 * the stack; the first setenv that adds a name moves the array to the
 * heap, where it can grow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **heap_env;                 /* environ, once it is our copy */

static int count(void)
{
    int n = 0;

    while (environ && environ[n])
        n++;
    return n;
}

/* The index of "name=..." in environ, or -1. */
static int find(const char *name, size_t len)
{
    int i;

    for (i = 0; environ && environ[i]; i++)
        if (strncmp(environ[i], name, len) == 0 && environ[i][len] == '=')
            return i;
    return -1;
}

char *getenv(const char *name)
{
    size_t len = strlen(name);
    int i = find(name, len);

    return i < 0 ? NULL : environ[i] + len + 1;
}

/* Make room for one more entry (and the NULL) in a heap copy. */
static int grow_env(int n)
{
    char **e = realloc(heap_env, (n + 2) * sizeof(char *));

    if (!e)
        return -1;
    if (environ != heap_env)
        memcpy(e, environ, n * sizeof(char *));
    e[n + 1] = NULL;
    environ = heap_env = e;
    return 0;
}

/* A replaced "NAME=value" string is not freed: it may be on the stack, or
 * a caller may still hold it (getenv's result points into it). */
int setenv(const char *name, const char *value, int overwrite)
{
    size_t len = strlen(name), vlen = strlen(value);
    int i = find(name, len);
    char *entry;

    if (len == 0 || strchr(name, '=')) {
        errno = EINVAL;
        return -1;
    }
    if (i >= 0 && !overwrite)
        return 0;
    if (!(entry = malloc(len + vlen + 2)))
        return -1;
    memcpy(entry, name, len);
    entry[len] = '=';
    memcpy(entry + len + 1, value, vlen + 1);
    if (i < 0) {
        i = count();
        if (grow_env(i) < 0) {
            free(entry);
            return -1;
        }
    }
    environ[i] = entry;
    return 0;
}

int unsetenv(const char *name)
{
    int i = find(name, strlen(name));

    if (i < 0)
        return 0;
    for (; environ[i]; i++)
        environ[i] = environ[i + 1];
    return 0;
}
