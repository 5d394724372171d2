/* SPDX-License-Identifier: MIT */
/* sbio-conformance: the conformance kit for sandboxio backends.
 *
 * A port, for C backends and through the public API only, of the
 * reference implementation's adapter contract suite: static checks of the
 * plugin file first, then every behaviour case the backend's declared
 * capabilities call for. docs/conformance.md maps every reference case. */
#include "args.h"
#include "prepare.h"
#include "registry.h"
#include "report.h"
#include "runner.h"

#include <stdio.h>
#include <string.h>

static void list_cases(void) {
  for (size_t i = 0; i < kit_case_count(); i++) {
    const kit_case_def *d = kit_case_at(i);
    printf("%-52s %-8s %s\n", d->name, d->refs[0] ? d->refs : "-", d->summary);
  }
}

static void print_header(const kit_ctx *ctx) {
  printf("sbio-conformance %s, libsandboxio %s: %s (run %s)\n", KIT_VERSION, sbio_version(), ctx->opt.uri, ctx->run_id);
  if (ctx->info)
    printf("backend %s %s at %s, tier %s\n", ctx->backend, sbio_backend_info_version(ctx->info),
           sbio_backend_info_path(ctx->info), sbio_tier_name(ctx->tier));
  if (ctx->opt.reuse)
    printf("--reuse-sandbox: the exec, stream and files cases without options of their own share one sandbox\n");
  fflush(stdout);
}

static int summarise(const kit_ctx *ctx) {
  size_t counts[KIT_NOT_RUN + 1] = {0};
  for (size_t i = 0; i < ctx->n_results; i++) counts[ctx->results[i].status]++;
  printf("\n%s: %zu passed, %zu passed with findings, %zu skipped, %zu failed (%.1f s)%s\n", ctx->opt.uri,
         counts[KIT_PASS], counts[KIT_WARN], counts[KIT_SKIP], counts[KIT_FAIL] + counts[KIT_NOT_RUN],
         kit_now() - ctx->started, ctx->reaped ? "; the sandboxes it left behind were removed" : "");
  return counts[KIT_FAIL] || counts[KIT_NOT_RUN] ? KIT_EXIT_FAILED : KIT_EXIT_OK;
}

int main(int argc, char **argv) {
  kit_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  int exit_now = 0;
  if (kit_args_parse(argc, argv, &ctx.opt, &exit_now) != 0) return KIT_EXIT_USAGE;
  if (exit_now) return KIT_EXIT_OK;
  if (ctx.opt.list_only) {
    list_cases();
    return fflush(stdout) == 0 ? KIT_EXIT_OK : KIT_EXIT_IOERR;
  }
  if (kit_prepare(&ctx) != 0) {
    kit_finish(&ctx);
    return KIT_EXIT_UNAVAILABLE;
  }
  print_header(&ctx);
  kit_run_all(&ctx);
  kit_reap_run(&ctx);
  if (ctx.opt.reuse) printf("--reuse-sandbox: the shared sandbox served %zu case(s)\n", ctx.shared_uses);
  int status = summarise(&ctx);
  if (ctx.opt.report_path && kit_report_write(&ctx, ctx.opt.report_path) != 0) status = KIT_EXIT_IOERR;
  if (fflush(stdout) != 0) status = KIT_EXIT_IOERR;
  kit_finish(&ctx);
  return status;
}
