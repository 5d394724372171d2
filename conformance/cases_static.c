/* SPDX-License-Identifier: MIT */
/* Static checks: what the plugin file says about itself, read without
 * running its code (the note, the link flags, the exported symbols), plus
 * what the core concluded when it scanned and loaded it. */
#include "cases.h"
#include "ops_contract.h"

#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <libgen.h>
#include <sandboxio/backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file facts every check but backend_usable needs. */
static int have_file(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (!ctx->info) {
    kit_skip(c, "no plugin file: there is no backend named %s (static.backend_usable says where the kit looked)",
             ctx->backend);
    return 0;
  }
  if (!ctx->elf_ok) {
    kit_fail(c, "cannot read %s: %s", sbio_backend_info_path(ctx->info), ctx->elf_error);
    return 0;
  }
  return 1;
}

void kit_static_backend_usable(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (!ctx->usable) {
    kit_fail(c, "%s", ctx->unusable);
    return;
  }
  const char *version = sbio_backend_info_version(ctx->info);
  kit_note(c, "%s %s at %s, %s", ctx->backend, version[0] ? version : "(no version)", sbio_backend_info_path(ctx->info),
           sbio_backend_status_name(sbio_backend_info_status(ctx->info)));
}

/* ----------------------------------------------------------------- note */
static cJSON *parse_note(kit_case *c) {
  const kit_elf *e = &c->ctx->elf;
  if (e->n_notes == 0) {
    kit_fail(c,
             "no sandboxio note (owner \"%s\", type 0x%08x) in any PT_NOTE segment; the SBIO_BACKEND macro "
             "emits it",
             SBIO_NOTE_OWNER, SBIO_NOTE_TYPE);
    return NULL;
  }
  if (e->n_notes > 1) {
    kit_fail(c, "%d sandboxio notes; exactly one is expected", e->n_notes);
    return NULL;
  }
  if (e->note_size > SBIO_METADATA_MAX) {
    kit_fail(c, "the note holds %zu bytes; at most %d are accepted", e->note_size, SBIO_METADATA_MAX);
    return NULL;
  }
  if (!e->note_terminated) {
    kit_fail(c, "the note's JSON is not NUL-terminated");
    return NULL;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(e->note, &end, 1);
  if (!root) {
    kit_fail(c, "the note is not one JSON document (error near byte %zu)", end ? (size_t)(end - e->note) : 0);
    return NULL;
  }
  if (!cJSON_IsObject(root)) {
    kit_fail(c, "the note's JSON is not an object");
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

static int string_member(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) && v->valuestring;
}

static void check_mechanism(kit_case *c, const cJSON *m, int index) {
  if (!cJSON_IsObject(m)) {
    kit_fail(c, "mechanisms[%d] is not an object", index);
    return;
  }
  if (!string_member(m, "name")) kit_fail(c, "mechanisms[%d] has no \"name\" string", index);
  const cJSON *tier = cJSON_GetObjectItemCaseSensitive(m, "tier");
  sbio_tier t;
  if (!cJSON_IsString(tier) || sbio_tier_parse(tier->valuestring, &t) != 0)
    kit_fail(c, "mechanisms[%d] has no valid \"tier\"", index);
  const cJSON *source = cJSON_GetObjectItemCaseSensitive(m, "source");
  int unverified = string_member(m, "unverified");
  if (!source && !unverified)
    kit_fail(c, "mechanisms[%d] has neither \"source\" nor \"unverified\"", index);
  else if (source && unverified)
    kit_fail(c, "mechanisms[%d] has both \"source\" and \"unverified\"", index);
  else if (source && (!cJSON_IsObject(source) || !string_member(source, "url") ||
                      !string_member(source, "verified_on") || !string_member(source, "quote")))
    kit_fail(c, "mechanisms[%d].source lacks one of \"url\", \"verified_on\", \"quote\"", index);
}

void kit_static_note_well_formed(kit_case *c) {
  if (!have_file(c)) return;
  cJSON *root = parse_note(c);
  if (!root) return;
  const cJSON *abi = cJSON_GetObjectItemCaseSensitive(root, "abi");
  if (!cJSON_IsNumber(abi)) kit_fail(c, "\"abi\" is missing or not a number");
  static const char *const strings[] = {"name", "version", "summary"};
  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    if (!string_member(root, strings[i])) kit_fail(c, "\"%s\" is missing or not a string", strings[i]);
  const cJSON *caps = cJSON_GetObjectItemCaseSensitive(root, "capabilities");
  if (!cJSON_IsArray(caps)) kit_fail(c, "\"capabilities\" is missing or not an array");
  for (const cJSON *it = cJSON_IsArray(caps) ? caps->child : NULL; it; it = it->next) {
    sbio_caps flag;
    if (!cJSON_IsString(it) || sbio_capability_parse(it->valuestring, &flag) != 0)
      kit_fail(c, "\"capabilities\" holds something that is not a capability name");
  }
  const cJSON *mechs = cJSON_GetObjectItemCaseSensitive(root, "mechanisms");
  if (!cJSON_IsArray(mechs)) kit_fail(c, "\"mechanisms\" is missing or not an array");
  int n = 0;
  for (const cJSON *it = cJSON_IsArray(mechs) ? mechs->child : NULL; it; it = it->next) check_mechanism(c, it, n++);
  if (cJSON_IsArray(mechs) && n == 0) kit_warn(c, "no mechanism is declared, so the tier is UNKNOWN");
  if (!kit_failed(c) && !c->ctx->elf.note_section)
    kit_warn(c, "the note is not in a section named %s (the SDK puts it there; tools look for it)", SBIO_NOTE_SECTION);
  kit_note(c, "one note, %zu bytes of JSON, %d mechanism(s)", c->ctx->elf.note_size, n);
  cJSON_Delete(root);
}

/* ----------------------------------------------------------------- name */
void kit_static_name_matches_file(kit_case *c) {
  if (!have_file(c)) return;
  kit_ctx *ctx = c->ctx;
  char *path = kit_fmt(c, "%s", sbio_backend_info_path(ctx->info));
  const char *base = basename(path);
  const char *want = kit_fmt(c, "sbio-backend-%s.so", ctx->backend);
  if (strcmp(base, want) != 0)
    kit_fail(c, "the file is named %s; for backend %s it must be %s", base, ctx->backend, want);
  cJSON *root = cJSON_Parse(ctx->elf.note ? ctx->elf.note : "");
  const cJSON *name = root ? cJSON_GetObjectItemCaseSensitive(root, "name") : NULL;
  if (!cJSON_IsString(name))
    kit_fail(c, "the note has no name to compare (static.note_well_formed says why)");
  else if (strcmp(name->valuestring, ctx->backend) != 0)
    kit_fail(c, "the note names the backend \"%s\", the URI scheme and file say \"%s\"", name->valuestring,
             ctx->backend);
  cJSON_Delete(root);
  if (strcmp(sbio_backend_info_name(ctx->info), ctx->backend) != 0)
    kit_fail(c, "the library lists the file as backend \"%s\"", sbio_backend_info_name(ctx->info));
  kit_note(c, "%s", base);
}

/* ------------------------------------------------------------------ abi */
void kit_static_abi_version(kit_case *c) {
  if (!have_file(c)) return;
  kit_ctx *ctx = c->ctx;
  cJSON *root = cJSON_Parse(ctx->elf.note ? ctx->elf.note : "");
  const cJSON *abi = root ? cJSON_GetObjectItemCaseSensitive(root, "abi") : NULL;
  if (!cJSON_IsNumber(abi))
    kit_fail(c, "the note has no \"abi\" number");
  else if (abi->valuedouble != SBIO_BACKEND_ABI_MAJOR)
    kit_fail(c, "the note says ABI %g; this kit and library speak ABI %d", abi->valuedouble, SBIO_BACKEND_ABI_MAJOR);
  cJSON_Delete(root);
  sbio_backend_status st = sbio_backend_info_status(ctx->info);
  if (st != SBIO_BACKEND_LOADED)
    kit_fail(c, "the core did not accept its entry point %s: status %s%s%s", SBIO_BACKEND_ENTRY_SYMBOL,
             sbio_backend_status_name(st), sbio_backend_info_reason(ctx->info)[0] ? ", " : "",
             sbio_backend_info_reason(ctx->info));
  kit_note(c, "ABI %d, entry point accepted by libsandboxio %s", SBIO_BACKEND_ABI_MAJOR, sbio_version());
}

/* ----------------------------------------------------------- mechanisms */
void kit_static_mechanism_sources(kit_case *c) {
  if (!have_file(c)) return;
  const sbio_backend_info *b = c->ctx->info;
  if (sbio_backend_info_status(b) == SBIO_BACKEND_REFUSED) {
    kit_skip(c, "the backend is refused (static.backend_usable says why), so the library did not judge its sources");
    return;
  }
  size_t n = sbio_backend_info_mechanism_count(b);
  if (n == 0) {
    kit_warn(c, "no mechanism declared: tier UNKNOWN, which satisfies no isolation requirement");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    const char *name = sbio_mechanism_name(b, i);
    sbio_tier claimed = sbio_mechanism_claimed_tier(b, i), effective = sbio_mechanism_tier(b, i);
    const char *reason = sbio_mechanism_reason(b, i);
    if (claimed == SBIO_TIER_UNKNOWN) {
      kit_warn(c, "mechanism %s is declared unverified (tier UNKNOWN%s%s): it satisfies no isolation requirement", name,
               reason[0] ? ": " : "", reason);
    } else if (sbio_mechanism_stale(b, i)) {
      /* Old, not wrong: re-verification is due (and the operator's policy
       * may count it UNKNOWN meanwhile). */
      kit_warn(c, "mechanism %s: %s; re-verify it against the provider's documentation", name, reason);
    } else if (effective == SBIO_TIER_UNKNOWN) {
      kit_fail(c,
               "mechanism %s claims %s but its source does not hold (%s): an https URL, a real, past "
               "YYYY-MM-DD date and the quoted sentence are required",
               name, sbio_tier_name(claimed), reason[0] ? reason : "rejected");
    } else {
      kit_note(c, "%s: %s per %s (verified %s)", name, sbio_tier_name(effective), sbio_mechanism_source_url(b, i),
               sbio_mechanism_verified_on(b, i));
    }
  }
}

/* ----------------------------------------------------------------- link */
void kit_static_link_bind_now(kit_case *c) {
  if (!have_file(c)) return;
  const kit_elf *e = &c->ctx->elf;
  if (!e->has_dynamic)
    kit_fail(c, "no dynamic section: not a loadable shared object");
  else if (!e->bind_now)
    kit_fail(c, "not linked with -z now (no DT_BIND_NOW, DT_FLAGS BIND_NOW or DT_FLAGS_1 NOW): a missing symbol "
                "would surface at the first call instead of at load time; sandboxio_add_backend() links with it");
  else
    kit_note(c, "%s", e->bind_now_how);
}

/* -------------------------------------------------------------- exports */
void kit_static_exports_only_entry(kit_case *c) {
  if (!have_file(c)) return;
  const kit_elf *e = &c->ctx->elf;
  if (!e->has_dynsym) {
    kit_fail(c, "no .dynsym section: the exported symbols cannot be checked");
    return;
  }
  int entry = 0;
  char extra[1024] = "";
  size_t used = 0, n_extra = 0;
  for (size_t i = 0; i < e->n_exports; i++) {
    if (strcmp(e->exports[i], SBIO_BACKEND_ENTRY_SYMBOL) == 0) {
      entry = 1;
      continue;
    }
    n_extra++;
    int w = snprintf(extra + used, sizeof extra - used, "%s%s", used ? ", " : "", e->exports[i]);
    if (w > 0 && (size_t)w < sizeof extra - used) used += (size_t)w;
  }
  if (!entry) kit_fail(c, "%s is not exported", SBIO_BACKEND_ENTRY_SYMBOL);
  if (n_extra)
    kit_fail(c, "%zu other symbol(s) exported: %s; link with the SDK's version script (sandboxio_add_backend() does)",
             n_extra, extra);
  kit_note(c, "only %s", SBIO_BACKEND_ENTRY_SYMBOL);
}

/* --------------------------------------------------------- capabilities */
/* Capabilities the public C API exercises, and so this kit covers. */
#define KIT_COVERED_CAPS                                                                                               \
  (SBIO_CAP_RUN_COMMAND | SBIO_CAP_STREAMING | SBIO_CAP_FILESYSTEM | SBIO_CAP_NETWORK_POLICY |                         \
   SBIO_CAP_NETWORK_ALLOWLIST | SBIO_CAP_STDIN | SBIO_CAP_SEPARATE_STDERR | SBIO_CAP_MANAGED | SBIO_CAP_CONNECT)

void kit_static_capabilities_covered(kit_case *c) {
  if (!c->ctx->info) {
    kit_skip(c, "there is no backend named %s", c->ctx->backend);
    return;
  }
  sbio_caps caps = sbio_backend_info_capabilities(c->ctx->info);
  sbio_caps uncovered = caps & ~(sbio_caps)KIT_COVERED_CAPS;
  for (size_t bit = 0; bit < 64; bit++) {
    sbio_caps flag = (sbio_caps)1 << bit;
    if (!(uncovered & flag)) continue;
    const char *name = sbio_capability_name(flag);
    kit_warn(c, "%s is declared but nothing in the public C API exercises it yet, so no case can check it",
             name ? name : "an unnamed capability");
  }
  kit_note(c, "every declared capability has a case");
}

/* ------------------------------------------------------ operation pairs */
/* The library refuses a table whose operations do not come together
 * (ops_contract.c); when it loaded the backend, the kit reads the table of
 * the already loaded object (RTLD_NOLOAD: nothing is loaded again, no
 * constructor runs) and checks it with the same code, so the verdict does
 * not rest on the library alone. */
void kit_static_operations_paired(kit_case *c) {
  if (!have_file(c)) return;
  kit_ctx *ctx = c->ctx;
  const sbio_backend_info *b = ctx->info;
  const char *reason = sbio_backend_info_reason(b);
  if (sbio_backend_info_status(b) == SBIO_BACKEND_REFUSED &&
      strncmp(reason, SBIO__OPS_CONTRACT_PREFIX, strlen(SBIO__OPS_CONTRACT_PREFIX)) == 0) {
    kit_fail(c, "the library refused it: %s", reason);
    return;
  }
  if (sbio_backend_info_status(b) != SBIO_BACKEND_LOADED) {
    kit_skip(c, "the backend did not load (static.backend_usable says why), so its table cannot be read");
    return;
  }
  void *handle = dlopen(sbio_backend_info_path(b), RTLD_NOW | RTLD_NOLOAD);
  void *sym = handle ? dlsym(handle, SBIO_BACKEND_ENTRY_SYMBOL) : NULL;
  if (!sym) {
    kit_fail(c, "the loaded object's %s cannot be found again: %s", SBIO_BACKEND_ENTRY_SYMBOL,
             handle ? "no such symbol" : dlerror());
    if (handle) dlclose(handle);
    return;
  }
  sbio_backend_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry); /* POSIX: dlsym's object pointer is the function */
  const sbio_backend_ops *ops = entry();
  char why[512];
  if (!ops)
    kit_fail(c, "%s returned NULL", SBIO_BACKEND_ENTRY_SYMBOL);
  else if (sbio__ops_contract_check(ops, sbio_backend_info_capabilities(b), sbio_backend_info_mechanism_count(b), why,
                                    sizeof why) != 0)
    kit_fail(c, "%s", why);
  else
    kit_note(c, "%s%s, and every declared capability has its operations", SBIO_OPS_HAS(ops, create) ? "create" : "",
             SBIO_OPS_HAS(ops, kill) ? " and kill" : "");
  dlclose(handle);
}
