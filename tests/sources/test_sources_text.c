/* SPDX-License-Identifier: MIT */
/* sbio-sources' pure parts: page to text, quote matching, display-safe
 * text. The end-to-end verdicts are in test_sources_check.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "page_text.h"
#include "quote_match.h"
#include "safe_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *text_of(const char *html) {
  size_t len = 0;
  char *t = src_page_text(html, strlen(html), &len);
  assert_non_null(t);
  assert_int_equal(strlen(t), len);
  return t;
}

static void assert_text(const char *html, const char *expected) {
  char *t = text_of(html);
  if (strcmp(t, expected) != 0) fail_msg("page %s\n  gave   [%s]\n  wanted [%s]", html, t, expected);
  free(t);
}

static void markup_is_removed(void **state) {
  (void)state;
  assert_text("<p>Hello <b>wor</b>ld</p>", "Hello world");
  assert_text("<p>one</p><p>two</p>", "one two");
  assert_text("a<br>b<li>c</li>d", "a b c d");
  assert_text("<a href=\"x>y\" title='a>b'>link</a> text", "link text");
  assert_text("x<!-- a comment -->y", "xy");
  assert_text("<!DOCTYPE html><html>t</html>", "t");
  assert_text("<script>var s = \"</p>visible?\";</script>shown", "shown");
  assert_text("<STYLE type=text/css>p{}</Style>after", "after");
  assert_text("<svg><text>icon</text></svg>label", "label");
  assert_text("<template><p>inert</p></template>live", "live");
  assert_text("a < b and c<3", "a < b and c<3");
  assert_text("unclosed <script>everything after", "unclosed");
  assert_text("<p>broken <a href=\"never closed", "broken");
}

static void references_are_decoded(void **state) {
  (void)state;
  assert_text("&lt;tag&gt; &amp; &quot;q&quot; &apos;a&apos;", "<tag> & \"q\" 'a'");
  assert_text("caf&eacute; &#233; &#xE9; &#XE9", "caf\xc3\xa9 \xc3\xa9 \xc3\xa9 \xc3\xa9");
  assert_text("a&nbsp;b&ensp;c&#8203;d", "a b cd");
  assert_text("sand&shy;box", "sandbox");
  /* Typographic punctuation folds to ASCII, references or not. */
  assert_text("&lsquo;x&rsquo; &ldquo;y&rdquo; &ndash; &mdash; &hellip; \xe2\x80\x9cz\xe2\x80\x9d",
              "'x' \"y\" - - ... \"z\"");
  /* Numeric references the HTML standard reads as Windows-1252. */
  assert_text("&#146;&#151;", "'-");
  /* Zero, surrogates and out-of-range values are U+FFFD, never a NUL. */
  assert_text("a&#0;b&#xD800;c&#x110000;d", "a\xef\xbf\xbd"
                                            "b\xef\xbf\xbd"
                                            "c\xef\xbf\xbd"
                                            "d");
  /* Unknown names and bare ampersands stay text. */
  assert_text("&bogus; AT&T &; &#;", "&bogus; AT&T &; &#;");
}

static void text_is_folded(void **state) {
  (void)state;
  assert_text("  many\n\n\tlines \r\n here  ", "many lines here");
  /* Controls, bidirectional overrides and malformed bytes. */
  assert_text("a\x1b[31mb\x07 \xe2\x80\xae"
              "c\xe2\x80\xac \xc2\x9b"
              "d \xff\xfe"
              "e",
              "a[31mb c d \xef\xbf\xbd\xef\xbf\xbd"
              "e");
  assert_text("&#27;&#x202e;x", "x");
}

static src_match match(const char *page, const char *quote) {
  size_t plen = 0, qlen = 0;
  char *p = src_page_text(page, strlen(page), &plen);
  char *q = src_text_fold(quote, strlen(quote), &qlen);
  assert_non_null(p);
  assert_non_null(q);
  src_match m;
  assert_int_equal(src_quote_match(p, plen, q, qlen, &m), 0);
  free(p);
  free(q);
  return m;
}

static void quotes_are_found(void **state) {
  (void)state;
  const char *quote = "The provider's guest kernel is never shared \xe2\x80\x94 not per-sandbox.";
  assert_true(match("<p>the PROVIDER&rsquo;s <em>guest</em>\nkernel is never&nbsp;shared &#x2014; "
                    "not per&#8209;sandbox.</p>",
                    quote)
                  .found);
  assert_true(match("The provider's guest kernel is never shared - not per sandbox", quote).found);
  /* A word changed, removed, split or joined: not found. */
  assert_false(match("The provider's host kernel is never shared - not per-sandbox.", quote).found);
  assert_false(match("The provider's kernel is never shared - not per-sandbox.", quote).found);
  assert_false(match("The provider's guest ker nel is never shared - not per-sandbox.", quote).found);
  assert_false(match("The provider's guestkernel is never shared - not per-sandbox.", quote).found);
  /* Words in order but not next to each other: not found. */
  assert_false(match("The provider's guest kernel, they say, is never shared - not per-sandbox.", quote).found);
  /* Only in a script: not found. */
  assert_false(match("<script>The provider's guest kernel is never shared - not per-sandbox.</script>", quote).found);
  /* A quote without words is never found. */
  src_match m = match("anything", "-- ...");
  assert_false(m.found);
  assert_int_equal(m.quote_words, 0);
}

static void closest_passage(void **state) {
  (void)state;
  const char *page = "Pricing is per second. Each sandbox is a container: the host kernel is shared between "
                     "sandboxes. Contact sales.";
  const char *quote = "Each sandbox is a microVM: the guest kernel is never shared between sandboxes.";
  size_t plen = 0, qlen = 0;
  char *p = src_page_text(page, strlen(page), &plen);
  char *q = src_text_fold(quote, strlen(quote), &qlen);
  src_match m;
  assert_int_equal(src_quote_match(p, plen, q, qlen, &m), 0);
  assert_false(m.found);
  assert_int_equal(m.quote_words, 13);
  assert_int_equal(m.matched_words, 10);
  char passage[256];
  snprintf(passage, sizeof passage, "%.*s", (int)(m.end - m.start), p + m.start);
  assert_string_equal(passage, "Each sandbox is a container: the host kernel is shared between sandboxes");
  free(p);

  /* Nothing in common: no passage. */
  p = src_page_text("zzz yyy", 7, &plen);
  assert_int_equal(src_quote_match(p, plen, q, qlen, &m), 0);
  assert_int_equal(m.matched_words, 0);
  assert_int_equal(m.end, m.start);
  free(p);
  /* A page shorter than the quote: the whole page is the window. */
  p = src_page_text("guest kernel", 12, &plen);
  assert_int_equal(src_quote_match(p, plen, q, qlen, &m), 0);
  assert_int_equal(m.matched_words, 2);
  assert_int_equal(m.end - m.start, 12);
  free(p);
  free(q);
}

static int only_safe_bytes(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p < 0x20 || *p == 0x7f) return 0;
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) return 0;                   /* C1 */
    if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] >= 0xaa && p[2] <= 0xae)) return 0; /* bidi */
    if (p[0] == 0xe2 && p[1] == 0x81 && (p[2] >= 0xa6 && p[2] <= 0xa9)) return 0; /* isolates */
  }
  return 1;
}

static void display_text_is_safe(void **state) {
  (void)state;
  const char hostile[] = "ok\x1b]0;title\x07 \xe2\x80\xae"
                         "evil\xe2\x81\xa6 \xc2\x85 \xff end";
  char *s = src_safe_text(hostile, sizeof hostile - 1, 100);
  assert_non_null(s);
  assert_true(only_safe_bytes(s));
  assert_string_equal(s, "ok]0;title evil \xef\xbf\xbd end");
  free(s);
  /* Typography is kept: only what is unsafe goes. */
  s = src_safe_text("\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x80\x94 it\xe2\x80\x99s", 23, 100);
  assert_string_equal(s, "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x80\x94 it\xe2\x80\x99s");
  free(s);
  /* Cut at a character boundary, marked. */
  s = src_safe_text("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 10, 8);
  assert_string_equal(s, "\xc3\xa9\xc3\xa9...");
  free(s);

  s = src_safe_url("https://user:pw@example.org/a b/\x1b[2J?token=abc&x=1&flag#frag", 200);
  assert_string_equal(s, "https://example.org/a%20b/%1B[2J?token=***&x=***&flag");
  free(s);
  s = src_safe_url("https://example.org/path", 200);
  assert_string_equal(s, "https://example.org/path");
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(markup_is_removed), cmocka_unit_test(references_are_decoded),
      cmocka_unit_test(text_is_folded),    cmocka_unit_test(quotes_are_found),
      cmocka_unit_test(closest_passage),   cmocka_unit_test(display_text_is_safe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
