/* SPDX-License-Identifier: MIT */
/* Runs last: no container labelled io.sandboxio.managed=true may be left on
 * the engine. Anything found is listed, removed, and fails the suite. */
#include "docker_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  dx_env env;
  int rc = dx_env_load(&env);
  if (rc) return rc;
  long status;
  char *text =
      dx_api(&env, "GET", "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22io.sandboxio.managed%3Dtrue%22%5D%7D",
             NULL, &status);
  cJSON *root = status == 200 ? cJSON_Parse(text) : NULL;
  free(text);
  if (!cJSON_IsArray(root)) {
    fprintf(stderr, "FAIL: could not list containers (HTTP %ld)\n", status);
    cJSON_Delete(root);
    return 1;
  }
  int n = cJSON_GetArraySize(root);
  for (const cJSON *c = root->child; c; c = c->next) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(c, "State");
    if (!cJSON_IsString(id)) continue;
    fprintf(stderr, "LEFT OVER: %.12s (%s); removing it\n", id->valuestring,
            cJSON_IsString(state) ? state->valuestring : "?");
    char path[200];
    snprintf(path, sizeof path, "/containers/%s?force=true&v=true", id->valuestring);
    free(dx_api(&env, "DELETE", path, NULL, &status));
  }
  cJSON_Delete(root);
  printf("%d managed containers left on the engine\n", n);
  printf("%d passed, %d failed\n", n == 0 ? 1 : 0, n == 0 ? 0 : 1);
  return n == 0 ? 0 : 1;
}
