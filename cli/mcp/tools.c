/* SPDX-License-Identifier: MIT */
/* The tools; see tools.h. Each tool writes the fields of its structured
 * result; the common code here adds the isolation object, renders the text
 * content (the same JSON, as the specification recommends for clients that
 * read only text) and turns library errors into tool errors whose text
 * carries the SBX code, the message and the fix. */
#include "tools.h"

#include "base64.h"
#include "jsonrpc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- schemas */
#define ISOLATION_SCHEMA                                                                                               \
  "{\"type\":\"object\",\"description\":\"The isolation this ran under: tier (UNKNOWN < CONTAINER < GVISOR < "         \
  "MICROVM), backend, observed mechanism and sandbox id (empty before a sandbox exists)\",\"properties\":{"            \
  "\"tier\":{\"type\":\"string\",\"enum\":[\"UNKNOWN\",\"CONTAINER\",\"GVISOR\",\"MICROVM\"]},"                        \
  "\"backend\":{\"type\":\"string\"},\"mechanism\":{\"type\":\"string\"},\"sandbox_id\":{\"type\":\"string\"}},"       \
  "\"required\":[\"tier\",\"backend\",\"mechanism\",\"sandbox_id\"]}"

#define EXEC_OUTPUT_SCHEMA                                                                                             \
  "{\"type\":\"object\",\"properties\":{\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"            \
  "\"exit_code\":{\"type\":\"integer\",\"description\":\"the process's exit status; 137 when it was killed\"},"        \
  "\"truncated\":{\"type\":\"boolean\",\"description\":\"stdout or stderr exceeded 65536 bytes and was cut\"},"        \
  "\"duration_ms\":{\"type\":\"integer\"},\"isolation\":" ISOLATION_SCHEMA "},"                                        \
  "\"required\":[\"stdout\",\"stderr\",\"exit_code\",\"truncated\",\"duration_ms\",\"isolation\"]}"

typedef struct tool_result {
  mj_writer sc; /* the structured result, an open object */
  int is_error;
  sbio_code code;
  char message[2048];
  char hint[512];
  char *extra; /* more text for the error (output so far); malloc'd */
} tool_result;

struct mcp_tool {
  const char *name;
  const char *title;
  const char *description;
  const char *input_schema;
  const char *output_schema;
  int read_only;
  int runs_command;
  void (*run)(const mj_value *args, mcp_call *call, tool_result *r);
};

/* ------------------------------------------------------------ errors */
static void set_error(tool_result *r, sbio_code code, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_error(tool_result *r, sbio_code code, const char *hint, const char *fmt, ...) {
  va_list ap;
  r->is_error = 1;
  r->code = code;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
  snprintf(r->hint, sizeof r->hint, "%s", hint ? hint : "");
}

/* A library error; `fix` replaces an empty hint (what to do, for a model). */
static void set_library_error(tool_result *r, const sbio_error *err, sbio_code rc, const char *fix) {
  const char *hint = err ? sbio_error_hint(err) : "";
  set_error(r, rc, hint[0] ? hint : fix, "%s", err && sbio_error_message(err)[0] ? sbio_error_message(err) : "failed");
}

/* ----------------------------------------------------------- arguments */
/* A string argument: present (unless optional), a string, no NUL (it
 * becomes a C string), within `max` bytes. 1 when usable (*out NULL when
 * absent and optional), 0 after setting the tool error. */
static int string_arg(const mj_value *args, const char *name, int required, size_t max, tool_result *r,
                      const mj_value **out) {
  const mj_value *v = args ? mj_get(args, name) : NULL;
  *out = NULL;
  if (!v) {
    if (!required) return 1;
    set_error(r, SBIO_E_INVALID_ARGUMENT, "pass it in the tool call's arguments", "missing argument \"%s\" (a string)",
              name);
    return 0;
  }
  if (v->type != MJ_STRING) {
    set_error(r, SBIO_E_INVALID_ARGUMENT, NULL, "argument \"%s\" must be a string", name);
    return 0;
  }
  if (!mj_is_c_string(v)) {
    set_error(r, SBIO_E_INVALID_ARGUMENT, NULL, "argument \"%s\" contains a NUL character", name);
    return 0;
  }
  if (v->len > max) {
    set_error(r, SBIO_E_INVALID_ARGUMENT, "split the work into smaller pieces",
              "argument \"%s\" is %zu bytes, more than the %zu this tool accepts", name, v->len, max);
    return 0;
  }
  *out = v;
  return 1;
}

/* Refuses arguments the schema does not name (additionalProperties:false),
 * so a misspelt one is reported instead of ignored. */
static int only_args(const mj_value *args, const char *const *names, tool_result *r) {
  if (!args) return 1;
  for (size_t i = 0; i < args->n; i++) {
    const mj_member *m = &args->members[i];
    int known = 0;
    for (size_t k = 0; names[k]; k++)
      if (strlen(names[k]) == m->key_len && memcmp(names[k], m->key, m->key_len) == 0) known = 1;
    if (!known) {
      char list[128] = "";
      for (size_t k = 0; names[k]; k++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", names[k]);
      set_error(r, SBIO_E_INVALID_ARGUMENT, NULL, "unknown argument \"%.64s\" (this tool takes: %s)", m->key,
                list[0] ? list : "none");
      return 0;
    }
  }
  return 1;
}

/* --------------------------------------------------------------- sandbox */
/* The sandbox, created at the first call that needs one. `needs` is what
 * the calling tool needs of the backend (SBIO_CAP_FILESYSTEM for the file
 * tools): the create declares it, so the library's admission gate refuses
 * a backend without it before anything is provisioned, instead of a
 * sandbox being made for an operation that then cannot run. */
static sbio_sandbox *need_sandbox(mcp_call *call, sbio_caps needs, tool_result *r) {
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  int created = 0;
  if (call->progress) {
    mcp_isolation iso;
    mcp_holder_isolation(call->holder, &iso);
    if (!iso.exists) call->progress(call->progress_user, "creating the sandbox");
  }
  sbio_code rc = err ? mcp_holder_sandbox(call->holder, needs, &sb, &created, err) : SBIO_E_INTERNAL;
  if (rc == SBIO_E_GONE && err && !sbio_error_message(err)[0])
    set_error(r, rc, "start a new session", "the server is shutting down; no sandbox will be created");
  else if (rc != SBIO_OK)
    set_library_error(r, err, rc, "check the backend with `sbio doctor` on the server's host");
  sbio_error_free(err);
  return rc == SBIO_OK ? sb : NULL;
}

/* After an operation failed with SBIO_E_GONE, the sandbox has ended (its
 * lifetime, or the provider reclaimed it): the next call makes a new one,
 * and the model is told its files are gone. */
static void gone(mcp_call *call, sbio_sandbox *sb, tool_result *r) {
  mcp_holder_forget(call->holder, sb);
  snprintf(r->hint, sizeof r->hint,
           "the sandbox no longer exists (its lifetime is %g s); the next tool call creates a new, empty one",
           mcp_holder_timeout(call->holder));
}

/* A file tool's failure: the library's error, and the holder forgets a
 * sandbox that is gone so that the next call creates a new one. Frees err. */
static void file_tool_failed(mcp_call *call, sbio_sandbox *sb, tool_result *r, sbio_error *err, sbio_code rc,
                             const char *fix) {
  set_library_error(r, err, rc, fix);
  if (rc == SBIO_E_GONE) gone(call, sb, r);
  sbio_error_free(err);
}

/* ------------------------------------------------------------------ exec */
static sbio_exec_options *exec_options(sbio_sandbox *sb, mcp_call *call, tool_result *r) {
  sbio_exec_options *o = sbio_exec_options_new();
  if (!o || sbio_exec_options_set_output_cap(o, MCP_OUTPUT_CAP) != SBIO_OK ||
      /* Only a backend that can stop one exec gets the token; elsewhere a
       * cancelled call runs to its end and its answer is dropped. */
      (sbio_sandbox_exec_cancellable(sb) && sbio_exec_options_set_cancel(o, call->cancel) != SBIO_OK)) {
    sbio_exec_options_free(o);
    set_error(r, SBIO_E_INTERNAL, NULL, "out of memory");
    return NULL;
  }
  return o;
}

static void put_output(tool_result *r, const sbio_exec_result *res) {
  size_t out_len = 0, err_len = 0;
  const char *out = sbio_exec_result_stdout(res, &out_len);
  const char *errs = sbio_exec_result_stderr(res, &err_len);
  mj_w_key(&r->sc, "stdout");
  mj_w_strn(&r->sc, out, out_len);
  mj_w_key(&r->sc, "stderr");
  mj_w_strn(&r->sc, errs, err_len);
  mj_w_key(&r->sc, "exit_code");
  mj_w_int(&r->sc, sbio_exec_result_exit_code(res));
  mj_w_key(&r->sc, "truncated");
  mj_w_bool(&r->sc, sbio_exec_result_truncated(res));
  mj_w_key(&r->sc, "duration_ms");
  mj_w_int(&r->sc, (long long)sbio_exec_result_duration_ms(res));
}

/* What was printed before a deadline, for the error text. */
static char *output_so_far(const sbio_exec_result *res) {
  if (!res) return NULL;
  mj_writer w;
  mj_w_init(&w, 4 * MCP_OUTPUT_CAP);
  mj_w_obj(&w);
  size_t n = 0;
  const char *s = sbio_exec_result_stdout(res, &n);
  mj_w_key(&w, "stdout_so_far");
  mj_w_strn(&w, s, n);
  s = sbio_exec_result_stderr(res, &n);
  mj_w_key(&w, "stderr_so_far");
  mj_w_strn(&w, s, n);
  mj_w_obj_end(&w);
  return mj_w_take(&w, NULL);
}

/* Runs argv (or a shell string when argv is NULL); *res set on success. */
static sbio_code run_exec(mcp_call *call, const char *const *argv, const char *script, tool_result *r,
                          sbio_exec_result **res, sbio_sandbox **sb_out) {
  *res = NULL;
  sbio_sandbox *sb = need_sandbox(call, SBIO_CAP_RUN_COMMAND, r);
  *sb_out = sb;
  if (!sb) return r->code;
  sbio_exec_options *o = exec_options(sb, call, r);
  if (!o) return SBIO_E_INTERNAL;
  sbio_error *err = sbio_error_new();
  if (call->progress) call->progress(call->progress_user, argv ? "running python3" : "running the command");
  sbio_code rc = !err   ? SBIO_E_INTERNAL
                 : argv ? sbio_sandbox_exec(sb, argv, o, res, err)
                        : sbio_sandbox_exec_shell(sb, script, o, res, err);
  if (rc != SBIO_OK) {
    set_library_error(r, err, rc, "");
    if (rc == SBIO_E_EXEC_TIMEOUT) {
      snprintf(r->hint, sizeof r->hint,
               "the command ran longer than the sandbox's %g s limit and was killed; run shorter steps, or ask the "
               "operator to raise --timeout",
               mcp_holder_timeout(call->holder));
      r->extra = output_so_far(*res);
    } else if (rc == SBIO_E_GONE) {
      gone(call, sb, r);
    }
    sbio_exec_result_free(*res);
    *res = NULL;
  }
  sbio_error_free(err);
  sbio_exec_options_free(o);
  return rc;
}

static void run_command(const mj_value *args, mcp_call *call, tool_result *r) {
  static const char *const names[] = {"cmd", NULL};
  const mj_value *cmd;
  if (!only_args(args, names, r) || !string_arg(args, "cmd", 1, RPC_MAX_FRAME, r, &cmd)) return;
  if (cmd->len == 0) {
    set_error(r, SBIO_E_INVALID_ARGUMENT, NULL, "argument \"cmd\" is empty");
    return;
  }
  sbio_exec_result *res;
  sbio_sandbox *sb;
  if (run_exec(call, NULL, cmd->text, r, &res, &sb) != SBIO_OK) return;
  put_output(r, res);
  sbio_exec_result_free(res);
}

/* A missing interpreter: the shell's or the runtime's "not found" (126 or
 * 127, with a short complaint about python3, or nothing at all). Docker puts
 * the runtime's "exec: \"python3\": executable file not found" on stdout,
 * a shell on stderr. A program of the model's own that exits 127 after
 * printing something else is left alone. */
static int mentions_missing(const char *s, size_t n) {
  return n < 2048 && strstr(s, "python3") && (strstr(s, "not found") || strstr(s, "No such file"));
}

static int no_python(const sbio_exec_result *res) {
  int code = sbio_exec_result_exit_code(res);
  size_t out_len = 0, err_len = 0;
  const char *out = sbio_exec_result_stdout(res, &out_len);
  const char *errs = sbio_exec_result_stderr(res, &err_len);
  if (code != 127 && code != 126) return 0;
  return (out_len == 0 && err_len == 0) || (out_len == 0 && mentions_missing(errs, err_len)) ||
         (err_len == 0 && mentions_missing(out, out_len));
}

static void run_python(const mj_value *args, mcp_call *call, tool_result *r) {
  static const char *const names[] = {"code", NULL};
  const mj_value *code;
  if (!only_args(args, names, r) || !string_arg(args, "code", 1, MCP_CODE_CAP, r, &code)) return;
  const char *argv[] = {"python3", "-c", code->text, NULL};
  sbio_exec_result *res;
  sbio_sandbox *sb;
  if (run_exec(call, argv, NULL, r, &res, &sb) != SBIO_OK) return;
  if (no_python(res)) {
    size_t n = 0;
    const char *errs = sbio_exec_result_stderr(res, &n);
    if (!n) errs = sbio_exec_result_stdout(res, &n);
    while (n && (errs[n - 1] == '\n' || errs[n - 1] == '\r')) n--;
    if (n > 300) n = 300;
    set_error(r, SBIO_E_EXEC,
              "use run_command with what the sandbox has, or ask the operator for an image with Python 3 (e.g. "
              "--backend docker://python:3.12-slim)",
              "this sandbox has no python3 (exit status %d%s%.*s): run_python runs the sandbox's own python3",
              sbio_exec_result_exit_code(res), n ? ": " : "", (int)n, errs);
    sbio_exec_result_free(res);
    return;
  }
  put_output(r, res);
  sbio_exec_result_free(res);
}

/* ----------------------------------------------------------------- files */
#define FILE_FIX "check the path with list_files; relative paths are resolved against /work"

static void read_file(const mj_value *args, mcp_call *call, tool_result *r) {
  static const char *const names[] = {"path", NULL};
  const mj_value *path;
  if (!only_args(args, names, r) || !string_arg(args, "path", 1, 4096, r, &path)) return;
  sbio_sandbox *sb = need_sandbox(call, SBIO_CAP_FILESYSTEM, r);
  if (!sb) return;
  sbio_error *err = sbio_error_new();
  unsigned char *data = NULL;
  size_t len = 0;
  sbio_code rc = err ? sbio_file_read(sb, path->text, MCP_FILE_CAP, &data, &len, err) : SBIO_E_INTERNAL;
  if (rc != SBIO_OK) {
    file_tool_failed(call, sb, r, err, rc, FILE_FIX);
    if (rc == SBIO_E_FS && strstr(r->message, "read limit"))
      snprintf(r->hint, sizeof r->hint,
               "read_file returns at most %zu bytes; use run_command (head, tail, grep) to look at parts of it",
               MCP_FILE_CAP);
    return;
  }
  sbio_error_free(err);
  mj_w_key(&r->sc, "path");
  mj_w_str(&r->sc, path->text);
  int text = mj_utf8_valid((const char *)data, len);
  mj_w_key(&r->sc, "content");
  if (text) {
    mj_w_strn(&r->sc, (const char *)data, len);
  } else {
    char *b64 = mcp_base64_encode(data, len, NULL);
    if (!b64) {
      sbio_free(data);
      set_error(r, SBIO_E_INTERNAL, NULL, "out of memory");
      return;
    }
    mj_w_str(&r->sc, b64);
    free(b64);
  }
  mj_w_key(&r->sc, "encoding");
  mj_w_str(&r->sc, text ? "utf-8" : "base64");
  mj_w_key(&r->sc, "size");
  mj_w_int(&r->sc, (long long)len);
  sbio_free(data);
}

static void write_file(const mj_value *args, mcp_call *call, tool_result *r) {
  static const char *const names[] = {"path", "content", "encoding", NULL};
  const mj_value *path, *encoding;
  if (!only_args(args, names, r) || !string_arg(args, "path", 1, 4096, r, &path) ||
      !string_arg(args, "encoding", 0, 16, r, &encoding))
    return;
  /* Content is any string, NUL included: it is written byte for byte. */
  const mj_value *content = args ? mj_get(args, "content") : NULL;
  if (!content || content->type != MJ_STRING) {
    set_error(r, SBIO_E_INVALID_ARGUMENT, NULL, "argument \"content\" must be a string");
    return;
  }
  int b64 = encoding && strcmp(encoding->text, "base64") == 0;
  if (encoding && !b64 && strcmp(encoding->text, "utf-8") != 0) {
    set_error(r, SBIO_E_INVALID_ARGUMENT, NULL, "argument \"encoding\" must be \"utf-8\" or \"base64\"");
    return;
  }
  unsigned char *decoded = NULL;
  const void *data = content->text;
  size_t len = content->len;
  if (b64) {
    int d = mcp_base64_decode(content->text, content->len, &decoded, &len);
    if (d != 0) {
      set_error(r, d == -2 ? SBIO_E_INTERNAL : SBIO_E_INVALID_ARGUMENT, NULL,
                d == -2 ? "out of memory" : "argument \"content\" is not valid base64 (RFC 4648, padded)");
      return;
    }
    data = decoded;
  }
  if (len > MCP_FILE_CAP) {
    free(decoded);
    set_error(r, SBIO_E_INVALID_ARGUMENT, "write the file in parts (run_command can append)",
              "content is %zu bytes, more than the %zu write_file accepts", len, MCP_FILE_CAP);
    return;
  }
  sbio_sandbox *sb = need_sandbox(call, SBIO_CAP_FILESYSTEM, r);
  if (!sb) {
    free(decoded);
    return;
  }
  sbio_error *err = sbio_error_new();
  sbio_code rc = err ? sbio_file_write(sb, path->text, data, len, err) : SBIO_E_INTERNAL;
  free(decoded);
  if (rc != SBIO_OK) {
    file_tool_failed(call, sb, r, err, rc, "create the parent directory first (run_command: mkdir -p DIR)");
    return;
  }
  sbio_error_free(err);
  mj_w_key(&r->sc, "path");
  mj_w_str(&r->sc, path->text);
  mj_w_key(&r->sc, "size");
  mj_w_int(&r->sc, (long long)len);
}

static void list_files(const mj_value *args, mcp_call *call, tool_result *r) {
  static const char *const names[] = {"path", NULL};
  const mj_value *path;
  if (!only_args(args, names, r) || !string_arg(args, "path", 0, 4096, r, &path)) return;
  const char *dir = path ? path->text : "/work";
  sbio_sandbox *sb = need_sandbox(call, SBIO_CAP_FILESYSTEM, r);
  if (!sb) return;
  sbio_error *err = sbio_error_new();
  sbio_file_list *l = NULL;
  sbio_code rc = err ? sbio_file_list_dir(sb, dir, &l, err) : SBIO_E_INTERNAL;
  if (rc != SBIO_OK) {
    file_tool_failed(call, sb, r, err, rc, FILE_FIX);
    return;
  }
  sbio_error_free(err);
  size_t n = sbio_file_list_count(l);
  mj_w_key(&r->sc, "path");
  mj_w_str(&r->sc, dir);
  mj_w_key(&r->sc, "entries");
  mj_w_arr(&r->sc);
  for (size_t i = 0; i < n && i < MCP_LIST_CAP; i++) {
    mj_w_obj(&r->sc);
    mj_w_key(&r->sc, "path");
    mj_w_str(&r->sc, sbio_file_list_path(l, i));
    mj_w_key(&r->sc, "size");
    mj_w_int(&r->sc, (long long)sbio_file_list_size(l, i));
    mj_w_key(&r->sc, "is_dir");
    mj_w_bool(&r->sc, sbio_file_list_is_dir(l, i));
    mj_w_obj_end(&r->sc);
  }
  mj_w_arr_end(&r->sc);
  mj_w_key(&r->sc, "truncated");
  mj_w_bool(&r->sc, n > MCP_LIST_CAP);
  sbio_file_list_free(l);
}

/* ------------------------------------------------------------ sandbox_info */
/* The metadata entry of the mechanism the sandbox uses, or -1. */
static long mechanism_index(const sbio_backend_info *b, const char *name) {
  for (size_t i = 0; b && i < sbio_backend_info_mechanism_count(b); i++)
    if (strcmp(sbio_mechanism_name(b, i), name) == 0) return (long)i;
  return -1;
}

static void sandbox_info(const mj_value *args, mcp_call *call, tool_result *r) {
  static const char *const names[] = {NULL};
  if (!only_args(args, names, r)) return;
  sbio_sandbox *sb = need_sandbox(call, 0, r);
  if (!sb) return;
  mcp_holder *h = call->holder;
  const sbio_backend_info *b = sbio_host_backend_find(mcp_holder_host(h), sbio_sandbox_backend(sb));
  long mi = mechanism_index(b, sbio_sandbox_mechanism(sb));
  mj_writer *w = &r->sc;
  mj_w_key(w, "backend");
  mj_w_str(w, sbio_sandbox_backend(sb));
  mj_w_key(w, "backend_version");
  mj_w_str(w, b ? sbio_backend_info_version(b) : "");
  mj_w_key(w, "sandbox_id");
  mj_w_str(w, sbio_sandbox_id(sb));
  mj_w_key(w, "mechanism");
  mj_w_str(w, sbio_sandbox_mechanism(sb));
  mj_w_key(w, "tier");
  mj_w_str(w, sbio_tier_name(sbio_sandbox_tier(sb)));
  mj_w_key(w, "claimed_tier");
  mj_w_str(w, sbio_tier_name(mi >= 0 ? sbio_mechanism_claimed_tier(b, (size_t)mi) : SBIO_TIER_UNKNOWN));
  /* Why the tier is what it is: the reason it is UNKNOWN or stale, or the
   * provider's own sentence that supports it. */
  char why[1024];
  const char *reason = mi >= 0 ? sbio_mechanism_reason(b, (size_t)mi) : "";
  if (mi < 0)
    snprintf(why, sizeof why, "the observed mechanism \"%s\" is not declared by the backend's metadata",
             sbio_sandbox_mechanism(sb));
  else if (reason[0])
    snprintf(why, sizeof why, "%s", reason);
  else
    snprintf(why, sizeof why, "verified against the provider's documentation (%s, read %s): \"%s\"",
             sbio_mechanism_source_url(b, (size_t)mi), sbio_mechanism_verified_on(b, (size_t)mi),
             sbio_mechanism_quote(b, (size_t)mi));
  mj_w_key(w, "tier_reason");
  mj_w_str(w, why);
  mj_w_key(w, "source");
  if (mi >= 0 && sbio_mechanism_source_url(b, (size_t)mi)[0]) {
    mj_w_obj(w);
    mj_w_key(w, "url");
    mj_w_str(w, sbio_mechanism_source_url(b, (size_t)mi));
    mj_w_key(w, "verified_on");
    mj_w_str(w, sbio_mechanism_verified_on(b, (size_t)mi));
    mj_w_key(w, "quote");
    mj_w_str(w, sbio_mechanism_quote(b, (size_t)mi));
    mj_w_key(w, "stale");
    mj_w_bool(w, sbio_mechanism_stale(b, (size_t)mi));
    mj_w_obj_end(w);
  } else {
    mj_w_null(w);
  }
  mj_w_key(w, "required_tier");
  sbio_tier floor = mcp_holder_floor(h);
  if (floor == SBIO_TIER_UNKNOWN)
    mj_w_null(w);
  else
    mj_w_str(w, sbio_tier_name(floor));
  mj_w_key(w, "network");
  mj_w_obj(w);
  mj_w_key(w, "egress");
  mj_w_str(w, mcp_holder_config(h)->egress == SBIO_EGRESS_ALLOW ? "allow" : "deny");
  mj_w_obj_end(w);
  mj_w_key(w, "timeout_s");
  mj_w_double(w, mcp_holder_timeout(h));
  mj_w_key(w, "capabilities");
  mj_w_arr(w);
  sbio_caps caps = sbio_sandbox_capabilities(sb);
  for (unsigned i = 0; i < SBIO_CAP_COUNT; i++) {
    sbio_caps bit = (sbio_caps)1 << i;
    if ((caps & bit) && sbio_capability_name(bit)) mj_w_str(w, sbio_capability_name(bit));
  }
  mj_w_arr_end(w);
  mj_w_key(w, "exec_cancellable");
  mj_w_bool(w, sbio_sandbox_exec_cancellable(sb));
  mj_w_key(w, "output_cap_bytes");
  mj_w_int(w, (long long)MCP_OUTPUT_CAP);
}

/* ------------------------------------------------------------ the table */
static const mcp_tool tools[] = {
    {"run_command", "Run a shell command",
     "Run a shell command line (/bin/sh -c) in the sandbox and return its stdout, stderr and exit status. "
     "stdout and stderr are each cut at 65536 bytes (truncated says so). Every call runs in the same sandbox, so "
     "files persist between calls. The result names the sandbox's isolation tier.",
     "{\"type\":\"object\",\"properties\":{\"cmd\":{\"type\":\"string\",\"description\":\"the command line, run by "
     "the sandbox's /bin/sh in its work directory\"}},\"required\":[\"cmd\"],\"additionalProperties\":false}",
     EXEC_OUTPUT_SCHEMA, 0, 1, run_command},
    {"run_python", "Run Python code",
     "Run a Python program with the sandbox's own python3 (python3 -c CODE) and return its stdout, stderr and exit "
     "status, each cut at 65536 bytes. A sandbox without python3 gives a tool error saying so. The result names the "
     "sandbox's isolation tier.",
     "{\"type\":\"object\",\"properties\":{\"code\":{\"type\":\"string\",\"description\":\"the program text, at most "
     "100000 bytes\"}},\"required\":[\"code\"],\"additionalProperties\":false}",
     EXEC_OUTPUT_SCHEMA, 0, 1, run_python},
    {"read_file", "Read a file",
     "Read a file of the sandbox (at most 1048576 bytes). UTF-8 text comes back as is (encoding utf-8), anything "
     "else base64-encoded (encoding base64). A missing file is a tool error (SBX_E1701).",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"path in the sandbox; "
     "relative paths are resolved against /work\"}},\"required\":[\"path\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},"
     "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"]},\"size\":{\"type\":\"integer\"},"
     "\"isolation\":" ISOLATION_SCHEMA "},\"required\":[\"path\",\"content\",\"encoding\",\"size\",\"isolation\"]}",
     1, 0, read_file},
    {"write_file", "Write a file",
     "Create or replace a file of the sandbox with the given content (at most 1048576 bytes). The parent directory "
     "must exist. With encoding base64 the content is decoded first, for binary files.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"path in the sandbox; "
     "relative paths are resolved against /work\"},\"content\":{\"type\":\"string\",\"description\":\"the file's "
     "content\"},\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"],\"default\":\"utf-8\"}},"
     "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\","
     "\"description\":\"bytes written\"},\"isolation\":" ISOLATION_SCHEMA "},\"required\":[\"path\",\"size\","
     "\"isolation\"]}",
     0, 0, write_file},
    {"list_files", "List a directory",
     "List the entries of a directory of the sandbox (at most 1000; truncated says when there were more), each with "
     "its full path, size in bytes and whether it is a directory.",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"directory in the sandbox\","
     "\"default\":\"/work\"}},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"entries\":{\"type\":\"array\",\"items\":{"
     "\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"},\"is_dir\":{"
     "\"type\":\"boolean\"}},\"required\":[\"path\",\"size\",\"is_dir\"]}},\"truncated\":{\"type\":\"boolean\"},"
     "\"isolation\":" ISOLATION_SCHEMA "},\"required\":[\"path\",\"entries\",\"truncated\",\"isolation\"]}",
     1, 0, list_files},
    {"sandbox_info", "Describe the sandbox",
     "Describe the sandbox the tools run in: backend, observed isolation mechanism, isolation tier (UNKNOWN < "
     "CONTAINER < GVISOR < MICROVM) and why it is that tier (the provider's own documentation, or why it could not "
     "be verified), the required tier, the network policy, the lifetime, the capabilities. Nothing here can be "
     "changed by a tool.",
     "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
     "{\"type\":\"object\",\"properties\":{\"backend\":{\"type\":\"string\"},\"backend_version\":{\"type\":\"string\"},"
     "\"sandbox_id\":{\"type\":\"string\"},\"mechanism\":{\"type\":\"string\"},\"tier\":{\"type\":\"string\"},"
     "\"claimed_tier\":{\"type\":\"string\"},\"tier_reason\":{\"type\":\"string\"},\"source\":{\"type\":[\"object\","
     "\"null\"],\"properties\":{\"url\":{\"type\":\"string\"},\"verified_on\":{\"type\":\"string\"},\"quote\":{"
     "\"type\":\"string\"},\"stale\":{\"type\":\"boolean\"}}},\"required_tier\":{\"type\":[\"string\",\"null\"]},"
     "\"network\":{\"type\":\"object\",\"properties\":{\"egress\":{\"type\":\"string\",\"enum\":[\"deny\",\"allow\"]}},"
     "\"required\":[\"egress\"]},\"timeout_s\":{\"type\":\"number\"},\"capabilities\":{\"type\":\"array\",\"items\":{"
     "\"type\":\"string\"}},\"exec_cancellable\":{\"type\":\"boolean\"},\"output_cap_bytes\":{\"type\":\"integer\"},"
     "\"isolation\":" ISOLATION_SCHEMA "},\"required\":[\"backend\",\"sandbox_id\",\"mechanism\",\"tier\","
     "\"tier_reason\",\"source\",\"required_tier\",\"network\",\"timeout_s\",\"capabilities\",\"isolation\"]}",
     1, 0, sandbox_info},
};

const mcp_tool *mcp_tool_find(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
    if (strlen(tools[i].name) == len && memcmp(tools[i].name, name, len) == 0) return &tools[i];
  return NULL;
}

const char *mcp_tool_name(const mcp_tool *t) {
  return t->name;
}

int mcp_tool_runs_command(const mcp_tool *t) {
  return t->runs_command;
}

void mcp_tools_list(mj_writer *w, const char *version) {
  int structured = mcp_version_structured(version);
  int annotations = strcmp(version, "2025-03-26") >= 0;
  mj_w_obj(w);
  mj_w_key(w, "tools");
  mj_w_arr(w);
  for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
    const mcp_tool *t = &tools[i];
    mj_w_obj(w);
    mj_w_key(w, "name");
    mj_w_str(w, t->name);
    if (structured) {
      mj_w_key(w, "title");
      mj_w_str(w, t->title);
    }
    mj_w_key(w, "description");
    mj_w_str(w, t->description);
    mj_w_key(w, "inputSchema");
    mj_w_raw(w, t->input_schema);
    if (structured) {
      mj_w_key(w, "outputSchema");
      mj_w_raw(w, t->output_schema);
    }
    if (annotations) {
      /* Hints for the client (untrusted by design): none reaches outside
       * the sandbox; the write and exec tools change its state. */
      mj_w_key(w, "annotations");
      mj_w_obj(w);
      mj_w_key(w, "title");
      mj_w_str(w, t->title);
      mj_w_key(w, "readOnlyHint");
      mj_w_bool(w, t->read_only);
      if (!t->read_only) {
        mj_w_key(w, "destructiveHint");
        mj_w_bool(w, t->runs_command);
      }
      mj_w_key(w, "openWorldHint");
      mj_w_bool(w, 0);
      mj_w_obj_end(w);
    }
    mj_w_obj_end(w);
  }
  mj_w_arr_end(w);
  mj_w_obj_end(w);
}

/* -------------------------------------------------------------- results */
static void write_isolation(mj_writer *w, const mcp_isolation *iso) {
  mj_w_obj(w);
  mj_w_key(w, "tier");
  mj_w_str(w, sbio_tier_name(iso->tier));
  mj_w_key(w, "backend");
  mj_w_str(w, iso->backend);
  mj_w_key(w, "mechanism");
  mj_w_str(w, iso->mechanism);
  mj_w_key(w, "sandbox_id");
  mj_w_str(w, iso->sandbox_id);
  mj_w_obj_end(w);
}

/* [SBX_E1701] PathNotFound: message / Fix: hint / Isolation: ... */
static char *error_text(const tool_result *r, const mcp_isolation *iso) {
  const char *name = sbio_code_name(r->code), *cls = sbio_code_class(r->code);
  size_t extra = r->extra ? strlen(r->extra) : 0;
  size_t size = strlen(r->message) + strlen(r->hint) + extra + 1024;
  char *text = malloc(size);
  if (!text) return NULL;
  int n = snprintf(text, size, "[%s] %s: %s\nFix: %s\nIsolation: %s (backend %s", name ? name : "SBX_E1900",
                   cls ? cls : "InternalError", r->message, r->hint[0] ? r->hint : "see the message",
                   sbio_tier_name(iso->tier), iso->backend);
  if (n < 0) n = 0;
  if ((size_t)n < size && iso->exists)
    n += snprintf(text + n, size - (size_t)n, ", mechanism %s, sandbox %s)", iso->mechanism, iso->sandbox_id);
  else if ((size_t)n < size)
    n += snprintf(text + n, size - (size_t)n, "; no sandbox yet)");
  if (r->extra && (size_t)n < size) snprintf(text + n, size - (size_t)n, "\nOutput before it was killed: %s", r->extra);
  return text;
}

sbio_code mcp_tool_run(const mcp_tool *t, const mj_value *args, mcp_call *call, mj_writer *w) {
  tool_result r;
  memset(&r, 0, sizeof r);
  mj_w_init(&r.sc, MCP_MAX_OUTPUT / 2);
  mj_w_obj(&r.sc);
  t->run(args, call, &r);
  mcp_isolation iso;
  mcp_holder_isolation(call->holder, &iso);
  char *sc = NULL;
  if (!r.is_error) {
    mj_w_key(&r.sc, "isolation");
    write_isolation(&r.sc, &iso);
    mj_w_obj_end(&r.sc);
    sc = mj_w_take(&r.sc, NULL);
    if (!sc) set_error(&r, SBIO_E_INTERNAL, "ask for less output", "the result was too large to send");
  }
  mj_w_free(&r.sc);
  char *text = r.is_error ? error_text(&r, &iso) : sc;
  mj_w_obj(w);
  mj_w_key(w, "content");
  mj_w_arr(w);
  mj_w_obj(w);
  mj_w_key(w, "type");
  mj_w_str(w, "text");
  mj_w_key(w, "text");
  mj_w_str(w, text ? text : "[SBX_E1900] InternalError: out of memory");
  mj_w_obj_end(w);
  mj_w_arr_end(w);
  if (!r.is_error && sc && mcp_version_structured(call->version)) {
    mj_w_key(w, "structuredContent");
    mj_w_raw(w, sc);
  }
  mj_w_key(w, "isError");
  mj_w_bool(w, r.is_error);
  mj_w_obj_end(w);
  if (text != sc) free(text);
  free(sc);
  free(r.extra);
  return r.is_error ? r.code : SBIO_OK;
}
