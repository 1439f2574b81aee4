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

MK_KW_STICKY(
	sb_ssh_proto, "ssh.proto", MK_BUF_SSH_PROTO,
	"the banner's protocol version (\"2.0\"): the client's, the server's in a to-client rule");
MK_KW_STICKY(sb_ssh_proto_, "ssh_proto", MK_BUF_SSH_PROTO, "ssh.proto");
MK_KW_STICKY(sb_ssh_software, "ssh.software", MK_BUF_SSH_SOFTWARE,
	     "the banner's software version (\"OpenSSH_9.2p1\"), the rule's side as ssh.proto");
MK_KW_STICKY(sb_ssh_software_, "ssh_software", MK_BUF_SSH_SOFTWARE, "ssh.software");
MK_KW_STICKY(sb_ssh_hassh, "ssh.hassh", MK_BUF_SSH_HASSH, "the client's HASSH, 32 hex digits");
MK_KW_STICKY(sb_ssh_hassh_string, "ssh.hassh.string", MK_BUF_SSH_HASSH_STRING,
	     "the client's HASSH string (kex;enc;mac;cmp)");
MK_KW_STICKY(sb_ssh_hassh_server, "ssh.hassh.server", MK_BUF_SSH_HASSH_SERVER,
	     "the server's HASSH server, 32 hex digits");
MK_KW_STICKY(sb_ssh_hassh_server_string, "ssh.hassh.server.string", MK_BUF_SSH_HASSH_SERVER_STRING,
	     "the server's HASSH server string");

MK_KW_STICKY(sb_ftp_command, "ftp.command", MK_BUF_FTP_COMMAND,
	     "an FTP command's name, upper case (\"RETR\")");
MK_KW_STICKY(sb_ftp_command_data, "ftp.command_data", MK_BUF_FTP_COMMAND_DATA,
	     "an FTP command's argument");
MK_KW_STICKY(sb_smtp_helo, "smtp.helo", MK_BUF_SMTP_HELO,
	     "the SMTP session's HELO or EHLO argument");
MK_KW_STICKY(sb_smtp_mail_from, "smtp.mail_from", MK_BUF_SMTP_MAIL_FROM,
	     "a mail's MAIL FROM argument, with its <>");
MK_KW_STICKY(sb_smtp_rcpt_to, "smtp.rcpt_to", MK_BUF_SMTP_RCPT_TO,
	     "each RCPT TO argument of a mail");

MK_KW_FAMILY_TABLE(ssh, MK_KW_FAMILY_SSH);
