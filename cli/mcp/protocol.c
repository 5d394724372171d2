/* SPDX-License-Identifier: MIT */
/* MCP sessions; see protocol.h. Message shapes follow the specification
 * revisions the official TypeScript SDK (1.32) negotiates: 2025-11-25,
 * 2025-06-18, 2025-03-26, 2024-11-05 and 2024-10-07. */
#include "protocol.h"

#include "holder.h"
#include "tools.h"
#include "worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const mcp_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"};
const size_t mcp_n_versions = sizeof mcp_versions / sizeof mcp_versions[0];

int mcp_version_supported(const char *v) {
  for (size_t i = 0; i < mcp_n_versions; i++)
    if (strcmp(mcp_versions[i], v) == 0) return 1;
  return 0;
}

/* Revisions are dates: they compare as strings. */
int mcp_version_structured(const char *v) {
  return strcmp(v, "2025-06-18") >= 0;
}

/* ------------------------------------------------------------ channels */
void mcp_channel_init(mcp_channel *ch, const mcp_channel_ops *ops) {
  ch->ops = ops;
  atomic_init(&ch->refs, 1);
}
void mcp_channel_ref(mcp_channel *ch) {
  atomic_fetch_add(&ch->refs, 1);
}
void mcp_channel_unref(mcp_channel *ch) {
  if (ch && atomic_fetch_sub(&ch->refs, 1) == 1) ch->ops->destroy(ch);
}

/* ------------------------------------------------------------ sessions */
mcp_session *mcp_session_new(mcp_server *srv) {
  mcp_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  atomic_init(&s->refs, 1);
  atomic_init(&s->closed, 0);
  s->server = srv;
  pthread_mutex_init(&s->lock, NULL);
  return s;
}

void mcp_session_ref(mcp_session *s) {
  atomic_fetch_add(&s->refs, 1);
}

void mcp_session_unref(mcp_session *s) {
  if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
  pthread_mutex_destroy(&s->lock);
  free(s);
}

void mcp_session_close(mcp_session *s) {
  atomic_store(&s->closed, 1);
  mcp_worker_cancel_session(s->server->worker, s);
}

void mcp_session_version(mcp_session *s, char *out, size_t size) {
  pthread_mutex_lock(&s->lock);
  snprintf(out, size, "%s", s->version);
  pthread_mutex_unlock(&s->lock);
}

/* ------------------------------------------------------------ sending */
static void send_writer(mcp_channel *ch, mj_writer *w) {
  size_t len = 0;
  char *text = mj_w_take(w, &len);
  if (text) {
    ch->ops->send(ch, text, len);
    free(text);
    return;
  }
  /* Only an answer too large for MCP_MAX_OUTPUT or out of memory gets
   * here; the client still learns that its request failed. */
  static const char oom[] =
      "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"Internal error: the answer could "
      "not be built (too large or out of memory)\"}}";
  ch->ops->send(ch, oom, sizeof oom - 1);
}

void mcp_send_error(mcp_channel *ch, const mj_value *id, int code, const char *message) {
  mj_writer w;
  mj_w_init(&w, 64 * 1024 + rpc_id_room(id));
  rpc_write_error(&w, id, code, message);
  send_writer(ch, &w);
}

/* ------------------------------------------------------------ methods */
static void instructions(mcp_session *s, char *buf, size_t size) {
  mcp_holder *h = s->server->holder;
  mcp_isolation iso;
  mcp_holder_isolation(h, &iso);
  sbio_tier floor = mcp_holder_floor(h);
  snprintf(buf, size,
           "Tools run in one sandbox of backend %s, isolation tier %s%s%s (UNKNOWN < CONTAINER < GVISOR < MICROVM), "
           "created at the first tool call and destroyed when this session's server stops. Every result names the "
           "tier; sandbox_info says why the tier is what it is. Network egress is %s. The backend, the isolation "
           "floor, the timeout and egress are fixed by the operator and no tool changes them.",
           iso.backend, sbio_tier_name(iso.tier), floor != SBIO_TIER_UNKNOWN ? ", required at least " : "",
           floor != SBIO_TIER_UNKNOWN ? sbio_tier_name(floor) : "",
           mcp_holder_config(h)->egress == SBIO_EGRESS_ALLOW ? "allowed" : "denied");
}

static void handle_initialize(mcp_session *s, const rpc_msg *m, mcp_channel *ch, mcp_frame_result *res) {
  const mj_value *pv = mj_get(m->params, "protocolVersion");
  if (!m->params || !mj_is_c_string(pv)) {
    mcp_send_error(ch, m->id, RPC_INVALID_PARAMS, "Invalid params: initialize needs params.protocolVersion (a string)");
    res->answered++;
    return;
  }
  pthread_mutex_lock(&s->lock);
  int again = s->initialized;
  if (!again) {
    /* The client's revision when we speak it, else our latest: the
     * client then decides whether it can continue. */
    snprintf(s->version, sizeof s->version, "%s", mcp_version_supported(pv->text) ? pv->text : MCP_LATEST_VERSION);
    s->initialized = 1;
  }
  char version[16];
  snprintf(version, sizeof version, "%s", s->version);
  pthread_mutex_unlock(&s->lock);
  if (again) {
    mcp_send_error(ch, m->id, RPC_INVALID_REQUEST, "Invalid Request: the session is already initialized");
    res->answered++;
    return;
  }
  char text[1024];
  instructions(s, text, sizeof text);
  mj_writer w;
  mj_w_init(&w, 64 * 1024 + rpc_id_room(m->id));
  rpc_write_result_begin(&w, m->id);
  mj_w_obj(&w);
  mj_w_key(&w, "protocolVersion");
  mj_w_str(&w, version);
  mj_w_key(&w, "capabilities");
  mj_w_raw(&w, "{\"tools\":{\"listChanged\":false}}");
  mj_w_key(&w, "serverInfo");
  mj_w_obj(&w);
  mj_w_key(&w, "name");
  mj_w_str(&w, "sbio-mcp");
  if (mcp_version_structured(version)) {
    mj_w_key(&w, "title");
    mj_w_str(&w, "sandboxio");
  }
  mj_w_key(&w, "version");
  mj_w_str(&w, sbio_version());
  mj_w_obj_end(&w);
  mj_w_key(&w, "instructions");
  mj_w_str(&w, text);
  mj_w_obj_end(&w);
  rpc_write_end(&w);
  send_writer(ch, &w);
  res->answered++;
  res->initialized = 1;
}

static void answer_empty(const rpc_msg *m, mcp_channel *ch, mcp_frame_result *res) {
  mj_writer w;
  mj_w_init(&w, 4096 + rpc_id_room(m->id));
  rpc_write_result_begin(&w, m->id);
  mj_w_raw(&w, "{}");
  rpc_write_end(&w);
  send_writer(ch, &w);
  res->answered++;
}

static void handle_tools_list(const rpc_msg *m, const char *version, mcp_channel *ch, mcp_frame_result *res) {
  mj_writer w;
  mj_w_init(&w, 256 * 1024 + rpc_id_room(m->id));
  rpc_write_result_begin(&w, m->id);
  mcp_tools_list(&w, version);
  rpc_write_end(&w);
  send_writer(ch, &w);
  res->answered++;
}

static void handle_tools_call(mcp_session *s, const rpc_msg *m, const char *version, mcp_channel *ch,
                              mcp_frame_result *res) {
  const mj_value *name = m->params ? mj_get(m->params, "name") : NULL;
  if (!name || name->type != MJ_STRING) {
    mcp_send_error(ch, m->id, RPC_INVALID_PARAMS, "Invalid params: tools/call needs params.name (a string)");
    res->answered++;
    return;
  }
  const mcp_tool *tool = mcp_tool_find(name->text, name->len);
  if (!tool) {
    mj_writer msg;
    mj_w_init(&msg, 1024);
    /* The name is the client's text: quoted as JSON, so it stays one
     * valid, bounded string whatever it holds. */
    mj_w_strn(&msg, name->text, name->len < 200 ? name->len : 200);
    char *quoted = mj_w_take(&msg, NULL);
    char text[512];
    snprintf(text, sizeof text,
             "Unknown tool: %s (tools: run_command, run_python, read_file, write_file, list_files, sandbox_info)",
             quoted ? quoted : "?");
    free(quoted);
    mcp_send_error(ch, m->id, RPC_INVALID_PARAMS, text);
    res->answered++;
    return;
  }
  const mj_value *args = mj_get(m->params, "arguments");
  if (args && args->type != MJ_OBJECT) {
    mcp_send_error(ch, m->id, RPC_INVALID_PARAMS, "Invalid params: params.arguments must be an object");
    res->answered++;
    return;
  }
  const mj_value *meta = mj_get(m->params, "_meta");
  const mj_value *token = meta ? mj_get(meta, "progressToken") : NULL;
  if (token && token->type != MJ_STRING && token->type != MJ_NUMBER) token = NULL;
  int rc = mcp_worker_submit(s->server->worker, s, ch, m->id, tool, args, token, version);
  if (rc == 0) {
    res->deferred++;
    return;
  }
  char text[160];
  if (rc == 1)
    snprintf(text, sizeof text, "Server busy: %d tool calls are already waiting; retry when one has finished",
             MCP_QUEUE_MAX);
  else
    snprintf(text, sizeof text, "Internal error: out of memory");
  mcp_send_error(ch, m->id, rc == 1 ? RPC_SERVER_ERROR : RPC_INTERNAL_ERROR, text);
  res->answered++;
}

static void handle_request(mcp_session *s, const rpc_msg *m, mcp_channel *ch, mcp_frame_result *res) {
  if (strcmp(m->method, "initialize") == 0) {
    handle_initialize(s, m, ch, res);
    return;
  }
  if (strcmp(m->method, "ping") == 0) { /* allowed at any time */
    answer_empty(m, ch, res);
    return;
  }
  char version[16];
  pthread_mutex_lock(&s->lock);
  int initialized = s->initialized;
  snprintf(version, sizeof version, "%s", s->version);
  pthread_mutex_unlock(&s->lock);
  int known = strcmp(m->method, "tools/list") == 0 || strcmp(m->method, "tools/call") == 0;
  if (known && !initialized) {
    mcp_send_error(ch, m->id, RPC_INVALID_REQUEST,
                   "Invalid Request: the session is not initialized (send initialize first)");
    res->answered++;
    return;
  }
  if (strcmp(m->method, "tools/list") == 0) {
    handle_tools_list(m, version, ch, res);
  } else if (strcmp(m->method, "tools/call") == 0) {
    handle_tools_call(s, m, version, ch, res);
  } else {
    /* resources, prompts, logging, completion, sampling...: this server
     * declares only tools. The method name is not echoed (a client's text,
     * possibly long); the message says what exists. */
    mcp_send_error(ch, m->id, RPC_METHOD_NOT_FOUND,
                   "Method not found (this server offers initialize, ping, tools/list and tools/call)");
    res->answered++;
  }
}

static void handle_notification(mcp_session *s, const rpc_msg *m) {
  if (strcmp(m->method, "notifications/initialized") == 0) {
    pthread_mutex_lock(&s->lock);
    s->client_ready = 1;
    pthread_mutex_unlock(&s->lock);
  } else if (strcmp(m->method, "notifications/cancelled") == 0) {
    const mj_value *id = mj_get(m->params, "requestId");
    if (id) mcp_worker_cancel(s->server->worker, s, id);
  }
  /* Other notifications (progress, roots changed, ...) need nothing. */
}

void mcp_session_handle(mcp_session *s, const rpc_frame *frame, mcp_channel *ch, mcp_frame_result *res) {
  memset(res, 0, sizeof *res);
  for (size_t i = 0; i < frame->n; i++) {
    const rpc_msg *m = &frame->msgs[i];
    switch (m->kind) {
    case RPC_INVALID:
      mcp_send_error(ch, m->id, m->error, m->why);
      res->answered++;
      break;
    case RPC_RESPONSE:
      break; /* this server sends no requests, so a response answers nothing */
    case RPC_NOTIFICATION:
      handle_notification(s, m);
      break;
    case RPC_REQUEST:
      handle_request(s, m, ch, res);
      break;
    }
  }
}

int mcp_frame_has_initialize(const rpc_frame *frame) {
  for (size_t i = 0; i < frame->n; i++)
    if (frame->msgs[i].kind == RPC_REQUEST && strcmp(frame->msgs[i].method, "initialize") == 0) return 1;
  return 0;
}
