/* SPDX-License-Identifier: MIT */
/* The session table; see sessions.h. */
#include "sessions.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

typedef struct entry {
  char id[MCP_SESSION_ID_LEN + 1];
  mcp_session *s;
  uint64_t last_used;
} entry;

struct mcp_sessions {
  pthread_mutex_t lock;
  entry slots[MCP_MAX_SESSIONS];
  uint64_t clock; /* a counter: "recently" is an order, not a time */
};

mcp_sessions *mcp_sessions_new(void) {
  mcp_sessions *t = calloc(1, sizeof *t);
  if (t) pthread_mutex_init(&t->lock, NULL);
  return t;
}

static void end(mcp_session *s) {
  mcp_session_close(s);
  mcp_session_unref(s);
}

void mcp_sessions_free(mcp_sessions *t) {
  if (!t) return;
  for (size_t i = 0; i < MCP_MAX_SESSIONS; i++)
    if (t->slots[i].s) end(t->slots[i].s);
  pthread_mutex_destroy(&t->lock);
  free(t);
}

static int new_id(char *out) {
  unsigned char raw[MCP_SESSION_ID_LEN / 2];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  for (size_t i = 0; i < sizeof raw; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

int mcp_sessions_add(mcp_sessions *t, mcp_session *s, char *id_out) {
  char id[MCP_SESSION_ID_LEN + 1];
  if (new_id(id) != 0) return -1;
  mcp_session *evicted = NULL;
  pthread_mutex_lock(&t->lock);
  entry *slot = NULL;
  for (size_t i = 0; i < MCP_MAX_SESSIONS && !slot; i++)
    if (!t->slots[i].s) slot = &t->slots[i];
  if (!slot) {
    slot = &t->slots[0];
    for (size_t i = 1; i < MCP_MAX_SESSIONS; i++)
      if (t->slots[i].last_used < slot->last_used) slot = &t->slots[i];
    evicted = slot->s;
  }
  memcpy(slot->id, id, sizeof id);
  mcp_session_ref(s);
  slot->s = s;
  slot->last_used = ++t->clock;
  pthread_mutex_unlock(&t->lock);
  if (evicted) end(evicted);
  memcpy(id_out, id, sizeof id);
  return 0;
}

mcp_session *mcp_sessions_get(mcp_sessions *t, const char *id) {
  if (!id || strlen(id) != MCP_SESSION_ID_LEN) return NULL;
  mcp_session *s = NULL;
  pthread_mutex_lock(&t->lock);
  for (size_t i = 0; i < MCP_MAX_SESSIONS; i++) {
    if (t->slots[i].s && strcmp(t->slots[i].id, id) == 0) {
      s = t->slots[i].s;
      mcp_session_ref(s);
      t->slots[i].last_used = ++t->clock;
      break;
    }
  }
  pthread_mutex_unlock(&t->lock);
  return s;
}

int mcp_sessions_remove(mcp_sessions *t, const char *id) {
  if (!id || strlen(id) != MCP_SESSION_ID_LEN) return -1;
  mcp_session *s = NULL;
  int left = 0;
  pthread_mutex_lock(&t->lock);
  for (size_t i = 0; i < MCP_MAX_SESSIONS; i++) {
    if (t->slots[i].s && strcmp(t->slots[i].id, id) == 0) {
      s = t->slots[i].s;
      t->slots[i].s = NULL;
      t->slots[i].id[0] = '\0';
    } else if (t->slots[i].s) {
      left++;
    }
  }
  pthread_mutex_unlock(&t->lock);
  if (!s) return -1;
  end(s);
  return left;
}
