/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One logger with levels for every meerkat program; libbpf's and libxdp's
 * messages are routed into it. The data path counts, it never logs.
 */
#ifndef MK_LOG_H
#define MK_LOG_H

enum mk_log_level {
	MK_LOG_ERROR = 0,
	MK_LOG_WARN,
	MK_LOG_INFO,
	MK_LOG_DEBUG,
};

/* Each program names itself once; every message starts with that name. */
void mk_log_init(const char *prog);
const char *mk_log_prog(void);
void mk_log_set_level(enum mk_log_level level);
enum mk_log_level mk_log_get_level(void);
void mk_log(enum mk_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sends libbpf and libxdp messages through mk_log (warnings and up, debug with -v -v). */
void mk_log_route_libs(void);
/*
 * While set, libbpf's and libxdp's warnings are shown as debug only: around
 * a step that reports its own error (libxdp's attach, which tries its
 * dispatcher and lets libbpf warn before it falls back).
 */
void mk_log_libs_quiet(int quiet);

#define mk_err(...) mk_log(MK_LOG_ERROR, __VA_ARGS__)
#define mk_warn(...) mk_log(MK_LOG_WARN, __VA_ARGS__)
#define mk_info(...) mk_log(MK_LOG_INFO, __VA_ARGS__)
#define mk_dbg(...) mk_log(MK_LOG_DEBUG, __VA_ARGS__)

#endif /* MK_LOG_H */
