/* SPDX-License-Identifier: MIT */
/* sbio_code -> exit code. Every code of types.h is listed on purpose, so a
 * new code shows up as a missing row in review rather than silently
 * falling into a default. The rule behind the choices: 78 when fixing it
 * means changing the request or the configuration, 69 when the backend or
 * its provider could not serve it, 124 for deadlines, 70 for bugs. */
#include "exitcode.h"

#include <stddef.h>

static const struct {
  sbio_code code;
  int exit_code;
} exit_table[] = {
    {SBIO_OK, CLI_EXIT_OK},
    /* Bad config file, bad URI, an isolation requirement the backend cannot
     * meet, a non-positive timeout: the request must change. */
    {SBIO_E_CONFIG, CLI_EXIT_CONFIG},
    /* No backend of that name on the search path. */
    {SBIO_E_BACKEND_NOT_FOUND, CLI_EXIT_UNAVAILABLE},
    /* Refused (pins, permissions, bad metadata), disabled, failed to load. */
    {SBIO_E_BACKEND_UNAVAILABLE, CLI_EXIT_UNAVAILABLE},
    /* This backend cannot do what was asked (stdin, allow-lists, reap...):
     * it cannot serve the request; another backend may. */
    {SBIO_E_CAPABILITY, CLI_EXIT_UNAVAILABLE},
    /* The provider failed to create, re-attach or manage a sandbox. */
    {SBIO_E_CREATE, CLI_EXIT_UNAVAILABLE},
    {SBIO_E_CONNECT, CLI_EXIT_UNAVAILABLE},
    /* Deadlines, named after timeout(1)'s 124. */
    {SBIO_E_CREATE_TIMEOUT, CLI_EXIT_DEADLINE},
    /* The sandbox vanished under us (lifetime ended, provider reclaimed it). */
    {SBIO_E_GONE, CLI_EXIT_UNAVAILABLE},
    /* The provider could not run the command at all (transport failure);
     * a command that ran and failed is its own exit status, not this. */
    {SBIO_E_EXEC, CLI_EXIT_UNAVAILABLE},
    {SBIO_E_EXEC_TIMEOUT, CLI_EXIT_DEADLINE},
    /* The request conflicts with the network policy in force: a policy
     * decision to change, not an outage. */
    {SBIO_E_NETWORK_POLICY, CLI_EXIT_CONFIG},
    /* A cap was hit; the fix is to raise the cap in the request. */
    {SBIO_E_RESOURCE_LIMIT, CLI_EXIT_CONFIG},
    /* Credentials missing or rejected, provider throttling: the backend
     * cannot serve until something outside sbio changes. */
    {SBIO_E_AUTH, CLI_EXIT_UNAVAILABLE},
    {SBIO_E_RATE_LIMIT, CLI_EXIT_UNAVAILABLE},
    /* The configured audit sink failed and audit.on_failure is `fail`: the
     * operator's configuration is what stops the operation. */
    {SBIO_E_AUDIT_SINK, CLI_EXIT_CONFIG},
    /* File operations inside the sandbox (not used by today's commands). */
    {SBIO_E_FS, CLI_EXIT_UNAVAILABLE},
    {SBIO_E_PATH_NOT_FOUND, CLI_EXIT_UNAVAILABLE},
    /* Out of memory, I/O on the host, a bug. */
    {SBIO_E_INTERNAL, CLI_EXIT_INTERNAL},
    /* The CLI validates its input before the API sees it, so an argument the
     * API still rejects came from the command line (e.g. an env key with a
     * character the backend cannot carry). */
    {SBIO_E_INVALID_ARGUMENT, CLI_EXIT_USAGE},
    /* An exec its caller cancelled (sbio itself only cancels on a signal,
     * which has its own 128+N): an interruption, like Ctrl-C. */
    {SBIO_E_CANCELLED, CLI_EXIT_SIGINT},
};

int cli_exit_for_code(sbio_code code) {
  for (size_t i = 0; i < sizeof exit_table / sizeof exit_table[0]; i++) {
    if (exit_table[i].code == code) return exit_table[i].exit_code;
  }
  return CLI_EXIT_INTERNAL;
}
