/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named buffers: what a rule's payload keywords (content, pcre, isdataat,
 * byte_test/jump/extract) read.
 *
 * A rule keeps one keyword list per buffer (struct mk_rule bufs[], indexed
 * by enum mk_buf_id) and a mask of the buffers it uses. Keywords join the
 * list of the rule's current buffer (rb->cur_buf, MK_BUF_PAYLOAD at the
 * start); a sticky-buffer keyword (http.uri, ...) only switches it. At run
 * time the matcher walks the buffers the rule uses, fetches each
 * (mk_buf_get()) and inspects that buffer with that list; every list must
 * match. A new buffer is an id in MK_BUFFERS, a case in its protocol's
 * getter and the keyword that selects it; the matcher does not change.
 *
 * payload is the packet's payload or, on stream data, the reassembled
 * window; the prefilter indexes it. Every other buffer belongs to one
 * application protocol (its proto column) and is read from one of its
 * transactions by that protocol's getter (applayer/<proto>/): a rule using
 * them is inspected per transaction, never on packets or stream windows,
 * and @side says which part of the transaction the buffer needs
 * (MK_BUF_SIDE_*). The parts are the protocol's: an HTTP request line and
 * headers (REQ), its body (REQ_BODY), the response's (RESP, RESP_BODY); a
 * DNS query (REQ) and response (RESP); a TLS ClientHello (REQ), ServerHello
 * (RESP) and the server's certificates (RESP_BODY); an SSH client's banner
 * (REQ) and KEXINIT (REQ_BODY), the server's (RESP, RESP_BODY); an FTP
 * command (REQ) and its final reply (RESP); an SMTP mail's envelope (REQ,
 * at DATA or BDAT), its message (REQ_BODY, at its end) and its end (RESP).
 */
#ifndef MK_DETECT_BUF_H
#define MK_DETECT_BUF_H

#include <stdint.h>

/* What of a transaction a buffer needs before a rule reading it is inspected. */
#define MK_BUF_SIDE_REQ 0x1	  /* request line and headers */
#define MK_BUF_SIDE_REQ_BODY 0x2  /* the whole request (its body) */
#define MK_BUF_SIDE_RESP 0x4	  /* response line and headers */
#define MK_BUF_SIDE_RESP_BODY 0x8 /* the whole response (its body) */
/*
 * The other side in a rule of the other direction: http.header and its
 * kin read the response's headers in a flow:to_client rule, file.data reads
 * the request body in a flow:to_server rule (as Suricata's).
 */
#define MK_BUF_SIDE_FLIP 0x10
/*
 * A multi-buffer (tls.certs, dns.query): a transaction may hold several
 * instances (instance 0, 1, ...); the rule's list matches if it matches one.
 */
#define MK_BUF_MULTI 0x20
/* The side bits of mk_buf_sides[] (without FLIP and MULTI). */
#define MK_BUF_SIDE_MASK 0x0f

/*
 * X(id, name, side, proto): every buffer; side 0: not a transaction's;
 * proto: the application protocol whose transactions hold it (MK_APP_<proto>).
 */
#define MK_BUFFERS(X)                                                                       \
	X(PAYLOAD, "payload", 0, NONE)                                                      \
	X(HTTP_URI, "http.uri", MK_BUF_SIDE_REQ, HTTP)                                      \
	X(HTTP_URI_RAW, "http.uri.raw", MK_BUF_SIDE_REQ, HTTP)                              \
	X(HTTP_METHOD, "http.method", MK_BUF_SIDE_REQ, HTTP)                                \
	X(HTTP_PROTOCOL, "http.protocol", MK_BUF_SIDE_REQ, HTTP)                            \
	X(HTTP_REQUEST_LINE, "http.request_line", MK_BUF_SIDE_REQ, HTTP)                    \
	X(HTTP_START, "http.start", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP)               \
	X(HTTP_HOST, "http.host", MK_BUF_SIDE_REQ, HTTP)                                    \
	X(HTTP_HOST_RAW, "http.host.raw", MK_BUF_SIDE_REQ, HTTP)                            \
	X(HTTP_USER_AGENT, "http.user_agent", MK_BUF_SIDE_REQ, HTTP)                        \
	X(HTTP_HEADER, "http.header", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP)             \
	X(HTTP_HEADER_RAW, "http.header.raw", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP)     \
	X(HTTP_HEADER_NAMES, "http.header_names", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP) \
	X(HTTP_COOKIE, "http.cookie", MK_BUF_SIDE_REQ, HTTP)                                \
	X(HTTP_REFERER, "http.referer", MK_BUF_SIDE_REQ, HTTP)                              \
	X(HTTP_ACCEPT, "http.accept", MK_BUF_SIDE_REQ, HTTP)                                \
	X(HTTP_ACCEPT_ENC, "http.accept_enc", MK_BUF_SIDE_REQ, HTTP)                        \
	X(HTTP_ACCEPT_LANG, "http.accept_lang", MK_BUF_SIDE_REQ, HTTP)                      \
	X(HTTP_CONNECTION, "http.connection", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP)     \
	X(HTTP_CONTENT_TYPE, "http.content_type", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP) \
	X(HTTP_CONTENT_LEN, "http.content_len", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, HTTP)   \
	X(HTTP_REQUEST_BODY, "http.request_body", MK_BUF_SIDE_REQ_BODY, HTTP)               \
	X(HTTP_STAT_CODE, "http.stat_code", MK_BUF_SIDE_RESP, HTTP)                         \
	X(HTTP_STAT_MSG, "http.stat_msg", MK_BUF_SIDE_RESP, HTTP)                           \
	X(HTTP_RESPONSE_LINE, "http.response_line", MK_BUF_SIDE_RESP, HTTP)                 \
	X(HTTP_SERVER, "http.server", MK_BUF_SIDE_RESP, HTTP)                               \
	X(HTTP_LOCATION, "http.location", MK_BUF_SIDE_RESP, HTTP)                           \
	X(HTTP_RESPONSE_BODY, "http.response_body", MK_BUF_SIDE_RESP_BODY, HTTP)            \
	X(FILE_DATA, "file.data", MK_BUF_SIDE_RESP_BODY | MK_BUF_SIDE_FLIP, HTTP)           \
	X(DNS_QUERY, "dns.query", MK_BUF_SIDE_REQ | MK_BUF_MULTI, DNS)                      \
	X(DNS_QUERIES_RRNAME, "dns.queries.rrname",                                         \
	  MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP | MK_BUF_MULTI, DNS)                           \
	X(DNS_ANSWER_NAME, "dns.answer.name", MK_BUF_SIDE_RESP | MK_BUF_MULTI, DNS)         \
	X(TLS_SNI, "tls.sni", MK_BUF_SIDE_REQ, TLS)                                         \
	X(JA3_HASH, "ja3.hash", MK_BUF_SIDE_REQ, TLS)                                       \
	X(JA3_STRING, "ja3.string", MK_BUF_SIDE_REQ, TLS)                                   \
	X(JA4_HASH, "ja4.hash", MK_BUF_SIDE_REQ, TLS)                                       \
	X(JA3S_HASH, "ja3s.hash", MK_BUF_SIDE_RESP, TLS)                                    \
	X(JA3S_STRING, "ja3s.string", MK_BUF_SIDE_RESP, TLS)                                \
	X(TLS_CERTS, "tls.certs", MK_BUF_SIDE_RESP_BODY | MK_BUF_MULTI, TLS)                \
	X(TLS_CERT_SUBJECT, "tls.cert_subject", MK_BUF_SIDE_RESP_BODY, TLS)                 \
	X(TLS_CERT_ISSUER, "tls.cert_issuer", MK_BUF_SIDE_RESP_BODY, TLS)                   \
	X(TLS_CERT_SERIAL, "tls.cert_serial", MK_BUF_SIDE_RESP_BODY, TLS)                   \
	X(TLS_CERT_FINGERPRINT, "tls.cert_fingerprint", MK_BUF_SIDE_RESP_BODY, TLS)         \
	X(SSH_PROTO, "ssh.proto", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, SSH)                  \
	X(SSH_SOFTWARE, "ssh.software", MK_BUF_SIDE_REQ | MK_BUF_SIDE_FLIP, SSH)            \
	X(SSH_HASSH, "ssh.hassh", MK_BUF_SIDE_REQ_BODY, SSH)                                \
	X(SSH_HASSH_STRING, "ssh.hassh.string", MK_BUF_SIDE_REQ_BODY, SSH)                  \
	X(SSH_HASSH_SERVER, "ssh.hassh.server", MK_BUF_SIDE_RESP_BODY, SSH)                 \
	X(SSH_HASSH_SERVER_STRING, "ssh.hassh.server.string", MK_BUF_SIDE_RESP_BODY, SSH)   \
	X(FTP_COMMAND, "ftp.command", MK_BUF_SIDE_REQ, FTP)                                 \
	X(FTP_COMMAND_DATA, "ftp.command_data", MK_BUF_SIDE_REQ, FTP)                       \
	X(SMTP_HELO, "smtp.helo", MK_BUF_SIDE_REQ, SMTP)                                    \
	X(SMTP_MAIL_FROM, "smtp.mail_from", MK_BUF_SIDE_REQ, SMTP)                          \
	X(SMTP_RCPT_TO, "smtp.rcpt_to", MK_BUF_SIDE_REQ | MK_BUF_MULTI, SMTP)               \
	X(SMTP_FILE_DATA, "file.data", MK_BUF_SIDE_REQ_BODY | MK_BUF_MULTI, SMTP)

#define MK_BUF_ENUM(id, name, side, proto) MK_BUF_##id,
enum mk_buf_id { MK_BUFFERS(MK_BUF_ENUM) MK_BUF_COUNT };
#undef MK_BUF_ENUM

_Static_assert(MK_BUF_COUNT < 64, "a rule's buffer mask is 64 bits");

/* One bit of a rule's buffer mask. */
#define MK_BUF_BIT(id) (1ull << (id))

struct mk_sm;
struct mk_match_ctx;

/* A rule's keywords for one buffer, in rule order. */
struct mk_sm_list {
	struct mk_sm *sm;
	uint32_t n, cap;
};

/* A buffer as a getter hands it over. */
struct mk_buf {
	const uint8_t *data;
	uint32_t len;
	uint32_t min_end;  /* a match must end after this offset (stream windows); 0: none */
	uint64_t abs_base; /* stream offset of data[0]; 0 for packets */
};

/*
 * Fills @out with instance @idx of buffer @id for @mc (idx 0 unless the
 * buffer is MK_BUF_MULTI): 1, or 0 when the packet, stream or transaction
 * has no such buffer (or no more instances).
 */
int mk_buf_get(const struct mk_match_ctx *mc, unsigned int id, uint32_t idx, struct mk_buf *out);

extern const char *const mk_buf_names[MK_BUF_COUNT];
extern const uint8_t mk_buf_sides[MK_BUF_COUNT];
extern const uint8_t mk_buf_protos[MK_BUF_COUNT]; /* enum mk_app_proto; 0 for payload */

/* The buffers a transaction rule may read: every one but payload. */
#define MK_BUF_APP_MASK (~MK_BUF_BIT(MK_BUF_PAYLOAD) & (MK_BUF_BIT(MK_BUF_COUNT) - 1))

#endif /* MK_DETECT_BUF_H */
