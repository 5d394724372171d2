/* SPDX-License-Identifier: MIT */
#include "api.h"

#include <stdio.h>
#include <string.h>

int sbio__dk_client_new(dk_instance *inst, sbio_bk_error *err) {
  const dk_endpoint *ep = &inst->endpoint;
  sbio_sdk_http_options opt = {
      .backend = DK_NAME,
      .base_url = ep->base_url,
      .unix_socket = ep->is_unix ? ep->socket_path : NULL,
      .host = inst->host,
      /* The engine is the user's own daemon: never behind their proxy. */
      .no_proxy = 1,
      .ca_file = ep->tls && ep->ca[0] ? ep->ca : NULL,
      .client_cert = ep->tls && ep->cert[0] ? ep->cert : NULL,
      .client_key = ep->tls && ep->key[0] ? ep->key : NULL,
      /* DOCKER_TLS without DOCKER_TLS_VERIFY, as the docker CLI reads it. */
      .tls_no_verify = ep->tls && !ep->tls_verify,
  };
  return sbio_sdk_http_new(&opt, &inst->http, err);
}

const char *sbio__dk_api_path(const dk_instance *inst, const char *path, char *buf, size_t size) {
  int n = snprintf(buf, size, "/v%s%s", inst->api, path);
  return n < 0 || (size_t)n >= size ? NULL : buf;
}

int sbio__dk_request(dk_instance *inst, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                     sbio_sdk_http_response *resp) {
  char path[DK_API_PATH_MAX];
  sbio_sdk_http_request versioned = *req;
  versioned.path = sbio__dk_api_path(inst, req->path ? req->path : "", path, sizeof path);
  if (!versioned.path) {
    memset(resp, 0, sizeof *resp);
    resp->outcome = SBIO_SDK_HTTP_BROKEN;
    snprintf(resp->error, sizeof resp->error, "the request path is too long");
    return -1;
  }
  return sbio_sdk_http_send(inst->http, &versioned, call, resp);
}

int sbio__dk_send(dk_instance *inst, const char *method, const char *path, const char *json, const sbio_bk_call *call,
                  sbio_sdk_http_response *resp) {
  sbio_sdk_http_request req = {.method = method, .path = path};
  if (json || !strcmp(method, "POST")) {
    req.body = json ? json : "";
    req.body_len = json ? strlen(json) : 0;
  }
  return sbio__dk_request(inst, &req, call, resp);
}

int sbio__dk_upgrade(dk_instance *inst, const char *path, const char *json, const sbio_bk_call *call,
                     sbio_sdk_http_conn **conn, sbio_sdk_http_response *resp) {
  char versioned[DK_API_PATH_MAX];
  sbio_sdk_http_request req = {.method = "POST",
                               .path = sbio__dk_api_path(inst, path, versioned, sizeof versioned),
                               .body = json,
                               .body_len = strlen(json)};
  *conn = NULL;
  if (!req.path) {
    memset(resp, 0, sizeof *resp);
    resp->outcome = SBIO_SDK_HTTP_BROKEN;
    snprintf(resp->error, sizeof resp->error, "the request path is too long");
    return -1;
  }
  return sbio_sdk_http_upgrade(inst->http, &req, "tcp", call, conn, resp);
}
