/* SPDX-License-Identifier: MIT */
/* The case functions, one file per group. */
#ifndef SBIO_KIT_CASES_H
#define SBIO_KIT_CASES_H

#include "case_api.h"

/* cases_static.c */
void kit_static_backend_usable(kit_case *c);
void kit_static_note_well_formed(kit_case *c);
void kit_static_name_matches_file(kit_case *c);
void kit_static_abi_version(kit_case *c);
void kit_static_mechanism_sources(kit_case *c);
void kit_static_link_bind_now(kit_case *c);
void kit_static_exports_only_entry(kit_case *c);
void kit_static_capabilities_covered(kit_case *c);
void kit_static_operations_paired(kit_case *c);

/* cases_admission.c */
void kit_admission_undeclared_refused_before_create(kit_case *c);
void kit_admission_declared_not_refused_later(kit_case *c);

/* cases_lifecycle.c */
void kit_lifecycle_identity(kit_case *c);
void kit_lifecycle_create_run_kill_twice(kit_case *c);
void kit_lifecycle_use_after_kill_is_gone(kit_case *c);
void kit_lifecycle_close_tears_down(kit_case *c);
void kit_lifecycle_kill_during_exec(kit_case *c);
void kit_lifecycle_connect_unknown_id(kit_case *c);
void kit_lifecycle_connect_reattaches(kit_case *c);
void kit_lifecycle_description_safe(kit_case *c);
void kit_lifecycle_labels_propagate(kit_case *c);

/* cases_exec.c */
void kit_exec_exit_codes(kit_case *c);
void kit_exec_missing_program(kit_case *c);
void kit_exec_stdout_stderr_separate(kit_case *c);
void kit_exec_stderr_not_lost(kit_case *c);
void kit_exec_env_injected(kit_case *c);
void kit_exec_argv_not_through_shell(kit_case *c);
void kit_exec_stdin(kit_case *c);
void kit_exec_non_positive_timeout_refused(kit_case *c);
void kit_exec_undeclared_refused(kit_case *c);

/* cases_cancel.c */
void kit_exec_cancel_one_exec(kit_case *c);

/* cases_timeout.c */
void kit_exec_timeout_raises(kit_case *c);
void kit_exec_timeout_inherits(kit_case *c);

/* cases_stream.c */
void kit_stream_order_within_stream(kit_case *c);
void kit_stream_tagged(kit_case *c);
void kit_stream_exit_code(kit_case *c);
void kit_stream_timeout(kit_case *c);
void kit_stream_output_before_exit(kit_case *c);

/* cases_files.c */
void kit_files_round_trip(kit_case *c);
void kit_files_relative_path(kit_case *c);
void kit_files_ls_mkdir_remove(kit_case *c);
void kit_files_missing_path(kit_case *c);
void kit_files_host_paths_never_resolved(kit_case *c);
void kit_files_undeclared_refused(kit_case *c);

/* cases_policy.c */
void kit_policy_deny_actually_denies(kit_case *c);
void kit_policy_allowlist(kit_case *c);
void kit_policy_unknown_egress_refused(kit_case *c);
void kit_policy_caps_cannot_be_unset(kit_case *c);
void kit_policy_gpu_without_capability(kit_case *c);
void kit_policy_unbounded_timeout_refused(kit_case *c);
void kit_policy_network_policy_undeclared(kit_case *c);

/* cases_isolation.c */
void kit_isolation_report_a_tier(kit_case *c);
void kit_isolation_stronger_refused(kit_case *c);
void kit_isolation_at_or_below_passes(kit_case *c);
void kit_isolation_strongest_delivered(kit_case *c);
void kit_isolation_require_unknown_refused(kit_case *c);
void kit_isolation_unknown_warns_once(kit_case *c);

/* cases_errors.c */
void kit_errors_capability_errors_named(kit_case *c);

/* cases_audit.c */
void kit_audit_one_event_per_exec(kit_case *c);

/* cases_secrets.c */
void kit_secrets_no_secret_in_any_output(kit_case *c);
void kit_secrets_declared_credentials_never_shown(kit_case *c);

/* cases_cleanup.c */
void kit_cleanup_no_orphans(kit_case *c);

#endif
