/* SPDX-License-Identifier: MIT */
/* VMs this backend started, found by their state directories (for `sbio
 * reap`), whether this process or another one started them. A caller's
 * label filter K=V must match a label in the VM's meta.json. */
#include "qm.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define META_MAX 65536

static int valid_id(const char *id) {
  if (strncmp(id, "qm-", 3) != 0 || strlen(id) != 19) return 0;
  for (const char *p = id + 3; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
  return 1;
}

static cJSON *read_meta(const char *dir) {
  char path[3200], buf[META_MAX + 1];
  snprintf(path, sizeof path, "%s/meta.json", dir);
  FILE *f = fopen(path, "re");
  if (!f) return NULL;
  size_t n = fread(buf, 1, META_MAX, f);
  fclose(f);
  buf[n] = '\0';
  return cJSON_Parse(buf);
}

int sbio__qm_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                             sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  qm_instance *inst = instance;
  if (!inst || !call || !entry || (n_labels && !labels))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu list_managed: missing argument");
  DIR *d = opendir(inst->settings.state_dir);
  if (!d) return SBIO_OK; /* nothing was ever started here */
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!valid_id(de->d_name)) continue;
    char dir[3200];
    snprintf(dir, sizeof dir, "%s/%s", inst->settings.state_dir, de->d_name);
    cJSON *meta = read_meta(dir);
    const cJSON *lab = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    int match = 1;
    for (size_t i = 0; match && i < n_labels; i++) {
      const cJSON *v = cJSON_GetObjectItemCaseSensitive(lab, labels[i].key ? labels[i].key : "");
      match = cJSON_IsString(v) && labels[i].value && !strcmp(v->valuestring, labels[i].value);
    }
    if (match) {
      size_t n = 0;
      for (const cJSON *l = lab ? lab->child : NULL; l; l = l->next) n += cJSON_IsString(l) && l->string;
      sbio_bk_kv *kv = n ? calloc(n, sizeof *kv) : NULL;
      size_t k = 0;
      for (const cJSON *l = lab ? lab->child : NULL; kv && l; l = l->next)
        if (cJSON_IsString(l) && l->string) kv[k++] = (sbio_bk_kv){l->string, l->valuestring};
      const cJSON *created = cJSON_GetObjectItemCaseSensitive(meta, "created_at");
      sbio_bk_managed m = {.size = sizeof m,
                           .id = de->d_name,
                           .state = sbio__qm_vm_running(dir) ? "running" : "stopped",
                           .created_at = cJSON_IsNumber(created) ? (int64_t)created->valuedouble : -1,
                           .labels = kv,
                           .n_labels = k};
      entry(user, &m);
      free(kv);
    }
    cJSON_Delete(meta);
  }
  closedir(d);
  return SBIO_OK;
}

int sbio__qm_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                             sbio_bk_error *err) {
  qm_instance *inst = instance;
  if (!inst || !id || !call || !killed)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu kill_managed: missing argument");
  *killed = 0;
  if (!valid_id(id)) return SBIO_OK; /* not a name this backend gives: nothing of ours */
  char dir[3200];
  snprintf(dir, sizeof dir, "%s/%s", inst->settings.state_dir, id);
  DIR *d = opendir(dir);
  if (!d) return SBIO_OK; /* already gone */
  closedir(d);
  int running = 0;
  sbio__qm_kill_vm_dir(dir, &running);
  /* Removed, whether its QEMU still ran (killed) or had stopped. */
  *killed = 1;
  return SBIO_OK;
}
