/* SPDX-License-Identifier: MIT */
/* Isolation honesty: tiers reported, requirements enforced before anything
 * is provisioned, and the UNKNOWN warning given exactly once. */
#include "cases.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tier just above `t`, or UNKNOWN when there is none. */
static sbio_tier next_stronger(sbio_tier t) {
  for (size_t i = 0; i < SBIO_TIER_COUNT; i++) {
    sbio_tier cand = sbio_tier_at(i);
    if (sbio_tier_rank(cand) > sbio_tier_rank(t)) return cand;
  }
  return SBIO_TIER_UNKNOWN;
}

/* The effective tier of a declared mechanism; found = 0 when undeclared. */
static sbio_tier mechanism_tier(const sbio_backend_info *b, const char *name, int *found) {
  for (size_t i = 0; i < sbio_backend_info_mechanism_count(b); i++)
    if (strcmp(sbio_mechanism_name(b, i), name) == 0) {
      *found = 1;
      return sbio_mechanism_tier(b, i);
    }
  *found = 0;
  return SBIO_TIER_UNKNOWN;
}

static sbio_create_options *requiring(kit_case *c, sbio_tier t) {
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_require_isolation(o, t);
  return o;
}

void kit_isolation_report_a_tier(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (!sbio_tier_name(ctx->tier)) kit_fail(c, "the backend reports no valid tier");
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_tier have = sbio_sandbox_tier(sb);
  const char *mech = sbio_sandbox_mechanism(sb);
  int declared = 0;
  sbio_tier want = mechanism_tier(ctx->info, mech, &declared);
  if (!declared)
    kit_fail(c, "the sandbox reports mechanism \"%s\", which the backend does not declare (so its tier is UNKNOWN)",
             mech);
  else if (have != want)
    kit_fail(c, "the sandbox reports tier %s, its mechanism %s is %s", sbio_tier_name(have), mech,
             sbio_tier_name(want));
  if (sbio_tier_rank(have) < sbio_tier_rank(ctx->tier))
    kit_fail(c, "the sandbox's tier %s is weaker than the backend's %s", sbio_tier_name(have),
             sbio_tier_name(ctx->tier));
  kit_note(c, "backend %s, sandbox %s (mechanism %s)", sbio_tier_name(ctx->tier), sbio_tier_name(have), mech);
}

void kit_isolation_stronger_refused(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_tier above = next_stronger(ctx->strongest);
  if (above == SBIO_TIER_UNKNOWN) {
    kit_skip(c, "the backend already offers the strongest tier, %s", sbio_tier_name(ctx->strongest));
    return;
  }
  size_t before = 0, after = 0;
  char why[512];
  int counted = kit_managed_count(c, NULL, &before, why, sizeof why) == 0;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  sbio_sandbox *sb = kit_create(c, requiring(c, above), &rc, err);
  if (sb) {
    kit_fail(c, "requiring %s created a sandbox of tier %s; no mechanism of the backend offers it",
             sbio_tier_name(above), sbio_tier_name(sbio_sandbox_tier(sb)));
    return;
  }
  if (rc != SBIO_E_CONFIG)
    kit_fail(c, "requiring %s: expected SBX_E1000, got %s", sbio_tier_name(above), kit_err_text(c, rc, err));
  if (counted && kit_managed_count(c, NULL, &after, why, sizeof why) == 0 && after != before)
    kit_fail(c, "the refused create provisioned something: %zu sandboxes of this run listed, %zu before", after,
             before);
  if (!counted) kit_note(c, "provisioning was not checked: %s", why);
}

void kit_isolation_at_or_below_passes(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  if (ctx->tier == SBIO_TIER_UNKNOWN) {
    sbio_sandbox *sb = kit_create(c, requiring(c, SBIO_TIER_CONTAINER), &rc, err);
    if (sb)
      kit_fail(c, "an UNKNOWN-tier backend met a CONTAINER requirement (sandbox tier %s)",
               sbio_tier_name(sbio_sandbox_tier(sb)));
    else if (rc != SBIO_E_CONFIG)
      kit_fail(c, "requiring CONTAINER of an UNKNOWN backend: expected SBX_E1000, got %s", kit_err_text(c, rc, err));
    else
      kit_note(c, "UNKNOWN meets no requirement, not even CONTAINER");
    return;
  }
  for (size_t i = 0; i < SBIO_TIER_COUNT; i++) {
    sbio_tier t = sbio_tier_at(i);
    if (t == SBIO_TIER_UNKNOWN || sbio_tier_rank(t) > sbio_tier_rank(ctx->tier)) continue;
    sbio_sandbox *sb = kit_create(c, requiring(c, t), &rc, err);
    if (!sb) {
      kit_fail(c, "requiring %s of a %s backend failed: %s", sbio_tier_name(t), sbio_tier_name(ctx->tier),
               kit_err_text(c, rc, err));
      continue;
    }
    if (!sbio_tier_satisfies(sbio_sandbox_tier(sb), t))
      kit_fail(c, "requiring %s gave a sandbox of tier %s", sbio_tier_name(t), sbio_tier_name(sbio_sandbox_tier(sb)));
    kit_close(c, sb, NULL);
  }
}

void kit_isolation_strongest_delivered(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (ctx->strongest == ctx->tier) {
    kit_skip(c, "all mechanisms are at one tier (%s); isolation.at_or_below_tier_passes covers it",
             sbio_tier_name(ctx->tier));
    return;
  }
  sbio_error *err = kit_err(c);
  sbio_code rc;
  sbio_sandbox *sb = kit_create(c, requiring(c, ctx->strongest), &rc, err);
  if (sb) {
    if (!sbio_tier_satisfies(sbio_sandbox_tier(sb), ctx->strongest))
      kit_fail(c, "requiring %s gave a sandbox of tier %s", sbio_tier_name(ctx->strongest),
               sbio_tier_name(sbio_sandbox_tier(sb)));
    else
      kit_note(c, "%s delivered (mechanism %s)", sbio_tier_name(ctx->strongest), sbio_sandbox_mechanism(sb));
  } else if (rc == SBIO_E_CONFIG) {
    kit_note(c, "refused before provisioning: %s", sbio_error_message(err));
  } else {
    kit_fail(c,
             "requiring %s, which a declared mechanism offers: the plan passed but create failed with %s (a "
             "sandbox whose observed tier differs from its plan is destroyed)",
             sbio_tier_name(ctx->strongest), kit_err_text(c, rc, err));
  }
}

void kit_isolation_require_unknown_refused(kit_case *c) {
  sbio_create_options *o = kit_opts(c);
  sbio_code set = sbio_create_options_require_isolation(o, SBIO_TIER_UNKNOWN);
  if (set != SBIO_E_CONFIG) kit_fail(c, "requiring UNKNOWN: the setter returned %s, expected SBX_E1000", kit_code(set));
  sbio_error *err = kit_err(c);
  sbio_code rc;
  sbio_sandbox *sb = kit_create(c, o, &rc, err);
  if (sb)
    kit_fail(c, "requiring UNKNOWN created a sandbox");
  else if (rc != SBIO_E_CONFIG)
    kit_fail(c, "requiring UNKNOWN: expected SBX_E1000, got %s", kit_err_text(c, rc, err));
}

/* `name` as a word of `text` (not part of a longer backend name). */
static int names_backend(const char *text, const char *name) {
  size_t n = strlen(name);
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    int before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (before && after) return 1;
  }
  return 0;
}

/* The library's "unverified isolation" warnings about this backend so far
 * in the run: WARN or above, naming the backend, mentioning isolation. */
static size_t unknown_warnings(kit_case *c) {
  size_t n = 0, total = kit_capture_log_count(&c->ctx->capture);
  for (size_t i = 0; i < total; i++) {
    int level = 0;
    char *line = kit_capture_log_at(&c->ctx->capture, i, &level);
    if (line && level >= SBIO_LOG_WARN && names_backend(line, c->ctx->backend) && strstr(line, "isolation")) n++;
    free(line);
  }
  return n;
}

void kit_isolation_unknown_warns_once(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (!kit_create_ok(c, NULL, "first create") || !kit_create_ok(c, NULL, "second create")) return;
  size_t n = unknown_warnings(c);
  if (ctx->tier == SBIO_TIER_UNKNOWN && n != 1)
    kit_fail(c, "an UNKNOWN-tier backend must warn exactly once per process; %zu warnings after two creates", n);
  else if (ctx->tier != SBIO_TIER_UNKNOWN && n != 0)
    kit_fail(c,
             "a %s backend produced %zu unverified-isolation warning(s): some sandbox reported a mechanism it "
             "does not declare, or one that is unverified",
             sbio_tier_name(ctx->tier), n);
  else
    kit_note(c, "%zu warning(s) for a %s backend", n, sbio_tier_name(ctx->tier));
}
