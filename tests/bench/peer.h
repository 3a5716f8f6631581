/* peer.h - a peer library's copy of a bench case (peer.c: oneDNN's reorder). */
#ifndef TL_BENCH_PEER_H
#define TL_BENCH_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../src/core/tl.h"

struct tl_peer;

/* The peer's name, for the report. */
const char *tl_peer_name(void);

/* Prepares the peer's copy of src (at src) into dst (at dst), the buffers
 * the case uses, on `threads` threads (oneDNN fixes its thread count when
 * it makes the copy).  @return NULL, with the reason in why, when the peer
 * is not built in or cannot do this copy. */
struct tl_peer *tl_peer_open(const struct tl_desc *s, const struct tl_desc *d, const uint8_t *src,
                             uint8_t *dst, unsigned threads, char *why, size_t n);

/* Runs the copy once, and returns when it is done. */
void tl_peer_run(struct tl_peer *p);

void tl_peer_close(struct tl_peer *p);

#endif
