/* SPDX-License-Identifier: MIT */
#include "vshell.h"

#include "fspath.h"
#include "shlex.h"
#include "vcmds.h"

#include <stdlib.h>
#include <string.h>

int sbio__fake_vsh_should_stop(fake_vsh *sh) {
  if (sh->stop == FAKE_WAKE_DONE) sh->stop = sbio__fake_vpoll(sh->call, &sh->box->killed);
  return sh->stop != FAKE_WAKE_DONE;
}

void sbio__fake_vsh_free(fake_vsh *sh) {
  sbio__fake_env_free(&sh->env);
  free(sh->cwd);
  sh->cwd = NULL;
}

int sbio__fake_vsh_run_argv(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  if (sbio__fake_vsh_should_stop(sh)) return 137;
  if (argc == 0) return 0;
  /* "/bin/echo" is echo: the builtins stand in for the usual binaries. */
  const char *slash = strrchr(argv[0], '/');
  fake_cmd_fn fn = sbio__fake_vcmd_find(slash ? slash + 1 : argv[0]);
  if (!fn) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: command not found: %s\n", argv[0]);
    return 127;
  }
  return fn(sh, io, argc, argv);
}

static const char *lookup_var(void *user, const char *name) {
  fake_vsh *sh = user;
  if (strcmp(name, "?") == 0) {
    snprintf(sh->status_text, sizeof sh->status_text, "%d", sh->status);
    return sh->status_text;
  }
  return sbio__fake_env_get(&sh->env, name);
}

/* Every variable is set while checking syntax, so that an empty expansion
 * ("ambiguous redirect") is only diagnosed when the command runs. */
static const char *lookup_dummy(void *user, const char *name) {
  (void)user;
  (void)name;
  return "x";
}

/* Binds fd `r->fd` of `io` as the redirection says; 0 ok, else an exit status. */
static int apply_redirect(fake_vsh *sh, fake_io *io, const fake_redir *r) {
  fake_sink *sink = &io->fd[r->fd];
  if (r->op == FAKE_REDIR_DUP) {
    const fake_sink *src = &io->fd[r->dup_fd];
    if (sink == src) return 0;
    char *path = src->path ? strdup(src->path) : NULL;
    if (src->path && !path) return 2;
    free(sink->path);
    sink->kind = src->kind;
    sink->path = path;
    return 0;
  }
  if (strcmp(r->path, "/dev/null") == 0 || strcmp(r->path, "/dev/stdout") == 0 || strcmp(r->path, "/dev/stderr") == 0) {
    fake_sink_kind kind = r->path[5] == 'n' ? FAKE_SINK_NULL : r->path[8] == 'o' ? FAKE_SINK_STDOUT : FAKE_SINK_STDERR;
    free(sink->path);
    sink->path = NULL;
    sink->kind = kind;
    return 0;
  }
  char *path = NULL;
  if (sbio__fake_path_resolve(sh->cwd, r->path, &path) != FAKE_PATH_OK) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: cannot create %s: File name too long\n", r->path);
    return 1;
  }
  /* Create or truncate now, like sh, so the file exists even if the command
   * writes nothing. */
  pthread_mutex_lock(&sh->box->mu);
  fake_memfs_status st = sbio__fake_memfs_write(sh->box->fs, path, "", 0, r->op == FAKE_REDIR_APPEND);
  pthread_mutex_unlock(&sh->box->mu);
  if (st != FAKE_FS_OK) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: cannot create %s: %s\n", r->path, sbio__fake_vcmd_strerror(st));
    free(path);
    return 1;
  }
  free(sink->path);
  sink->kind = FAKE_SINK_FILE;
  sink->path = path;
  return 0;
}

/* Runs the command words with NAME=value prefixes as its environment. */
static int run_with_assignments(fake_vsh *sh, const fake_io *io, const fake_cmd *cmd, size_t n_assign) {
  size_t argc = cmd->n_words - n_assign;
  const char **argv = malloc((argc + 1) * sizeof *argv);
  fake_env saved = sh->env, overlay;
  sbio__fake_env_init(&overlay);
  int ok = argv && sbio__fake_env_copy(&overlay, &sh->env) == 0;
  for (size_t i = 0; ok && i < n_assign; i++) {
    char *w = cmd->words[i].text;
    w[cmd->words[i].assign - 1] = '\0'; /* split NAME=value in place */
    ok = sbio__fake_env_set(&overlay, w, w + cmd->words[i].assign) == 0;
    w[cmd->words[i].assign - 1] = '=';
  }
  int status = 2;
  if (!ok) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: out of memory\n");
  } else {
    for (size_t i = 0; i < argc; i++) argv[i] = cmd->words[n_assign + i].text;
    argv[argc] = NULL;
    sh->env = overlay;
    status = sbio__fake_vsh_run_argv(sh, io, argc, argv);
    overlay = sh->env;
    sh->env = saved;
  }
  sbio__fake_env_free(&overlay);
  free(argv);
  return status;
}

static int run_simple(fake_vsh *sh, const fake_io *parent_io, fake_cmd *cmd) {
  if (cmd->error) {
    sbio__fake_io_printf(&sh->out, parent_io, 2, "fake: %s\n", cmd->error);
    return 1;
  }
  fake_io io;
  if (sbio__fake_io_copy(&io, parent_io) != 0) return 2;
  int status = 0;
  for (size_t i = 0; status == 0 && i < cmd->n_redirs; i++) status = apply_redirect(sh, &io, &cmd->redirs[i]);
  size_t n_assign = 0;
  while (n_assign < cmd->n_words && cmd->words[n_assign].assign) n_assign++;
  if (status == 0 && n_assign == cmd->n_words) {
    /* Only assignments: they set shell variables (seen by later commands). */
    for (size_t i = 0; i < n_assign; i++) {
      char *w = cmd->words[i].text;
      w[cmd->words[i].assign - 1] = '\0';
      if (sbio__fake_env_set(&sh->env, w, w + cmd->words[i].assign) != 0) status = 2;
    }
  } else if (status == 0) {
    status = run_with_assignments(sh, &io, cmd, n_assign);
  }
  sbio__fake_io_free(&io);
  return status;
}

/* Checks the whole script before running any of it, as sh does. */
static int check_syntax(fake_vsh *sh, const fake_io *io, const char *script) {
  fake_lexer lx = {script, 0};
  char msg[128];
  for (;;) {
    fake_cmd cmd = {0};
    fake_sep sep;
    int rc = sbio__fake_lex_command(&lx, lookup_dummy, NULL, &cmd, &sep, msg, sizeof msg);
    sbio__fake_cmd_free(&cmd);
    if (rc == FAKE_LEX_SYNTAX) {
      sbio__fake_io_printf(&sh->out, io, 2, "fake: syntax error: %s\n", msg);
      return 2;
    }
    if (rc == FAKE_LEX_NOMEM) {
      sbio__fake_io_printf(&sh->out, io, 2, "fake: out of memory\n");
      return 2;
    }
    if (sep == FAKE_SEP_END) return 0;
  }
}

int sbio__fake_vsh_run_script(fake_vsh *sh, const fake_io *io, const char *script) {
  int bad = check_syntax(sh, io, script);
  if (bad) return sh->status = bad;
  fake_lexer lx = {script, 0};
  char msg[128];
  int skip = 0;
  for (;;) {
    if (sbio__fake_vsh_should_stop(sh)) return 137;
    fake_cmd cmd = {0};
    fake_sep sep;
    int rc = sbio__fake_lex_command(&lx, lookup_var, sh, &cmd, &sep, msg, sizeof msg);
    if (rc != FAKE_LEX_OK) { /* after check_syntax: out of memory, or an expansion too long */
      sbio__fake_cmd_free(&cmd);
      sbio__fake_io_printf(&sh->out, io, 2, "fake: %s\n", rc == FAKE_LEX_SYNTAX ? msg : "out of memory");
      return sh->status = 2;
    }
    if (!skip && (cmd.n_words > 0 || cmd.n_redirs > 0 || cmd.error)) sh->status = run_simple(sh, io, &cmd);
    sbio__fake_cmd_free(&cmd);
    if (sh->exiting || sep == FAKE_SEP_END) return sh->status;
    /* a && b || c: a skipped command leaves $? alone, which gives sh's
     * left-to-right grouping. */
    skip = (sep == FAKE_SEP_AND && sh->status != 0) || (sep == FAKE_SEP_OR && sh->status == 0);
  }
}

int sbio__fake_vsh_subshell(fake_vsh *sh, const fake_io *io, const char *script) {
  if (sh->depth >= FAKE_VSH_MAX_DEPTH) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: sh: nested too deeply (more than %d levels)\n", FAKE_VSH_MAX_DEPTH);
    return 2;
  }
  fake_vsh child = *sh;
  sbio__fake_env_init(&child.env);
  child.cwd = strdup(sh->cwd);
  child.depth = sh->depth + 1;
  child.exiting = 0;
  child.status = 0;
  int status = 2;
  if (!child.cwd || sbio__fake_env_copy(&child.env, &sh->env) != 0)
    sbio__fake_io_printf(&sh->out, io, 2, "fake: out of memory\n");
  else
    status = sbio__fake_vsh_run_script(&child, io, script);
  sh->stop = child.stop;
  sbio__fake_vsh_free(&child);
  return status;
}
