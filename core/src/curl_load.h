/* SPDX-License-Identifier: MIT */
/* libcurl, loaded when something in the core needs HTTP: today only the
 * span exporter (otlp_export.c), so a process that exports no spans
 * (`sbio version`, listings, runs on the fake) never maps libcurl and the
 * thirty-odd libraries it depends on. The library is opened once per
 * process by its SONAME, as the dynamic linker would have, and never
 * closed (backends and the application may share it). */
#ifndef SBIO_CURL_LOAD_H
#define SBIO_CURL_LOAD_H

#include <curl/curl.h>
#include <stddef.h>

typedef struct sbio__curl_api {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *c, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL *c);
  CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
  void (*easy_cleanup)(CURL *c);
  const char *(*easy_strerror)(CURLcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
  void (*slist_free_all)(struct curl_slist *list);
} sbio__curl_api;

/* The functions, once libcurl is loaded and curl_global_init has run
 * (the process-wide rule of docs/backend-abi.md: once, never cleaned up);
 * NULL with the reason in why when it cannot be. Thread-safe; the first
 * call loads, later ones return the same table or the same reason. */
const sbio__curl_api *sbio__curl(char *why, size_t why_size);

#endif
