/* rtc.c - the CMOS real-time clock, read once at boot, so that files get
 * real timestamps (ext2 stores seconds since 1970, and e2fsck on the host
 * would frown at times from the distant past or the future); and, for the
 * profiler only, its periodic interrupt. */
#include "arch/x86/cpu.h"
#include "arch/x86/x86.h"
#include "dev/rtc.h"
#include "proc/proc.h"

#define CMOS_ADDR 0x70
#define CMOS_DATA 0x71

static uint32_t boot_epoch;             /* set once at boot */

static uint8_t cmos(uint8_t reg)
{
    outb(CMOS_ADDR, reg);
    return inb(CMOS_DATA);
}

static int bcd(int v)
{
    return (v & 0x0F) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian calendar). */
static uint32_t days_from_civil(int y, int m, int d)
{
    static const int before[] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
    uint32_t days = (y - 1970) * 365 + before[m - 1] + d - 1;
    int leaps = (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400 - (1969 / 4 - 1969 / 100 + 1969 / 400);
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return days + leaps + (leap && m > 2);
}

void rtc_init(void)
{
    int sec, min, hour, day, mon, year, binary;

    while (cmos(0x0A) & 0x80)           /* an update is in progress */
        ;
    binary = cmos(0x0B) & 0x04;
    sec = cmos(0x00);
    min = cmos(0x02);
    hour = cmos(0x04);
    day = cmos(0x07);
    mon = cmos(0x08);
    year = cmos(0x09);
    if (!binary) {
        sec = bcd(sec);
        min = bcd(min);
        hour = bcd(hour & 0x7F);
        day = bcd(day);
        mon = bcd(mon);
        year = bcd(year);
    }
    if (mon < 1 || mon > 12 || day < 1 || day > 31)
        return;                         /* no believable clock: stay at 1970 */
    boot_epoch = days_from_civil(2000 + year, mon, day) * 86400u + hour * 3600u + min * 60u + sec;
}

uint32_t rtc_now(void)
{
    return boot_epoch + uptime_ms() / 1000;
}

/* Interrupts from the RTC at 32768 >> (rate - 1) Hz (rate 3..15: 8192 Hz
 * down to 2 Hz), each calling fn: a clock of its own beside the timer, for
 * the sampling profiler (lib/prof.c). Every interrupt is acknowledged by
 * reading register C, or the RTC sends no more. */
#define IRQ_RTC 8                       /* on the second PIC */

static void (*periodic_fn)(void);

static void rtc_intr(void)
{
    cmos(0x0C);
    periodic_fn();
}

void rtc_periodic(int rate, void (*fn)(void))
{
    uint32_t s = irq_save();

    periodic_fn = fn;
    outb(CMOS_ADDR, 0x8A);              /* register A, NMI off while we set it */
    outb(CMOS_DATA, (inb(CMOS_DATA) & 0xF0) | (rate & 0x0F));
    outb(CMOS_ADDR, 0x8B);              /* register B: periodic interrupts on */
    outb(CMOS_DATA, inb(CMOS_DATA) | 0x40);
    cmos(0x0C);
    irq_register(IRQ_RTC, rtc_intr);
    irq_restore(s);
}
