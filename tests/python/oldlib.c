/* SPDX-License-Identifier: MIT */
/* A stand-in for a libsandboxio older than the Python binding supports:
 * it answers the run-time version query with 0.0.1 and nothing else. */
#include <sandboxio/types.h>

SBIO_API unsigned int sbio_version_number(void);
SBIO_API const char *sbio_version(void);

unsigned int sbio_version_number(void) {
  return 0x000001;
}

const char *sbio_version(void) {
  return "0.0.1";
}
