/* SPDX-License-Identifier: MIT */
#include "registry.h"

#include "cases.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN SBIO_CAP_RUN_COMMAND
#define FS SBIO_CAP_FILESYSTEM
#define CR KIT_CREATES

/* Order matters: static checks first, cleanup last. The reference column
 * maps each case to the reference suite (docs/conformance.md has the full
 * table, including the reference cases that do not apply to C). */
static const kit_case_def cases[] = {
    /* static checks: the plugin file itself */
    {"static.backend_usable", "", "the URI's backend is found, enabled, not refused, and loads", 0, 0, KIT_STATIC,
     kit_static_backend_usable},
    {"static.note_well_formed", "", "exactly one metadata note, NUL-terminated JSON with every required field", 0, 0,
     KIT_STATIC, kit_static_note_well_formed},
    {"static.name_matches_file", "", "sbio-backend-NAME.so, the note's name and the URI scheme agree", 0, 0, KIT_STATIC,
     kit_static_name_matches_file},
    {"static.abi_version", "", "the note's ABI major is the kit's and the core accepted the entry point", 0, 0,
     KIT_STATIC, kit_static_abi_version},
    {"static.mechanism_sources", "", "every mechanism has an https source with a date, or says it is unverified", 0, 0,
     KIT_STATIC, kit_static_mechanism_sources},
    {"static.link_bind_now", "", "linked with -z now (BIND_NOW in the dynamic section)", 0, 0, KIT_STATIC,
     kit_static_link_bind_now},
    {"static.exports_only_entry", "", "the only exported symbol is sbio_backend_entry_v1", 0, 0, KIT_STATIC,
     kit_static_exports_only_entry},
    {"static.capabilities_covered", "67", "every declared capability is exercised by a case of this kit", 0, 0,
     KIT_STATIC, kit_static_capabilities_covered},
    {"static.operations_paired", "",
     "create and connect come with kill, and every declared capability with the operations that deliver it", 0, 0,
     KIT_STATIC, kit_static_operations_paired},

    /* admission: refused before anything exists, never after */
    {"admission.undeclared_refused_before_create", "",
     "a create that needs a capability the backend lacks fails with SBX_E1101 before anything exists", 0, 0, CR,
     kit_admission_undeclared_refused_before_create},
    {"admission.declared_not_refused_later", "",
     "what the backend declares is admitted and never refused with SBX_E1101 once the sandbox exists", 0, 0, CR,
     kit_admission_declared_not_refused_later},

    /* lifecycle */
    {"lifecycle.identity_capabilities_tier", "1", "a sandbox has an id, the backend's capabilities and a tier", 0, 0,
     CR, kit_lifecycle_identity},
    {"lifecycle.create_run_kill_twice", "2", "create, run echo, kill, kill again; nothing left listed", RUN, 0, CR,
     kit_lifecycle_create_run_kill_twice},
    {"lifecycle.use_after_kill_is_gone", "3,4,59", "after kill, exec and file operations fail with SBX_E1204", 0, 0, CR,
     kit_lifecycle_use_after_kill_is_gone},
    {"lifecycle.close_tears_down", "3,4", "closing a handle destroys the sandbox at the provider", 0, 0, CR,
     kit_lifecycle_close_tears_down},
    {"lifecycle.kill_during_exec", "8,12,40", "a kill from another thread ends a running exec promptly", RUN, 0, CR,
     kit_lifecycle_kill_during_exec},
    {"lifecycle.connect_unknown_id", "5", "connect to an unknown id fails with SBX_E1202 and creates nothing",
     SBIO_CAP_CONNECT, 0, CR, kit_lifecycle_connect_unknown_id},
    {"lifecycle.connect_reattaches", "6", "connect re-attaches to a live sandbox, which then runs commands",
     SBIO_CAP_CONNECT | RUN, 0, CR, kit_lifecycle_connect_reattaches},
    {"lifecycle.description_informative_and_safe", "7", "describe names backend, id and tier, and no secret", 0, 0, CR,
     kit_lifecycle_description_safe},
    {"lifecycle.labels_propagate", "66", "caller labels reach the provider: the managed listing shows them",
     SBIO_CAP_MANAGED, 0, CR, kit_lifecycle_labels_propagate},

    /* exec semantics */
    {"exec.exit_codes", "17", "a non-zero exit status is data, not an error", RUN, 0, CR, kit_exec_exit_codes},
    {"exec.missing_program_exits_127", "",
     "a program that does not exist exits 127 with a message naming it, as in a shell", RUN, 0, CR,
     kit_exec_missing_program},
    {"exec.stdout_stderr_separate", "18", "stdout and stderr come back separately", RUN | SBIO_CAP_SEPARATE_STDERR, 0,
     CR, kit_exec_stdout_stderr_separate},
    {"exec.stderr_not_lost", "", "what a process writes to stderr reaches the caller", RUN, 0, CR,
     kit_exec_stderr_not_lost},
    {"exec.env_injected", "19", "create-time and per-exec environment reach the process", RUN, 0, CR,
     kit_exec_env_injected},
    {"exec.argv_not_through_shell", "20", "argv is passed as is: no expansion, no word splitting", RUN, 0, CR,
     kit_exec_argv_not_through_shell},
    {"exec.timeout_raises", "21", "a deadline ends the process with SBX_E1302, on time, sandbox still usable", RUN, 0,
     CR, kit_exec_timeout_raises},
    {"exec.timeout_inherits_sandbox_timeout", "22", "without its own timeout an exec is bounded by the sandbox's", RUN,
     0, CR, kit_exec_timeout_inherits},
    {"exec.non_positive_timeout_refused", "23", "exec timeouts of 0 and -1 are refused with SBX_E1000", RUN, 0, CR,
     kit_exec_non_positive_timeout_refused},
    {"exec.undeclared_refused", "24", "without run_command, exec fails with SBX_E1101", 0, RUN, CR,
     kit_exec_undeclared_refused},
    {"exec.stdin", "", "stdin bytes reach the process", RUN | SBIO_CAP_STDIN, 0, CR, kit_exec_stdin},
    {"exec.cancel_one_exec", "",
     "cancelling one exec (ABI 1.3) ends it with SBX_E1902; the sandbox, its files and the next exec stay", RUN, 0, CR,
     kit_exec_cancel_one_exec},

    /* streams */
    {"stream.order_within_stream", "33,37", "streamed output arrives in order and equals the buffered output", RUN, 0,
     CR, kit_stream_order_within_stream},
    {"stream.tagged", "34", "streamed chunks are tagged stdout or stderr correctly", RUN | SBIO_CAP_SEPARATE_STDERR, 0,
     CR, kit_stream_tagged},
    {"stream.exit_code_with_callback", "35", "with a callback the exit status is still reported", RUN, 0, CR,
     kit_stream_exit_code},
    {"stream.timeout", "36", "a streamed exec past its deadline fails with SBX_E1302 on time", RUN, 0, CR,
     kit_stream_timeout},
    {"stream.output_before_exit", "38", "output reaches the callback while the process still runs",
     RUN | SBIO_CAP_STREAMING, 0, CR, kit_stream_output_before_exit},

    /* files */
    {"files.round_trip", "42", "text and all 256 byte values survive write then read", FS, 0, CR, kit_files_round_trip},
    {"files.relative_path_same_as_exec", "43", "a relative path means the same place to files and to exec", FS, 0, CR,
     kit_files_relative_path},
    {"files.ls_mkdir_remove", "44", "mkdir -p, list and remove behave", FS, 0, CR, kit_files_ls_mkdir_remove},
    {"files.missing_path", "45", "a missing path fails with SBX_E1701", FS, 0, CR, kit_files_missing_path},
    {"files.host_paths_never_resolved", "46", "an absolute host path does not reach the host's file", FS, 0, CR,
     kit_files_host_paths_never_resolved},
    {"files.undeclared_refused", "48", "without filesystem, file operations fail with SBX_E1101", 0, FS, CR,
     kit_files_undeclared_refused},

    /* policy */
    {"policy.deny_actually_denies", "49", "under the default policy the egress probe fails", RUN, 0, CR,
     kit_policy_deny_actually_denies},
    {"policy.allowlist", "50", "an allow-list admits only its hosts, or is refused with SBX_E1101", 0, 0, CR,
     kit_policy_allowlist},
    {"policy.unknown_egress_refused", "51", "an egress mode that does not exist is refused", 0, 0, 0,
     kit_policy_unknown_egress_refused},
    {"policy.caps_cannot_be_unset", "53", "resource caps of 0 or below are refused before provisioning", 0, 0, 0,
     kit_policy_caps_cannot_be_unset},
    {"policy.gpu_without_capability", "54", "a GPU request without the gpu capability fails with SBX_E1101", 0,
     SBIO_CAP_GPU, CR, kit_policy_gpu_without_capability},
    {"policy.unbounded_timeout_refused", "55", "sandbox timeouts of 0 or below are refused", 0, 0, 0,
     kit_policy_unbounded_timeout_refused},
    {"policy.network_policy_undeclared", "68", "without network_policy no sandbox is created (SBX_E1101)", 0,
     SBIO_CAP_NETWORK_POLICY, 0, kit_policy_network_policy_undeclared},

    /* isolation honesty */
    {"isolation.backend_and_sandbox_report_a_tier", "60", "the sandbox's tier is its mechanism's, never weaker", 0, 0,
     CR, kit_isolation_report_a_tier},
    {"isolation.stronger_tier_refused_before_provisioning", "61",
     "requiring a tier above every mechanism fails with SBX_E1000, nothing created", 0, 0, CR,
     kit_isolation_stronger_refused},
    {"isolation.at_or_below_tier_passes", "62", "requiring the backend's tier (or less) succeeds; UNKNOWN meets none",
     0, 0, CR, kit_isolation_at_or_below_passes},
    {"isolation.strongest_declared_tier_delivered", "",
     "requiring the strongest declared tier is met or refused up front, never broken after create", 0, 0, CR,
     kit_isolation_strongest_delivered},
    {"isolation.require_unknown_refused", "", "requiring UNKNOWN is refused with SBX_E1000", 0, 0, 0,
     kit_isolation_require_unknown_refused},
    {"isolation.unknown_warns_once", "63", "an UNKNOWN backend warns exactly once; a verified one never", 0, 0, CR,
     kit_isolation_unknown_warns_once},

    /* errors, audit, secrets */
    {"errors.capability_errors_named", "", "capability refusals name the capability and carry a hint", 0, 0, 0,
     kit_errors_capability_errors_named},
    {"audit.one_event_per_exec", "64", "one exec yields exactly one exec audit event describing it", RUN, 0, CR,
     kit_audit_one_event_per_exec},
    {"secrets.no_secret_in_any_output", "65,7",
     "a secret reaches the sandbox but no description, error, log line or audit event", 0, 0, CR,
     kit_secrets_no_secret_in_any_output},
    {"secrets.declared_credentials_never_shown", "",
     "the values of the credential variables the note declares appear in no error, hint, log line, progress step, "
     "description or audit event",
     0, 0, CR, kit_secrets_declared_credentials_never_shown},

    /* last: nothing of this run is left behind */
    {"cleanup.no_orphans", "", "after every case, the backend lists no sandbox of this run", SBIO_CAP_MANAGED, 0, 0,
     kit_cleanup_no_orphans},
};

size_t kit_case_count(void) {
  return sizeof cases / sizeof cases[0];
}

const kit_case_def *kit_case_at(size_t i) {
  return i < kit_case_count() ? &cases[i] : NULL;
}

const char *kit_case_group(const kit_case_def *d, char *buf, size_t size) {
  const char *dot = strchr(d->name, '.');
  snprintf(buf, size, "%.*s", dot ? (int)(dot - d->name) : (int)strlen(d->name), d->name);
  return buf;
}

int kit_case_selected(const kit_case_def *d, const char *only) {
  if (!only || !only[0]) return 1;
  char group[64];
  kit_case_group(d, group, sizeof group);
  char *copy = strdup(only);
  if (!copy) return 1;
  int hit = 0;
  char *save = NULL;
  for (char *p = strtok_r(copy, ",", &save); p && !hit; p = strtok_r(NULL, ",", &save))
    hit = fnmatch(p, d->name, 0) == 0 || fnmatch(p, group, 0) == 0;
  free(copy);
  return hit;
}
