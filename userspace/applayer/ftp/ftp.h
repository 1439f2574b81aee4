/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * FTP over TCP (docs/applayer.md): the control session's commands and
 * replies, paired in order (pipelined commands wait for theirs; a final
 * reply, 2xx to 5xx, ends a command, 1xx ones are kept with it; multi-line
 * replies are joined), each command a transaction handed to the EVE writer
 * when its final reply came (or at the flow's end). The server's greeting
 * is a transaction without a command, as in Suricata.
 *
 * Data connections: PORT and EPRT (active) and the 227 and 229 replies to
 * PASV and EPSV (passive) announce the endpoint a data connection will
 * use; the worker's table of expected connections (MK_FTP_EXPECT_MAX, the
 * oldest gives way, each lives MK_FTP_EXPECT_US) recognises the flow that
 * then carries data between those addresses to that port as ftp-data.
 * AUTH TLS accepted (234) ends the parsing.
 *
 * ftpbounce: a PORT or EPRT naming another address than the client's.
 */
#ifndef MK_FTP_H
#define MK_FTP_H

#include <stdint.h>
#include "applayer_int.h"

#define MK_FTP_REPLY_MAX 16		      /* reply lines kept per command */
#define MK_FTP_EXPECT_MAX 64		      /* expected data connections per worker */
#define MK_FTP_EXPECT_US (60ull * 1000000ull) /* how long one is expected */

enum mk_ftp_mode { MK_FTP_MODE_NONE = 0, MK_FTP_MODE_PASSIVE, MK_FTP_MODE_ACTIVE };

/* What the EVE `ftp` record shows of a command. */
struct mk_ftp_tx {
	char command[16];   /* upper case; "" for the greeting */
	char *command_data; /* its argument; NULL without */
	char *reply[MK_FTP_REPLY_MAX];
	char code[MK_FTP_REPLY_MAX][4]; /* completion codes of the lines that carry one */
	uint32_t nreply, ncode;
	uint16_t dynamic_port; /* the data connection's port (PORT, EPRT, 227, 229) */
	uint8_t mode;	       /* enum mk_ftp_mode */
	uint8_t reply_received;
	uint8_t bounce; /* PORT/EPRT named another address than the client's */
};

#define MK_FTP_FILE_MAX 256 /* the file name an ftp_data record shows at most */

/* What the EVE `ftp_data` record shows of a data connection. */
struct mk_ftp_data_info {
	char command[8]; /* RETR, STOR, LIST, ...; "" if none came */
	char file[MK_FTP_FILE_MAX];
};

/* An expected data connection (then, matched, the one carrying its data). */
struct mk_ftp_expect_entry {
	uint32_t srv[4], cli[4]; /* the data connection's listening side, the other side */
	uint16_t port;		 /* the listening side's port, network order */
	uint8_t family;
	uint8_t in_use; /* 0 free, 1 expected, 2 matched: its data flow is open */
	uint32_t gen;	/* changes each time the slot is taken */
	uint64_t expires_us;
	struct mk_ftp_data_info info; /* the transfer command that used it */
};

struct mk_ftp_expect {
	struct mk_ftp_expect_entry e[MK_FTP_EXPECT_MAX];
	uint32_t n;    /* entries in use */
	uint32_t next; /* the slot the next one takes (the oldest when full) */
	uint32_t gen;
};

/* The client's first command is an FTP one (USER, AUTH, FEAT, ...): 1 yes, 0 no, -1 need more. */
int mk_ftp_probe_client(const uint8_t *p, uint32_t len);
/* A server's greeting ("220 " or "220-"): SMTP or FTP, the client's command decides. */
int mk_ftp_smtp_probe_server(const uint8_t *p, uint32_t len);

struct mk_ftp_flow *mk_ftp_flow_new(struct mk_app_thread *a);
void mk_ftp_data(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s, int to_client,
		 const uint8_t *data, uint32_t len, int gap);
/* The flow ends: the open commands are logged. */
void mk_ftp_flow_end(struct mk_app_thread *a, struct mk_flow *f, struct mk_ftp_flow *s);
void mk_ftp_flow_free(struct mk_ftp_flow *s);
/* The flow's latest PORT or EPRT named another address than the client's (ftpbounce). */
int mk_ftp_flow_bounce(const struct mk_ftp_flow *s);
/*
 * Buffer @id (detect_buf.h: MK_BUF_FTP_*) of a command (@tx: its struct
 * mk_ftp_tx): 1 and the bytes, or 0 when it has none.
 */
int mk_ftp_tx_buffer(const void *tx, unsigned int id, const uint8_t **data, uint32_t *len);

/*
 * Whether @f (TCP, no protocol yet) is a data connection of the table @x
 * expects at @now_us: 1 and its entry in *@slot, *@gen (kept for the
 * flow's ftp_data record: mk_ftp_data_end()), or 0.
 */
int mk_ftp_expect_match(struct mk_app_thread *a, struct mk_ftp_expect *x, const struct mk_flow *f,
			uint64_t now_us, uint32_t *slot, uint32_t *gen);
/* The data flow @f of entry @slot, @gen ends: its ftp_data record (@log), the entry freed. */
void mk_ftp_data_end(struct mk_app_thread *a, struct mk_flow *f, uint32_t slot, uint32_t gen,
		     int log);

/*
 * PORT/227 argument "h1,h2,h3,h4,p1,p2" (the first 6 numbers found in @p):
 * the address (network order) and port (host order); 0, or -1 if none.
 */
int mk_ftp_parse_hostport(const uint8_t *p, uint32_t len, uint32_t *addr, uint16_t *port);

#endif /* MK_FTP_H */
