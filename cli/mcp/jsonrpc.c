/* SPDX-License-Identifier: MIT */
/* Classifying JSON-RPC messages; see jsonrpc.h. */
#include "jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void invalid(rpc_msg *m, const mj_value *id, int code, const char *why) {
  m->kind = RPC_INVALID;
  m->id = id;
  m->method = NULL;
  m->params = NULL;
  m->error = code;
  snprintf(m->why, sizeof m->why, "%s", why);
}

static int usable_id(const mj_value *id) {
  return id && (id->type == MJ_STRING || id->type == MJ_NUMBER);
}

static void classify(const mj_value *v, rpc_msg *m) {
  memset(m, 0, sizeof *m);
  if (v->type != MJ_OBJECT) {
    invalid(m, NULL, RPC_INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
    return;
  }
  const mj_value *id = mj_get(v, "id");
  const mj_value *readable_id = usable_id(id) ? id : NULL;
  if (!mj_string_is(mj_get(v, "jsonrpc"), "2.0")) {
    invalid(m, readable_id, RPC_INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
    return;
  }
  const mj_value *method = mj_get(v, "method");
  const mj_value *result = mj_get(v, "result"), *error = mj_get(v, "error");
  if (!method) {
    if ((result || error) && id) {
      m->kind = RPC_RESPONSE;
      m->id = id;
      return;
    }
    invalid(m, readable_id, RPC_INVALID_REQUEST, "Invalid Request: no \"method\"");
    return;
  }
  if (!mj_is_c_string(method) || method->len == 0) {
    invalid(m, readable_id, RPC_INVALID_REQUEST, "Invalid Request: \"method\" must be a non-empty string");
    return;
  }
  if (result || error) {
    invalid(m, readable_id, RPC_INVALID_REQUEST, "Invalid Request: a request cannot carry \"result\" or \"error\"");
    return;
  }
  const mj_value *params = mj_get(v, "params");
  if (params && params->type != MJ_OBJECT) {
    invalid(m, readable_id, RPC_INVALID_REQUEST, "Invalid Request: \"params\" must be an object");
    return;
  }
  if (id && !usable_id(id)) {
    invalid(m, NULL, RPC_INVALID_REQUEST, "Invalid Request: \"id\" must be a string or a number (MCP forbids null)");
    return;
  }
  m->kind = id ? RPC_REQUEST : RPC_NOTIFICATION;
  m->id = id;
  m->method = method->text;
  m->params = params;
}

int rpc_frame_parse(const char *text, size_t len, rpc_frame *out) {
  memset(out, 0, sizeof *out);
  mj_error err;
  out->doc = mj_parse(text, len, RPC_MAX_DEPTH, &err);
  if (!out->doc) {
    if (strcmp(err.reason, "out of memory") == 0) return -1;
    out->msgs = calloc(1, sizeof *out->msgs);
    if (!out->msgs) return -1;
    out->n = 1;
    char why[160];
    snprintf(why, sizeof why, "Parse error: %s at byte %zu", err.reason, err.offset);
    invalid(&out->msgs[0], NULL, RPC_PARSE_ERROR, why);
    return 0;
  }
  const mj_value *root = mj_root(out->doc);
  if (root->type == MJ_ARRAY) {
    out->batch = 1;
    if (root->n == 0 || root->n > RPC_MAX_BATCH) {
      out->msgs = calloc(1, sizeof *out->msgs);
      if (!out->msgs) return -1;
      out->n = 1;
      out->batch = 0; /* answered with one error, not an array */
      char why[96];
      if (root->n == 0)
        snprintf(why, sizeof why, "Invalid Request: an empty batch");
      else
        snprintf(why, sizeof why, "Invalid Request: a batch of more than %d messages", RPC_MAX_BATCH);
      invalid(&out->msgs[0], NULL, RPC_INVALID_REQUEST, why);
      return 0;
    }
    out->msgs = calloc(root->n, sizeof *out->msgs);
    if (!out->msgs) return -1;
    out->n = root->n;
    for (size_t i = 0; i < root->n; i++) classify(root->items[i], &out->msgs[i]);
    return 0;
  }
  out->msgs = calloc(1, sizeof *out->msgs);
  if (!out->msgs) return -1;
  out->n = 1;
  classify(root, &out->msgs[0]);
  return 0;
}

void rpc_frame_free(rpc_frame *f) {
  if (!f) return;
  mj_free(f->doc);
  free(f->msgs);
  memset(f, 0, sizeof *f);
}

static void begin(mj_writer *w) {
  mj_w_obj(w);
  mj_w_key(w, "jsonrpc");
  mj_w_str(w, "2.0");
}

void rpc_write_error(mj_writer *w, const mj_value *id, int code, const char *message) {
  begin(w);
  mj_w_key(w, "id");
  mj_w_value(w, id);
  mj_w_key(w, "error");
  mj_w_obj(w);
  mj_w_key(w, "code");
  mj_w_int(w, code);
  mj_w_key(w, "message");
  mj_w_str(w, message);
  mj_w_obj_end(w);
  mj_w_obj_end(w);
}

void rpc_write_result_begin(mj_writer *w, const mj_value *id) {
  begin(w);
  mj_w_key(w, "id");
  mj_w_value(w, id);
  mj_w_key(w, "result");
}

void rpc_write_notification_begin(mj_writer *w, const char *method) {
  begin(w);
  mj_w_key(w, "method");
  mj_w_str(w, method);
  mj_w_key(w, "params");
}

void rpc_write_end(mj_writer *w) {
  mj_w_obj_end(w);
}

size_t rpc_id_room(const mj_value *id) {
  if (!id) return 4; /* null */
  return id->type == MJ_STRING ? 6 * id->len + 2 : id->len;
}

char *rpc_id_key(const mj_value *id) {
  if (!usable_id(id)) return NULL;
  /* The id's JSON text: a string id may hold any character, NUL included,
   * and its JSON form is one NUL-free spelling of it. */
  mj_writer w;
  mj_w_init(&w, rpc_id_room(id) + 16);
  mj_w_arr(&w);
  mj_w_str(&w, id->type == MJ_STRING ? "s" : "n");
  mj_w_value(&w, id);
  mj_w_arr_end(&w);
  return mj_w_take(&w, NULL);
}
