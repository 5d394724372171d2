/* SPDX-License-Identifier: MIT */
#include "errmap.h"

#include <cjson/cJSON.h>
#include <string.h>

const char *sbio__dk_engine_message(const dk_http_resp *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return buf;
  cJSON *root = cJSON_Parse(resp->body);
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

int sbio__dk_no_such_container(const dk_http_resp *resp) {
  /* Docker: "No such container: ID"; Podman: "... found: no such container". */
  return resp->status == 404 && resp->body && strcasestr(resp->body, "no such container") != NULL;
}

int sbio__dk_unreachable(const dk_http_resp *resp) {
  switch (resp->curl) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CACERT_BADFILE:
    return resp->status == 0;
  default:
    return 0;
  }
}

int sbio__dk_container_gone(const dk_http_resp *resp) {
  if (resp->status == 404) return 1;
  /* Podman: an exec on a stopped container is a 500 with this cause. */
  if (resp->status == 500 && resp->body && strstr(resp->body, "container state improper")) return 1;
  if (resp->status != 409 || !resp->body) return 0;
  return strstr(resp->body, "is not running") || strstr(resp->body, "is restarting") ||
         strstr(resp->body, "is paused") || strstr(resp->body, "marked for removal");
}

/* The TLS handshake itself failed: our check of the engine's certificate,
 * our own files, or (TLS 1.3: seen as an alert on the first read, after
 * the client thinks the handshake is done) the engine refusing our client
 * certificate. These need a TLS hint, not "start Docker". */
static int tls_failed(const dk_endpoint *ep, const dk_http_resp *resp) {
  if (!ep->tls || resp->status != 0) return 0;
  switch (resp->curl) {
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CACERT_BADFILE:
    return 1;
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
    return strstr(resp->error, "alert") != NULL;
  default:
    return 0;
  }
}

static int tls_fail(const dk_endpoint *ep, const dk_http_resp *resp, int code, const char *what, sbio_bk_error *err) {
  char hint[400];
  if (resp->curl == CURLE_RECV_ERROR || resp->curl == CURLE_SEND_ERROR)
    snprintf(hint, sizeof hint,
             "the engine refused this client's TLS certificate (it runs with --tlsverify): put cert.pem and key.pem "
             "signed by the engine's CA into DOCKER_CERT_PATH%s",
             ep->cert[0] ? "" : " (no cert.pem/key.pem was found there)");
  else
    snprintf(hint, sizeof hint,
             "check DOCKER_CERT_PATH: ca.pem must be the CA that signed the engine's certificate (for its address), "
             "cert.pem/key.pem this client's pair (CA used: %.200s)",
             ep->ca[0] ? ep->ca : "the system's");
  return sbio_bk_error_set(err, code, hint, "docker: %s: TLS verification with the Docker engine at %s failed: %s",
                           what, ep->display, resp->error);
}

int sbio__dk_fail(const dk_instance *inst, const dk_http_resp *resp, int code, int timeout_code, const char *what,
                  sbio_bk_error *err) {
  const dk_endpoint *ep = &inst->endpoint;
  char hint[256];
  if (resp->status == 0 || resp->curl != CURLE_OK) {
    if (resp->cancelled)
      return sbio_bk_error_set(err, code, NULL, "docker: %s: cancelled (the sandbox is being killed)", what);
    if (resp->timed_out)
      return sbio_bk_error_set(err, timeout_code, "raise the timeout, or check that the engine is responsive",
                               "docker: %s: timed out waiting for the Docker engine at %s", what, ep->display);
    if (tls_failed(ep, resp)) return tls_fail(ep, resp, code, what, err);
    if (sbio__dk_unreachable(resp)) {
      snprintf(hint, sizeof hint,
               "start Docker, or set DOCKER_HOST or the host setting to a running engine (tried %.120s, from %.20s)",
               ep->display, ep->source);
      return sbio_bk_error_set(err, code, hint, "docker: %s: cannot reach the Docker engine at %s: %s", what,
                               ep->display, resp->error);
    }
    return sbio_bk_error_set(err, code, "check the engine's log (journalctl -u docker)",
                             "docker: %s: lost the connection to the Docker engine at %s: %s", what, ep->display,
                             resp->error);
  }
  char msg[400];
  sbio__dk_engine_message(resp, msg, sizeof msg);
  /* Go's TLS listener answers plain HTTP with a 400 saying so. */
  char tls_hint[300] = "";
  if (!ep->tls && resp->status == 400 && strstr(msg, "HTTPS"))
    snprintf(tls_hint, sizeof tls_hint,
             "%.150s speaks TLS: set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH (ca.pem, cert.pem, key.pem)",
             ep->display);
  int rc = sbio_bk_error_set(err, code, tls_hint[0] ? tls_hint : NULL, "docker: %s: the engine answered HTTP %ld%s%s",
                             what, resp->status, msg[0] ? ": " : "", msg);
  if (err) err->provider_status = (int)resp->status;
  return rc;
}
