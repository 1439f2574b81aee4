/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the detection module: the parsed rule, its keyword matches (one
 * table of keywords, one file per keyword or family, as Suricata's
 * detect-*.c), the parse environment, the engine, the worker context and
 * the per-flow state. Nothing here is for the pipeline; it uses detect.h.
 */
#ifndef MK_DETECT_INT_H
#define MK_DETECT_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include "detect.h"
#include "detect_buf.h"

#define MK_RULE_ERR_LEN 256
#define MK_BYTEVARS_MAX 8     /* byte_extract variables per rule */
#define MK_DEDUP_SLOTS 16     /* per-flow memory of segment alerts (retransmissions) */
#define MK_PF_CONTENTS_MAX 8  /* positive contents per rule the prefilter checks */
#define MK_PF_MIN_LEN 4	      /* shorter contents are left to verification (but the fast pattern) */
#define MK_ALERTS_MAX 64      /* alerts per packet (Suricata: packet_alert_max 15) */
#define MK_INSPECT_STEPS 3000 /* inspection recursion budget (Suricata's default) */
#define MK_STREAM_HEAD_MAX 65536 /* stream bytes from offset 0 kept for absolute keywords */
#define MK_ARMED_MAX 256	 /* rules armed per stream direction (anchors in the window) */

/* ---- rule header ----------------------------------------------------------- */

enum mk_rule_proto {
	MK_RP_IP = 0,
	MK_RP_TCP,
	MK_RP_UDP,
	MK_RP_ICMP, /* ICMPv4 and ICMPv6, as Suricata */
	MK_RP_ICMPV6,
	MK_RP_TCP_PKT,
	MK_RP_TCP_STREAM,
};

/* Protocol classes of packets: one set of rule groups each. */
enum mk_pclass { MK_PC_TCP = 0, MK_PC_UDP, MK_PC_ICMP, MK_PC_OTHER, MK_PC_MAX };

struct mk_range4 {
	uint32_t lo, hi; /* host order, inclusive */
};

struct mk_range6 {
	uint8_t lo[16], hi[16]; /* network order, inclusive */
};

/* A set of addresses: sorted, merged, non-overlapping ranges per family. */
struct mk_addr_set {
	struct mk_range4 *v4;
	struct mk_range6 *v6;
	uint32_t n4, n6;
	uint8_t any; /* every address of both families */
};

struct mk_port_range {
	uint16_t lo, hi;
};

struct mk_port_set {
	struct mk_port_range *r;
	uint32_t n;
	uint8_t any;
};

/* ---- keywords -------------------------------------------------------------- */

/* What the payload inspection engine (match/payload.c) switches on. */
enum mk_kw_type {
	MK_KWT_META = 0, /* setup only (msg, sid, ...) */
	MK_KWT_MODIFIER, /* modifies the previous content or the rule (nocase, depth, ...) */
	MK_KWT_CONTENT,
	MK_KWT_PCRE,
	MK_KWT_ISDATAAT,
	MK_KWT_BYTE_TEST,
	MK_KWT_BYTE_JUMP,
	MK_KWT_BYTE_EXTRACT,
	MK_KWT_BSIZE, /* the length of the buffer (checked before the list is walked) */
	MK_KWT_MATCH, /* non-payload match with a match() callback */
	MK_KWT_POST,  /* action after a match (flowbits set, flowint +) */

	/* base64_decode: decodes, then runs base64_data's list (kw/base64.c) */
	MK_KWT_BASE64,
	/* asn1: BER checks from a position of the buffer (kw/asn1.c) */
	MK_KWT_ASN1,
};

/* Keyword flags. */
#define MK_KWF_NOVALUE 0x01   /* takes no value */
#define MK_KWF_VALUE 0x02     /* needs a value */
#define MK_KWF_STREAM_OK 0x04 /* a match keyword that also holds on stream data (flow state) */
#define MK_KWF_IPONLY_OK 0x08 /* does not prevent address-only (first packet) evaluation */

struct mk_rule_build;
struct mk_match_ctx;
struct mk_sm;
struct mk_kw_uint;

struct mk_kw {
	const char *name;
	enum mk_kw_type type;
	uint8_t flags;
	/* 0 or -1 with rb->err filled */
	int (*setup)(struct mk_rule_build *rb, const char *value);
	/* MK_KWT_MATCH: 1 match, 0 no match. MK_KWT_POST: performs the action. */
	int (*match)(const struct mk_match_ctx *mc, const struct mk_sm *sm);
	void (*free)(void *ctx);
	const char *doc;	       /* one line for docs/rules.md */
	const struct mk_kw_uint *uint; /* a packet field compared with a number (MK_KW_UINT) */
	uint8_t sticky; /* a sticky buffer keyword: its enum mk_buf_id + 1 (MK_KW_STICKY) */
};

/*
 * The common descriptor: a keyword that takes a value and keeps a malloc'ed
 * context. @flags_ is added to MK_KWF_VALUE.
 */
#define MK_KW_DEFINE(n, type_, flags_, setup_, match_, doc_)               \
	const struct mk_kw mk_kw_##n = { .name = #n,                       \
					 .type = type_,                    \
					 .flags = MK_KWF_VALUE | (flags_), \
					 .setup = setup_,                  \
					 .match = match_,                  \
					 .free = free,                     \
					 .doc = doc_ }

/*
 * Keywords comparing one unsigned field of the packet (struct mk_pkt_info)
 * with a value: one descriptor each, one setup and one match for all
 * (kw/uint.c). The value is Suricata's comparison syntax (N, <N, >N, <=N,
 * >=N, !N, N<>M) up to @max, or with @plain a plain number. @guard: the
 * offset of a flag of struct mk_pkt_info that must be set (MK_PI_FLAG), or
 * -1.
 */
struct mk_kw_uint {
	uint64_t max;
	uint16_t off;  /* offsetof(struct mk_pkt_info, field) */
	uint8_t width; /* its size: 1, 2 or 4 */
	uint8_t plain;
	int16_t guard;
};

#define MK_PI_FLAG(f) ((int16_t)offsetof(struct mk_pkt_info, f))

/* @setup_: mk_kw_uint_setup, or a setup of its own that ends in it. */
#define MK_KW_UINT(n, setup_, field, max_, plain_, guard_, doc_)         \
	static const struct mk_kw_uint mk_kw_uint_##n = {                \
		.max = (max_),                                           \
		.off = offsetof(struct mk_pkt_info, field),              \
		.width = sizeof(((const struct mk_pkt_info *)0)->field), \
		.plain = (plain_),                                       \
		.guard = (guard_),                                       \
	};                                                               \
	const struct mk_kw mk_kw_##n = { .name = #n,                     \
					 .type = MK_KWT_MATCH,           \
					 .flags = MK_KWF_VALUE,          \
					 .setup = setup_,                \
					 .match = mk_kw_uint_match,      \
					 .free = free,                   \
					 .doc = doc_,                    \
					 .uint = &mk_kw_uint_##n }

/* Parses the value for the keyword being set up (rb->cur_kw) and adds it. */
int mk_kw_uint_setup(struct mk_rule_build *rb, const char *value);
int mk_kw_uint_match(const struct mk_match_ctx *mc, const struct mk_sm *sm);

/* One keyword instance in a rule. */
struct mk_sm {
	const struct mk_kw *kw;
	void *ctx;
};

/*
 * The keywords, one registration list per family (kw/<family>.c defines
 * them); MK_KW_FAMILIES puts the families in the order docs/rules.md lists
 * them. A new keyword joins its family's list; a new family, MK_KW_FAMILIES.
 */
/* clang-format off */
#define MK_KW_FAMILY_META(X)                                                                       \
	X(msg) X(sid) X(rev) X(gid) X(classtype) X(priority) X(reference) X(metadata) X(target)    \
	X(noalert) X(bypass)
#define MK_KW_FAMILY_CONTENT(X)                                                                    \
	X(content) X(nocase) X(depth) X(offset) X(distance) X(within) X(startswith) X(endswith)    \
	X(fast_pattern) X(rawbytes)
#define MK_KW_FAMILY_ISDATAAT(X) X(isdataat)
#define MK_KW_FAMILY_BASE64(X) X(base64_decode) X(base64_data)
#define MK_KW_FAMILY_ASN1(X) X(asn1)
#define MK_KW_FAMILY_PCRE(X) X(pcre)
#define MK_KW_FAMILY_TRANSFORM(X)                                                                  \
	X(pkt_data) X(bsize) X(dotprefix) X(to_lowercase) X(to_uppercase) X(strip_whitespace)      \
	X(compress_whitespace) X(url_decode) X(header_lowercase) X(strip_pseudo_headers)           \
	X(to_md5) X(to_sha1) X(to_sha256) X(xor)
#define MK_KW_FAMILY_BYTES(X) X(byte_test) X(byte_jump) X(byte_extract)
#define MK_KW_FAMILY_DSIZE(X) X(dsize)
#define MK_KW_FAMILY_FLOW(X) X(flow)
#define MK_KW_FAMILY_FLOWVARS(X) X(flowbits) X(flowint) X(xbits)
#define MK_KW_FAMILY_TAG(X) X(tag)
#define MK_KW_FAMILY_TCP(X) X(flags) X(stream_size)
#define MK_KW_FAMILY_IPHEADER(X) X(ttl) X(ip_proto) X(sameip)
#define MK_KW_FAMILY_ICMP(X) X(itype) X(icode) X(icmp_id) X(icmp_seq)
#define MK_KW_FAMILY_THRESHOLD(X) X(threshold) X(detection_filter)
/* K, not X: the counter check reads X lists as counters */
#define MK_KW_FAMILY_HTTP(K)                                                                       \
	K(sb_http_uri) K(sb_http_uri_raw) K(sb_http_method) K(sb_http_protocol)                    \
	K(sb_http_protocol_) K(sb_http_request_line) K(sb_http_request_line_) K(sb_http_start)     \
	K(sb_http_start_) K(sb_http_host) K(sb_http_host_raw) K(sb_http_user_agent)                \
	K(sb_http_header) K(sb_http_header_raw)                                                    \
	K(sb_http_header_names) K(sb_http_header_names_) K(sb_http_cookie) K(sb_http_referer)      \
	K(sb_http_referer_) K(sb_http_accept) K(sb_http_accept_) K(sb_http_accept_enc)             \
	K(sb_http_accept_enc_) K(sb_http_accept_lang) K(sb_http_accept_lang_)                      \
	K(sb_http_connection) K(sb_http_connection_) K(sb_http_content_type)                       \
	K(sb_http_content_type_) K(sb_http_content_len) K(sb_http_content_len_)                    \
	K(sb_http_request_body) K(sb_http_stat_code) K(sb_http_stat_msg) K(sb_http_response_line) \
	K(sb_http_response_line_) K(sb_http_server) K(sb_http_location) K(sb_http_response_body)  \
	K(sb_file_data) K(sb_file_data_) K(http_uri) K(http_raw_uri) K(http_method)                \
	K(http_header) K(http_raw_header) K(http_cookie) K(http_user_agent) K(http_host)           \
	K(http_raw_host) K(http_client_body) K(http_server_body) K(http_stat_code)                 \
	K(http_stat_msg) K(uricontent) K(urilen)
/* kw/applayer_kw.c: app-layer-protocol, app-layer-event, ftpbounce */
#define MK_KW_FAMILY_APPLAYER(K) K(app_layer_protocol) K(app_layer_event) K(ftpbounce)
/* kw/dns.c: the DNS buffers */
#define MK_KW_FAMILY_DNS(K)                                                                        \
	K(sb_dns_query) K(sb_dns_query_) K(sb_dns_queries_rrname) K(sb_dns_answer_name)            \
	K(dns_opcode) K(dns_rcode) K(dns_rrtype)
/* kw/tls.c: the TLS buffers */
/* kw/ssh.c: the SSH, FTP and SMTP buffers */
#define MK_KW_FAMILY_SSH(K)                                                                        \
	K(sb_ssh_proto) K(sb_ssh_proto_) K(sb_ssh_software) K(sb_ssh_software_) K(sb_ssh_hassh)    \
	K(sb_ssh_hassh_string) K(sb_ssh_hassh_server) K(sb_ssh_hassh_server_string)            \
	K(sb_ftp_command) K(sb_ftp_command_data) K(sb_smtp_helo) K(sb_smtp_mail_from)           \
	K(sb_smtp_rcpt_to)
#define MK_KW_FAMILY_TLS(K)                                                                        \
	K(sb_tls_sni) K(sb_tls_sni_) K(sb_tls_certs) K(sb_tls_cert_subject)                        \
	K(sb_tls_cert_subject_) K(sb_tls_cert_issuer) K(sb_tls_cert_issuer_) K(sb_tls_cert_serial) \
	K(sb_tls_cert_serial_) K(sb_tls_cert_fingerprint) K(sb_tls_cert_fingerprint_)              \
	K(sb_ja3_hash) K(sb_ja3_hash_) K(sb_ja3_string) K(sb_ja3_string_) K(sb_ja3s_hash)          \
	K(sb_ja3s_string) K(sb_ja4_hash) K(tls_version) K(ssl_version) K(tls_cert_notbefore)       \
	K(tls_cert_notafter) K(tls_cert_notbefore_) K(tls_cert_notafter_) K(tls_cert_expired)       \
	K(tls_cert_valid) K(tls_cert_expired_) K(tls_cert_valid_) K(ssl_state)

#define MK_KW_FAMILIES(F)                                                                          \
	F(meta, MK_KW_FAMILY_META) F(content, MK_KW_FAMILY_CONTENT)                                 \
	F(isdataat, MK_KW_FAMILY_ISDATAAT) F(pcre, MK_KW_FAMILY_PCRE)                               \
	F(transform, MK_KW_FAMILY_TRANSFORM)                                                        \
	F(bytes, MK_KW_FAMILY_BYTES) F(dsize, MK_KW_FAMILY_DSIZE) F(flow, MK_KW_FAMILY_FLOW)        \
	F(base64, MK_KW_FAMILY_BASE64) F(asn1, MK_KW_FAMILY_ASN1)                                   \
	F(flowvars, MK_KW_FAMILY_FLOWVARS) F(tag, MK_KW_FAMILY_TAG) F(tcp, MK_KW_FAMILY_TCP)        \
	F(ipheader, MK_KW_FAMILY_IPHEADER) F(icmp, MK_KW_FAMILY_ICMP)                               \
	F(threshold, MK_KW_FAMILY_THRESHOLD) F(http, MK_KW_FAMILY_HTTP)                             \
	F(applayer, MK_KW_FAMILY_APPLAYER) F(dns, MK_KW_FAMILY_DNS) F(tls, MK_KW_FAMILY_TLS)        \
	F(ssh, MK_KW_FAMILY_SSH)

/* clang-format on */

#define MK_KW_EXTERN(n) extern const struct mk_kw mk_kw_##n;
#define MK_KW_EXTERN_FAMILY(fam, list) \
	list(MK_KW_EXTERN) extern const struct mk_kw_family mk_kw_family_##fam;
struct mk_kw_family;
MK_KW_FAMILIES(MK_KW_EXTERN_FAMILY)
#undef MK_KW_EXTERN_FAMILY
#undef MK_KW_EXTERN

/* A family's registration table: its keywords, in docs order. */
struct mk_kw_family {
	const char *name;
	const struct mk_kw *const *kws;
	unsigned int n;
};

#define MK_KW_PTR_(n) &mk_kw_##n,
#define MK_KW_ONE_(n) +1
/* Defines family @fam's table from its list (in kw/<fam>.c). */
#define MK_KW_FAMILY_TABLE(fam, list)                                                       \
	static const struct mk_kw *const mk_kw_family_##fam##_kws[] = { list(MK_KW_PTR_) }; \
	const struct mk_kw_family mk_kw_family_##fam = { .name = #fam,                      \
							 .kws = mk_kw_family_##fam##_kws,   \
							 .n = 0 list(MK_KW_ONE_) }

/* The families, in docs order (kw/register.c). */
extern const struct mk_kw_family *const mk_kw_families[];
extern const unsigned int mk_nkw_families;

/* Everything keywords live in; docs/rules.md is checked against these tables. */
extern const struct mk_kw *const mk_keywords[];
extern const unsigned int mk_nkeywords;

struct mk_unsupported_kw {
	const char *name;
	const char *why;
};
extern const struct mk_unsupported_kw mk_unsupported_keywords[];
extern const unsigned int mk_nunsupported_keywords;

const struct mk_kw *mk_kw_lookup(const char *name);
const struct mk_unsupported_kw *mk_kw_unsupported(const char *name);

/* ---- payload keyword data (used by match/payload.c and the prefilter) ------------ */

#define MK_CF_NEGATED 0x0001
#define MK_CF_NOCASE 0x0002
#define MK_CF_DEPTH 0x0004
#define MK_CF_OFFSET 0x0008
#define MK_CF_DISTANCE 0x0010
#define MK_CF_WITHIN 0x0020
#define MK_CF_STARTSWITH 0x0040
#define MK_CF_ENDSWITH 0x0080
#define MK_CF_FAST_PATTERN 0x0100
#define MK_CF_FP_ONLY 0x0200
#define MK_CF_FP_CHOP 0x0400
#define MK_CF_RAWBYTES 0x0800
#define MK_CF_RELATIVE_NEXT 0x1000 /* the next payload keyword is relative to this one */
#define MK_CF_DEPTH_VAR 0x2000	   /* value is a byte_extract variable index */
#define MK_CF_OFFSET_VAR 0x4000
#define MK_CF_DISTANCE_VAR 0x8000
#define MK_CF_WITHIN_VAR 0x10000

struct mk_content {
	uint8_t *pat; /* as written */
	uint8_t *low; /* lowercased, for nocase */
	uint32_t len;
	uint32_t flags;				 /* MK_CF_* */
	int32_t offset, depth, distance, within; /* or variable indexes with *_VAR */
	uint16_t fp_off, fp_len;		 /* fast_pattern:chop */
};

struct mk_pcre {
	void *code;	/* pcre2_code */
	char *src;	/* the /regex/flags text, for errors and docs */
	uint32_t flags; /* MK_PF_* */
	uint32_t opts;	/* PCRE2 compile options */
};

#define MK_PF_NEGATED 0x01
#define MK_PF_RELATIVE 0x02
#define MK_PF_ANCHORED 0x04 /* ^ at the start, not multi-line: the start of the buffer */
#define MK_PF_RELATIVE_NEXT 0x08

struct mk_isdataat {
	uint32_t n;
	uint8_t relative, negated, var;
};

/*
 * base64_decode (kw/base64.c): decodes up to @bytes bytes of base64 from
 * @offset (from the buffer's start, or with @relative from the end of the
 * previous match) and runs @data, the keywords after base64_data, on the
 * decoded bytes.
 */
#define MK_B64_BYTES_MAX 65535 /* encoded bytes one base64_decode reads (Suricata's limit) */
#define MK_B64_OUT_MAX (MK_B64_BYTES_MAX / 4 * 3 + 3)

struct mk_base64 {
	uint32_t bytes, offset;
	uint8_t relative;
	struct mk_sm_list data; /* base64_data's keywords */
};

/*
 * Decodes base64 as Suricata's base64_decode (RFC 4648, not strict): stops
 * at the first byte outside the alphabet and '=' (whitespace included), a
 * '=' counts as padding, a last partial group gives its whole bytes. Writes
 * at most @cap bytes; returns how many, with the encoded bytes used in
 * *@used (may be NULL).
 */
uint32_t mk_base64_decode(const uint8_t *in, uint32_t len, uint8_t *out, uint32_t cap,
			  uint32_t *used);
/* Rule check: every base64_decode has base64_data keywords. 0 or -1 with rb->err. */
int mk_base64_check(struct mk_rule_build *rb);

/* asn1 (kw/asn1.c): Suricata's checks on the BER objects from a position of the buffer. */
/* objects per buffer and nesting depth (Suricata's asn1-max-frames) */
#define MK_ASN1_MAX_FRAMES 30

#define MK_ASN1_BITSTRING_OVERFLOW 0x01
#define MK_ASN1_DOUBLE_OVERFLOW 0x02
#define MK_ASN1_OVERSIZE 0x04
#define MK_ASN1_ABSOLUTE 0x08
#define MK_ASN1_RELATIVE 0x10

struct mk_asn1 {
	uint32_t flags; /* MK_ASN1_* */
	uint32_t oversize_length;
	uint16_t absolute_offset;
	int32_t relative_offset;
};

/* 1 when a check of @a holds on the objects in buf[start, len); never reads outside it. */
int mk_asn1_match(const struct mk_asn1 *a, const uint8_t *buf, uint32_t len, uint32_t start);

#define MK_BF_RELATIVE 0x0001
#define MK_BF_LITTLE 0x0002
#define MK_BF_STRING 0x0004
#define MK_BF_NEGATED 0x0008
#define MK_BF_ALIGN 0x0010
#define MK_BF_FROM_BEGINNING 0x0020
#define MK_BF_FROM_END 0x0040
#define MK_BF_VALUE_VAR 0x0080
#define MK_BF_OFFSET_VAR 0x0100
#define MK_BF_BITMASK 0x0200
#define MK_BF_DCE 0x0400

enum mk_byte_op { MK_BOP_LT, MK_BOP_GT, MK_BOP_EQ, MK_BOP_LE, MK_BOP_GE, MK_BOP_AND, MK_BOP_XOR };

struct mk_byte {
	uint32_t flags; /* MK_BF_* */
	uint8_t nbytes;
	uint8_t base;  /* 8, 10, 16 for string */
	uint8_t op;    /* byte_test */
	uint8_t var;   /* byte_extract: variable slot it writes */
	uint8_t align; /* byte_extract align 2|4 */
	int32_t offset;
	uint64_t value; /* byte_test value */
	uint32_t multiplier;
	int32_t post_offset;
	uint32_t bitmask;
	uint8_t bitmask_shift;
};

/* Reads and converts the bytes; shared by byte_test/jump/extract (kw/bytes.c). */
int mk_byte_read(const struct mk_byte *b, const uint8_t *p, uint32_t avail, uint64_t *val,
		 uint32_t *used);

/* ---- bsize and transforms (kw/transform.c) ------------------------------------ */

enum mk_xform_op {
	MK_XF_DOTPREFIX = 1,
	MK_XF_TO_LOWER,
	MK_XF_TO_UPPER,
	MK_XF_STRIP_WS,
	MK_XF_COMPRESS_WS,
	MK_XF_URL_DECODE,
	MK_XF_HEADER_LOWER,
	MK_XF_STRIP_PSEUDO,
	MK_XF_MD5,
	MK_XF_SHA1,
	MK_XF_SHA256,
	MK_XF_XOR,
};

#define MK_XFORM_MAX 8	  /* transforms per sticky buffer (Suricata: 16) */
#define MK_XOR_KEY_MAX 32 /* bytes of an xor key */

struct mk_xform {
	uint8_t op; /* enum mk_xform_op */
	uint8_t klen;
	uint8_t key[MK_XOR_KEY_MAX];
};

/* A sticky buffer's transforms, applied in order; compared with memcmp (zeroed). */
struct mk_xform_chain {
	uint32_t n;
	struct mk_xform x[MK_XFORM_MAX];
};

/*
 * Applies @c to in[0, len): the result is in *@buf (grown as needed, the
 * caller's) for *@olen bytes. 0 or -ENOMEM.
 */
int mk_xform_apply(const struct mk_xform_chain *c, const uint8_t *in, uint32_t len, uint8_t **buf,
		   uint32_t *cap, uint32_t *olen);
/* The transform of @c a content can never match after (Suricata's check), or NULL. */
const char *mk_xform_content_check(const struct mk_xform_chain *c, const uint8_t *pat,
				   uint32_t len);
/* The transformed buffers of the transaction being inspected, each built once (match/buffers.c). */
void mk_xform_cache_reset(struct mk_detect_thread *t);
void mk_xform_cache_free(struct mk_detect_thread *t);

/* ---- rule ------------------------------------------------------------------ */

/* Flow keyword bits. */
#define MK_FLOW_F_ESTABLISHED 0x01
#define MK_FLOW_F_NOT_ESTABLISHED 0x02
#define MK_FLOW_F_STATELESS 0x04
#define MK_FLOW_F_TO_SERVER 0x08
#define MK_FLOW_F_TO_CLIENT 0x10
#define MK_FLOW_F_ONLY_STREAM 0x20
#define MK_FLOW_F_NO_STREAM 0x40

/* Rule flags. */
#define MK_RF_BIDIR 0x0001
#define MK_RF_NOALERT 0x0002
#define MK_RF_BYPASS 0x0004
#define MK_RF_IPONLY 0x0008
#define MK_RF_PAYLOAD 0x0010	 /* has payload keywords */
#define MK_RF_PKT_KW 0x0020	 /* has a packet-only match keyword (flags, ttl, dsize, ...) */
#define MK_RF_ABS_CONTENT 0x0040 /* a content with depth/offset/startswith */
#define MK_RF_POSITIVE 0x0080	 /* has a positive content or pcre */
#define MK_RF_TARGET_SRC 0x0100
#define MK_RF_TARGET_DST 0x0200
#define MK_RF_FLOWVAR_SET 0x0400 /* sets flowbits/flowint (rule ordering) */
#define MK_RF_FLOWVAR_GET 0x0800 /* checks flowbits/flowint */
#define MK_RF_NEEDS_FLOW 0x1000	 /* flow keyword other than stateless, flowbits, flowint */
#define MK_RF_APP_TX 0x2000	 /* inspected on application transactions (app_need) */
#define MK_RF_REJECT_SRC 0x4000	 /* inline reject: reset toward the packet's source */
#define MK_RF_REJECT_DST 0x8000	 /* inline reject: reset toward its destination */

/* How a TCP packet's rule reads TCP payload. */
#define MK_INSPECT_PKT 0x1
#define MK_INSPECT_STREAM 0x2

/* Stateful alert filter types (threshold, detection_filter, rate_filter). */
enum {
	MK_THRESH_NONE = 0,
	MK_THRESH_LIMIT,
	MK_THRESH_THRESHOLD,
	MK_THRESH_BOTH,
	MK_THRESH_DETECTION,
	MK_THRESH_RATE,
	MK_THRESH_BACKOFF /* alerts at count, count * multiplier, ... per flow */
};
enum {
	MK_TRACK_SRC = 0,
	MK_TRACK_DST,
	MK_TRACK_RULE,
	MK_TRACK_BOTH,
	MK_TRACK_EITHER,
	MK_TRACK_FLOW
};
enum { MK_UNIQUE_NONE = 0, MK_UNIQUE_SRC_PORT, MK_UNIQUE_DST_PORT };

struct mk_class {
	char *name, *desc;
	int priority;
};

struct mk_rule {
	uint32_t num; /* position in the engine's order */
	uint32_t gid, sid, rev;
	uint8_t action;	       /* enum mk_detect_action */
	uint8_t proto;	       /* enum mk_rule_proto */
	uint8_t flow;	       /* MK_FLOW_F_* */
	uint8_t inspect_tcp;   /* MK_INSPECT_* for TCP packets with payload rules */
	uint8_t app_proto;     /* enum mk_app_proto of `alert http` or its buffers; 0: any */
	uint8_t app_need;      /* MK_RF_APP_TX: MK_BUF_SIDE_* the transaction must have */
	uint8_t app_to_client; /* ... and the direction it is inspected in */
	uint32_t app_idx;      /* ... and its bit in struct mk_detect_tx_state */
	uint32_t tx_pf;	       /* ... and its transaction prefilter + 1 (anchor[0]); 0: none */
	uint32_t flags;	       /* MK_RF_* */
	int priority;	       /* rule's priority, or the classtype's, or 3 */
	struct mk_addr_set src, dst;
	struct mk_port_set sp, dp;
	char *msg;
	const struct mk_class *cls; /* engine-owned */
	struct mk_kv *refs, *meta;
	uint32_t nrefs, nmeta;
	/*
	 * Payload keywords, one list per named buffer (detect_buf.h); the
	 * payload buffer's list is also pmatch/npmatch, its first name.
	 */
	union {
		struct mk_sm_list bufs[MK_BUF_COUNT];
		struct {
			struct mk_sm *pmatch;
			uint32_t npmatch;
		};
	};
	uint64_t buf_mask; /* MK_BUF_BIT(enum mk_buf_id) of each list in use */
	/* per buffer id, its transforms or NULL; the array is NULL without any */
	struct mk_xform_chain **xf;
	struct mk_sm *match, *post; /* packet, post-match lists */
	uint32_t nmatch, npost;
	struct mk_content *fp; /* fast pattern, or NULL */
	/* the content the prefilter indexes the rule by: [0] streams, [1] packets; NULL: none */
	const struct mk_content *anchor[2];
	struct mk_thresh_spec thresh; /* threshold or detection_filter keyword */
	uint32_t nbytevars;
	uint32_t abs_extent; /* stream bytes from offset 0 its absolute keywords need */
	char *file;
	uint32_t line;
	/* what the rule hook of the alert writer stored (detect.h), freed with the rule */
	char *eve;
	uint32_t eve_len;
	/* from threshold.config, set by the engine */
	struct mk_thresh_spec cfg_thresh, rate;
	struct mk_suppress *suppress; /* list, engine-owned */
	uint8_t cfg_thresh_set;
};

_Static_assert(offsetof(struct mk_rule, pmatch) ==
			       offsetof(struct mk_rule, bufs[MK_BUF_PAYLOAD].sm) &&
		       offsetof(struct mk_rule, npmatch) ==
			       offsetof(struct mk_rule, bufs[MK_BUF_PAYLOAD].n),
	       "pmatch/npmatch name the payload buffer's list");

/* A flow-variable namespace (flowbits, flowint): name -> stable id. */
struct mk_varnames {
	char **names;
	uint32_t n, cap;
	uint32_t *hash; /* open addressing, id + 1; 0 = empty */
	uint32_t hcap;
};

int mk_varnames_id(struct mk_varnames *v, const char *name, uint32_t *id);
int mk_varnames_copy(struct mk_varnames *dst, const struct mk_varnames *src);
void mk_varnames_free(struct mk_varnames *v);

/* What rule parsing needs besides the text: variables, config tables, var ids. */
struct mk_parse_env {
	const struct mk_detect_cfg *cfg;
	struct mk_class *classes;
	uint32_t nclasses;
	char **ref_types; /* NULL list: any type accepted */
	uint32_t nref_types;
	int have_ref_config;
	struct mk_varnames flowbits, flowints;
};

/* Parse-time state of one rule. */
struct mk_rule_build {
	struct mk_rule *r;
	struct mk_parse_env *env;
	struct mk_content *last_content; /* what modifiers apply to */
	void *last_payload;		 /* previous payload keyword (relative chains) */
	int last_payload_type;
	char bytevar_names[MK_BYTEVARS_MAX][32];
	uint32_t nbytevars;
	int seen_sid, seen_msg, seen_fast_pattern, seen_flow, seen_threshold, seen_df;
	int seen_rev, seen_gid, seen_classtype, seen_priority, seen_target, seen_dsize;
	uint32_t cap_m, cap_post;
	uint8_t cur_buf;	    /* enum mk_buf_id payload keywords join */
	uint8_t sticky_open;	    /* a sticky buffer was just selected: transforms may follow */
	struct mk_xform_chain xf;   /* ... the transforms given since */
	const char *kw;		    /* keyword being set up, for errors */
	const struct mk_kw *cur_kw; /* ... and its descriptor */
	int reason;		    /* enum mk_detect_fail */
	char err[MK_RULE_ERR_LEN];
	struct mk_base64 *b64;	     /* the last base64_decode (base64_data joins it) */
	struct mk_sm_list *b64_list; /* base64_data's list while it is the current buffer */
	uint8_t b64_buf;	     /* ... which it is while cur_buf is this one */
};

/* Sets rb->err/reason and returns -1. */
int mk_rule_fail(struct mk_rule_build *rb, int reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int mk_rule_add_sm(struct mk_rule_build *rb, int list, const struct mk_kw *kw, void *ctx);
/* MK_LIST_PMATCH: the current buffer's list (rb->cur_buf). */
enum { MK_LIST_PMATCH = 0, MK_LIST_MATCH, MK_LIST_POST };
/* Makes the rule an HTTP one (kw/http.c); -1 when it is of another protocol. */
int mk_kw_http_rule(struct mk_rule_build *rb);
/* The rule inspects application protocol @proto (enum mk_app_proto); -1 if another. */
int mk_kw_app_rule(struct mk_rule_build *rb, uint8_t proto);
/* A sticky buffer keyword: buffer @id is the rule's current one (its protocol's rule). */
int mk_kw_sticky(struct mk_rule_build *rb, unsigned int id);
/* The setup of every MK_KW_STICKY keyword: mk_kw_sticky() on its buffer. */
int mk_kw_sticky_setup(struct mk_rule_build *rb, const char *value);

/* A sticky buffer keyword @kwname selecting buffer @buf (enum mk_buf_id). */
#define MK_KW_STICKY(id, kwname, buf, doc_)                            \
	const struct mk_kw mk_kw_##id = { .name = kwname,              \
					  .type = MK_KWT_META,         \
					  .flags = MK_KWF_NOVALUE,     \
					  .setup = mk_kw_sticky_setup, \
					  .sticky = (buf) + 1,         \
					  .doc = "sticky buffer: " doc_ }
/* byte_extract variable by name: slot index or -1. */
int mk_rule_bytevar(const struct mk_rule_build *rb, const char *name);

/*
 * Parses one rule. Returns 0 with *out set, or -1 with rb-like error text in
 * @err and the reason in *reason, and *sid the sid when it was read.
 */
int mk_rule_parse(struct mk_parse_env *env, const char *text, const char *file, uint32_t line,
		  struct mk_rule **out, char *err, size_t errlen, int *reason, uint32_t *sid);
void mk_rule_free(struct mk_rule *r);

/* Address and port expressions with variables (engine/address.c). 0 or -1, @err set. */
int mk_addr_parse(const struct mk_detect_cfg *cfg, const char *s, struct mk_addr_set *out,
		  char *err, size_t errlen);
int mk_port_parse(const struct mk_detect_cfg *cfg, const char *s, struct mk_port_set *out,
		  char *err, size_t errlen);
void mk_addr_set_free(struct mk_addr_set *a);
void mk_port_set_free(struct mk_port_set *p);
bool mk_addr_match(const struct mk_addr_set *a, uint8_t family, const uint32_t *addr);
bool mk_port_match(const struct mk_port_set *p, uint16_t port);

/* Unsigned comparison values (dsize, ttl, itype, ...), as Suricata's DetectU*Parse. */
enum mk_uint_mode {
	MK_U_EQ,
	MK_U_LT,
	MK_U_GT,
	MK_U_LE,
	MK_U_GE,
	MK_U_NE,
	MK_U_RANGE,
	MK_U_NOTRANGE,
	MK_U_BITMASK,	/* (v & a) == b */
	MK_U_NOTBITMASK /* (v & a) != b */
};

struct mk_uint {
	uint8_t mode;
	uint64_t a, b;
};

int mk_uint_parse(const char *s, uint64_t max, struct mk_uint *out);
bool mk_uint_match(const struct mk_uint *u, uint64_t v);

/* bsize (kw/transform.c): the current sticky buffer's length. */
struct mk_bsize {
	struct mk_uint u;
};

/* Text helpers shared by keyword setup functions. */
#define MK_QUOTE_HINT "(a ';' inside a value must be escaped as '\\;')"

char *mk_strtrim(char *s);
int mk_parse_u32(const char *s, uint32_t *out);
int mk_parse_i32(const char *s, int32_t *out);
/*
 * Strips the quotes of "..." in place and, with @unescape, the backslash of
 * each escape; NULL when not quoted or a quote inside is not escaped.
 */
char *mk_unquote(char *s, int unescape);
/* "..." with an unescaped closing quote. */
bool mk_quoted(const char *s);

/* ---- packet and match context ---------------------------------------------- */

/* What the matchers read of a packet, decoded once per packet. */
struct mk_pkt_info {
	const struct mk_parse *p;
	const uint8_t *payload;
	uint32_t payload_len;
	uint32_t src[4], dst[4];
	uint16_t sport, dport; /* host order */
	uint8_t family, proto, ttl, tcp_flags;
	uint8_t has_ports, has_icmp, icmp_type, icmp_code;
	uint8_t icmp_echo; /* id and seq are valid */
	uint16_t icmp_id, icmp_seq;
	uint32_t tcp_seq;
	uint8_t is_tcp_seg; /* TCP with a readable header */
};

struct mk_detect_flow;

struct mk_match_ctx {
	struct mk_detect_thread *t;
	const struct mk_pkt_info *pi; /* NULL on stream data */
	struct mk_flow *flow;
	struct mk_detect_flow *fs; /* may be NULL until needed (mk_detect_flow_state) */
	int to_client;		   /* direction of the packet or of the stream data */
	int stream;
	struct mk_buf payload;	 /* the packet's payload or the stream window (buffer payload) */
	const void *app_tx;	 /* the transaction a transaction rule is inspected on, or NULL */
	uint8_t app_proto;	 /* @app_tx's protocol (enum mk_app_proto) */
	uint32_t stream_size[2]; /* stream_size: bytes seen per direction, +1 as Suricata */
};

/* The flow's detection state, created on first use; NULL without a flow. */
struct mk_detect_flow *mk_detect_flow_state(const struct mk_match_ctx *mc);

/* ---- payload inspection (match/payload.c) ---------------------------------------- */

struct mk_insp {
	struct mk_detect_thread *t;
	const uint8_t *buf;
	uint32_t len;
	uint64_t abs_base; /* stream offset of buf[0]; 0 for packets */
	uint32_t min_end;  /* a match must end after this offset (stream windows); 0: none */
	uint32_t steps;
	uint32_t match_end;	/* out: end of the last positional match */
	uint32_t buf_id;	/* the rule's list to run: enum mk_buf_id (0: payload) */
	const struct mk_sm *sm; /* ... that list, set by mk_payload_inspect() */
	uint32_t nsm;
	uint64_t vars[MK_BYTEVARS_MAX];
};

/* 1 when the rule's keywords for buffer in->buf_id match @in's bytes. */
int mk_payload_inspect(struct mk_insp *in, const struct mk_rule *r);
/*
 * 1 when every buffer list of @r matches its buffer, fetched by its getter
 * (match/buffers.c); *@payload_end (may be NULL): where the payload
 * buffer's match ended.
 */
int mk_buffers_inspect(const struct mk_match_ctx *mc, const struct mk_rule *r,
		       uint32_t *payload_end);
/* Finds @c in buf[start, end); returns the position or -1. */
int64_t mk_content_find(const struct mk_content *c, const uint8_t *buf, uint32_t start,
			uint32_t end);
/* pcre2_match on buf[start, len); 1 with [*ms, *me), 0 no match, -1 limit. */
int mk_pcre_exec(struct mk_detect_thread *t, const struct mk_pcre *p, const uint8_t *buf,
		 uint32_t len, uint32_t start, uint32_t *ms, uint32_t *me);
void mk_pcre_thread_free(struct mk_detect_thread *t);

/* ---- threshold.config and friends (engine/config_files.c) ------------------------- */

struct mk_suppress {
	uint8_t track; /* MK_TRACK_SRC, _DST, _EITHER, or MK_TRACK_RULE: every alert */
	struct mk_addr_set addrs;
	struct mk_suppress *next;
};

struct mk_tcfg_entry {
	uint32_t gid, sid; /* 0 = any */
	int kind;	   /* 0 suppress, 1 threshold/event_filter, 2 rate_filter */
	struct mk_thresh_spec spec;
	uint8_t track;
	struct mk_addr_set addrs; /* suppress ip, when given */
	int has_addrs;
};

/* threshold/detection_filter/rate_filter options; @kind 0, 1, 2. 0 or -1 with @err. */
int mk_thresh_parse(const char *value, int kind, struct mk_thresh_spec *sp, char *err,
		    size_t errlen);
/* @path NULL: the built-in standard classes (engine/defaults.c). */
int mk_load_classification(const char *path, struct mk_parse_env *env, uint32_t *errors);
extern const char mk_detect_builtin_classification[];
int mk_load_reference_config(const char *path, struct mk_parse_env *env, uint32_t *errors);
int mk_load_threshold_config(const char *path, const struct mk_detect_cfg *cfg,
			     struct mk_tcfg_entry **out, uint32_t *n, uint32_t *errors);
/* One threshold.config line; 0, or -1 with @err. */
int mk_threshold_line(const char *line, const struct mk_detect_cfg *cfg, struct mk_tcfg_entry *e,
		      char *err, size_t errlen);
void mk_parse_env_free(struct mk_parse_env *env);

/* ---- prefilter (engine/prefilter.c) ----------------------------------------------- */

/* One Hyperscan database and its pattern -> rules map. */
struct mk_pf_pending;

struct mk_pf_db {
	void *db;		       /* hs_database_t */
	struct mk_pf_pending *pending; /* the patterns until mk_prefilter_compile() */
	uint32_t npat;		       /* distinct patterns */
	uint32_t maxlen;	       /* the longest pattern, for scan overlaps */
	uint32_t *off;		       /* rules anchored by pattern p: rules[off[p], off[p + 1]) */
	uint32_t *rules;	       /* rule numbers, ascending per pattern */
};

struct mk_rule_list {
	uint32_t *rules; /* rule numbers, ascending */
	uint32_t n, cap;
};

/* Appends @v (util.c; the engine's groups and the prefilter share it). 0 or -ENOMEM. */
int mk_rule_list_add(struct mk_rule_list *l, uint32_t v);

/*
 * The rules a packet (or a stream chunk) is checked against: one group per
 * packet, so one scan. The prefilter indexes the rules with a fast pattern;
 * the others (nopf) are verified every time.
 */
struct mk_group {
	struct mk_pf_db *pf;
	struct mk_rule_list all; /* every rule of the group, for the no-prefilter mode */
	struct mk_rule_list nopf;
	/*
	 * Packet groups: every indexed rule's anchor lies within this many
	 * payload bytes (depth/offset), so a scan reads no further; 0: all.
	 */
	uint32_t scan_bound;
	uint32_t anchor_maxlen; /* the longest anchor: a stream scan's overlap */
	uint32_t id;		/* index in the engine's group array */
};

/*
 * Per protocol class and direction, as Suricata's: the groups are keyed by
 * the server's port (the destination port of packets to the server, the
 * source port of packets to the client), each holding the rules for that
 * port and the rules for any port; every other port has the `other` group.
 * Classes without ports have `other` only.
 */
struct mk_group_set {
	uint16_t *ports; /* sorted */
	struct mk_group **port_groups;
	uint32_t nports;
	struct mk_group *other;
};

/*
 * Chooses each rule's anchors (engine/prefilter.c: its rarest content over the
 * set, for streams and for packets). 0 or -ENOMEM.
 */
int mk_prefilter_anchors(struct mk_rule *const *rules, uint32_t nrules);
/* The bytes the prefilter looks for as rule @r's anchor, as a content (mk_content_find()). */
void mk_prefilter_anchor(const struct mk_rule *r, int pkt, struct mk_content *out);
/*
 * @pkt: a packet group (packet anchors, scan_bound set). Chooses the group's
 * patterns; the database is compiled later, with every other group's, by
 * mk_prefilter_compile(). 0 or -errno.
 */
int mk_prefilter_build(struct mk_group *g, struct mk_rule *const *rules, int pkt,
		       struct mk_detect_load_stats *st);
/*
 * Compiles the databases of @groups, several at a time on the CPUs meerkat
 * may use; with @cache_dir (NULL or "": none), a database compiled before
 * from the same patterns for the same CPU is read from there instead, and a
 * new one is written there. 0 or -errno.
 */
int mk_prefilter_compile(struct mk_group *const *groups, uint32_t n, const char *cache_dir,
			 struct mk_detect_load_stats *st);
void mk_prefilter_free(struct mk_pf_db *pf);
/* Scratch size: grows *scratch for this database (Hyperscan). 0 or -ENOMEM. */
int mk_prefilter_scratch(const struct mk_pf_db *pf, void **scratch);
void mk_prefilter_scratch_free(void *scratch);

typedef void (*mk_pf_hit_fn)(void *ctx, uint32_t pattern);
/* Calls @hit once for each pattern found in buf[0, len). */
int mk_prefilter_scan(const struct mk_pf_db *pf, void *scratch, const uint8_t *buf, uint32_t len,
		      mk_pf_hit_fn hit, void *ctx);
int mk_prefilter_available(void);

/* ---- IP-only rules (engine/iponly.c) ------------------------------------------ */

/* The packet classes and directions an IP-only rule may match in, as bits. */
#define MK_IPONLY_BIT(pc, to_client) (1u << ((pc)*2 + (to_client)))

struct mk_iponly_rule {
	const struct mk_rule *r;
	uint32_t num;  /* its number in the engine */
	uint32_t mask; /* MK_IPONLY_BIT()s */
};

struct mk_iponly;
/* Indexes @n address-only rules, given in ascending order. *@out NULL when @n is 0. 0 or -ENOMEM. */
int mk_iponly_build(const struct mk_iponly_rule *rules, uint32_t n, struct mk_iponly **out);
void mk_iponly_free(struct mk_iponly *io);
size_t mk_iponly_mem(const struct mk_iponly *io);
/*
 * Calls @add for every rule whose addresses may hold a packet from @src to
 * @dst (network order) in class and direction @bit: two binary searches and
 * the family's wide rules. A superset: the header match decides.
 */
void mk_iponly_lookup(const struct mk_iponly *io, uint8_t family, const uint32_t *src,
		      const uint32_t *dst, uint32_t bit, void (*add)(void *, uint32_t), void *arg);

/* ---- engine ---------------------------------------------------------------- */

struct mk_sid_entry {
	uint64_t key; /* gid << 32 | sid */
	uint32_t rule;
};

/*
 * A transaction prefilter (engine/tx_prefilter.c): the anchors of the
 * transaction rules whose anchor is a content of buffer @id, with
 * transforms @xf, read in direction @to_client; scanned when the
 * transaction has @side.
 */
struct mk_tx_pf {
	uint8_t id, to_client, side;
	const struct mk_xform_chain *xf; /* a rule's chain, compared by value */
	struct mk_group *g;		 /* all: its rules; pf: their anchors' database */
	uint64_t *rules;		 /* the same rules as bits by app_idx (app_words words) */
};

/* The refused rules by reason, without sids or values (engine/refusals.c). */
#define MK_REFUSALS_MAX 1024 /* distinct reasons kept; the rest are counted together */
struct mk_refusal {
	char *why;
	uint32_t n;
};
struct mk_refusals {
	struct mk_refusal *v; /* most frequent first once sorted */
	uint32_t n, cap;
	uint32_t rules; /* rules refused */
	uint32_t other; /* of them, refused for a reason past the table */
	uint32_t dead;	/* loaded, checking a flowbit no rule sets: they cannot fire */
};
/* @err (a rule's error, without file:line and sid) as a reason: names kept, values out. */
void mk_refusal_reason(const char *err, char *out, size_t size);
int mk_refusals_add(struct mk_refusals *t, const char *err);
void mk_refusals_sort(struct mk_refusals *t);
void mk_refusals_free(struct mk_refusals *t);
unsigned int mk_refusals_lines(const struct mk_refusals *t, unsigned int max,
			       void (*line)(const char *text, void *arg), void *arg);
/* Warns of each flowbit loaded rules check and none sets: they cannot fire. */
int mk_detect_check_flowbits(struct mk_detect_engine *e);

/* Distinct sets of transaction parts rules wait for (MK_BUF_SIDE_* combinations). */
#define MK_APP_NEED_CLASSES 32

struct mk_detect_engine {
	_Atomic uint32_t refcnt;
	struct mk_rule **rules;
	uint32_t nrules;
	struct mk_parse_env env;
	struct mk_group_set pkt[MK_PC_MAX][2]; /* [class][to_client] */
	struct mk_group_set stream[2];	       /* TCP streams, by data direction */
	struct mk_group **groups;	       /* every group, by id */
	uint32_t ngroups;
	struct mk_sid_entry *sids; /* sorted by key */
	struct mk_tcfg_entry *tcfg;
	uint32_t ntcfg;
	struct mk_suppress *suppress_pool; /* owns the suppress lists rules point to */
	uint32_t stream_window;
	uint32_t stream_reach; /* bytes a window may keep for an armed rule */
	uint32_t win_small;    /* a plain window's buffer: stream_window or head, rounded up */
	uint64_t reach_budget; /* a worker's buffers of longer windows (armed rules), bytes */
	uint32_t stream_head;  /* bytes from stream offset 0 kept for absolute keywords */
	uint32_t has_stream;   /* any stream rule */
	uint32_t has_iponly;
	struct mk_iponly *iponly;      /* the address-only rules, out of the packet groups */
	struct mk_rule_list app_rules; /* transaction rules (HTTP), in rule order */
	/*
	 * The same as bitmaps of app_words words (engine.c: build_app_bits):
	 * app_anchored the rules with a prefilter anchor (tx_pf), app_need[k]
	 * the rules needing the parts app_need_val[k] (MK_BUF_SIDE_*), so that
	 * mk_detect_tx() visits only the rules a transaction can make progress on.
	 */
	uint32_t app_words;
	uint64_t *app_anchored;
	uint64_t *app_need[MK_APP_NEED_CLASSES];
	uint8_t app_need_val[MK_APP_NEED_CLASSES];
	uint8_t app_need_proto[MK_APP_NEED_CLASSES]; /* the class's rules' app_proto */
	uint32_t napp_need;
	struct mk_tx_pf *txpf; /* their prefilters, one per buffer, chain and direction */
	uint32_t ntxpf;
	int inline_mode;
	int no_prefilter;
	struct mk_detect_load_stats stats;
	struct mk_refusals refusals;
};

uint64_t mk_detect_master_generation(struct mk_detect_master *m);
/* A new rule group in the engine's list (engine/engine.c); NULL when out of memory. */
struct mk_group *mk_detect_group_new(struct mk_detect_engine *e);
/* Anchors the transaction rules in per-buffer databases (engine/tx_prefilter.c). 0 or -errno. */
int mk_tx_prefilter_build(struct mk_detect_engine *e);
/*
 * Marks in @bits (one bit per transaction rule, app_idx) the rules whose
 * anchor the transaction's buffers hold, scanning only the buffers some
 * rule of @want (not done, its parts there) reads; a body without transforms is
 * scanned from where the last scan of it stopped (less the longest
 * pattern), its hits kept in @st. Returns 0 when it could not scan (every
 * rule stays a candidate) (match/buffers.c).
 */
int mk_tx_prefilter_scan(const struct mk_match_ctx *mc, uint8_t progress,
			 struct mk_detect_tx_state *st, const uint64_t *want, uint64_t *bits);
/* mk_detect_engine_build(), and why it failed in @why (engine/engine.c; engine/reload.c keeps it). */
int mk_detect_engine_build_why(const struct mk_detect_cfg *cfg, const struct mk_detect_engine *prev,
			       struct mk_detect_engine **out, char *why, size_t whylen);
/* Calls every registered rule hook on @r (detect.h). 0 or the first hook's -errno. */
int mk_detect_rule_hooks_run(struct mk_rule *r);

/* ---- worker ---------------------------------------------------------------- */

/* What a thread needs to use an engine: made by a reload, off the packet path, or by the thread. */
struct mk_detect_prep {
	void *scratch;	/* Hyperscan scratch for every database of the engine */
	uint64_t *bits; /* candidate bitmap, then its summary (cand_sum) */
	uint32_t words; /* of the bitmap */
	uint32_t *cand;
};

int mk_detect_prep_new(const struct mk_detect_engine *e, struct mk_detect_prep *p);
void mk_detect_prep_free(struct mk_detect_prep *p);
/* One set prepared for generation @gen (engine/reload.c): 0, or -ENOENT (none left). */
int mk_detect_master_take_prep(struct mk_detect_master *m, uint64_t gen, struct mk_detect_prep *p);
/* A thread of @m is created (+1) or freed (-1): how many sets a reload prepares. */
void mk_detect_master_threads(struct mk_detect_master *m, int delta);

struct mk_detect_thread {
	struct mk_detect_master *m; /* NULL: fixed engine */
	struct mk_detect_engine *eng;
	uint64_t gen;
	void *scratch;	     /* Hyperscan scratch */
	void *pcre_md;	     /* pcre2_match_data */
	void *pcre_mctx;     /* pcre2_match_context */
	void *pcre_jit;	     /* pcre2_jit_stack */
	uint64_t *cand_bits; /* candidate bitmap, one bit per rule (match/detect.c) */
	uint64_t *cand_sum;  /* one bit per word of cand_bits that is not 0 */
	uint32_t *cand;
	uint32_t ncand;
	const struct mk_pf_db *cur_pf; /* prefilter callback context */
	struct mk_stream_win *cur_win; /* ... and the window it arms rules in, or NULL */
	uint64_t arm_until;	       /* ... until this stream offset */
	/* a stream window and its new chunk, contiguous, while one is inspected */
	uint8_t *sbuf;
	uint32_t sbuf_cap;
	uint64_t large_bytes; /* buffers of windows kept beyond win_small (armed rules) */
	/* current packet */
	struct mk_detect_pkt pkt;
	struct mk_pkt_info pi;
	int have_pi;
	unsigned int verdict;
	int stop; /* pass or drop: no more rules for this packet */
	struct mk_detect_alert alerts[MK_ALERTS_MAX];
	uint32_t alert_off[MK_ALERTS_MAX]; /* payload offsets in the arena */
	unsigned int nalerts;
	uint8_t *arena; /* payload copies of this packet's alerts */
	size_t arena_used, arena_cap;
	uint64_t swap_max_ns; /* longest adoption of a reloaded engine (one packet's delay) */
	uint64_t cnt[MK_DETECT_CNT_MAX];
	/* the chunk the application layer parses now (mk_detect_stream_app()) */
	const struct mk_stream_chunk *app_chunk;
	const struct mk_flow *app_chunk_flow;
	int app_chunk_dir;
	uint64_t *txcand; /* transaction rules the prefilter found, by app_idx */
	uint64_t *txwant; /* transaction rules not done whose parts the transaction has */
	uint32_t txcand_words;
	/* transformed buffers of the transaction being inspected (match/buffers.c) */
	struct mk_xform_cached *xcache;
	uint32_t nxcache, capxcache;
	/* tag (kw/tag.c): set once a rule tagged; this worker's tagged hosts */
	uint8_t tag_used;
	struct mk_tag_host *tag_hosts; /* MK_TAG_HOSTS slots, allocated on the first host tag */
	uint32_t tag_nhosts;	       /* slots in use */
	/* the packet the host tags last counted, and whether they covered it (kw/tag.c) */
	const struct mk_parse *tag_last_parse;
	const uint8_t *tag_last_ip;
	uint64_t tag_last_ts;
	uint8_t tag_last_hit; /* 1: a host tag covered it, 2: counted */
};

/* ---- per-flow state ---------------------------------------------------------- */

/*
 * A rule whose anchor the prefilter saw in a direction's stream: verified on
 * every chunk while the anchor can still be in the window (its other parts
 * may come later).
 */
struct mk_armed {
	uint32_t rule;
	uint64_t until; /* the anchor ended at or before this stream offset */
	uint64_t from;	/* the window started here when it was seen: kept while armed */
};

/*
 * One direction's stream window: the bytes the next inspection sees again
 * (a chunk is inspected together with them, in the worker's buffer).
 */
struct mk_stream_win {
	uint8_t *buf;
	uint32_t len, cap;
	uint32_t large; /* cap, when counted in the worker's large_bytes */
	uint64_t base;	/* stream offset of buf[0] */
	uint8_t started;
	uint64_t gen; /* engine generation the armed rules belong to */
	struct mk_armed *armed;
	uint32_t narmed, caparmed;
};

struct mk_flowint {
	uint32_t id;
	uint32_t value;
};

struct mk_seg_alert {
	uint32_t rule;
	uint8_t dir, used;
	uint32_t seq_end; /* TCP sequence number after the match */
};

struct mk_detect_flow {
	uint32_t *bits;
	uint32_t nbits; /* words */
	struct mk_flowint *ints;
	uint32_t nints, capints;
	uint32_t alert_seq;
	uint8_t passed, dropped;
	uint8_t dedup_next;
	struct mk_seg_alert dedup[MK_DEDUP_SLOTS];
	struct mk_stream_win win[2]; /* by data direction: [to_client] */
	/* tag:session (kw/tag.c): what is left of the flow's tag; tag_metric 0: none */
	uint8_t tag_metric;    /* enum mk_tag_metric */
	uint64_t tag_left;     /* packets or bytes still tagged */
	uint64_t tag_until_us; /* seconds: packets up to this time are tagged */
};

/*
 * tag (kw/tag.c). The packets after a tagging rule's match: of its flow
 * (session) or to and from one of its hosts (host, a bounded table per
 * worker). mk_tag_packet() runs in mk_detect_begin() once a tag was set.
 */
enum mk_tag_metric { MK_TAG_PACKETS = 1, MK_TAG_SECONDS, MK_TAG_BYTES };
#define MK_TAG_HOSTS 4096u		 /* per worker, a power of two */
#define MK_TAG_HOST_MAX_US 3600000000ull /* a packets/bytes host tag lasts at most an hour */

/* Marks the packet of mk_detect_begin() tagged (MK_DETECT_V_TAGGED) when a tag covers it. */
void mk_tag_packet(struct mk_detect_thread *t);
void mk_tag_thread_free(struct mk_detect_thread *t);

/* The flowbits a rule sets or toggles (checks 0) and needs set (checks 1). */
void mk_flowbits_of_rule(const struct mk_rule *r, void (*fn)(uint32_t id, int checks, void *arg),
			 void *arg);
bool mk_flowbit_isset(const struct mk_detect_flow *fs, uint32_t id);
int mk_flowbit_set(struct mk_detect_flow *fs, uint32_t id, int op);
struct mk_flowint *mk_flowint_get(struct mk_detect_flow *fs, uint32_t id, int create);

/* Rule header against a packet/stream direction (match/detect.c). */
bool mk_rule_header_match(const struct mk_rule *r, uint8_t family, const uint32_t *src,
			  const uint32_t *dst, uint16_t sport, uint16_t dport, int has_ports);

#endif /* MK_DETECT_INT_H */
