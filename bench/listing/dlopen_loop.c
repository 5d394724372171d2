/* SPDX-License-Identifier: MIT */
/* The peer of `sbio backends --json` over many installed backends: the
 * least a program that opens each backend file can do, dlopen (RTLD_NOW,
 * as the loader does) and dlclose every *.so in DIR, nothing else.
 * Usage: dlopen_loop DIR; prints how many files it opened. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen_loop DIR\n");
    return 2;
  }
  DIR *d = opendir(argv[1]);
  if (!d) {
    perror(argv[1]);
    return 1;
  }
  long opened = 0;
  char path[4096];
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 4 || strcmp(e->d_name + n - 3, ".so") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    dlclose(h);
    opened++;
  }
  closedir(d);
  printf("%ld\n", opened);
  return 0;
}
