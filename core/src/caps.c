/* SPDX-License-Identifier: MIT */
/* Capability flag names. The table is the single source of truth for the
 * spelling used in metadata notes, the CLI and descriptions; its order
 * follows the bit numbers in types.h. */
#include <sandboxio/types.h>
#include <string.h>

typedef struct cap_entry {
  sbio_caps flag;
  const char *name;
} cap_entry;

static const cap_entry cap_table[] = {
    {SBIO_CAP_RUN_COMMAND, "run_command"},
    {SBIO_CAP_RUN_CODE, "run_code"},
    {SBIO_CAP_STATEFUL_CODE, "stateful_code"},
    {SBIO_CAP_STREAMING, "streaming"},
    {SBIO_CAP_FILESYSTEM, "filesystem"},
    {SBIO_CAP_UPLOAD_DOWNLOAD, "upload_download"},
    {SBIO_CAP_PTY, "pty"},
    {SBIO_CAP_PAUSE_RESUME, "pause_resume"},
    {SBIO_CAP_SNAPSHOT_FORK, "snapshot_fork"},
    {SBIO_CAP_GPU, "gpu"},
    {SBIO_CAP_LSP, "lsp"},
    {SBIO_CAP_GIT, "git"},
    {SBIO_CAP_NETWORK_POLICY, "network_policy"},
    {SBIO_CAP_TUNNELS, "tunnels"},
    {SBIO_CAP_COST_REPORTING, "cost_reporting"},
    {SBIO_CAP_STDIN, "stdin"},
    {SBIO_CAP_NETWORK_ALLOWLIST, "network_allowlist"},
    {SBIO_CAP_SEPARATE_STDERR, "separate_stderr"},
    {SBIO_CAP_MANAGED, "managed"},
    {SBIO_CAP_CONNECT, "connect"},
};

/* A new flag in types.h without a name here would be unprintable. */
_Static_assert(sizeof cap_table / sizeof cap_table[0] == SBIO_CAP_COUNT, "every capability flag needs a name");

const char *sbio_capability_name(sbio_caps flag) {
  for (size_t i = 0; i < SBIO_CAP_COUNT; i++) {
    if (cap_table[i].flag == flag) return cap_table[i].name;
  }
  return NULL;
}

int sbio_capability_parse(const char *name, sbio_caps *out) {
  if (name == NULL) return -1;
  for (size_t i = 0; i < SBIO_CAP_COUNT; i++) {
    if (strcmp(cap_table[i].name, name) == 0) {
      if (out) *out = cap_table[i].flag;
      return 0;
    }
  }
  return -1;
}
