/* SPDX-License-Identifier: MIT */
/* How the client reaches its server, beyond the URL: a unix socket, the
 * TLS files (CA, client certificate and key) and whether the server's
 * certificate is checked, the proxy. One place, applied to every handle
 * the client makes (pooled requests, streams, upgraded connections), so no
 * path can reach the server with other settings. Also what a failed
 * connection says about itself. */
#include "http_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy(const char *in, char **out) {
  *out = NULL;
  if (!in) return 0;
  *out = strdup(in);
  return *out ? 0 : -1;
}

int sbio__http_transport_configure(sbio_sdk_http *c, const sbio_sdk_http_options *opt) {
  if (copy(opt->client_cert, &c->client_cert) || copy(opt->client_key, &c->client_key)) return SBIO_E_INTERNAL;
  c->tls_no_verify = opt->tls_no_verify != 0;
  c->no_proxy = opt->no_proxy != 0;
  return SBIO_OK;
}

void sbio__http_transport_free(sbio_sdk_http *c) {
  free(c->client_cert);
  free(c->client_key);
}

void sbio__http_transport_apply(const sbio_sdk_http *c, CURL *h, long left_ms) {
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms < left_ms ? c->connect_timeout_ms : left_ms);
  if (c->unix_socket) curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
  if (c->no_proxy) {
    curl_easy_setopt(h, CURLOPT_PROXY, "");
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
  }
  if (c->ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
  if (c->client_cert) curl_easy_setopt(h, CURLOPT_SSLCERT, c->client_cert);
  if (c->client_key) curl_easy_setopt(h, CURLOPT_SSLKEY, c->client_key);
  if (c->tls_no_verify) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
}

int sbio__http_tls_failure(const sbio_sdk_http *c, CURLcode rc, const char *errbuf) {
  if (strncmp(c->base_url, "https://", 8) != 0) return 0;
  switch (rc) {
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
  case CURLE_SSL_INVALIDCERTSTATUS:
    return SBIO_SDK_TLS_HANDSHAKE;
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
    /* TLS 1.3: the client finishes its side of the handshake before the
     * server has looked at the client certificate, so a refusal arrives as
     * an alert on the first read ("tlsv13 alert certificate required"). */
    return errbuf && strstr(errbuf, "alert") ? SBIO_SDK_TLS_REFUSED : 0;
  default:
    return 0;
  }
}

void sbio__http_transport_error(const sbio_sdk_http *c, CURL *h, CURLcode rc, const char *errbuf, char *out,
                                size_t size) {
  long os_errno = 0;
  /* For a unix socket libcurl says "Failed to connect to localhost port
   * 80": the socket's own error is what helps. */
  if (rc == CURLE_COULDNT_CONNECT && c->unix_socket && h &&
      curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK && os_errno) {
    snprintf(out, size, "connect to %s: %s", c->unix_socket, strerror((int)os_errno));
  } else {
    snprintf(out, size, "%s%s%s", curl_easy_strerror(rc), errbuf && errbuf[0] ? ": " : "", errbuf ? errbuf : "");
  }
  sbio__http_one_line(out);
}
