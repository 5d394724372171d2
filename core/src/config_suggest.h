/* SPDX-License-Identifier: MIT */
/* "Did you mean ...?" for unknown configuration keys. */
#ifndef SBIO_CONFIG_SUGGEST_H
#define SBIO_CONFIG_SUGGEST_H

/* The known key (from the NULL-terminated list) the user most likely meant
 * by `key`, or NULL when nothing is close. */
const char *sbio__config_suggest(const char *key, const char *const *known);

#endif
