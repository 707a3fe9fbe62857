/* ustar.c - host tests for the boot archive reader (kernel/lib/ustar.c):
 * archives made by the real `tar --format=ustar`, and damaged ones. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "kstring.h"
#include "lib/ustar.c"

static unsigned char *archive;
static size_t archive_size;

/* Build a small tree and archive it with the host tar. */
static int make_archive(void)
{
    const char *cmd =
        "set -e; d=$(mktemp -d); cd $d; mkdir -p bin etc/deep; printf 'hello' > etc/motd; "
        "head -c 1500 /dev/zero > bin/prog; ln -s motd etc/link; "
        "n=etc/deep/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; "
        "printf x > $n; tar --format=ustar -cf /tmp/orthos-ustar-test.tar .; rm -rf $d";
    FILE *f;
    long n;

    if (system(cmd) != 0 || !(f = fopen("/tmp/orthos-ustar-test.tar", "rb")))
        return -1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    archive = malloc(n);
    archive_size = fread(archive, 1, n, f);
    fclose(f);
    unlink("/tmp/orthos-ustar-test.tar");
    return archive_size == (size_t)n ? 0 : -1;
}

static void reads_every_entry_of_a_real_archive(void)
{
    struct ustar_entry e;
    size_t off = 0;
    int r, files = 0, found_motd = 0, found_link = 0, found_long = 0;

    while ((r = ustar_next(archive, archive_size, &off, &e)) > 0) {
        if (e.type == '0')
            files++;
        if (strcmp(e.name, "etc/motd") == 0)
            found_motd = e.size == 5 && memcmp(e.data, "hello", 5) == 0;
        if (strcmp(e.name, "etc/link") == 0)
            found_link = e.type == '2' && strcmp(e.link, "motd") == 0;
        if (strncmp(e.name, "etc/deep/aaaa", 13) == 0)
            found_long = strlen(e.name) == 9 + 95;
    }
    CHECK(r == 0, "walk ended with %d", r);
    CHECK(files == 3, "%d regular files", files);
    CHECK(found_motd, "etc/motd missing or wrong");
    CHECK(found_link, "symlink etc/link missing or wrong");
    CHECK(found_long, "a name over 100 bytes (prefix field) was not rebuilt");
    PASS();
}

static void rejects_bad_checksum(void)
{
    unsigned char *copy = malloc(archive_size);
    struct ustar_entry e;
    size_t off = 0;

    memcpy(copy, archive, archive_size);
    copy[10] ^= 1;                      /* inside the first name */
    CHECK(ustar_next(copy, archive_size, &off, &e) == -1, "damaged header accepted");
    free(copy);
    PASS();
}

static void rejects_truncated_archive(void)
{
    struct ustar_entry e;
    size_t off = 0;
    int r;

    /* Cut inside the first file's data: a header promising more than is there. */
    while ((r = ustar_next(archive, 512 + 100, &off, &e)) > 0 && e.size == 0)
        ;
    CHECK(r == -1, "truncated archive gave %d", r);
    off = 0;
    CHECK(ustar_next(archive, 300, &off, &e) == -1, "half a header accepted");
    PASS();
}

int main(void)
{
    if (make_archive() < 0) {
        printf("FAIL ustar_setup: could not run the host tar\n");
        return 1;
    }
    reads_every_entry_of_a_real_archive();
    rejects_bad_checksum();
    rejects_truncated_archive();
    return check_failures != 0;
}
