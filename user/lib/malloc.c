/* malloc.c - the heap: blocks carved from memory sbrk adds past the end
 * of the program. Free blocks sit in one list in address order, so free()
 * can merge a block with its free neighbours and the heap does not
 * crumble into pieces too small to use. When sbrk fails, malloc returns
 * NULL with errno = ENOMEM. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The header in front of every block; its size is also the alignment. */
struct block {
    size_t size;                /* bytes, header included, a multiple of UNIT */
    struct block *next;         /* next free block, at a higher address */
};

#define UNIT      sizeof(struct block)
#define GROW_MIN  (16 * 1024)         /* fewer, bigger sbrk calls */
#define ALLOC_MAX 0x40000000u         /* more than the user address space can hold */

static struct block *free_list;

static int adjacent(struct block *a, struct block *b)
{
    return (char *)a + a->size == (char *)b;
}

/* Put b in the free list in address order, merging it with the block
 * just after it and the one just before it when they touch. */
static void insert_free(struct block *b)
{
    struct block *prev = NULL, *next = free_list;

    while (next && next < b) {
        prev = next;
        next = next->next;
    }
    if (next && adjacent(b, next)) {
        b->size += next->size;
        next = next->next;
    }
    b->next = next;
    if (!prev)
        free_list = b;
    else if (adjacent(prev, b)) {
        prev->size += b->size;
        prev->next = b->next;
    } else
        prev->next = b;
}

/* Add at least size bytes to the free list. Asks for GROW_MIN first and
 * settles for exactly size if the kernel will not give that much. */
static int grow(size_t size)
{
    size_t want = size < GROW_MIN ? GROW_MIN : size;
    char *end = sbrk(0);
    size_t pad = -(uintptr_t)end & (UNIT - 1);
    struct block *b;

    if (end == (void *)-1)
        return -1;
    if (sbrk(pad + want) == (void *)-1) {
        if (want == size || sbrk(pad + size) == (void *)-1)
            return -1;
        want = size;
    }
    b = (struct block *)(end + pad);
    b->size = want;
    insert_free(b);
    return 0;
}

/* First fit. A block much bigger than needed is split and its tail handed
 * out, so the head stays in the list where it was. */
void *malloc(size_t n)
{
    struct block *b, **link;
    size_t size;

    if (n > ALLOC_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    size = (n + UNIT - 1) / UNIT * UNIT + UNIT;
    for (;;) {
        for (link = &free_list; (b = *link); link = &b->next) {
            if (b->size < size)
                continue;
            if (b->size - size >= 2 * UNIT) {
                b->size -= size;
                b = (struct block *)((char *)b + b->size);
                b->size = size;
            } else
                *link = b->next;
            return b + 1;
        }
        if (grow(size) < 0) {
            errno = ENOMEM;
            return NULL;
        }
    }
}

void free(void *p)
{
    if (p)
        insert_free((struct block *)p - 1);
}

void *calloc(size_t count, size_t size)
{
    void *p;

    if (size && count > ALLOC_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    if ((p = malloc(count * size)))
        memset(p, 0, count * size);
    return p;
}

/* Shrinking, or growing within the block's slack, keeps the block. */
void *realloc(void *p, size_t n)
{
    struct block *b;
    void *q;

    if (!p)
        return malloc(n);
    if (n == 0) {
        free(p);
        return NULL;
    }
    b = (struct block *)p - 1;
    if (b->size - UNIT >= n)
        return p;
    if (!(q = malloc(n)))
        return NULL;
    memcpy(q, p, b->size - UNIT);
    free(p);
    return q;
}
