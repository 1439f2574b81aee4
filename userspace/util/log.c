// SPDX-License-Identifier: GPL-2.0-only
/* The logger: level-filtered lines on stderr, libbpf/libxdp routed in. */
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "log.h"

static enum mk_log_level log_level = MK_LOG_INFO;
static int libs_quiet;
/* each program names itself (mk_log_init); libraries and tests log as meerkat */
static const char *log_prog = "meerkat";

void mk_log_init(const char *prog)
{
	log_prog = prog;
}

const char *mk_log_prog(void)
{
	return log_prog;
}

void mk_log_set_level(enum mk_log_level level)
{
	log_level = level;
}

enum mk_log_level mk_log_get_level(void)
{
	return log_level;
}

static const char *const level_names[] = { "error", "warning", "info", "debug" };

static void log_vprint(enum mk_log_level level, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	fprintf(stderr, "%s: %s: ", mk_log_prog(), level_names[level]);
	vfprintf(stderr, fmt, ap);
}

void mk_log(enum mk_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(level, fmt, ap);
	va_end(ap);
	if (level <= log_level && fmt[0] && fmt[__builtin_strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
}

void mk_log_libs_quiet(int quiet)
{
	libs_quiet = quiet;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	enum mk_log_level l = level == LIBBPF_WARN && !libs_quiet	   ? MK_LOG_WARN :
			      level == LIBBPF_INFO || level == LIBBPF_WARN ? MK_LOG_DEBUG :
									     MK_LOG_DEBUG + 1;

	if ((int)l > (int)log_level)
		return 0;
	log_vprint(l > MK_LOG_DEBUG ? MK_LOG_DEBUG : l, fmt, ap);
	return 0;
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	enum mk_log_level l = level == LIBXDP_WARN && !libs_quiet	   ? MK_LOG_WARN :
			      level == LIBXDP_INFO || level == LIBXDP_WARN ? MK_LOG_DEBUG :
									     MK_LOG_DEBUG + 1;

	if ((int)l > (int)log_level)
		return 0;
	log_vprint(l > MK_LOG_DEBUG ? MK_LOG_DEBUG : l, fmt, ap);
	return 0;
}

void mk_log_route_libs(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}
