/* SPDX-License-Identifier: MIT */
/* The warning that a provider source is past its re-verification window
 * ("backend fake mechanism none: source verified 184 days ago
 * (re-verification window 92 days); re-verify it ...").
 *
 * Whether it appears depends on the day the suite runs, not on the
 * behaviour under test: the first-party backends' sources carry the date
 * they were read, and every run after that date plus the window sees it.
 * Tests that check that nothing else was logged or printed set such lines
 * aside with this predicate, so that no assertion depends on today's date;
 * tests/clock/check_future_clock.sh proves the warning is still given. */
#ifndef SBIO_TEST_FRESHNESS_H
#define SBIO_TEST_FRESHNESS_H

#include <string.h>

static inline int sbio_test_is_freshness_warning(const char *line) {
  const char *at = strstr(line, ": source verified ");
  return at != NULL && strstr(at, " days ago (re-verification window ") != NULL;
}

#endif
