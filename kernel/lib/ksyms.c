/* ksyms.c - empty symbol and line tables, for the first of the kernel's two
 * links. tools/ksyms.py reads the functions and the DWARF line program of
 * that first link and writes build/ksyms1.c, whose tables the second link
 * adds; these are weak, so there they give way to build/ksyms1.c's (a
 * kernel linked without that file would print bare addresses in a panic).
 * kernel/lib/panic.c reads the tables; tools/ksyms.py sets their layout. */
#include <stdint.h>

struct ksym {
    uint32_t addr;
    uint32_t name;
};
struct kline {
    uint32_t addr;
    uint16_t line;
    uint16_t file;
};

#define EMPTY_TABLE __attribute__((weak, section(".ksyms")))

const struct ksym ksyms[1] EMPTY_TABLE = { { 0, 0 } };
const uint32_t nksyms EMPTY_TABLE = 0;
const char ksym_names[1] EMPTY_TABLE = "";
const struct kline klines[1] EMPTY_TABLE = { { 0, 0, 0 } };
const uint32_t nklines EMPTY_TABLE = 0;
const char kline_files[1] EMPTY_TABLE = "";
