/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The announcer (docs/outputs-bgp.md): the live daemon's thread that owns
 * the table of active announcements (advise.h) and the unix socket ExaBGP's
 * process reads them from.
 *
 *   worker --chosen alert (SPSC ring, one per worker, full: counted)--> announcer
 *   announcer --"announce ..." / "withdraw ..." lines--> unix socket
 *       --> meerkat-exabgp-pipe (run by ExaBGP's `process`) --> ExaBGP --> BGP peers
 *   announcer --bgp_advise records--> EVE
 *
 * A worker selects an alert (a few compares) and pushes it by value: no
 * syscall, no lock, never a wait. The announcer wakes every 50 ms, drains
 * the rings, withdraws what expired (checked once a second), and writes the
 * commands to every connected pipe without blocking; a pipe that stalls
 * beyond its buffer or fails is closed (write_errors) and, when it connects
 * again, gets every active announcement first, as does any new pipe. At
 * stop it withdraws everything and gives the pipes up to two seconds to
 * take the withdrawals.
 */
#ifndef MK_ANNOUNCER_H
#define MK_ANNOUNCER_H

#include <stdint.h>
#include <jansson.h>
#include "advise.h"
#include "advise_cfg.h"

struct mk_advisor;

/*
 * The socket is created here (before the daemon drops its privileges);
 * @record receives the EVE lines (called from the announcer thread and at
 * stop). The sensor's own addresses are read now (getifaddrs). 0 or -errno
 * (logged, naming the socket).
 */
int mk_advisor_new(struct mk_advisor **out, const struct mk_advise_cfg *cfg, unsigned int nworkers,
		   void (*record)(void *ctx, const char *line, size_t len), void *ctx);
int mk_advisor_start(struct mk_advisor *a);
/* Worker @worker's side: selects alert @al and queues it. No syscall. */
void mk_advisor_alert(struct mk_advisor *a, unsigned int worker, const struct mk_detect_alert *al);
/* Withdraws every announcement, hands the pipes the withdrawals, joins the thread. */
void mk_advisor_stop(struct mk_advisor *a);
/* Closes and removes the socket. NULL is fine. */
void mk_advisor_free(struct mk_advisor *a);
/* The counters and `active` as the EVE stats event's "advise" object. */
json_t *mk_advisor_stats_json(struct mk_advisor *a);

#endif /* MK_ANNOUNCER_H */
