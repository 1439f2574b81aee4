// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SSH keywords: sticky buffers read from an SSH session (its one
 * transaction; applayer/ssh/ssh_detect.c): the banner's protocol and
 * software versions (the client's, the server's in a to-client rule), the
 * client's HASSH and the server's HASSH server, hash and string. The FTP
 * ones (a command's name and argument; applayer/ftp/ftp.c) and the SMTP
 * ones (a mail's HELO, MAIL FROM, each RCPT TO; applayer/smtp/smtp.c).
 */
#include <string.h>
#include "applayer.h"
#include "detect_int.h"

static const struct {
	const char *name;
	uint8_t buf;
} kw_bufs[] = {
	{ "ssh.proto", MK_BUF_SSH_PROTO },
	{ "ssh_proto", MK_BUF_SSH_PROTO },
	{ "ssh.software", MK_BUF_SSH_SOFTWARE },
	{ "ssh_software", MK_BUF_SSH_SOFTWARE },
	{ "ssh.hassh", MK_BUF_SSH_HASSH },
	{ "ssh.hassh.string", MK_BUF_SSH_HASSH_STRING },
	{ "ssh.hassh.server", MK_BUF_SSH_HASSH_SERVER },
	{ "ssh.hassh.server.string", MK_BUF_SSH_HASSH_SERVER_STRING },
	{ "ftp.command", MK_BUF_FTP_COMMAND },
	{ "ftp.command_data", MK_BUF_FTP_COMMAND_DATA },
	{ "smtp.helo", MK_BUF_SMTP_HELO },
	{ "smtp.mail_from", MK_BUF_SMTP_MAIL_FROM },
	{ "smtp.rcpt_to", MK_BUF_SMTP_RCPT_TO },
};

static int setup_sticky(struct mk_rule_build *rb, const char *value)
{
	size_t i;

	(void)value;
	for (i = 0; i < MK_ARRAY_SIZE(kw_bufs); i++)
		if (!strcmp(kw_bufs[i].name, rb->cur_kw->name))
			return mk_kw_sticky(rb, kw_bufs[i].buf);
	return -1;
}

#define STICKY(id, kwname, doc_)                                   \
	const struct mk_kw mk_kw_##id = { .name = kwname,          \
					  .type = MK_KWT_META,     \
					  .flags = MK_KWF_NOVALUE, \
					  .setup = setup_sticky,   \
					  .doc = "sticky buffer: " doc_ }

STICKY(sb_ssh_proto, "ssh.proto",
       "the banner's protocol version (\"2.0\"): the client's, the server's in a to-client rule");
STICKY(sb_ssh_proto_, "ssh_proto", "ssh.proto");
STICKY(sb_ssh_software, "ssh.software",
       "the banner's software version (\"OpenSSH_9.2p1\"), the rule's side as ssh.proto");
STICKY(sb_ssh_software_, "ssh_software", "ssh.software");
STICKY(sb_ssh_hassh, "ssh.hassh", "the client's HASSH, 32 hex digits");
STICKY(sb_ssh_hassh_string, "ssh.hassh.string", "the client's HASSH string (kex;enc;mac;cmp)");
STICKY(sb_ssh_hassh_server, "ssh.hassh.server", "the server's HASSH server, 32 hex digits");
STICKY(sb_ssh_hassh_server_string, "ssh.hassh.server.string", "the server's HASSH server string");

STICKY(sb_ftp_command, "ftp.command", "an FTP command's name, upper case (\"RETR\")");
STICKY(sb_ftp_command_data, "ftp.command_data", "an FTP command's argument");
STICKY(sb_smtp_helo, "smtp.helo", "the SMTP session's HELO or EHLO argument");
STICKY(sb_smtp_mail_from, "smtp.mail_from", "a mail's MAIL FROM argument, with its <>");
STICKY(sb_smtp_rcpt_to, "smtp.rcpt_to", "each RCPT TO argument of a mail");

MK_KW_FAMILY_TABLE(ssh, MK_KW_FAMILY_SSH);
