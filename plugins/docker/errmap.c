/* SPDX-License-Identifier: MIT */
#include "errmap.h"

#include <cjson/cJSON.h>
#include <string.h>

const char *sbio__dk_engine_message(const sbio_sdk_http_response *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return buf;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *m = root ? cJSON_GetObjectItemCaseSensitive(root, "message") : NULL;
  const char *text = cJSON_IsString(m) && m->valuestring ? m->valuestring : (root ? "" : resp->body);
  snprintf(buf, size, "%s", text);
  cJSON_Delete(root);
  /* One line: trailing newlines and control characters out. */
  for (char *p = buf; *p; p++)
    if ((unsigned char)*p < 0x20) *p = ' ';
  size_t n = strlen(buf);
  while (n && buf[n - 1] == ' ') buf[--n] = '\0';
  return buf;
}

int sbio__dk_no_such_container(const sbio_sdk_http_response *resp) {
  /* Docker: "No such container: ID"; Podman: "... found: no such container". */
  return resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status == 404 && resp->body &&
         strcasestr(resp->body, "no such container") != NULL;
}

int sbio__dk_no_answer(const sbio_sdk_http_response *resp) {
  return resp->outcome != SBIO_SDK_HTTP_ANSWERED || resp->status == 0;
}

int sbio__dk_container_missing(const sbio_sdk_http_response *resp) {
  if (resp->outcome != SBIO_SDK_HTTP_ANSWERED) return 0;
  if (resp->status == 404) return 1;
  /* Podman 4.3, while it removes the container (AutoRemove): a 500
   * "container ID does not exist in database: no such container", to an
   * inspect and to an exec create alike (OBSERVED). */
  return resp->status == 500 && resp->body && strcasestr(resp->body, "no such container") != NULL;
}

int sbio__dk_container_gone(const sbio_sdk_http_response *resp) {
  if (resp->outcome != SBIO_SDK_HTTP_ANSWERED) return 0;
  if (sbio__dk_container_missing(resp)) return 1;
  /* Podman: an exec on a stopped container is a 500 with this cause. */
  if (resp->status == 500 && resp->body && strstr(resp->body, "container state improper")) return 1;
  if (resp->status != 409 || !resp->body) return 0;
  return strstr(resp->body, "is not running") || strstr(resp->body, "is restarting") ||
         strstr(resp->body, "is paused") || strstr(resp->body, "marked for removal");
}

/* The TLS handshake itself failed: our check of the engine's certificate,
 * our own files, or the engine refusing our client certificate. These need
 * a TLS hint, not "start Docker". */
static int tls_fail(const dk_endpoint *ep, const sbio_sdk_http_response *resp, int code, const char *what,
                    sbio_bk_error *err) {
  char hint[400];
  if (resp->tls_failure == SBIO_SDK_TLS_REFUSED)
    snprintf(hint, sizeof hint,
             "the engine refused this client's TLS certificate (it runs with --tlsverify): put cert.pem and key.pem "
             "signed by the engine's CA into DOCKER_CERT_PATH%s",
             ep->cert[0] ? "" : " (no cert.pem/key.pem was found there)");
  else
    snprintf(hint, sizeof hint,
             "check DOCKER_CERT_PATH: ca.pem must be the CA that signed the engine's certificate (for its address), "
             "cert.pem/key.pem this client's pair (CA used: %.200s)",
             ep->ca[0] ? ep->ca : "the system's");
  return sbio_sdk_error(err, code, hint, "docker: %s: TLS verification with the Docker engine at %s failed: %s", what,
                        ep->display, resp->error);
}

static int transport_fail(const dk_endpoint *ep, const sbio_sdk_http_response *resp, int code, int timeout_code,
                          const char *what, sbio_bk_error *err) {
  char hint[256];
  switch (resp->outcome) {
  case SBIO_SDK_HTTP_CANCELLED:
    return sbio_sdk_error(err, code, NULL, "docker: %s: cancelled (the sandbox is being killed)", what);
  case SBIO_SDK_HTTP_TIMEOUT:
  case SBIO_SDK_HTTP_SLOW: /* an attempt's own limit: none is set here, but it reads the same */
    return sbio_sdk_error(err, timeout_code, "raise the timeout, or check that the engine is responsive",
                          "docker: %s: timed out waiting for the Docker engine at %s", what, ep->display);
  case SBIO_SDK_HTTP_NOMEM:
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "docker: %s: out of memory", what);
  case SBIO_SDK_HTTP_TOO_LARGE:
    return sbio_sdk_error(err, code, NULL, "docker: %s: the engine's answer is too large", what);
  default:
    break;
  }
  if (ep->tls && resp->tls_failure) return tls_fail(ep, resp, code, what, err);
  if (resp->outcome == SBIO_SDK_HTTP_UNREACHABLE) {
    snprintf(hint, sizeof hint,
             "start Docker, or set DOCKER_HOST or the host setting to a running engine (tried %.120s, from %.20s)",
             ep->display, ep->source);
    return sbio_sdk_error(err, code, hint, "docker: %s: cannot reach the Docker engine at %s: %s", what, ep->display,
                          resp->error);
  }
  return sbio_sdk_error(err, code, "check the engine's log (journalctl -u docker)",
                        "docker: %s: lost the connection to the Docker engine at %s: %s", what, ep->display,
                        resp->error[0] ? resp->error : "no answer");
}

int sbio__dk_fail(const dk_instance *inst, const sbio_sdk_http_response *resp, int code, int timeout_code,
                  const char *what, sbio_bk_error *err) {
  const dk_endpoint *ep = &inst->endpoint;
  if (sbio__dk_no_answer(resp)) return transport_fail(ep, resp, code, timeout_code, what, err);
  char msg[400];
  sbio__dk_engine_message(resp, msg, sizeof msg);
  /* Go's TLS listener answers plain HTTP with a 400 saying so. */
  char tls_hint[300] = "";
  if (!ep->tls && resp->status == 400 && strstr(msg, "HTTPS"))
    snprintf(tls_hint, sizeof tls_hint,
             "%.150s speaks TLS: set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem)",
             ep->display);
  /* A 2xx that is not what the caller expected (201 for 200) keeps the
   * caller's code. One the caller could not use says why (resp->error:
   * "... has no container id"), not the body it could not read. */
  if (resp->status < 400 && resp->error[0]) {
    int rc = sbio_sdk_error(err, code, NULL, "docker: %s: the engine answered HTTP %ld, but %s", what, resp->status,
                            resp->error);
    if (err) err->provider_status = (int)resp->status;
    return rc;
  }
  if (resp->status < 400) {
    int rc = sbio_sdk_error(err, code, NULL, "docker: %s: the engine answered HTTP %ld%s%s", what, resp->status,
                            msg[0] ? ": " : "", msg);
    if (err) err->provider_status = (int)resp->status;
    return rc;
  }
  return sbio_sdk_error_status(err, resp->status, sbio_sdk_op_of_code(code), tls_hint[0] ? tls_hint : NULL,
                               "docker: %s: the engine answered HTTP %ld%s%s", what, resp->status, msg[0] ? ": " : "",
                               msg);
}
