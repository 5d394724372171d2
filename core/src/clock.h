/* SPDX-License-Identifier: MIT */
/* Time and identity helpers: monotonic clock for deadlines, UTC wall clock
 * for audit timestamps, random ids for sessions. */
#ifndef SBIO_CLOCK_H
#define SBIO_CLOCK_H

#include <stddef.h>
#include <stdint.h>

int64_t sbio__monotonic_ns(void);
/* Current UTC time as "2026-11-29T08:52:34.123Z". */
void sbio__utc_timestamp(char *buf, size_t size);
/* `hex_chars` random lower-case hex digits (from getrandom) + NUL. */
int sbio__random_hex(char *buf, size_t hex_chars);
/* Deadline `seconds` from now on the monotonic clock, saturating. */
int64_t sbio__deadline_after(double seconds);

#endif
