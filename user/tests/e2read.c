/* e2read.c - read an ext2 disk made on the host by `mke2fs -d` and check
 * every file against the MANIFEST the host wrote into it: sizes and CRC-32
 * of regular files (small, large, sparse, beyond the triple-indirect
 * boundary), symlink targets (fast and slow), directory entry counts;
 * then again from three processes at once. The disk is /dev/hd1, attached at /mnt with the libc
 * mount(). */
#include <dirent.h>
#include <fcntl.h>
#include <orthos.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include "t.h"

static char manifest[65536];
static char buf[65536];

static int file_crc(const char *path, unsigned *size, unsigned *crc)
{
    int fd = open(path, O_RDONLY), n;

    *size = 0;
    *crc = 0;
    if (fd < 0)
        return -1;
    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        *crc = crc32_update(*crc, buf, n);
        *size += n;
    }
    close(fd);
    return n;
}

static int count_entries(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int n = 0;

    if (!d)
        return -1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void init_attached_the_disk_at_mnt(void)
{
    CHECK(disk_at_mnt(), "init did not attach /dev/hd1 at /mnt");
    PASS();
}

/* Apply fn to each manifest line of kind `kind`; count lines checked. */
static int each(char kind, int (*fn)(char *path, char *rest, char *why), char *why)
{
    char *line, *save = NULL, copy[sizeof(manifest)];
    int n = 0;

    memcpy(copy, manifest, sizeof(copy));
    for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char path[300], *rest;
        if (line[0] != kind || line[1] != ' ')
            continue;
        rest = strchr(line + 2, ' ');
        if (!rest)
            continue;
        *rest++ = '\0';
        snprintf(path, sizeof(path), "/mnt/%s", line + 2);
        if (fn(path, rest, why) < 0)
            return -1;
        n++;
    }
    return n;
}

static int check_file(char *path, char *rest, char *why)
{
    unsigned want_size = strtoul(rest, &rest, 10), want_crc = strtoul(rest, NULL, 16), size, crc;

    if (file_crc(path, &size, &crc) < 0) {
        snprintf(why, 256, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (size != want_size || crc != want_crc) {
        snprintf(why, 256, "%s: size %u crc %08x, host says %u %08x", path, size, crc, want_size,
                 want_crc);
        return -1;
    }
    return 0;
}

static int check_link(char *path, char *rest, char *why)
{
    char target[300];
    int n = readlink(path, target, sizeof(target) - 1);

    if (n < 0 || (target[n] = '\0', strcmp(target, rest) != 0)) {
        snprintf(why, 256, "%s: target '%s', host says '%s'", path, n < 0 ? "?" : target, rest);
        return -1;
    }
    return 0;
}

static int check_dir(char *path, char *rest, char *why)
{
    int want = atoi(rest), got = count_entries(path);

    if (got != want) {
        snprintf(why, 256, "%s: %d entries, host says %d", path, got, want);
        return -1;
    }
    return 0;
}

static void regular_files_match_host_checksums(void)
{
    char why[256] = "";
    int n = each('f', check_file, why);

    CHECK(n > 0, "%s", n < 0 ? why : "no files in the manifest");
    printf("(%d files)\n", n);
    PASS();
}

static void symlinks_fast_and_slow_read_back(void)
{
    char why[256] = "";
    int n = each('l', check_link, why);

    CHECK(n >= 0, "%s", why);
    PASS();
}

static void directories_list_every_entry(void)
{
    char why[256] = "";
    int n = each('d', check_dir, why);

    CHECK(n > 0, "%s", n < 0 ? why : "no directories in the manifest");
    PASS();
}

/* Bytes read from the raw disk under /mnt (/dev/hd1) from offset 0, up to
 * n; the count. */
static unsigned read_raw(unsigned n)
{
    int fd = open("/dev/hd1", O_RDONLY), r;
    unsigned got = 0;

    if (fd < 0)
        return 0;
    while (got < n && (r = read(fd, buf, sizeof(buf))) > 0)
        got += r;
    close(fd);
    return got;
}

/* The disk driver puts a reader to sleep while the drive works, and the
 * block cache then has several processes in it at once. Three readers
 * start together: two check every file against the host's CRCs while the
 * third reads 32 MiB of the raw disk under them - more than the cache
 * holds, so blocks are evicted, refilled and read ahead meanwhile. */
static void concurrent_readers_see_the_hosts_bytes(void)
{
    int pids[3], i, status, bad = 0;
    char why[256] = "";

    for (i = 0; i < 3; i++) {
        if ((pids[i] = fork()) == 0) {
            if (i == 2)
                _exit(read_raw(32u << 20) == 32u << 20 ? 0 : 1);
            if (each('f', check_file, why) > 0)
                _exit(0);
            printf("reader %d: %s\n", i, why);
            _exit(1);
        }
    }
    for (i = 0; i < 3; i++) {
        if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            bad |= 1 << i;
    }
    CHECK(bad == 0, "readers failed (mask %d: 1, 2 = file readers, 4 = raw reader)", bad);
    PASS();
}

/* `e2read stay`: after "done", wait to be killed instead of letting init
 * power off (the ext2_write suite kills the machine there: the image of a
 * guest that stopped with /mnt writable must say "not clean"). */
int main(int argc, char **argv)
{
    int fd, n;

    init_attached_the_disk_at_mnt();
    fd = open("/mnt/MANIFEST", O_RDONLY);
    n = fd >= 0 ? read(fd, manifest, sizeof(manifest) - 1) : -1;
    if (n <= 0) {
        printf("FAIL read_manifest: %s\n", strerror(errno));
        printf("e2read: done\n");
        return 1;
    }
    manifest[n] = '\0';
    close(fd);
    regular_files_match_host_checksums();
    symlinks_fast_and_slow_read_back();
    directories_list_every_entry();
    concurrent_readers_see_the_hosts_bytes();
    printf("e2read: done\n");
    while (argc > 1 && strcmp(argv[1], "stay") == 0)
        sleep(1000);
    return t_failures != 0;
}
