/* SPDX-License-Identifier: MIT */
/* A module that uses the SDK's HTTP client the way a backend does, loaded
 * and unloaded by test_sdk_keeps_curl.c. */
#include <sandboxio/sdk.h>

#include <string.h>

__attribute__((visibility("default"))) int curl_user_make_client(void);

/* Makes one client (which initialises libcurl) and frees it. */
int curl_user_make_client(void) {
  sbio_sdk_http_options opt;
  memset(&opt, 0, sizeof opt);
  opt.backend = "curl-user";
  opt.base_url = "http://127.0.0.1:9";
  sbio_sdk_http *client = NULL;
  sbio_bk_error err;
  memset(&err, 0, sizeof err);
  int rc = sbio_sdk_http_new(&opt, &client, &err);
  sbio_sdk_http_free(client);
  return rc;
}
