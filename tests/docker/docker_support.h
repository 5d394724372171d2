/* SPDX-License-Identifier: MIT */
/* Support for the docker backend's tests: the engine the harness started
 * (engine.sh wrote its state file), a host opened on a config that points
 * the docker backend at it, and direct calls to the engine's API so tests
 * can check what really happened (inspect, count containers). */
#ifndef SBIO_DOCKER_SUPPORT_H
#define SBIO_DOCKER_SUPPORT_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct dx_env {
  char state_dir[512];
  char host[512]; /* unix:///.../docker.sock */
  char socket[512];
  char image[128];
  /* The test image without its `timeout` applet (state line
   * image_no_timeout=): what the one-shot run needs for its lifetime
   * backstop is missing. "" when the harness made none. */
  char image_no_timeout[128];
  int runsc;    /* runsc is registered with the engine */
  int external; /* SBIO_TEST_DOCKER_HOST: not ours to kill */
  /* The harness's private registry, for the pull tests: "127.0.0.1:PORT"
   * and an image there that the engine does not have; both "" when there
   * is none, and then registry_skip says why. */
  char registry[64];
  char pull_image[256];
  char registry_skip[256];
} dx_env;

/* Reads the state written by `engine.sh start`. 0 when an engine is there;
 * otherwise prints why and returns 77 (skip) or 1 (CI must have one). */
/* 1 when running under CI (CI=true): a missing service fails instead of skipping. */
int dx_in_ci(void);
/* Copies src into dst; a value that does not fit is an error (1, with a
 * FAIL line), never a silently shortened path. 0 on success. */
int dx_copy_field(char *dst, size_t size, const char *src);
int dx_env_load(dx_env *e);

typedef struct dx_host {
  char dir[256];
  char config[300];
  sbio_host *host;
  char **log;
  size_t n_log;
} dx_host;

/* A host whose config points the docker backend at the engine. runtime:
 * "runc", "runsc" or NULL (the engine's default); extra: more settings
 * lines ("      key: value\n"), or NULL. */
int dx_open(dx_host *h, const dx_env *e, const char *runtime, const char *extra);
/* The same, with an audit callback (NULL: none) that gets every event. */
int dx_open_audited(dx_host *h, const dx_env *e, const char *runtime, const char *extra, sbio_audit_fn audit,
                    void *audit_user);
void dx_close(dx_host *h);
int dx_log_contains(const dx_host *h, const char *needle);

/* Engine API. The body (NUL-terminated) is returned, or NULL; *status gets
 * the HTTP status (0: no answer). */
char *dx_api(const dx_env *e, const char *method, const char *path, const char *json, long *status);
/* GET /containers/{id}/json parsed, NULL if absent. */
cJSON *dx_inspect(const dx_env *e, const char *id);
/* Containers on the engine (all states); with label "k=v" only those. */
int dx_count_containers(const dx_env *e, const char *label);
/* The engine's list of containers (all=1) labelled `label` ("k=v", or NULL)
 * in state `status` ("running", ..., or NULL: any), parsed; NULL when the
 * engine did not answer with a list. */
cJSON *dx_list_containers(const dx_env *e, const char *label, const char *status);

/* Lookups in an inspect: root[a], or root[a][b] when b is not NULL; NULL
 * when absent. dx_num and dx_str also fail the running test (cmocka) when
 * the value is not a number or a string. */
const cJSON *dx_path(const cJSON *root, const char *a, const char *b);
double dx_num(const cJSON *root, const char *a, const char *b);
const char *dx_str(const cJSON *root, const char *a, const char *b);
/* Config.Labels[key], or "(absent)" so a missing label fails a string
 * comparison with its name in the message instead of crashing. */
const char *dx_label(const cJSON *c, const char *key);

/* Fails the running test unless the inspected container `c` has the
 * hardening every docker sandbox gets, whether create or the one-shot run
 * made it: no network, all capabilities dropped, no-new-privileges, the
 * default caps (512 PIDs, 512 MiB without swap, 1 CPU), docker's init,
 * AutoRemove (the lifetime backstop leaves nothing), the given runtime,
 * and the managed labels: io.sandboxio.timeout = timeout_s and the
 * session (NULL: any non-empty one). */
void dx_assert_hardened(const cJSON *c, const char *runtime, int timeout_s, const char *session);

/* Output collected per stream by an exec callback. */
typedef struct dx_out {
  char *data[3];
  size_t len[3];
  size_t total[3]; /* bytes seen, also past `keep` */
  size_t keep;     /* 0: keep everything */
} dx_out;
void dx_out_cb(sbio_stream stream, const char *data, size_t len, void *user);
void dx_out_free(dx_out *o);

/* Runs a shell script; returns the sbio_code, exit code and stdout. */
sbio_code dx_sh(sbio_sandbox *sb, const char *script, double timeout_s, int *exit_code, char **out, sbio_error *err);
/* Creates a sandbox from "docker://" (prints the error and returns NULL on failure). */
sbio_sandbox *dx_create(dx_host *h, const sbio_create_options *o);
double dx_now(void);

/* A thread that cancels a running exec or run: it requests the token once
 * the call's stdout has shown something, so the cancel lands while the
 * command runs, or after `wait_s` without output, so a command that never
 * starts fails the test instead of hanging it. It owns the call's output
 * (collected in `out`) and the token. */
typedef struct dx_canceller {
  dx_out out;
  sbio_cancel *token;
  double wait_s;
  int saw_output; /* read it after dx_canceller_join */
  pthread_t thread;
} dx_canceller;
/* Points o's output callback and cancel token at c and starts the thread:
 * 0 when it runs, and then dx_canceller_join must follow. c must outlive
 * the call. */
int dx_canceller_start(dx_canceller *c, sbio_exec_options *o, double wait_s);
/* Joins the thread; returns whether it saw output before cancelling. */
int dx_canceller_join(dx_canceller *c);
/* Frees the output and the token (after the call and the join). */
void dx_canceller_free(dx_canceller *c);

/* Runs argv (argv[0] a path) in a child whose stdin, stdout and stderr
 * are /dev/null, so a test can kill it when it pleases; the child's pid,
 * or -1. */
pid_t dx_spawn_quiet(const char *const argv[]);

#endif
