/* rtc.h - wall-clock time: seconds since 1970-01-01 UTC. */
#ifndef DEV_RTC_H
#define DEV_RTC_H

#include <stdint.h>

void rtc_init(void);
uint32_t rtc_now(void);
void rtc_periodic(int rate, void (*fn)(void));

#endif
