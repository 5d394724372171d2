/* SPDX-License-Identifier: MIT */
/* YAML settings -> JSON, by core-schema type: null, booleans, numbers (as
 * written, in JSON spelling), strings, lists and mappings. */
#include "config_settings_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* JSON spelling of a core-schema number, keeping every digit of the
 * original (a double would round large integers); NULL when JSON has no
 * spelling for it (.inf, .nan, hex/octal beyond 64 bits): it then stays a
 * string. */
static char *json_number(const char *text, sbio__scalar_type type) {
  if (type == SBIO__SCALAR_INT && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    errno = 0;
    unsigned long long v = strtoull(text + 2, NULL, text[1] == 'x' ? 16 : 8);
    if (errno) return NULL;
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    return strdup(buf);
  }
  if (type == SBIO__SCALAR_FLOAT && sbio__config_is_special_float(text)) return NULL;
  size_t len = strlen(text);
  char *out = malloc(len + 3); /* worst case ".5" -> "0.5", "1." -> "1.0" */
  if (!out) return NULL;
  size_t o = 0;
  const char *p = text;
  if (*p == '-') out[o++] = *p;
  if (*p == '-' || *p == '+') p++;
  size_t digits = strspn(p, SBIO__DIGITS);
  while (digits > 1 && *p == '0') p++, digits--; /* JSON forbids leading zeros */
  if (!digits) out[o++] = '0';
  memcpy(out + o, p, digits);
  o += digits;
  p += digits;
  if (*p == '.') {
    size_t frac = strspn(p + 1, SBIO__DIGITS);
    out[o++] = '.';
    if (!frac) out[o++] = '0';
    memcpy(out + o, p + 1, frac);
    o += frac;
    p += 1 + frac;
  }
  strcpy(out + o, p); /* the exponent is already valid JSON */
  return out;
}

static cJSON *settings_value(const sbio__config_node *n) {
  if (n->kind == SBIO__NODE_SEQUENCE) {
    cJSON *array = cJSON_CreateArray();
    for (size_t i = 0; array && i < n->n_items; i++) {
      cJSON *item = settings_value(n->items[i]);
      if (!item || !cJSON_AddItemToArray(array, item)) {
        cJSON_Delete(item);
        cJSON_Delete(array);
        return NULL;
      }
    }
    return array;
  }
  if (n->kind == SBIO__NODE_MAPPING) {
    cJSON *object = cJSON_CreateObject();
    for (size_t i = 0; object && i < n->n_items; i += 2) {
      cJSON *item = settings_value(n->items[i + 1]);
      if (!item || !cJSON_AddItemToObject(object, n->items[i]->text, item)) {
        cJSON_Delete(item);
        cJSON_Delete(object);
        return NULL;
      }
    }
    return object;
  }
  if (!n->quoted) {
    switch (n->type) {
    case SBIO__SCALAR_NULL:
      return cJSON_CreateNull();
    case SBIO__SCALAR_BOOL:
      return cJSON_CreateBool(n->text[0] == 't' || n->text[0] == 'T');
    case SBIO__SCALAR_INT:
    case SBIO__SCALAR_FLOAT: {
      char *number = json_number(n->text, n->type);
      if (number) {
        cJSON *raw = cJSON_CreateRaw(number);
        free(number);
        return raw;
      }
      break;
    }
    case SBIO__SCALAR_STRING:
      break;
    }
  }
  return cJSON_CreateString(n->text);
}

char *sbio__config_settings_json(const sbio__config_node *n) {
  cJSON *json = settings_value(n);
  char *text = json ? cJSON_PrintUnformatted(json) : NULL;
  cJSON_Delete(json);
  if (!text) return NULL;
  char *copy = strdup(text); /* ours to free() whatever cJSON's allocator is */
  cJSON_free(text);
  return copy;
}
