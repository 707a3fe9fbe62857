/* t_fuzzfound.c - regression tests for what the fuzzers found (make fuzz,
 * doc/fuzzing.md): each is named for the behaviour it pins down, and each
 * failed on the kernel before its fix. Leak checks count kernel heap
 * blocks (/proc/meminfo heap_blocks), which catches a leak of a few bytes
 * that free_pages would only show after thousands of repeats. */
#include <orthos.h>
#include "t.h"

/* Run fn (which undoes what it does) once to warm up, then count the
 * kernel's heap blocks around a second run: 0 if none is left behind. */
static int heap_blocks_kept(void (*fn)(void))
{
    unsigned before;

    fn();
    before = meminfo("heap_blocks");
    fn();
    return (int)(meminfo("heap_blocks") - before);
}

static void fsopen_ramfs_and_devfs_from_a_source(void)
{
    int src = open("/tmp/ff_src", O_RDWR | O_CREAT, 0644), i;

    for (i = 0; i < 20; i++) {
        close(fsopen("ramfs", src, ""));
        close(fsopen("devfs", src, ""));
    }
    close(src);
    unlink("/tmp/ff_src");
}

/* fuzz_sys seed 1: ramfs_mount allocated its state before it refused a
 * source, and never freed it. */
static void fsopen_ramfs_with_a_source_fails_and_leaks_nothing(void)
{
    int src, kept;

    CHECK((src = open("/tmp/ff_src", O_RDWR | O_CREAT, 0644)) >= 0, "open");
    CHECK_ERR(fsopen("ramfs", src, ""), EINVAL);
    CHECK_ERR(fsopen("devfs", src, ""), EINVAL);
    close(src);
    unlink("/tmp/ff_src");
    kept = heap_blocks_kept(fsopen_ramfs_and_devfs_from_a_source);
    CHECK(kept == 0, "%d kernel heap blocks left behind by 40 refused fsopens", kept);
    PASS();
}

int main(void)
{
    fsopen_ramfs_with_a_source_fails_and_leaks_nothing();
    printf("t_fuzzfound: done\n");
    return t_failures != 0;
}
