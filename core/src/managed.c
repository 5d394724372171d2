/* SPDX-License-Identifier: MIT */
/* Sandboxes this project left on a backend, for `sbio reap`: listed by the
 * managed labels the backends put on everything they create. */
#include "clock.h"
#include "error_internal.h"
#include "host_internal.h"
#include "policy.h"

#include <stdlib.h>
#include <string.h>

#define MANAGED_TIMEOUT_S 60.0

struct sbio_managed_list {
  struct managed {
    char *id, *state;
    int64_t created_at;
    sbio__kvlist labels;
  } * items;
  size_t n, cap;
  int oom;
};

static sbio_code managed_backend(sbio_host *host, const char *name, int has_list, struct sbio_backend_info **out,
                                 sbio_error *err) {
  if (!host || !name) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host and backend are required");
  struct sbio_backend_info *b = NULL;
  sbio_code rc = sbio__host_resolve_backend(host, name, &b, err);
  if (rc == SBIO_OK) rc = sbio__host_backend_instance(host, b, err);
  if (rc != SBIO_OK) return rc;
  int has_op = has_list ? SBIO_OPS_HAS(b->ops, list_managed) : SBIO_OPS_HAS(b->ops, kill_managed);
  if (!(b->meta.caps & SBIO_CAP_MANAGED) || !has_op) return sbio__capability_error(host, name, SBIO_CAP_MANAGED, err);
  *out = b;
  return SBIO_OK;
}

static void add_entry(void *user, const sbio_bk_managed *m) {
  struct sbio_managed_list *l = user;
  if (!m || !m->id) return;
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 16;
    struct managed *p = realloc(l->items, ncap * sizeof *p);
    if (!p) {
      l->oom = 1;
      return;
    }
    l->items = p;
    l->cap = ncap;
  }
  struct managed *it = &l->items[l->n];
  memset(it, 0, sizeof *it);
  it->id = strdup(m->id);
  it->state = strdup(m->state ? m->state : "unknown");
  it->created_at = m->created_at;
  int ok = it->id && it->state;
  for (size_t i = 0; ok && i < m->n_labels; i++)
    if (m->labels[i].key && m->labels[i].value && sbio__kvlist_set(&it->labels, m->labels[i].key, m->labels[i].value))
      ok = 0;
  if (!ok) {
    free(it->id);
    free(it->state);
    sbio__kvlist_free(&it->labels);
    l->oom = 1;
    return;
  }
  l->n++;
}

sbio_code sbio_managed_list_get(sbio_host *host, const char *backend, const char *const *labels,
                                sbio_managed_list **out, sbio_error *err) {
  if (!out) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "out is required");
  *out = NULL;
  struct sbio_backend_info *b = NULL;
  sbio_code rc = managed_backend(host, backend, 1, &b, err);
  if (rc != SBIO_OK) return rc;
  sbio__kvlist filter = {0};
  for (size_t i = 0; labels && labels[i]; i++) {
    const char *eq = strchr(labels[i], '=');
    if (!eq || eq == labels[i]) {
      sbio__kvlist_free(&filter);
      return sbio__error_set(err, SBIO_E_CONFIG, "labels are KEY=VALUE", "malformed label filter \"%s\"", labels[i]);
    }
    char *key = strndup(labels[i], (size_t)(eq - labels[i]));
    int bad = !key || sbio__kvlist_set(&filter, key, eq + 1) != 0;
    free(key);
    if (bad) {
      sbio__kvlist_free(&filter);
      return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
    }
  }
  struct sbio_managed_list *l = calloc(1, sizeof *l);
  sbio__call c;
  sbio__call_init(&c, host, NULL, sbio__deadline_after(MANAGED_TIMEOUT_S));
  sbio_bk_error bk = {.size = sizeof bk};
  if (!l) {
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  } else if (b->ops->list_managed(b->instance, filter.view, filter.n, &c.call, add_entry, l, &bk) != 0) {
    rc = sbio__error_from_backend(err, &bk, b->name);
  } else if (l->oom) {
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory listing managed sandboxes");
  }
  sbio__kvlist_free(&filter);
  if (rc != SBIO_OK) {
    sbio__host_redact_error(host, err);
    sbio_managed_list_free(l);
    return rc;
  }
  *out = l;
  return SBIO_OK;
}

sbio_code sbio_managed_kill(sbio_host *host, const char *backend, const char *sandbox_id, int *killed,
                            sbio_error *err) {
  if (!sandbox_id || !killed)
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sandbox_id and killed are required");
  *killed = 0;
  struct sbio_backend_info *b = NULL;
  sbio_code rc = managed_backend(host, backend, 0, &b, err);
  if (rc != SBIO_OK) return rc;
  sbio__event ev;
  sbio__event_begin(&ev, host, "kill_managed");
  sbio__event_backend(&ev, b, NULL);
  sbio__event_str(&ev, "sandbox_id", sandbox_id);
  sbio__call c;
  sbio__call_init(&c, host, NULL, sbio__deadline_after(MANAGED_TIMEOUT_S));
  sbio_bk_error bk = {.size = sizeof bk};
  if (b->ops->kill_managed(b->instance, sandbox_id, &c.call, killed, &bk) != 0) {
    rc = sbio__error_from_backend(err, &bk, b->name);
    sbio__error_set_sandbox_id(err, sandbox_id);
  }
  sbio__event_int(&ev, "killed", *killed);
  return sbio__audit_finish(host, &ev, rc, err);
}

size_t sbio_managed_list_count(const sbio_managed_list *l) {
  return l ? l->n : 0;
}
const char *sbio_managed_list_id(const sbio_managed_list *l, size_t i) {
  return l && i < l->n ? l->items[i].id : "";
}
const char *sbio_managed_list_state(const sbio_managed_list *l, size_t i) {
  return l && i < l->n ? l->items[i].state : "";
}
int64_t sbio_managed_list_created_at(const sbio_managed_list *l, size_t i) {
  return l && i < l->n ? l->items[i].created_at : -1;
}
size_t sbio_managed_list_label_count(const sbio_managed_list *l, size_t i) {
  return l && i < l->n ? l->items[i].labels.n : 0;
}
const char *sbio_managed_list_label_key(const sbio_managed_list *l, size_t i, size_t j) {
  return j < sbio_managed_list_label_count(l, i) ? l->items[i].labels.keys[j] : "";
}
const char *sbio_managed_list_label_value(const sbio_managed_list *l, size_t i, size_t j) {
  return j < sbio_managed_list_label_count(l, i) ? l->items[i].labels.values[j] : "";
}
void sbio_managed_list_free(sbio_managed_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++) {
    free(l->items[i].id);
    free(l->items[i].state);
    sbio__kvlist_free(&l->items[i].labels);
  }
  free(l->items);
  free(l);
}
